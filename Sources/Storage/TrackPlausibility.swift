import PacerCore

/// Something an import left out of a file, and why: a point dropped as a GPS glitch, an
/// elevation no runner meets, times that do not advance.
public struct ImportNote: Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var reason: String

    public init(file: String, line: Int, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    public var description: String { "\(file):\(line): \(reason)" }
}

/// What the points of an imported file (GPX or FIT, as an activity or a route) must be to
/// be a person's run: a 2-point track of 20,000 km in 1 s is not one. The readers check
/// their format; this checks that the points make sense together, and decides, case by case,
/// between refusing the file (with the point's line, or record, and the reason) and dropping
/// a few bad points and saying so.
///
/// - **Speed.** No two points of a track segment may be further apart than `maximumSpeed`
///   allows over the time between them, plus `gpsError`: 50 km/h is beyond any runner (the
///   fastest sprint ever timed peaks at 44.7 km/h, for a second or two), and 50 m is two
///   fixes each 25 m off, which a consumer receiver does under trees or between buildings.
///   At 1 Hz the 50 m dominates, so a track's jitter is never taken for speed; between points
///   a minute apart the bound is 53 km/h. Each point is compared with the last point kept and
///   with the kept points about 30 and 60 s before it, so a sustained speed (a car at
///   1 Hz moves only 28 m a second) and a pile of points at one time are caught, not only
///   jumps. Across segments (a pause, a fix lost) nothing is compared but the order of times.
/// - **Glitches are dropped, jumps refused.** A point out of line with the track is held;
///   if the track comes back in line within `longestGlitch` (5) points, the held points were
///   a GPS glitch and are dropped. The same at a segment's start (a first fix far off) and
///   end. A track that does not come back is refused at the first point out of line.
/// - **Elevations** outside `elevations` (−500 to 9,000 m: the Dead Sea's shore is at
///   −430 m, Everest's top 8,849 m) are dropped from their point, which is kept.
/// - **Few, or refused.** At most `tolerated(_:)` points, and as many elevations, may be
///   dropped: 1 in 100, and one in a file of 10 to 199 points; a file of under 10 points has
///   no room for a bad one. More is a file of nonsense, refused at the first bad point.
/// - **Times.** An activity needs a time at every point, times that never go back (a point
///   that does is out of line, so a single one is a glitch), and not all the same. A route
///   does not need times: where they go back or are all the same, they are left out and the
///   route is stored without times (its points' order is its line); its speeds are checked
///   only between points whose times advance.
/// - **Dates.** A point dated before 2000 or from 2100 is no run's (1989-12-31 is FIT's time
///   zero, 1970 a clock never set; 2126 a corrupted field): the file is refused at it. The
///   FIT reader refuses such a record at its byte with the same bounds.
/// - **Length.** At most `maximumPoints` (100,000: 27 hours at one a second, more than any
///   run or route) a file: more is refused at the first point past them. An activity's
///   statistics are computed over its points at once, so this bounds an import's memory
///   (about 60 MB at the limit) as the board's budget asks (docs/limits.md).
public struct TrackPlausibility: Hashable, Sendable {
    /// Metres per second.
    public var maximumSpeed: Double
    /// Metres two points may be apart beyond what the speed allows.
    public var gpsError: Double
    /// The times, before a point, of the kept points it is also compared with.
    public var lookBack: [Duration]
    /// Metres above sea level.
    public var elevations: ClosedRange<Double>
    /// The most points in a row that may be dropped as one glitch.
    public var longestGlitch: Int
    /// The most points a file may have.
    public var maximumPoints: Int
    /// The first moment a point may be dated (2000-01-01T00:00Z), and the first it may not
    /// (2100-01-01T00:00Z).
    public static let earliestTime = UTCTimestamp(millisecondsSince1970: 946_684_800_000)
    public static let latestTime = UTCTimestamp(millisecondsSince1970: 4_102_444_800_000)

    public init(maximumSpeed: Double = 50 / 3.6, gpsError: Double = 50, lookBack: [Duration] = [.seconds(30), .seconds(60)],
                elevations: ClosedRange<Double> = -500...9_000, longestGlitch: Int = 5, maximumPoints: Int = 100_000) {
        self.maximumSpeed = maximumSpeed
        self.gpsError = gpsError
        self.lookBack = lookBack
        self.elevations = elevations
        self.longestGlitch = longestGlitch
        self.maximumPoints = maximumPoints
    }

    public static let standard = TrackPlausibility()

    /// How many points (and, apart, how many elevations) a file of `count` points may lose.
    public func tolerated(_ count: Int) -> Int {
        count < 10 ? 0 : Swift.max(1, count / 100)
    }

