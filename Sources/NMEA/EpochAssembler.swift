import PacerCore

/// What one receiver cycle amounted to.
public enum NMEAEpoch: Hashable, Sendable {
    /// The receiver had a valid position.
    case fix(Fix)
    /// The receiver spoke but said its position is invalid (or gave none). The time is known
    /// when the cycle carried a time of day and a date could be placed on it.
    case noFix(UTCTimestamp?)
}

/// Combines the sentences of one receiver cycle into one `Fix`.
///
/// A cycle is the run of sentences sharing one time of day: RMC, GGA, GNS, GLL and ZDA carry
/// it; VTG, GSA and GSV carry none and join the cycle they arrive in. A cycle closes when a
/// sentence with a different time of day arrives, or at the end of the stream.
///
/// Dates: ZDA gives a four-digit year; RMC gives two digits, placed in the century nearest the
/// last full year seen (ZDA or an earlier RMC), or 1980–2079 before any. A cycle without a
/// date of its own (GGA-only) takes the last date, moved on a day when its time of day wraps
/// past midnight.
///
/// Validity: only sentences that say their position is valid (RMC/GLL status `A`, GGA quality
/// above 0, a GNS or mode letter other than `N`) contribute a position. A cycle with none, or
/// with any position sentence saying its position is invalid, yields `.noFix`.
public struct EpochAssembler {
    private struct Cycle {
        var timeOfDay: Int32?
        var date: CivilDate?
        var position: GeoPoint?
        var positionRank = 0  // 3 GGA/GNS, 2 RMC, 1 GLL: prefer the sentence with altitude
        var quality = FixQuality.gps
        var altitude: Double?
        var speed: Double?
        var course: Double?
        var hdop: Double?
        var satellitesUsed: Int?
        var gsaFixType: Int?
        var saidInvalid = false
        var hasPositionSentence = false
        var isEmpty = true
    }

    private var cycle = Cycle()
    private var lastDate: CivilDate?
    private var lastTimeOfDay: Int32 = 0
    private var knownYear: Int?
    private var inView = SatelliteCounts()

    public init() {}

    /// Adds a sentence. Returns the previous cycle when this sentence starts a new one (a
    /// sentence closes at most one cycle).
    public mutating func add(_ sentence: NMEASentence) -> NMEAEpoch? {
        var closed: NMEAEpoch?
        let emit = { (epoch: NMEAEpoch) in closed = epoch }
        switch sentence {
        case .rmc(let s):
            begin(s.timeOfDay, emit: emit)
            if let d = s.date, let date = resolve(d) { cycle.date = date }
            if s.status.isValid, let p = s.position { offer(p, rank: 2, status: s.status) } else { invalidate() }
            if let knots = s.speedKnots { cycle.speed = knots * EpochAssembler.metresPerSecondPerKnot }
            if let c = s.course { cycle.course = c }

        case .gga(let s):
            begin(s.timeOfDay, emit: emit)
            fixData(s.status, s.position, altitude: s.altitude, satellites: s.satellitesUsed, hdop: s.hdop)

        case .gns(let s):
            begin(s.timeOfDay, emit: emit)
            fixData(s.status, s.position, altitude: s.altitude, satellites: s.satellitesUsed, hdop: s.hdop)

        case .gll(let s):
            begin(s.timeOfDay, emit: emit)
            if s.status.isValid, let p = s.position { offer(p, rank: 1, status: s.status) } else { invalidate() }

        case .zda(let s):
            begin(s.timeOfDay, emit: emit)
            if let date = s.date {
                cycle.date = date
                knownYear = date.year
            }

        case .vtg(let s):
            cycle.isEmpty = false
            if s.status?.isValid != false {
                if let c = s.course, cycle.course == nil { cycle.course = c }
                if cycle.speed == nil {
                    if let knots = s.speedKnots {
                        cycle.speed = knots * EpochAssembler.metresPerSecondPerKnot
                    } else if let kmh = s.speedKmh {
                        cycle.speed = kmh / 3.6
                    }
                }
            }

        case .gsa(let s):
            cycle.isEmpty = false
            if let t = s.fixType, (1...3).contains(t) { cycle.gsaFixType = max(cycle.gsaFixType ?? 0, t) }
            if cycle.hdop == nil, let h = s.hdop { cycle.hdop = h }

        case .gsv(let s):
            if s.messageNumber == 1 { inView.record(s.talker, s.satellitesInView) }
        }
        return closed
    }

    /// Ends the stream: returns the cycle in progress.
    public mutating func finish() -> NMEAEpoch? {
        var closed: NMEAEpoch?
        close { closed = $0 }
        return closed
    }

    public static let metresPerSecondPerKnot = 1852.0 / 3600.0

