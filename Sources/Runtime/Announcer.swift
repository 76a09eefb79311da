import Coaching
import HAL
import PacerCore

/// The device's voice beside its buzzer: composes what is said (splits, phase
/// starts, the end, the status on demand, pace cues in words) and arbitrates the one sound
/// output, on the clock, by these rules:
///
/// - One sound at a time. An announcement starts when the output is free: after the tones of
///   the last cue (their durations, rests included) and after what is being said
///   (`Speaker.duration(of:)`). So an announcement never overlaps a beep.
/// - A cue that comes while an announcement is being said cuts it (`cutAnnouncements`, a
///   `say-cut` event): a pace or safety cue never waits behind words. Announcements still
///   waiting wait on, after the cue's tones.
/// - Pace words (`pace_cues: words` or `both`) go before any waiting announcement, after
///   their cue's tones when it beeps too; they are never dropped and never cut.
/// - Safety and route cues (gps-lost, gps-back, low-battery, storage-fault, off-route,
///   on-route, waypoint-ahead, turn-around, route-end) are said after their beep with
///   `alerts: both` (the default): first in the queue, never dropped for the share, never cut.
///   A reminder (gps-lost again while the fix is still lost) beeps without words.
/// - Nothing is said while paused: an announcement due then is dropped (a status asked for
///   too: the timer stands, and so does the run's story).
/// - What the runner asks for (the status, by a press, `ctl say-status`, the page) is said
///   whatever the share and does not count towards it: a runner who asks while running is
///   never answered with silence (issue 39: a status at 1:30 was dropped for the share).
/// - Announcements take at most `maximumShare` of the run: one that would take the spoken
///   total above that share of the time since the start (plus a minute's allowance, so that
///   the first split is said) is dropped (`say-dropped`, reason `share`). Pace words neither
///   count towards it nor are dropped for it; the end's summary is always said.
///
/// The choices follow the power profile (`SpeechSettings.perProfile`): `profile(_:)` switches
/// them at a step-down; splits go on counting from where the runner is.
///
/// All of it on the clock's loop; the runtime calls in from its loop.
final class Announcer: Sendable {
    /// The grace a run starts with: the share is of (time since start + this).
    static let shareAllowance = Duration.seconds(60)

    private struct Waiting {
        var utterance: Utterance
    }

    private struct State {
        /// When the output is free: the end of the last tones or words.
        var busyUntil: Instant
        /// The announcement being said, and when it ends.
        var speaking: (key: String, end: Instant)?
        var waiting: [Utterance] = []
        var pump: ScheduledTask?
        var startedAt: Instant?
        var spoken = Duration.zero
        var paused = false
        var nextSplit: Double
        var splits = 0
        var lastSplitTimer = Duration.zero
        /// Where the last split was (its pace is over the metres since: a split after a
        /// change of split length is not one length long).
        var lastSplitDistance = 0.0
        /// The odometer and the timer at the fix before.
        var previous: (distance: Double, timer: Duration)?
        /// The choices under the profile the device is on.
        var current: SpeechSettings
        /// Alerts said whose reminders are beeps only, until what ends them (gps-back,
        /// on-route) is said.
        var alerted: Set<String> = []
        /// Where the lap under way began (a phase's start, or the last lap press): timer and
        /// odometer.
        var lapStart: (timer: Duration, distance: Double) = (.zero, 0)
    }

    /// An alert whose repeats (the cue's reminders) are not said again, and what ends it.
    static let saidOnce: [String: String?] = [
        "gps-lost": "gps-back", "off-route": "on-route", "storage-fault": nil, "strap-lost": "strap-back",
    ]

    /// The choices under every profile.
    let all: SpeechSettings
    let formatter: SpeechFormatter
    private let speaker: any Speaker
    private let clock: any PacerClock
    private let power: (any PowerMonitor)?
    /// Where the voice's events go (the runtime's `report`), set once by `attach`.
    private let reporter: LoopBound<(@Sendable (RuntimeEvent) -> Void)?>
    private let state: LoopBound<State>

