import HAL
import PacerCore

/// One point of a run as a file or the store has it: where and when, and what else the
/// recording device said there.
public struct TrackSample: Hashable, Sendable {
    public var time: UTCTimestamp
    public var position: GeoPoint
    /// Metres above mean sea level.
    public var altitude: Double?
    /// The receiver's speed over ground, metres per second.
    public var speed: Double?
    /// Degrees true.
    public var course: Double?
    /// Metres from the run's start as the recording device counted them (its odometer: a
    /// FIT record's `distance`, a TCX `DistanceMeters`, a stored point's); nil when not said.
    public var distance: Double?
    public var heartRate: Int?
    /// Seconds between beats since the sample before.
    public var rrIntervals: [Double]
    /// GGA's HDOP and satellites used, when the store kept the receiver's own.
    public var hdop: Double?
    public var satellites: Int?
    /// The receiver's fixes between the sample before and this one that were no stored point
    /// (a stored run keeps them: `TrackPoint.readings`): written as they were.
    public var readings: [Reading] = []

    /// A fix between two samples, as the store keeps it.
    public typealias Reading = TrackReading

    public init(time: UTCTimestamp, position: GeoPoint, altitude: Double? = nil, speed: Double? = nil,
                course: Double? = nil, distance: Double? = nil, heartRate: Int? = nil, rrIntervals: [Double] = [],
                hdop: Double? = nil, satellites: Int? = nil) {
        self.time = time
        self.position = position
        self.altitude = altitude
        self.speed = speed
        self.course = course
        self.distance = distance
        self.heartRate = heartRate
        self.rrIntervals = rrIntervals
        self.hdop = hdop
        self.satellites = satellites
    }
}

/// Why a track cannot be replayed: the file (or activity) and the reason.
public struct TrackTimelineError: Error, Hashable, Sendable, CustomStringConvertible {
    public var source: String
    public var reason: String

    public init(source: String, reason: String) {
        self.source = source
        self.reason = reason
    }

    public var description: String { "\(source): \(reason)" }
}

/// A past run as a replay needs it: its samples in segments (a pause or a loss of fix breaks
/// the track), times rising. Built by `append` one sample at a time, as a file is read, so a
/// file of any length is judged as it goes:
/// - A sample without a time cannot be replayed (a route, not a run): refused by the reader.
/// - A sample less than `minimumSpacing` after the one before is dropped (a 10 Hz watch: the
///   replay writes one cycle a second), as is one whose time goes back (a watch's clock
///   stepping back): counted in `dropped`.
/// - The run may last at most `maximumSpan` (a day) from its first sample to its last: a file
///   dated over years would replay for ever.
public struct TrackTimeline: Hashable, Sendable {
    /// What the track came from, for headers and errors (`run.gpx`, `activity 12`).
    public var source: String
    public var name: String?
    public private(set) var segments: [[TrackSample]] = []
    /// Samples left out (too close to the one before, or going back in time).
    public private(set) var dropped = 0
    /// Where the replay starts, when before the first sample: a stored run's start, which the
    /// receiver searched through before its first fix.
    public var start: UTCTimestamp?

    public static let maximumSpan = Duration.seconds(24 * 3600)
    public static let minimumSpacing = Duration.milliseconds(900)

    public init(source: String, name: String? = nil) {
        self.source = source
        self.name = name
    }

    public var sampleCount: Int { segments.reduce(0) { $0 + $1.count } }
    public var first: TrackSample? { segments.first { !$0.isEmpty }?.first }
    /// The last sample of any segment (a segment just broken is empty until its first).
    public var last: TrackSample? { segments.last { !$0.isEmpty }?.last }
    /// Whether any sample has a heart rate.
    public var hasHeartRate: Bool { segments.contains { $0.contains { $0.heartRate != nil } } }

    /// Starts a new segment (a pause or a loss of fix in the file): the next sample opens it.
    public mutating func breakSegment() {
        if let last = segments.last, !last.isEmpty { segments.append([]) }
    }

