import PacerCore

/// What one receiver cycle amounted to.
public enum NMEAEpoch: Hashable, Sendable {
    /// The receiver had a valid position.
    case fix(Fix)
    /// The receiver spoke but said its position is invalid (or gave none). The time is known
    /// when the cycle carried a time of day and a date could be placed on it.
    case noFix(UTCTimestamp?)
}

/// Combines the sentences of one receiver cycle into one `Fix`: the NMEA engine's use of the
/// one `CycleAssembler`, with `NMEACycle` for what a cycle's sentences add up to.
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
    private var cycles = CycleAssembler<NMEACycle>(context: NMEACycle.Context())

    public init() {}

    /// Adds a sentence. Returns the previous cycle when this sentence starts a new one (a
    /// sentence closes at most one cycle).
    @inline(__always)
    public mutating func add(_ sentence: NMEASentence) -> NMEAEpoch? {
        var closed: NMEAEpoch?
        cycles.offer(sentence) { closed = $0 }
        return closed
    }

    /// Ends the stream: returns the cycle in progress.
    public mutating func finish() -> NMEAEpoch? {
        var closed: NMEAEpoch?
        cycles.flush { closed = $0 }
        return closed
    }

    public static let metresPerSecondPerKnot = 1852.0 / 3600.0
}

/// What the sentences of one NMEA cycle add up to.
struct NMEACycle: CycleContent {
    /// Carried from cycle to cycle: the last date and time of day (a GGA-only cycle takes
    /// the date), the year RMC's two digits are placed by, the satellites in view.
    struct Context: Sendable {
        var lastDate: CivilDate?
        var lastTimeOfDay: Int32 = 0
        var knownYear: Int?
        var inView = SatelliteCounts()
    }

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

    /// An NMEA cycle is complete only when the next begins: no sentence says it is the last.
    var isComplete: Bool { false }
    static var dropsLateReports: Bool { false }

    /// RMC, GGA, GNS, GLL and ZDA carry the cycle's time of day; VTG, GSA and GSV join.
    @inline(__always)
    static func key(of sentence: NMEASentence) -> CycleKey<Int32> {
        let timeOfDay: Int32?
        switch sentence {
        case .rmc(let s): timeOfDay = s.timeOfDay
        case .gga(let s): timeOfDay = s.timeOfDay
        case .gns(let s): timeOfDay = s.timeOfDay
        case .gll(let s): timeOfDay = s.timeOfDay
        case .zda(let s): timeOfDay = s.timeOfDay
        case .vtg, .gsa, .gsv: return .joins
        }
        return timeOfDay.map { .time($0) } ?? .untimed
    }

    @inline(__always)
    mutating func add(_ sentence: NMEASentence, context: inout Context) {
        switch sentence {
        case .rmc(let s):
            begin(s.timeOfDay)
            if let d = s.date, let date = Self.resolve(d, &context) { self.date = date }
            if s.status.isValid, let p = s.position { offer(p, rank: 2, status: s.status) } else { invalidate() }
            if let knots = s.speedKnots { speed = knots * EpochAssembler.metresPerSecondPerKnot }
            if let c = s.course { course = c }

        case .gga(let s):
            begin(s.timeOfDay)
            fixData(s.status, s.position, altitude: s.altitude, satellites: s.satellitesUsed, hdop: s.hdop)

        case .gns(let s):
            begin(s.timeOfDay)
            fixData(s.status, s.position, altitude: s.altitude, satellites: s.satellitesUsed, hdop: s.hdop)

        case .gll(let s):
            begin(s.timeOfDay)
            if s.status.isValid, let p = s.position { offer(p, rank: 1, status: s.status) } else { invalidate() }

        case .zda(let s):
            begin(s.timeOfDay)
            if let date = s.date {
                self.date = date
                context.knownYear = date.year
            }

        case .vtg(let s):
            isEmpty = false
            if s.status?.isValid != false {
                if let c = s.course, course == nil { course = c }
                if speed == nil {
                    if let knots = s.speedKnots {
                        speed = knots * EpochAssembler.metresPerSecondPerKnot
                    } else if let kmh = s.speedKmh {
                        speed = kmh / 3.6
                    }
                }
            }

        case .gsa(let s):
            isEmpty = false
            if let t = s.fixType, (1...3).contains(t) { gsaFixType = max(gsaFixType ?? 0, t) }
            if hdop == nil, let h = s.hdop { hdop = h }

        case .gsv(let s):
            if s.messageNumber == 1 { context.inView.record(s.talker, s.satellitesInView) }
        }
    }

    /// A sentence that carries the time of day (RMC, GGA, GNS, GLL, ZDA); the assembler has
    /// already closed the cycle before when the time differs.
    private mutating func begin(_ timeOfDay: Int32?) {
        if let timeOfDay { self.timeOfDay = timeOfDay }
        isEmpty = false
        hasPositionSentence = true
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
        if let altitude { self.altitude = altitude }
        if let satellites { satellitesUsed = satellites }
        if let hdop { self.hdop = hdop }
    }

    /// A position sentence that says its position is invalid vetoes the whole cycle: a receiver
    /// that sends RMC `V` next to a GGA from its demo mode has no fix a runner can use.
    private mutating func invalidate() {
        saidInvalid = true
    }

    private mutating func offer(_ p: GeoPoint, rank: Int, status: PositionStatus) {
        guard rank >= positionRank else { return }
        position = p
        positionRank = rank
        if case .valid(let q) = status { quality = q }
    }

    /// Places RMC's two-digit year in a century.
    private static func resolve(_ d: ShortDate, _ context: inout Context) -> CivilDate? {
        let year: Int
        if let known = context.knownYear {
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
        context.knownYear = year
        return date
    }

    func output(context: inout Context) -> NMEAEpoch? {
        guard !isEmpty else { return nil }
        guard let tod = timeOfDay else {
            return hasPositionSentence ? .noFix(nil) : nil
        }
        var date = self.date
        if date == nil, let last = context.lastDate {
            // Midnight: the time of day wrapped around since the last dated cycle.
            date = tod + 43_200_000 < context.lastTimeOfDay ? last.adding(days: 1) : last
        }
        var time: UTCTimestamp?
        if let date {
            context.lastDate = date
            context.lastTimeOfDay = tod
            time = UTCTimestamp(date: date, millisecondOfDay: tod)
        }
        guard let time, let position, !saidInvalid else {
            return .noFix(time)
        }
        var mode: FixMode = altitude == nil ? .twoD : .threeD
        if let t = gsaFixType, t >= 2 { mode = t == 3 ? .threeD : .twoD }
        return .fix(Fix(
            time: time, position: position, altitude: altitude, speed: speed,
            course: course, mode: mode, quality: quality, hdop: hdop,
            satellitesUsed: satellitesUsed, satellitesInView: context.inView.total))
    }
}

/// Satellites in view per talker, from the first GSV of each group; summed over talkers.
struct SatelliteCounts: Sendable {
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