    init(speaker: any Speaker, settings: SpeechSettings, book: PhraseBook, clock: any PacerClock,
         power: (any PowerMonitor)?) {
        self.speaker = speaker
        all = settings
        formatter = SpeechFormatter(book: book, units: settings.units, paceStyle: settings.paceStyle)
        self.clock = clock
        self.power = power
        state = LoopBound(State(busyUntil: clock.now, nextSplit: settings.splitDistance, current: settings), clock: clock)
        reporter = LoopBound(nil, clock: clock)
    }

    /// The choices in force now.
    var settings: SpeechSettings { state.withValue { $0.current } }

    /// The device is on (or switched to) the profile `name`: its choices from now on. A new
    /// split length counts from the runner's distance: the next split is its next multiple.
    func profile(_ name: String) {
        let next = all.under(profile: name)
        state.withValue { s in
            let length = next.splitDistance
            if length != s.current.splitDistance, length > 0 {
                let run = s.previous?.distance ?? 0
                s.nextSplit = (run / length).rounded(.down) * length + length
            }
            s.current = next
        }
    }

    /// Where the voice's events go (the runtime's `report`).
    func attach(_ report: @escaping @Sendable (RuntimeEvent) -> Void) {
        reporter.withValue { $0 = report }
    }

    private func report(_ event: RuntimeEvent) {
        reporter.current?(event)
    }

    /// Whether a pace cue still beeps (`pace_cues: words` says it in words only).
    func beeps(_ cue: Cue) -> Bool {
        let s = settings
        return !(s.enabled && Self.paceKey(cue) != nil && s.paceCues == .words)
    }

    static func paceKey(_ cue: Cue) -> String? {
        switch cue {
        case .speedUp: "faster"
        case .slowDown: "ease-off"
        case .onPace: "on-pace"
        default: nil
        }
    }

    /// The phrase book's key for a safety or route cue's words.
    static func alertKey(_ cue: Cue) -> String? {
        switch cue {
        case .gpsLost: "gps-lost"
        case .gpsBack: "gps-back"
        case .lowBattery: "low-battery"
        case .storageFault: "storage-fault"
        case .offRoute: "off-route"
        case .onRoute: "on-route"
        case .waypointAhead: "waypoint-ahead"
        case .turnAround: "turn-around"
        case .routeEnd: "route-end"
        case .strapLost: "strap-lost"
        case .strapBack: "strap-back"
        default: nil
        }
    }

    /// The phrase book's key for a heart-rate cue's words (said as pace cues are, when the
    /// runner chose words for them).
    static func heartKey(_ cue: Cue) -> String? {
        switch cue {
        case .hrHigh: "heart-high"
        case .hrLow: "heart-low"
        case .hrInZone: "heart-in"
        default: nil
        }
    }

    // MARK: What the runtime tells

    func started() {
        state.withValue { $0.startedAt = clock.now }
    }

    func paused(_ paused: Bool) {
        state.withValue { $0.paused = paused }
    }

    /// A cue's tones (`length`, rests included) start now: an announcement being said is cut,
    /// the output is busy until they end; a pace cue is said in words when the runner chose so.
    func cue(_ cue: Cue, length: Duration, coach: CoachStatus, facts: SpeechFormatter.AlertFacts = .init()) {
        let now = clock.now
        let cut = state.withValue { s -> String? in
            var cut: String?
            if let speaking = s.speaking, speaking.end > now {
                cut = speaking.key
                s.speaking = nil
                s.busyUntil = now
            }
            s.busyUntil = max(s.busyUntil, now) + length
            return cut
        }
        if let cut {
            speaker.cutAnnouncements()
            report(.speechCut(key: cut))
        }
        let choices = settings
        if choices.enabled, let key = Self.heartKey(cue), choices.paceCues != .beep, formatter.book.templateTexts[key] != nil {
            enqueue(Utterance(text: formatter.heartCue(key, facts), key: key, priority: .pace))
        } else if choices.enabled, let key = Self.paceKey(cue), choices.paceCues != .beep {
            let text = formatter.paceCue(key, speed: coach.smoothedSpeed, target: coach.phase.targetSpeed)
            enqueue(Utterance(text: text, key: key, priority: .pace))
        } else if choices.enabled, choices.alerts == .both, let key = Self.alertKey(cue), firstTime(key) {
            enqueue(Utterance(text: formatter.alert(key, facts), key: key, priority: .safety))
        } else if state.withValue({ !$0.waiting.isEmpty }) {
            schedulePump()
        }
    }