    /// Adds `sample` to the current segment; `place` names it in an error (`line 12`).
    public mutating func append(_ sample: TrackSample, place: String) throws(TrackTimelineError) {
        guard sample.position.latitude.isFinite, sample.position.longitude.isFinite,
              abs(sample.position.latitude) <= 90, abs(sample.position.longitude) <= 180 else {
            throw TrackTimelineError(source: source, reason: "\(place): the position is not on the Earth")
        }
        if let last {
            let gap = sample.time.millisecondsSince1970 - last.time.millisecondsSince1970
            if gap < Self.minimumSpacing.nanoseconds / 1_000_000 {
                dropped += 1
                return
            }
            if let start = first?.time.millisecondsSince1970,
               sample.time.millisecondsSince1970 - start > Self.maximumSpan.nanoseconds / 1_000_000 {
                throw TrackTimelineError(source: source, reason: "\(place): more than 24 hours after the first point (\(first!.time)): "
                    + "a replay runs a day at most")
            }
        }
        if segments.isEmpty { segments.append([]) }
        var s = sample
        // What a receiver can say: nothing negative, nothing that is not a number.
        if let v = s.speed, !(v.isFinite && v >= 0 && v < 1000) { s.speed = nil }
        if let c = s.course, !(c.isFinite) { s.course = nil }
        if let a = s.altitude, !(a.isFinite && abs(a) < 100_000) { s.altitude = nil }
        if let d = s.distance, !(d.isFinite && d >= 0) { s.distance = nil }
        if let h = s.heartRate, !(0...255).contains(h) { s.heartRate = nil }
        if let h = s.hdop, !(h.isFinite && h >= 0 && h < 100) { s.hdop = nil }
        if let n = s.satellites, !(0...99).contains(n) { s.satellites = nil }
        // Readings between the sample before (any segment's) and this one, in order.
        let after = last?.time.millisecondsSince1970 ?? Int64.min
        var previous = after
        s.readings = s.readings.filter { r in
            let t = r.time.millisecondsSince1970
            guard t > previous, t < s.time.millisecondsSince1970, abs(r.position.latitude) <= 90,
                  abs(r.position.longitude) <= 180 else { return false }
            previous = t
            return true
        }
        segments[segments.count - 1].append(s)
    }

    /// Drops an empty last segment (a break at the end of the file).
    public mutating func finish() throws(TrackTimelineError) {
        if let last = segments.last, last.isEmpty { segments.removeLast() }
        guard sampleCount >= 2 else {
            throw TrackTimelineError(source: source, reason: sampleCount == 0
                ? "no timed track points: nothing to replay (a route without times is followed with --route, or made a run with pacer nmea synth --route)"
                : "one timed track point: a replay needs two")
        }
        fillSpeeds()
    }

    /// Leaves out the odometer of each segment's last sample: a device stores a pause's or
    /// the finish's point with the distance it counted when the runner pressed, a second or
    /// so after that point's fix (Pacer's files, and a watch's total on its last record), so
    /// the leg to it is judged by its speeds instead (the device replaying it counts the rest
    /// at its own press).
    public mutating func forgetSegmentEndDistances() {
        for s in segments.indices where segments[s].count > 1 {
            segments[s][segments[s].count - 1].distance = nil
        }
    }

    /// A sample without a speed (a GPX 1.1 track says none) gets the mean of its legs' speeds
    /// (the file's odometer over the time where it has one, else the straight line): each
    /// sample's speed is then one figure, the same at the end of one leg and the start of the
    /// next, as a receiver's Doppler speed is.
    mutating func fillSpeeds() {
        for s in segments.indices {
            let segment = segments[s]
            guard segment.contains(where: { $0.speed == nil }) else { continue }
            var rates: [Double] = []
            for i in segment.indices.dropFirst() {
                let a = segment[i - 1], b = segment[i]
                let seconds = Double(b.time.millisecondsSince1970 - a.time.millisecondsSince1970) / 1000
                var metres = Geodesy.distance(a.position, b.position)
                if let da = a.distance, let db = b.distance, db >= da { metres = db - da }
                rates.append(seconds > 0 ? metres / seconds : 0)
            }
            for i in segment.indices where segment[i].speed == nil {
                let before = i > 0 ? rates[i - 1] : nil
                let after = i < rates.count ? rates[i] : nil
                switch (before, after) {
                case let (x?, y?): segments[s][i].speed = (x + y) / 2
                case let (x?, nil): segments[s][i].speed = x
                case let (nil, y?): segments[s][i].speed = y
                case (nil, nil): segments[s][i].speed = 0
                }
            }
        }
    }