    /// How far apart two points are, when it is more than a person on foot covers between
    /// their times.
    struct Gap {
        var distance: Double
        var milliseconds: Int64
    }

    /// The gap from `earlier` to `point` when no one on foot could cover it, or nil when one
    /// could. Points without both times are not compared; nor, unless `sameTime`, points at
    /// the same time (a route's times that do not advance say nothing of its line).
    func gap(from earlier: ImportedPoint, to point: ImportedPoint, sameTime: Bool = true) -> Gap? {
        guard let t0 = earlier.time, let t1 = point.time else { return nil }
        let milliseconds = t1.millisecondsSince1970 - t0.millisecondsSince1970
        guard milliseconds > 0 || (sameTime && milliseconds == 0) else { return nil }
        let distance = Geodesy.distance(earlier.position, point.position)
        guard distance > maximumSpeed * Double(milliseconds) / 1000 + gpsError else { return nil }
        return Gap(distance: distance, milliseconds: milliseconds)
    }

    /// The gap in words: "is 1115 m from the point at line 503, 1 s earlier (4014 km/h): …",
    /// or, seen from the earlier point, "the point at line 5 is 1997 m from it, 1 s later …".
    func describe(_ gap: Gap, other line: Int, fromEarlier: Bool = false) -> String {
        let span = Self.metres(gap.distance)
        let start = fromEarlier ? "the point at line \(line) is \(span) from it" : "is \(span) from the point at line \(line)"
        if gap.milliseconds == 0 {
            return start + ", at the same time: more than GPS error (\(Int(gpsError)) m)"
        }
        let kmh = Int((gap.distance / (Double(gap.milliseconds) / 1000) * 3.6).rounded())
        return start + ", \(Self.seconds(gap.milliseconds)) \(fromEarlier ? "later" : "earlier") (\(kmh) km/h): "
            + "faster than anyone on foot (\(Int((maximumSpeed * 3.6).rounded())) km/h, give or take \(Int(gpsError)) m of GPS error)"
    }

    static func metres(_ distance: Double) -> String {
        distance < 10_000 ? "\(Int(distance.rounded())) m" : "\(Int((distance / 1000).rounded())) km"
    }

    static func seconds(_ milliseconds: Int64) -> String {
        milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(Double(milliseconds) / 1000) s"
    }
}

/// Judges a file's route or track points as they are read, by `TrackPlausibility`'s rules,
/// and hands on the ones kept, in order, each with its segment number (from 0, counting only
/// segments that keep a point). Holds at most a few points: those out of line, waiting to
/// see whether the track comes back, and a segment's first few, which a glitch at the start
/// may yet drop; and the few it compares with.
final class TrackPointFilter {
    let rules: TrackPlausibility
    let file: String
    /// An activity's points: every one needs a time, and times may not go back.
    let timed: Bool
    let emit: (ImportedPoint, Int) throws -> Void

    /// Points read, kept, dropped.
    private(set) var count = 0
    private(set) var keptCount = 0
    private(set) var droppedPoints = 0
    private(set) var droppedElevations = 0
    /// The first few of each, to tell the runner where.
    private(set) var pointNotes: [ImportNote] = []
    private(set) var elevationNotes: [ImportNote] = []
    static let notesKept = 10
    /// What was dropped beyond the notes kept.
    var notesLeftOut: Int { droppedPoints - pointNotes.count + droppedElevations - elevationNotes.count }
    /// The first point dropped and why; the first elevation left out.
    private var firstDrop: (line: Int, problem: String)?
    private var firstElevation: (line: Int, value: Double)?

    /// Times: the first, whether all are that one, and whether they ever go back (a route's).
    private var firstTime: UTCTimestamp?
    private var secondLine: Int?
    private var sameTime = true
    private var previousTime: UTCTimestamp?
    private(set) var timesGoBack = false
    private(set) var anyTime = false

    // The segment being read.
    private var segment = -1
    private var emittedSegments = 0
    private var emittedInSegment = false
    /// The last point kept, in this segment or before it; the last before this segment.
    private var last: ImportedPoint?
    private var lastSegment = -1
    private var lastBeforeSegment: ImportedPoint?
    /// Kept points of this segment, at least a second apart, up to the longest look-back.
    private var recent: [ImportedPoint] = []
    /// Their times, which every one has, in milliseconds: looked through for each point,
    /// without copying a point for it.
    private var recentTimes: [Int64] = []
    private var recentStart = 0
    /// This segment's first kept points, not handed on until more than `longestGlitch` are kept.
    private var held: [ImportedPoint] = []
    private var keptInSegment = 0
    /// Points out of line with the track, with why, waiting for it to come back in line.
    private var suspects: [(point: ImportedPoint, problem: String)] = []
    /// The tag the file uses for these points, for the messages.
    private var tag = "trkpt"