    /// The odometer and the timer after a fix: a split announcement at each split distance,
    /// its time taken where the line between this fix and the one before crosses it (fixes
    /// half a minute apart would otherwise put up to 30 s in the wrong split).
    /// Whether `key`'s words are due: not for a reminder of an alert already said.
    private func firstTime(_ key: String) -> Bool {
        state.withValue { s in
            for (alert, end) in Self.saidOnce where end == key { s.alerted.remove(alert) }
            guard Self.saidOnce[key] != nil else { return true }
            return s.alerted.insert(key).inserted
        }
    }

    func progress(_ coach: CoachStatus) {
        var said: [Utterance] = []
        state.withValue { s in
            defer { s.previous = (coach.distance, coach.elapsed) }
            let length = s.current.splitDistance
            guard length > 0 else { return }
            while coach.distance >= s.nextSplit {
                s.splits += 1
                var crossing = coach.elapsed
                if let (d0, t0) = s.previous, coach.distance > d0, s.nextSplit >= d0 {
                    crossing = t0 + (coach.elapsed - t0) * ((s.nextSplit - d0) / (coach.distance - d0))
                }
                let time = crossing - s.lastSplitTimer
                let text = formatter.split(
                    number: s.splits, time: time, length: s.nextSplit - s.lastSplitDistance, distance: s.nextSplit,
                    total: crossing)
                s.lastSplitTimer = crossing
                s.lastSplitDistance = s.nextSplit
                s.nextSplit += length
                if s.current.enabled { said.append(Utterance(text: text, key: "split", priority: .announcement)) }
            }
        }
        // Several splits at once (a long gap in the fixes): the last one is what matters.
        if let last = said.last { enqueue(last) }
    }

    /// A phase begins (`coach` right after): its start is said, led by its repeat's number
    /// at the first phase of each pass through a repeated group ("Repeat 3 of 6.").
    func phaseStarted(_ phase: Phase, index: Int, previous: Phase? = nil, coach: CoachStatus? = nil) {
        if let coach { state.withValue { $0.lapStart = (coach.elapsed, coach.distance) } }
        let choices = settings
        guard choices.enabled, choices.phases else { return }
        var words = [formatter.phaseStart(phase)]
        if let r = phase.repetition, r.count > 1,
           previous?.repetition.map({ $0.group != r.group || $0.number != r.number }) ?? true {
            words.insert(formatter.repetition(r), at: 0)
        }
        let text = words.filter { !$0.isEmpty }.joined(separator: " ")
        guard !text.isEmpty else { return }
        enqueue(Utterance(text: text, key: "phase-start", priority: .announcement))
    }

    /// The phase ends soon: "200 metres to go", "30 seconds to go" (with the phases' words).
    func toGo(metres: Double?, time: Duration?) {
        let choices = settings
        guard choices.enabled, choices.phases else { return }
        let text = formatter.toGo(metres: metres, time: time)
        guard !text.isEmpty else { return }
        enqueue(Utterance(text: text, key: "to-go", priority: .announcement))
    }

    /// The runner marked a lap (a press that ended no phase): its number, time and pace.
    func lap(number: Int, timer: Duration, distance: Double) {
        let start = state.withValue { s in
            defer { s.lapStart = (timer, distance) }
            return s.lapStart
        }
        guard settings.enabled else { return }
        let text = formatter.lap(number: number, time: timer - start.timer, length: distance - start.distance)
        guard !text.isEmpty else { return }
        enqueue(Utterance(text: text, key: "lap", priority: .announcement))
    }