    /// Metres along the track as a replay runs it (each segment's legs, none across a gap).
    public var distance: Double {
        var total = 0.0
        for segment in segments {
            for i in segment.indices.dropFirst() {
                total += TrackLeg(segment[i - 1], segment[i]).length
            }
        }
        return total
    }

    /// Metres from `a` to `b` as a replay runs them (`TrackLeg`).
    public static func legLength(_ a: TrackSample, _ b: TrackSample) -> Double {
        TrackLeg(a, b).length
    }

    /// Seconds from the first sample to the last.
    public var duration: Double {
        guard let first, let last else { return 0 }
        return Double(last.time.millisecondsSince1970 - first.time.millisecondsSince1970) / 1000
    }
}

/// The run between two consecutive samples, as the replay writes it: how long it is, and the
/// speed at each end.
///
/// The length is what the recording device counted when both samples carry its odometer (a
/// FIT or TCX file, a stored run), else what their Doppler speeds say (the mean over the
/// time: bends included, as the device's odometer counts sparse fixes), never shorter than
/// the straight line less two positions' noise; without speeds, the straight line. The
/// speeds between the ends change linearly with time, shifted evenly so that the odometer
/// of the replaying device, which adds up the mean of consecutive speeds over each second,
/// comes to the leg's length at its end.
struct TrackLeg {
    let a: TrackSample
    let b: TrackSample
    let seconds: Double
    let chord: Double
    let length: Double
    let startSpeed: Double
    let endSpeed: Double

    /// Metres by which a straight line between sparse fixes may exceed the path (their noise).
    static let chordNoise = 10.0

    init(_ a: TrackSample, _ b: TrackSample) {
        self.a = a
        self.b = b
        seconds = Double(b.time.millisecondsSince1970 - a.time.millisecondsSince1970) / 1000
        chord = Geodesy.distance(a.position, b.position)
        let mean = seconds > 0 ? chord / seconds : 0
        var startSpeed = a.speed ?? b.speed ?? mean
        var endSpeed = b.speed ?? a.speed ?? mean
        if let da = a.distance, let db = b.distance, db >= da {
            length = db - da
        } else if a.speed != nil || b.speed != nil {
            length = max((startSpeed + endSpeed) / 2 * seconds, chord - Self.chordNoise, 0)
        } else {
            length = chord
        }
        // A leg with no length is run standing, whatever speeds its ends said.
        if length == 0 {
            startSpeed = 0
            endSpeed = 0
        }
        self.startSpeed = startSpeed
        self.endSpeed = endSpeed
    }
}

/// Writes a past run (`TrackTimeline`) as a receiver would have sent it, one cycle a second
/// from the run's start (the timeline's `start`, or its first sample) to a minute after its
/// last sample (`tailSeconds`):
/// the replay `pacer run --source file:RUN.gpx`, scenarios and `battery compare` take like
/// a recorded NMEA file. The same sentences as `NMEASynthesizer` (`NMEAEpochWriter`), no
/// noise added: the positions are the file's.
///
/// - A cycle at a sample's time writes the sample: its position, altitude, speed, course (the
///   leg's direction when the file has none) and the receiver's HDOP and satellites when kept.
/// - Between samples (a watch's "smart" recording, a profile's 10 s or 60 s points) the
///   runner moves along the straight line between them, at speeds that make the leg's length
///   (`TrackLeg`): the device replaying it counts the distance the file's device counted.
/// - Before the first sample: cycles without a fix (the receiver searching). Between
///   segments: the receiver standing where the runner stopped (speed 0) when the next segment
///   starts within `pauseRadius` of it (a pause), else cycles without a fix (a loss of fix:
///   the runner went on, unseen).
public struct TrackSynthesizer {
    public let timeline: TrackTimeline
    public let epochCount: Int
    /// Whether the recording starts with `#` lines naming the generator and the track.
    public var writesHeader: Bool

