import Coaching
import PacerCore

/// How a stretch of the run compares with its phase's speed band.
public enum PaceClass: String, Hashable, Sendable, CaseIterable {
    case slow, inBand, fast
    /// No band: an imported activity, or a stretch outside every phase.
    case unbanded
}

/// The run's points laid out on the runner's timer, with their speeds, the phases' spans on
/// the same timer, and what the map and the charts draw from them: legs classed by pace
/// against the band, kilometre marks and per-kilometre splits. Pure arithmetic on the stored
/// record.
///
/// **The timer and the distance.** A point recorded on the device carries the runner's timer
/// (pauses excluded) and the odometer's distance there, as the coach read them. The seconds
/// are those readings (a point stored while auto-pause made sure the runner stood still reads
/// the moment the timer went back to), so every pause is left out exactly; the distance along
/// is the odometer's, the one the activity's total is, so the splits add up to the activity's
/// distance and the last one ends at its timer.
///
/// **Points without them** (recorded before they were stored). Cues and phases are stored on
/// the runner's timer; points carry the receiver's UTC time. A point's timer reading is its
/// time since the start, less the pauses before it. Pauses are known from the `paused` cues
/// (the timer's reading when it stopped); a pause always starts a new segment, so the gap
/// between two segments that holds a pause's reading is that pause, and the first point after
/// it is placed at the timer's reading when it stopped (auto-pause resumes at that very fix).
/// A pause by hand is resumed by hand, some seconds before the next position update: that
/// running time is not in the points, but the activity's elapsed time less its timer is the
/// whole time paused, and the difference is shared out among the pauses (exact for one
/// pause). The distance is summed along the stored track. An imported activity has no timer:
/// its points are placed at their time since its first point.
public struct RunAnalysis: Sendable {
    /// Seconds on the timer (or since the first point, for an import), one per point.
    public var seconds: [Double]
    /// Metres per second at each point: the receiver's, else from the legs on either side.
    public var speeds: [Double]
    /// Metres at each point: the odometer's (`onOdometer`), else along the stored track
    /// (segment gaps add nothing).
    public var along: [Double]
    /// True when `along` is the odometer's distance the points carry: then the splits add up
    /// to the activity's distance, `total`.
    public var onOdometer: Bool
    /// What the splits add up to: the activity's distance (`onOdometer`), else the stored
    /// track's length.
    public var total: Double
    /// The timer at the end of the last split: the activity's timer when the points carry the
    /// timer, else the last point's seconds.
    public var end: Double?
    /// The phases on the timer: start and end seconds, band in m/s.
    public var phases: [Phase]
    /// One per point: the class of the leg that ends at it, from that point's speed against
    /// its phase's band (the first point of a segment: `unbanded`, it ends no leg).
    public var legClasses: [PaceClass]
    /// True when the x axis is the runner's timer (a recording), false for time since the
    /// first point (an import).
    public var onTimer: Bool
    public var points: [TrackPoint]

    public struct Phase: Hashable, Sendable {
        public var index: Int
        public var name: String
        public var start: Double
        public var end: Double
        public var band: ClosedRange<Double>
    }