    /// Called by every sentence that carries a time of day (RMC, GGA, GNS, GLL, ZDA).
    private mutating func begin(_ timeOfDay: Int32?, emit: (NMEAEpoch) -> Void) {
        if let t = timeOfDay {
            if let current = cycle.timeOfDay {
                if current != t { close(emit: emit) }
            } else if cycle.hasPositionSentence {
                // A report without a time (a receiver still searching sends `$GPRMC,,V,…`)
                // was a cycle of its own; it must not veto the timed one that follows.
                close(emit: emit)
            }
            cycle.timeOfDay = t
        } else if cycle.timeOfDay != nil {
            close(emit: emit)
        }
        cycle.isEmpty = false
        cycle.hasPositionSentence = true
    }

    /// GGA and GNS: position with altitude, satellites used and HDOP.
    private mutating func fixData(
        _ status: PositionStatus, _ position: GeoPoint?, altitude: Double?, satellites: Int?, hdop: Double?
    ) {
        guard status.isValid, let position else {
            invalidate()
            return
        }
        offer(position, rank: 3, status: status)
        if let altitude { cycle.altitude = altitude }
        if let satellites { cycle.satellitesUsed = satellites }
        if let hdop { cycle.hdop = hdop }
    }

    /// A position sentence that says its position is invalid vetoes the whole cycle: a receiver
    /// that sends RMC `V` next to a GGA from its demo mode has no fix a runner can use.
    private mutating func invalidate() {
        cycle.saidInvalid = true
    }

    private mutating func offer(_ p: GeoPoint, rank: Int, status: PositionStatus) {
        guard rank >= cycle.positionRank else { return }
        cycle.position = p
        cycle.positionRank = rank
        if case .valid(let q) = status { cycle.quality = q }
    }

    /// Places RMC's two-digit year in a century.
    private mutating func resolve(_ d: ShortDate) -> CivilDate? {
        let year: Int
        if let known = knownYear {
            let base = known / 100 * 100 + d.yearOfCentury
            // The nearest of the three centuries; the earliest on a tie.
            var nearest = base - 100
            if abs(base - known) < abs(nearest - known) { nearest = base }
            if abs(base + 100 - known) < abs(nearest - known) { nearest = base + 100 }
            year = nearest
        } else {
            year = d.yearOfCentury >= 80 ? 1900 + d.yearOfCentury : 2000 + d.yearOfCentury
        }
        guard let date = CivilDate(year: year, month: d.month, day: d.day) else { return nil }
        knownYear = year
        return date
    }

    private mutating func close(emit: (NMEAEpoch) -> Void) {
        defer { cycle = Cycle() }
        guard !cycle.isEmpty else { return }
        guard let tod = cycle.timeOfDay else {
            if cycle.hasPositionSentence { emit(.noFix(nil)) }
            return
        }
        var date = cycle.date
        if date == nil, let last = lastDate {
            // Midnight: the time of day wrapped around since the last dated cycle.
            date = tod + 43_200_000 < lastTimeOfDay ? last.adding(days: 1) : last
        }
        var time: UTCTimestamp?
        if let date {
            lastDate = date
            lastTimeOfDay = tod
            time = UTCTimestamp(date: date, millisecondOfDay: tod)
        }
        guard let time, let position = cycle.position, !cycle.saidInvalid else {
            emit(.noFix(time))
            return
        }
        var mode: FixMode = cycle.altitude == nil ? .twoD : .threeD
        if let t = cycle.gsaFixType, t >= 2 { mode = t == 3 ? .threeD : .twoD }
        emit(.fix(Fix(
            time: time, position: position, altitude: cycle.altitude, speed: cycle.speed,
            course: cycle.course, mode: mode, quality: cycle.quality, hdop: cycle.hdop,
            satellitesUsed: cycle.satellitesUsed, satellitesInView: inView.total)))
    }
}

/// Satellites in view per talker, from the first GSV of each group; summed over talkers.
struct SatelliteCounts {
    private var talkers: InlineArray<12, Talker?> = InlineArray(repeating: nil)
    private var counts: InlineArray<12, Int> = InlineArray(repeating: 0)
    /// The sum of `counts` over the talkers seen, kept as they are recorded (`total` is read
    /// at every fix).
    private var sum = 0
    private var any = false

    mutating func record(_ talker: Talker, _ count: Int) {
        for i in 0..<12 {
            let seen = talkers[i]
            if seen == talker || seen == nil {
                if seen == nil { any = true } else { sum -= counts[i] }
                talkers[i] = talker
                counts[i] = count
                sum += count
                return
            }
        }
    }

    var total: Int? { any ? sum : nil }
}