    private var writer: NMEAEpochWriter
    private let startMilliseconds: Int64
    private var index = 0
    private var segment = 0
    private var sample = 0
    private var leg: PlannedLeg?
    private var lastCourse = 0.0
    private var lastSkyStep: Int64 = -1
    private var headerDone = false

    /// The next segment begins within this many metres of where the last ended: a pause.
    public static let pauseRadius = 30.0
    /// Seconds the receiver goes on after the run's last point, the runner carrying on at
    /// its speed and course: a watch is stopped on the move, and the device replaying the
    /// run ends its workout on its own clock, a second or so after the point it stored last,
    /// with a fix there (not a receiver gone silent at the finish).
    public static let tailSeconds = 60.0
    static let skyEverySeconds: Int64 = 5

    public init(_ timeline: TrackTimeline, seed: UInt64 = 1, writesHeader: Bool = true) {
        precondition(timeline.sampleCount >= 2, "a timeline is finished before it is replayed")
        self.timeline = timeline
        self.writesHeader = writesHeader
        writer = NMEAEpochWriter(constellations: [.gps, .glonass, .galileo], seed: seed, extraSentences: [])
        let first = timeline.first!.time.millisecondsSince1970
        let start = min(timeline.start?.millisecondsSince1970 ?? first, first)
        // Whole seconds before the first sample: its cycle falls on the replay's grid.
        startMilliseconds = first - (first - start) / 1000 * 1000
        let span = timeline.last!.time.millisecondsSince1970 - startMilliseconds
        epochCount = Int(span / 1000) + 1 + Int(Self.tailSeconds)
        if let a = timeline.first, let b = timeline.segments[0].dropFirst().first {
            lastCourse = a.course ?? Geodesy.bearing(a.position, b.position)
        }
    }

    /// Seconds from the replay's first cycle to the first sample.
    public var lead: Double { Double(timeline.first!.time.millisecondsSince1970 - startMilliseconds) / 1000 }

    /// Appends the next cycle's sentences (first, the header) to `out`, and tells what was
    /// written; nil after the last.
    public mutating func next(appendingTo out: inout [UInt8]) -> SynthesizedEpoch? {
        if !headerDone {
            headerDone = true
            if writesHeader { appendHeader(to: &out) }
        }
        guard index < epochCount else { return nil }
        defer { index += 1 }
        let ms = startMilliseconds + Int64(index) * 1000
        let centis = ms.floorDivided(by: 10)
        let time = UTCTimestamp(millisecondsSince1970: ms)
        let (truth, fix) = place(at: ms)
        let tracking = fix != nil
        let skyStep = Int64(index) / Self.skyEverySeconds
        let writesSky = skyStep != lastSkyStep
        if writesSky || tracking != writer.sky.tracking || index == 0 {
            writer.sky.update(at: Double(index), tracking: tracking)
        }
        lastSkyStep = skyStep
        writer.write(&out, centis: centis, fix: fix, writesSky: writesSky)
        var epoch = SynthesizedEpoch(
            index: index, time: time, elapsed: Double(index), status: tracking ? .fix : .noFix,
            position: fix?.position, altitude: fix?.altitude, speed: fix?.speed, course: fix?.course,
            truePosition: truth.position, trueAltitude: truth.altitude, trueSpeed: truth.speed,
            trueCourse: truth.course, distance: truth.distance, satellitesUsed: 0,
            satellitesInView: writer.sky.inViewTotal)
        if tracking { epoch.satellitesUsed = fix?.satellitesUsed ?? writer.sky.usedTotal }
        return epoch
    }

    /// Writes the whole recording through `sink` in chunks of about `chunkSize` bytes.
    @discardableResult
    public mutating func write<E: Error>(
        chunkSize: Int = 64 * 1024, to sink: ([UInt8]) throws(E) -> Void
    ) throws(E) -> NMEASynthesisSummary {
        try NMEAChunkedWriting.write(chunkSize: chunkSize, to: sink, next: { next(appendingTo: &$0) })
    }

    /// The whole recording in memory, for tests and short tracks.
    public mutating func recording() -> [UInt8] {
        var bytes: [UInt8] = []
        write(to: { bytes += $0 })
        return bytes
    }