    public init(_ input: ActivityReportInput) {
        points = input.points
        onTimer = input.source == nil && input.timer != nil
        let recorded = input.source == nil && !input.points.isEmpty
        let timers = recorded ? input.points.compactMap(\.timer) : []
        if onTimer, timers.count == input.points.count, let timer = input.timer {
            seconds = RunAnalysis.monotonic(timers.map(\.inSeconds))
            end = max(timer.inSeconds, seconds.last ?? 0)
        } else {
            seconds = onTimer ? RunAnalysis.timerSeconds(input) : RunAnalysis.sinceFirst(input.points)
            end = seconds.last
        }
        let track = TrackDistance(points: input.points, odometer: recorded)
        onOdometer = track.onOdometer
        if onOdometer {
            // The odometer's reading never goes back.
            var reading = 0.0
            along = track.along.map { reading = max(reading, $0); return reading }
            total = input.distance
        } else {
            along = track.along
            total = track.legs
        }
        speeds = RunAnalysis.pointSpeeds(input.points, seconds: seconds, along: along)
        var phases: [Phase] = []
        var start = 0.0
        for r in input.phases.sorted(by: { $0.index < $1.index }) {
            let end = start + r.duration.inSeconds
            let low = min(r.minimumSpeed, r.maximumSpeed), high = max(r.minimumSpeed, r.maximumSpeed)
            phases.append(Phase(index: r.index, name: r.name, start: start, end: end, band: low...high))
            start = end
        }
        self.phases = onTimer ? phases : []
        // Each leg takes the class of the point it ends at: that point's speed against the
        // band of the phase running at its time (a leg's average would blur a sudden change
        // of pace at a phase change into a false "too fast" or "too slow").
        var classes: [PaceClass] = []
        for i in input.points.indices {
            guard i > 0, input.points[i - 1].segment == input.points[i].segment else {
                classes.append(.unbanded)
                continue
            }
            // A phase without a pace band (a jog, a heart-rate phase) is stored with 0…0: not a
            // band to be faster than.
            let band = RunAnalysis.phase(at: seconds[i], in: self.phases)?.band
            classes.append(RunAnalysis.classify(speeds[i], band: band.flatMap { $0.upperBound > 0 ? $0 : nil }))
        }
        legClasses = classes
    }

    public static func classify(_ speed: Double, band: ClosedRange<Double>?) -> PaceClass {
        guard let band else { return .unbanded }
        return speed < band.lowerBound ? .slow : speed > band.upperBound ? .fast : .inBand
    }

    /// The phase running at `second` (the last one past its end: the workout's last moments).
    public static func phase(at second: Double, in phases: [Phase]) -> Phase? {
        if let p = phases.first(where: { second >= $0.start && second < $0.end }) { return p }
        if let last = phases.last, second >= last.end, second <= last.end + 1 { return last }
        return nil
    }

    /// The timer's readings as stored, each no later than any after it: a point stored while
    /// auto-pause made sure the runner stood still reads the moment the timer went back to.
    static func monotonic(_ readings: [Double]) -> [Double] {
        var seconds = readings
        for i in seconds.indices.reversed().dropFirst() { seconds[i] = min(seconds[i], seconds[i + 1]) }
        return seconds
    }

    /// Seconds since the first point.
    static func sinceFirst(_ points: [TrackPoint]) -> [Double] {
        guard let first = points.first else { return [] }
        return points.map { max(0, Double($0.time.millisecondsSince1970 - first.time.millisecondsSince1970) / 1000) }
    }

    /// The timer's reading at each point (see the type's documentation).
    static func timerSeconds(_ input: ActivityReportInput) -> [Double] {
        let points = input.points
        guard let first = points.first else { return [] }
        let origin = min(input.startedAt ?? first.time, first.time).millisecondsSince1970
        let wall = points.map { Double($0.time.millisecondsSince1970 - origin) / 1000 }
        // The timer's readings at the pauses, in order.
        var stops: [Double] = []
        var open = false
        for c in input.cues {
            if c.cue == Cue.paused.rawValue { stops.append(c.elapsed.inSeconds); open = true }
            if c.cue == Cue.resumed.rawValue { open = false }
        }
        var seconds: [Double] = []
        var pauseAt: [Int] = []  // indices of points that follow a pause
        var offset = 0.0
        var next = 0
        for i in points.indices {
            var candidate = wall[i] - offset
            var stopped: Double?
            // A pause ends a segment: only a segment's first point can follow one.
            let startsSegment = i == 0 || points[i - 1].segment != points[i].segment
            while startsSegment, next < stops.count, stops[next] < candidate - 0.001 {
                stopped = stops[next]
                next += 1
            }
            if let stopped {
                // The timer resumes where it stopped. Auto-pause stops it at the moment the
                // runner stood still, before the point stored at the pause: that point, and
                // any other after the moment, read what the timer held.
                candidate = stopped
                for j in seconds.indices where seconds[j] > stopped { seconds[j] = stopped }
                offset = wall[i] - candidate
                pauseAt.append(i)
            }
            seconds.append(max(0, candidate))
        }
        // The running between each resume and the next position update, shared out.
        if let timer = input.timer, !pauseAt.isEmpty, !open, let lastWall = wall.last {
            let paused = input.elapsedTime.inSeconds - timer.inSeconds
            let unplaced = (lastWall - seconds[seconds.count - 1]) - paused
            if paused >= 0, unplaced > 0 {
                let share = unplaced / Double(pauseAt.count)
                var shift = 0.0
                var k = 0
                for i in seconds.indices {
                    while k < pauseAt.count, pauseAt[k] == i {
                        shift += share
                        k += 1
                    }
                    seconds[i] += shift
                }
            }
        }
        return seconds
    }