    init(rules: TrackPlausibility = .standard, file: String, timed: Bool, emit: @escaping (ImportedPoint, Int) throws -> Void) {
        self.rules = rules
        self.file = file
        self.timed = timed
        self.emit = emit
    }

    /// Starts a new segment: a point's place in the file changed.
    func beginSegment() throws {
        try endSegment()
        segment += 1
        emittedInSegment = false
        lastBeforeSegment = last
    }

    func add(_ input: ImportedPoint, tag: String) throws {
        self.tag = tag
        var point = input
        count += 1
        guard count <= rules.maximumPoints else {
            throw GPXError(file: file, line: point.line, reason: "more than \(rules.maximumPoints) points: longer than "
                + "any run or route Pacer keeps (\(rules.maximumPoints / 3600) hours at one a second); split the file")
        }
        if let altitude = point.altitude, !rules.elevations.contains(altitude) {
            point.altitude = nil
            droppedElevations += 1
            if firstElevation == nil { firstElevation = (point.line, altitude) }
            if elevationNotes.count < Self.notesKept {
                elevationNotes.append(note(point.line, "<ele> \(altitude) m left out (the point is kept): "
                                                      + elevationProblem))
            }
        }
        if let time = point.time {
            guard time >= TrackPlausibility.earliestTime, time < TrackPlausibility.latestTime else {
                throw GPXError(file: file, line: point.line, reason: "<\(tag)> dated \(time.iso8601): no run's time "
                    + "(2000 to 2100); the file's times are damaged")
            }
            anyTime = true
            if let firstTime {
                if time != firstTime { sameTime = false }
            } else {
                firstTime = time
            }
            if count == 2 { secondLine = point.line }
            if let previousTime, time < previousTime { timesGoBack = true }
            previousTime = time
        } else if timed {
            throw GPXError(file: file, line: point.line,
                           reason: "<\(tag)> without <time>: an activity needs a time at every point (import the file as a route)")
        }
        try consider(point)
    }

    var elevationProblem: String {
        "outside the elevations a runner meets (\(Int(rules.elevations.lowerBound)) to \(Int(rules.elevations.upperBound)) m)"
    }

    /// Ends the reading: resolves what is held and judges the whole. Throws when the file
    /// is not a run, with the line of the first point that says so.
    func finish() throws {
        try endSegment()
        if timed, count >= 2, sameTime, let firstTime {
            throw GPXError(file: file, line: secondLine ?? 0, reason: sameTimeReason(firstTime, all: true))
        }
        let allowed = rules.tolerated(count)
        if droppedPoints > allowed, let first = firstDrop {
            throw GPXError(file: file, line: first.line, reason: "<\(tag)> \(first.problem) — "
                + "\(Self.plural(droppedPoints, "point")) of \(count) out of line like this: too many to drop as GPS "
                + "glitches (\(toleranceRule))")
        }
        if droppedElevations > allowed, let first = firstElevation {
            throw GPXError(file: file, line: first.line, reason: "<ele> \(first.value) m is \(elevationProblem) — "
                + "\(Self.plural(droppedElevations, "elevation")) of \(count) like this: too many to drop (\(toleranceRule))")
        }
    }

    var toleranceRule: String { "at most 1 point in 100 is dropped, and none in a file of under 10 points" }

    /// A route's times, when they go back or are all the same, say nothing of its line.
    var timesUnusable: Bool { !timed && anyTime && (timesGoBack || (count >= 2 && sameTime)) }

    static func plural(_ n: Int, _ word: String) -> String { n == 1 ? "1 \(word)" : "\(n) \(word)s" }

    private func note(_ line: Int, _ reason: String) -> ImportNote {
        ImportNote(file: file, line: line, reason: reason)
    }

    private func sameTimeReason(_ time: UTCTimestamp, all: Bool) -> String {
        (all ? "all \(count) track points have" : "the first \(count) track points all have")
            + " the same time, \(time): an activity needs times that advance (import the file as a route)"
    }

    // MARK: - The judging