    /// The heart rates of the run as a strap would have sent them, one a second from the
    /// replay's first cycle: a sample's rate (and its beat intervals) at its second, rates in
    /// between drawn linearly from the samples on either side (held where either side is 0,
    /// a strap off the skin). Nil when no sample has a heart rate.
    public func heartRateStream() -> HeartRateStream? {
        var rated: [(ms: Int64, bpm: Int, rr: [Double])] = []
        for segment in timeline.segments {
            for s in segment {
                if let bpm = s.heartRate { rated.append((s.time.millisecondsSince1970, bpm, s.rrIntervals)) }
            }
        }
        guard let first = rated.first, let last = rated.last else { return nil }
        var rows: [(seconds: Double, row: HeartRateStream.Row)] = []
        var k = 0
        var ms = first.ms
        while ms <= last.ms {
            while k + 1 < rated.count, rated[k + 1].ms <= ms { k += 1 }
            let a = rated[k]
            var bpm = a.bpm
            var rr: [Double] = []
            if a.ms == ms {
                rr = a.rr
            } else if k + 1 < rated.count {
                let b = rated[k + 1]
                if a.bpm > 0, b.bpm > 0 {
                    let f = Double(ms - a.ms) / Double(b.ms - a.ms)
                    bpm = Int((Double(a.bpm) + f * Double(b.bpm - a.bpm)).rounded())
                }
            }
            let seconds = Double(ms - startMilliseconds) / 1000
            rows.append((seconds, .measurement(HeartRateMeasurement(bpm: bpm, contact: .detected, rrIntervals: rr))))
            ms += 1000
        }
        return HeartRateStream(rows: rows)
    }

    // MARK: - Where the runner is

    private struct Truth {
        var position: GeoPoint
        var altitude: Double
        var speed: Double
        var course: Double
        var distance: Double
    }

    /// A leg with its cycles' speeds laid out: `speeds[i]` and `distances[i]` at `a` plus i
    /// seconds (and the end), the leg's length reached at `b`.
    private struct PlannedLeg {
        let leg: TrackLeg
        /// Milliseconds from `a` of each cycle inside the leg, then the leg's end.
        let offsets: [Int64]
        let speeds: [Double]
        let distances: [Double]

        /// Where `offset` is in `offsets` (whole seconds from `a`, then the leg's end), found
        /// at once: a leg across a long gap holds a cycle a second of it.
        func index(_ offset: Int64) -> Int? {
            Self.index(offset, end: offsets[offsets.count - 1], count: offsets.count)
        }

        static func index(_ offset: Int64, end: Int64, count: Int) -> Int? {
            if offset == end { return count - 1 }
            guard offset >= 0, offset < end, offset % 1000 == 0 else { return nil }
            return Int(offset / 1000)
        }
    }

    /// Metres along the track at the start of the current segment's current leg.
    private var travelled = 0.0