    static func pointSpeeds(_ points: [TrackPoint], seconds: [Double], along: [Double]) -> [Double] {
        points.indices.map { i in
            if let s = points[i].speed { return s }
            func leg(_ a: Int, _ b: Int) -> Double? {
                guard a >= 0, b < points.count, points[a].segment == points[b].segment else { return nil }
                let dt = seconds[b] - seconds[a]
                return dt > 0 ? (along[b] - along[a]) / dt : nil
            }
            let legs = [leg(i - 1, i), leg(i, i + 1)].compactMap { $0 }
            return legs.isEmpty ? 0 : legs.reduce(0, +) / Double(legs.count)
        }
    }

    /// Where the stored track passes each whole kilometre, and the timer there.
    public var kilometreMarks: [(kilometre: Int, position: GeoPoint, second: Double)] {
        var marks: [(Int, GeoPoint, Double)] = []
        var k = 1
        for i in points.indices.dropFirst() where points[i - 1].segment == points[i].segment {
            while along[i] >= Double(k) * 1000, along[i] > along[i - 1] {
                let f = (Double(k) * 1000 - along[i - 1]) / (along[i] - along[i - 1])
                marks.append((k, RunAnalysis.between(points[i - 1].position, points[i].position, f),
                              seconds[i - 1] + (seconds[i] - seconds[i - 1]) * f))
                k += 1
            }
        }
        return marks.map { (kilometre: $0.0, position: $0.1, second: $0.2) }
    }

    /// The point a fraction `f` of the way from `a` to `b`, the short way round the
    /// antimeridian.
    public static func between(_ a: GeoPoint, _ b: GeoPoint, _ f: Double) -> GeoPoint {
        var lon = b.longitude
        if lon - a.longitude > 180 { lon -= 360 }
        if lon - a.longitude < -180 { lon += 360 }
        var x = a.longitude + (lon - a.longitude) * f
        if x > 180 { x -= 360 }
        if x < -180 { x += 360 }
        return GeoPoint(latitude: a.latitude + (b.latitude - a.latitude) * f, longitude: x)
    }

    /// One per kilometre (of the odometer's distance, else of the stored track), the last one
    /// the rest up to `total` (when over 10 m), ending at `end`.
    public struct Split: Hashable, Sendable {
        public var number: Int
        /// Metres in this split.
        public var distance: Double
        public var seconds: Double
        /// Timer at the split's end.
        public var cumulative: Double
        public var speed: Double { seconds > 0 ? distance / seconds : 0 }
    }

    public var splits: [Split] {
        guard let firstSecond = seconds.first else { return [] }
        var result: [Split] = []
        var previous = firstSecond
        var marks = kilometreMarks.map { (kilometre: $0.kilometre, second: $0.second) }
        // On the odometer the activity's distance and timer run on past the last point (to
        // the end of the recording): the kilometres passed there are placed on that stretch.
        if onOdometer, let lastAlong = along.last, let lastSecond = seconds.last, let end, total > lastAlong {
            var k = (marks.last?.kilometre ?? 0) + 1
            while Double(k) * 1000 <= total {
                let f = (Double(k) * 1000 - lastAlong) / (total - lastAlong)
                marks.append((k, lastSecond + (end - lastSecond) * f))
                k += 1
            }
        }
        for mark in marks {
            result.append(Split(number: mark.kilometre, distance: 1000, seconds: mark.second - previous,
                                cumulative: mark.second))
            previous = mark.second
        }
        let rest = total - Double(result.count) * 1000
        if rest > 10, let last = end {
            result.append(Split(number: result.count + 1, distance: rest, seconds: last - previous, cumulative: last))
        }
        return result
    }
}
