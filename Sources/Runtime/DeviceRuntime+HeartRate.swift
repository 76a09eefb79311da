import Coaching
import HAL
import PacerCore

/// Where the strap stands as the workout sees it: live while measurements arrive, lost when
/// the source says so or nothing came for `DeviceRuntime.strapSilence`.
struct StrapState {
    /// The source's own status, as it last reported it.
    var source = HeartRateStatus.off
    /// Measurements arrive (the last within `strapSilence`).
    var live = false
    /// It was live once in this workout: a return is "strap back", not a first contact.
    var everLive = false
    /// The last heart rate and when it came.
    var last: (bpm: Int, at: Instant)?
    /// RR intervals since the last track point, seconds.
    var pendingRR: [Double] = []
    /// The strap's battery, per cent, when it said.
    var battery: Int?
}

/// The heart rate as the runner sees it (`RuntimeStatus.heart`).
public struct HeartStatus: Hashable, Sendable {
    public var strap: HeartRateStatus
    /// Beats per minute, while the strap is live.
    public var bpm: Int?
    /// The zone the rate is in (0 below zone 1, 6 above zone 5), when the athlete has zones.
    public var zone: Int?
    /// What the phase holds the runner to; nil when nothing.
    public var limit: HeartRateCoach.Limit?
    public var state: HeartRateCoach.State
    /// The strap's battery, per cent.
    public var battery: Int?

    public init(strap: HeartRateStatus, bpm: Int?, zone: Int?, limit: HeartRateCoach.Limit?,
                state: HeartRateCoach.State, battery: Int?) {
        self.strap = strap
        self.bpm = bpm
        self.zone = zone
        self.limit = limit
        self.state = state
        self.battery = battery
    }

    init(_ coach: HeartRateCoach, strap s: StrapState) {
        let bpm = s.live ? s.last?.bpm : nil
        self.init(strap: s.live ? .reading : (s.everLive ? .lost : s.source), bpm: bpm,
                  zone: bpm.flatMap { b in coach.zones.map { $0.zone(of: b) } }, limit: coach.limit,
                  state: coach.state, battery: s.battery)
    }

    /// The status line's `heart` object (`EventJSON`).
    public var jsonObject: EventJSON.Value {
        var fields: [(String, EventJSON.Value)] = [("strap", .text(strap.rawValue))]
        if let bpm { fields.append(("bpm", .int(bpm))) }
        if let zone { fields.append(("zone", .int(zone))) }
        switch limit {
        case .band(let r): fields.append(("limit_bpm", .array([.int(r.lowerBound), .int(r.upperBound)])))
        case .ceiling(let c): fields.append(("ceiling_bpm", .int(c)))
        case nil: break
        }
        fields.append(("hr", .text(state.rawValue)))
        if let battery { fields.append(("strap_battery_pct", .int(battery))) }
        return .object(JSONObject(fields))
    }

    /// `148 bpm z3  hr 131–143  HR HIGH`, `-- bpm  strap lost`.
    public var line: String {
        var parts = [bpm.map { "\($0) bpm" + (zone.map { " z\($0)" } ?? "") } ?? "-- bpm"]
        switch limit {
        case .band(let r): parts.append("hr \(r.lowerBound)–\(r.upperBound)")
        case .ceiling(let c): parts.append("hr ≤\(c)")
        case nil: break
        }
        switch state {
        case .high: parts.append("hr high")
        case .low: parts.append("hr low")
        case .inZone: parts.append(limit.map { if case .ceiling = $0 { "hr under" } else { "hr in zone" } } ?? "")
        case .unknown: break
        }
        if bpm == nil, strap == .lost { parts.append("strap lost") }
        return parts.filter { !$0.isEmpty }.joined(separator: "  ")
    }
}

extension DeviceRuntime {
    /// The cues a heart rate over its limit holds back.
    static let paceCues: Set<Cue> = [.speedUp, .slowDown, .onPace]