    private mutating func place(at ms: Int64) -> (Truth, WrittenFix?) {
        let segments = timeline.segments
        // Move on to the segment and leg holding `ms`.
        while segment < segments.count {
            let current = segments[segment]
            if sample + 1 < current.count, current[sample + 1].time.millisecondsSince1970 <= ms {
                travelled += plan(current[sample], current[sample + 1]).distances.last!
                sample += 1
                leg = nil
                continue
            }
            if sample == current.count - 1, segment + 1 < segments.count,
               segments[segment + 1][0].time.millisecondsSince1970 <= ms {
                segment += 1
                sample = 0
                leg = nil
                continue
            }
            break
        }
        let current = segments[segment]
        let a = current[sample]
        let aMs = a.time.millisecondsSince1970
        if ms < aMs {
            // Before the first sample: the receiver searching (or a fix it gave, kept).
            let truth = Truth(position: a.position, altitude: a.altitude ?? 0, speed: 0, course: lastCourse, distance: 0)
            return (truth, readingFix(a, at: ms, altitude: a.altitude ?? 0))
        }
        if ms == aMs {
            if sample + 1 < current.count {
                lastCourse = a.course ?? Geodesy.bearing(a.position, current[sample + 1].position)
            } else if let course = a.course {
                lastCourse = course
            }
            let speed = a.speed ?? 0
            let truth = Truth(position: a.position, altitude: a.altitude ?? 0, speed: speed, course: lastCourse, distance: travelled)
            return (truth, WrittenFix(position: a.position, altitude: a.altitude ?? lastAltitude(), speed: speed,
                                      course: lastCourse, satellitesUsed: a.satellites, hdop: a.hdop))
        }
        if sample + 1 < current.count {
            let b = current[sample + 1]
            let planned = plan(a, b)
            let offset = ms - aMs
            if let fix = readingFix(b, at: ms, altitude: interpolatedAltitude(a, b, at: ms)) {
                if let i = planned.index(offset) {
                    let truth = Truth(position: fix.position, altitude: fix.altitude, speed: planned.speeds[i],
                                      course: fix.course, distance: travelled + planned.distances[i])
                    return (truth, fix)
                }
            }
            guard let i = planned.index(offset) else {
                // Off the cycles' grid (a sample between whole seconds): the nearest cycle's.
                let f = Double(offset) / Double(b.time.millisecondsSince1970 - aMs)
                return interpolated(planned, fraction: f, speed: planned.leg.startSpeed + f * (planned.leg.endSpeed - planned.leg.startSpeed),
                                    distance: f * planned.leg.length)
            }
            let f = planned.leg.length > 0 ? planned.distances[i] / planned.leg.length : Double(offset) / Double(b.time.millisecondsSince1970 - aMs)
            return interpolated(planned, fraction: f, speed: planned.speeds[i], distance: planned.distances[i])
        }
        guard segment + 1 < segments.count else {
            // After the run's last point: on at its speed and course (`tailSeconds`).
            let speed = a.speed ?? 0
            let metres = speed * Double(ms - aMs) / 1000
            let (sinC, cosC) = PortableMath.sinCos(lastCourse * PortableMath.radians)
            let position = LocalPlane(origin: a.position, leastCosine: 0.01).point(east: metres * sinC, north: metres * cosC)
            let altitude = a.altitude ?? lastAltitude()
            let truth = Truth(position: position, altitude: altitude, speed: speed, course: lastCourse, distance: travelled + metres)
            return (truth, WrittenFix(position: position, altitude: altitude, speed: speed, course: lastCourse))
        }
        // After the segment's last sample, before the next segment.
        let next = segments[segment + 1][0]
        let truth = Truth(position: a.position, altitude: a.altitude ?? 0, speed: 0, course: lastCourse, distance: travelled)
        if next.readings.contains(where: { $0.time.millisecondsSince1970 <= ms }) {
            // The next segment's fixes before its first point (a run resumed).
            return (truth, readingFix(next, at: ms, altitude: a.altitude ?? lastAltitude()))
        }
        guard Geodesy.distance(a.position, next.position) <= Self.pauseRadius else { return (truth, nil) }
        return (truth, WrittenFix(position: a.position, altitude: a.altitude ?? lastAltitude(), speed: 0, course: lastCourse))
    }

    private mutating func interpolated(_ planned: PlannedLeg, fraction f: Double, speed: Double, distance: Double) -> (Truth, WrittenFix?) {
        let a = planned.leg.a, b = planned.leg.b
        let position = GeoPoint(
            latitude: a.position.latitude + f * (b.position.latitude - a.position.latitude),
            longitude: Geodesy.normalizedLongitude(
                a.position.longitude + f * Geodesy.normalizedLongitude(b.position.longitude - a.position.longitude)))
        var altitude = a.altitude ?? b.altitude ?? lastAltitude()
        if let x = a.altitude, let y = b.altitude { altitude = x + f * (y - x) }
        if planned.leg.chord > 0.5 { lastCourse = Geodesy.bearing(a.position, b.position) }
        let truth = Truth(position: position, altitude: altitude, speed: speed, course: lastCourse, distance: travelled + distance)
        return (truth, WrittenFix(position: position, altitude: altitude, speed: speed, course: lastCourse))
    }

    private var altitudeSeen: Double?