    /// The gap to the ghost, on the profile's schedule: said as an announcement (dropped
    /// for the share like a split, never said while paused).
    func ghost(_ gap: GhostGap) {
        guard settings.enabled else { return }
        let text = formatter.ghost(gap)
        guard !text.isEmpty else { return }
        enqueue(Utterance(text: text, key: "ghost", priority: .announcement))
    }

    /// Whether the runner asked for `u` (the status): never dropped, not counted in the share.
    static func askedFor(_ u: Utterance) -> Bool { u.key == "status" }

    /// Where the runner stands, asked for by a press.
    func status(_ coach: CoachStatus, heart: Int? = nil) {
        let words = [formatter.status(coach), formatter.statusHeart(heart)].filter { !$0.isEmpty }.joined(separator: " ")
        enqueue(Utterance(text: words, key: "status", priority: .announcement))
    }

    /// The end's summary: said at once, after what plays (the clock stops with the activity,
    /// so it cannot wait on it): the `say` event tells how long after the end it starts.
    /// Whatever waits is dropped either way: nothing is said after the activity's end.
    func finished(timer: Duration, distance: Double) {
        let now = clock.now
        let after = state.withValue { s in
            s.pump?.cancel()
            s.pump = nil
            s.waiting.removeAll()
            return max(s.busyUntil, now) - now
        }
        let choices = settings
        guard choices.enabled, choices.finish else { return }
        let u = Utterance(text: formatter.finish(time: timer, distance: distance), key: "finish", priority: .announcement)
        say(u, after: after, at: now)
    }

    // MARK: Arbitration

    private func enqueue(_ u: Utterance) {
        state.withValue { s in
            // Higher priority first; in order within a priority.
            let index = s.waiting.firstIndex { $0.priority < u.priority } ?? s.waiting.endIndex
            s.waiting.insert(u, at: index)
        }
        schedulePump()
    }

    /// Looks at the queue now (after the current turn of the loop: a cue sounded in the same
    /// turn makes the output busy first), or when the output is free.
    private func schedulePump() {
        let now = clock.now
        let at = state.withValue { s -> Instant in
            s.pump?.cancel()
            return max(now, s.busyUntil)
        }
        let task = clock.schedule(at: at) { [self] in pump() }
        state.withValue { $0.pump = task }
    }

    private func pump() {
        let now = clock.now
        enum Step { case wait, say(Utterance), drop(Utterance, String) }
        while true {
            let step = state.withValue { s -> Step? in
                guard !s.waiting.isEmpty else { return nil }
                if s.busyUntil > now { return .wait }
                let u = s.waiting.removeFirst()
                if s.paused { return .drop(u, "paused") }
                guard u.priority == .announcement, !Self.askedFor(u) else { return .say(u) }
                let d = speaker.duration(of: u.text)
                let allowed = Duration.seconds(s.current.maximumShare
                    * (now - (s.startedAt ?? now) + Self.shareAllowance).inSeconds)
                if s.spoken + d > allowed { return .drop(u, "share") }
                return .say(u)
            }
            switch step {
            case nil:
                return
            case .wait:
                schedulePump()
                return
            case .drop(let u, let reason):
                report(.speechDropped(key: u.key, reason: reason))
            case .say(let u):
                say(u, after: .zero, at: now)
            }
        }
    }

    private func say(_ u: Utterance, after: Duration, at now: Instant) {
        let d = speaker.duration(of: u.text)
        state.withValue { s in
            if u.priority == .announcement && !Self.askedFor(u) { s.spoken += d }
            s.busyUntil = max(s.busyUntil, now) + d
            if u.priority == .announcement { s.speaking = (u.key, now + after + d) }
        }
        speaker.say(u)
        power?.speaker(speaking: d, at: now + after)
        report(.said(u, duration: d, after: after))
    }
}