    /// No measurement for this long and the strap counts as lost (a strap sends about one a
    /// second; one off the chest stops, or says so).
    public static let strapSilence = Duration.seconds(10)

    /// A measurement older than this is not stored with a track point.
    static let heartRateFreshness = Duration.seconds(5)

    /// What the strap said, at `t` (on the loop; the firmware hands it on).
    func heartRateEvent(_ event: HeartRateEvent, at t: Instant) {
        switch event {
        case .status(let status, let detail):
            let wasLive = state.withValue { s -> Bool in
                s.strap.source = status
                return s.strap.live
            }
            report(.strap(status, detail: detail))
            if wasLive, status == .lost || status == .searching || status == .off { strapWentQuiet(at: t) }
        case .battery(let level):
            state.withValue { $0.strap.battery = level }
            report(.strapBattery(percent: level))
        case .measurement(let m):
            guard let bpm = m.heartRate else { return }  // off the chest: as if silent
            heard(bpm, rr: m.rrIntervals, at: t)
        }
    }

    private func heard(_ bpm: Int, rr: [Double], at t: Instant) {
        let (back, judgement, finished) = state.withValue { s -> (Bool, HeartRateCoach.Judgement?, Bool) in
            guard !s.finished else { return (false, nil, true) }
            let back = !s.strap.live && s.strap.everLive
            if back { s.heart.back(at: t) }
            s.strap.live = true
            s.strap.everLive = true
            s.strap.last = (bpm, t)
            s.strap.pendingRR += rr
            // The heart is judged while the timer runs, from a fresh settle after a pause.
            if s.coach.isRunning {
                if !s.heart.isRunning { s.heart.resume(at: t) }
            } else {
                s.heart.pause()
            }
            let judgement = s.heart.sample(bpm, at: t)
            s.tasks.once(.heartSilence, at: t + Self.strapSilence, on: parts.clock) { [self] in
                strapWentQuiet(at: parts.clock.now)
            }
            return (back, judgement, false)
        }
        guard !finished else { return }
        if back {
            logger.info("heart-rate strap back: \(bpm) bpm")
            sound(.strapBack, phase: nil, facts: .init(heart: bpm))
        }
        if let judgement {
            logger.info("heart rate \(judgement.bpm) bpm (window mean) against \(describe(judgement.limit)): \(judgement.cue.rawValue)")
            let edge: Int = switch judgement.limit {
            case .ceiling(let c): c
            case .band(let r): judgement.cue == .hrLow ? r.lowerBound : r.upperBound
            }
            sound(judgement.cue, phase: judgement.phase, facts: .init(heart: judgement.bpm, heartLimit: edge))
        } else {
            publish()
        }
    }

    /// Nothing from the strap for `strapSilence`, or the source lost it.
    func strapWentQuiet(at t: Instant) {
        let lost = state.withValue { s -> Bool in
            guard s.strap.live, !s.finished else { return false }
            s.strap.live = false
            s.tasks.cancel(.heartSilence)
            s.heart.lost()
            return true
        }
        guard lost else { return }
        logger.warning("heart-rate strap lost: no measurement for \(Int(Self.strapSilence.inSeconds)) s or the strap went away")
        sound(.strapLost, phase: nil)
    }

    /// The heart rate for a track point made now: the last, when fresh; the RR intervals since
    /// the last point (taken).
    func heartRateForPoint(_ s: inout State, at t: Instant) -> (bpm: Int?, rr: [Double]) {
        defer { s.strap.pendingRR.removeAll() }
        guard s.strap.live, let last = s.strap.last, t - last.at <= Self.heartRateFreshness else { return (nil, []) }
        return (last.bpm, s.strap.pendingRR)
    }

    private func describe(_ limit: HeartRateCoach.Limit) -> String {
        switch limit {
        case .band(let r): "\(r.lowerBound)-\(r.upperBound) bpm"
        case .ceiling(let c): "a ceiling of \(c) bpm"
        }
    }
}