    /// The fix `sample` keeps from `ms` (`TrackSample.readings`), as written; nil without one.
    private mutating func readingFix(_ sample: TrackSample, at ms: Int64, altitude: Double) -> WrittenFix? {
        guard let r = sample.readings.first(where: { $0.time.millisecondsSince1970 == ms }) else { return nil }
        if let course = r.course { lastCourse = course }
        return WrittenFix(position: r.position, altitude: altitude, speed: r.speed ?? 0, course: lastCourse)
    }

    private func interpolatedAltitude(_ a: TrackSample, _ b: TrackSample, at ms: Int64) -> Double {
        guard let x = a.altitude else { return b.altitude ?? altitudeSeen ?? 0 }
        guard let y = b.altitude else { return x }
        let f = Double(ms - a.time.millisecondsSince1970) / Double(b.time.millisecondsSince1970 - a.time.millisecondsSince1970)
        return x + f * (y - x)
    }

    private mutating func lastAltitude() -> Double {
        altitudeSeen ?? 0
    }

    /// The leg from `a` to `b` with its cycles' speeds (see `TrackLeg`), kept while the
    /// replay is inside it.
    private mutating func plan(_ a: TrackSample, _ b: TrackSample) -> PlannedLeg {
        if let leg, leg.leg.a == a, leg.leg.b == b { return leg }
        if let altitude = a.altitude { altitudeSeen = altitude }
        let track = TrackLeg(a, b)
        let total = b.time.millisecondsSince1970 - a.time.millisecondsSince1970
        var offsets: [Int64] = [0]
        var t = Int64(1000)
        while t < total {
            offsets.append(t)
            t += 1000
        }
        offsets.append(total)
        let seconds = offsets.map { Double($0) / 1000 }
        let T = track.seconds
        var speeds = seconds.map { track.startSpeed + (track.endSpeed - track.startSpeed) * ($0 / max(T, 0.001)) }
        // The receiver's own speeds where the store kept its fixes; the others shifted evenly
        // so that the trapezoids add up to the leg's length.
        let n = speeds.count
        var known = Array(repeating: false, count: n)
        known[0] = true
        known[n - 1] = true
        let aMs = a.time.millisecondsSince1970
        for r in b.readings {
            if let i = PlannedLeg.index(r.time.millisecondsSince1970 - aMs, end: total, count: n), let v = r.speed {
                speeds[i] = v
                known[i] = true
            }
        }
        if n > 2, known.contains(false) {
            var sum = 0.0
            for i in 1..<n { sum += (speeds[i - 1] + speeds[i]) / 2 * (seconds[i] - seconds[i - 1]) }
            var weight = 0.0
            for i in 1..<(n - 1) where !known[i] { weight += (seconds[i + 1] - seconds[i - 1]) / 2 }
            let shift = (track.length - sum) / weight
            for i in 1..<(n - 1) where !known[i] { speeds[i] = max(0, speeds[i] + shift) }
        }
        var distances = [0.0]
        for i in 1..<n { distances.append(distances[i - 1] + (speeds[i - 1] + speeds[i]) / 2 * (seconds[i] - seconds[i - 1])) }
        let planned = PlannedLeg(leg: track, offsets: offsets, speeds: speeds, distances: distances)
        leg = planned
        return planned
    }

    // MARK: - Header

    private func appendHeader(to out: inout [UInt8]) {
        func line(_ text: String) { NMEAChunkedWriting.comment(text, to: &out) }
        let t = timeline
        line("Pacer track replay (pacer nmea synth --track): a past run as its receiver would have sent it, not a real recording")
        line("track \(t.source)\(t.name.map { " (\(String($0.prefix(80))))" } ?? ""): \(t.sampleCount) points in \(t.segments.count) "
            + "segment\(t.segments.count == 1 ? "" : "s"), \(NMEASynthesisRecipe.show((t.distance / 10).rounded() / 100)) km over "
            + "\(NMEASynthesisRecipe.showTime(t.duration))\(t.dropped > 0 ? ", \(t.dropped) points too close together left out" : "")")
        line("start \(UTCTimestamp(millisecondsSince1970: startMilliseconds)), 1 Hz, \(epochCount) epochs"
            + (lead > 0 ? ", searching for \(NMEASynthesisRecipe.showTime(lead)) before the first point" : ""))
    }
}