    /// Why `point` is out of line with the track so far, or nil.
    private func problem(_ point: ImportedPoint) -> String? {
        guard let last else { return nil }
        if timed, let t = point.time, let before = last.time, t < before {
            return "time \(t) is before the previous point's \(before) (line \(last.line))"
        }
        guard lastSegment == segment else { return nil }
        if let gap = rules.gap(from: last, to: point, sameTime: timed) { return rules.describe(gap, other: last.line) }
        guard let t = point.time?.millisecondsSince1970 else { return nil }
        for lag in rules.lookBack {
            let back = t - lag.milliseconds
            // The latest kept point at least `lag` before this one.
            var i = recent.count - 1
            while i >= recentStart, recentTimes[i] > back { i -= 1 }
            if i >= recentStart, let gap = rules.gap(from: recent[i], to: point, sameTime: timed) {
                return rules.describe(gap, other: recent[i].line)
            }
        }
        return nil
    }

    private func consider(_ point: ImportedPoint) throws {
        if let problem = problem(point) {
            suspects.append((point, problem))
            if suspects.count > rules.longestGlitch { try resolveRun(atEnd: false) }
        } else {
            if !suspects.isEmpty {
                // Back in line: what was held was a glitch.
                for s in suspects { drop(s.point, s.problem, "dropped as a GPS glitch: ") }
                suspects.removeAll()
            }
            try keep(point)
        }
    }

    /// More points out of line than a glitch has, or the segment's end with some held:
    /// either the segment's first few points were the glitch, or the held ones are (at the
    /// end), or the track does not come back and the file is refused.
    private func resolveRun(atEnd: Bool) throws {
        let run = suspects
        let together = zip(run, run.dropFirst()).allSatisfy { rules.gap(from: $0.point, to: $1.point, sameTime: timed) == nil }
        if keptInSegment > 0, keptInSegment <= rules.longestGlitch, keptInSegment < run.count, together {
            let first = run[0].point
            for p in held {
                let why = rules.gap(from: p, to: first, sameTime: timed).map { rules.describe($0, other: first.line, fromEarlier: true) }
                    ?? "out of line with the points after it"
                drop(p, why, "dropped as a GPS glitch at the start of a segment: ")
            }
            held.removeAll()
            keptInSegment = 0
            recent.removeAll()
            recentTimes.removeAll()
            recentStart = 0
            last = lastBeforeSegment
            lastSegment = segment - 1
            suspects.removeAll()
            for s in run { try consider(s.point) }
            return
        }
        if atEnd {
            for s in run { drop(s.point, s.problem, "dropped as a GPS glitch at the end of a segment: ") }
            suspects.removeAll()
            return
        }
        var reason = "<\(tag)> " + run[0].problem
        if timed, sameTime, let firstTime { reason = sameTimeReason(firstTime, all: false) }
        else { reason += " — and the track does not come back in line within \(rules.longestGlitch) points: not a GPS glitch to drop" }
        throw GPXError(file: file, line: run[0].point.line, reason: reason)
    }

    private func drop(_ point: ImportedPoint, _ problem: String, _ how: String) {
        droppedPoints += 1
        if firstDrop == nil { firstDrop = (point.line, problem) }
        if pointNotes.count < Self.notesKept { pointNotes.append(note(point.line, "<\(tag)> " + how + problem)) }
    }

    private func keep(_ point: ImportedPoint) throws {
        if lastSegment != segment {
            recent.removeAll()
            recentTimes.removeAll()
            recentStart = 0
        }
        last = point
        lastSegment = segment
        keptInSegment += 1
        if let t = point.time?.millisecondsSince1970 {
            if recentStart >= recent.count || (recentTimes.last ?? .min) + 1000 <= t {
                recent.append(point)
                recentTimes.append(t)
            }
            let horizon = t - (rules.lookBack.max() ?? .zero).milliseconds - 1000
            while recentStart < recent.count - 1, recentTimes[recentStart + 1] <= horizon {
                recentStart += 1
            }
            if recentStart > 256 {
                recent.removeFirst(recentStart)
                recentTimes.removeFirst(recentStart)
                recentStart = 0
            }
        }
        if keptInSegment <= rules.longestGlitch {
            held.append(point)
        } else {
            try flushHeld()
            try hand(point)
        }
    }

    private func flushHeld() throws {
        for p in held { try hand(p) }
        held.removeAll()
    }

    private func hand(_ point: ImportedPoint) throws {
        if !emittedInSegment {
            emittedInSegment = true
            emittedSegments += 1
        }
        keptCount += 1
        try emit(point, emittedSegments - 1)
    }

    private func endSegment() throws {
        // Each round drops at least one point (the start rule may keep the suspects afresh).
        while !suspects.isEmpty { try resolveRun(atEnd: true) }
        try flushHeld()
        keptInSegment = 0
    }
}
