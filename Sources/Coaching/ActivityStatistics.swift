import PacerCore

// Statistics of recordings and routes (R6, R10, R19, R20, R22): pure computation over points,
// no storage, no I/O. The store caches what `ActivityStatistics` computes when an activity
// closes; the commands and the runtime's summary show it.

/// A point of a path for distance and elevation: a track point, or a route point without time.
public struct PathPoint: Hashable, Sendable {
    public var position: GeoPoint
    /// Metres above mean sea level.
    public var altitude: Double?

    public init(position: GeoPoint, altitude: Double?) {
        self.position = position
        self.altitude = altitude
    }
}

/// One sample of an elevation profile: the distance along the path and the altitude there.
public struct ProfileSample: Hashable, Sendable {
    /// Metres from the start, along the path (segment gaps add nothing).
    public var distance: Double
    /// Metres above mean sea level.
    public var altitude: Double

    public init(distance: Double, altitude: Double) {
        self.distance = distance
        self.altitude = altitude
    }
}

/// What a path measures without looking at time: a route's numbers (R19), the shape part of
/// an activity's (R6, R20).
public struct PathStatistics: Hashable, Sendable {
    /// Metres: the sum of great-circle distances between consecutive points of a segment; the
    /// gap between two segments (a pause, a fix loss) is not counted.
    public var distance: Double
    /// Metres climbed, counted with a hysteresis against GPS altitude noise (see `elevationChanges`).
    public var elevationGain: Double
    /// Metres descended, counted the same way.
    public var elevationLoss: Double
    /// The lowest and highest altitude of any point; nil when no point has one.
    public var minimumElevation: Double?
    public var maximumElevation: Double?
    /// Altitude against distance, evenly spaced by distance; empty when no point has an altitude.
    public var elevationProfile: [ProfileSample]
    public var start: GeoPoint?
    public var end: GeoPoint?

    public init(segments: [[PathPoint]], elevationHysteresis: Double = ActivityStatistics.Parameters().elevationHysteresis,
                profileSamples: Int = ActivityStatistics.Parameters().profileSamples) {
        var distance = 0.0
        var cumulative: [ProfileSample] = []
        var minimum: Double?
        var maximum: Double?
        var gain = 0.0
        var loss = 0.0
        for segment in segments {
            var previous: GeoPoint?
            var altitudes: [Double] = []
            altitudes.reserveCapacity(segment.count)
            for point in segment {
                if let previous { distance += Geodesy.distance(previous, point.position) }
                previous = point.position
                if let altitude = point.altitude, altitude.isFinite {
                    altitudes.append(altitude)
                    cumulative.append(ProfileSample(distance: distance, altitude: altitude))
                    minimum = Swift.min(minimum ?? altitude, altitude)
                    maximum = Swift.max(maximum ?? altitude, altitude)
                }
            }
            let changes = PathStatistics.elevationChanges(altitudes, hysteresis: elevationHysteresis)
            gain += changes.gain
            loss += changes.loss
        }
        self.distance = distance
        self.elevationGain = gain
        self.elevationLoss = loss
        self.minimumElevation = minimum
        self.maximumElevation = maximum
        self.elevationProfile = PathStatistics.resample(cumulative, total: distance, samples: profileSamples)
        self.start = segments.first(where: { !$0.isEmpty })?.first?.position
        self.end = segments.last(where: { !$0.isEmpty })?.last?.position
    }

    /// Climb and descent of one continuous run of altitudes. An altitude counts only once it
    /// is `hysteresis` metres or more above (or below) the last counted one, so GPS altitude
    /// noise smaller than that adds nothing, and a steady climb is still counted in full up
    /// to its last partial step.
    public static func elevationChanges(_ altitudes: [Double], hysteresis: Double) -> (gain: Double, loss: Double) {
        var reference: Double?
        var gain = 0.0
        var loss = 0.0
        for altitude in altitudes {
            guard let r = reference else {
                reference = altitude
                continue
            }
            if altitude - r >= hysteresis {
                gain += altitude - r
                reference = altitude
            } else if r - altitude >= hysteresis {
                loss += r - altitude
                reference = altitude
            }
        }
        return (gain, loss)
    }

    /// `samples` profile points evenly spaced over `total` metres, altitudes interpolated
    /// linearly between the points that have one.
    static func resample(_ known: [ProfileSample], total: Double, samples: Int) -> [ProfileSample] {
        guard let first = known.first, samples > 0 else { return [] }
        guard total > 0, samples > 1, known.count > 1 else {
            return [ProfileSample(distance: 0, altitude: first.altitude)]
        }
        var result: [ProfileSample] = []
        result.reserveCapacity(samples)
        var k = 0
        for i in 0..<samples {
            let d = total * Double(i) / Double(samples - 1)
            while k + 1 < known.count, known[k + 1].distance < d { k += 1 }
            let altitude: Double
            if d <= known[0].distance {
                altitude = known[0].altitude
            } else if k + 1 >= known.count {
                altitude = known[known.count - 1].altitude
            } else {
                let a = known[k], b = known[k + 1]
                let span = b.distance - a.distance
                altitude = span > 0 ? a.altitude + (b.altitude - a.altitude) * (d - a.distance) / span : b.altitude
            }
            result.append(ProfileSample(distance: d, altitude: altitude))
        }
        return result
    }
}

/// Statistics of one recording (R6, R20): computed from its points alone.
///
/// Choices, with their reasons:
/// - **Distance** is `PathStatistics.distance`: within segments only; a pause or a fix loss
///   starts a new segment and the straight line across the gap was not run.
/// - **Elapsed time** is first point to last point, pauses included.
/// - **Moving time** adds the intervals between consecutive points of a segment during which
///   the runner moved: the distance over the interval is faster than `movingSpeed`
///   (0.5 m/s), unless the receiver reported a speed at both ends and both are at or below
///   it — GPS jitter while standing still moves the position a few metres a second but not
///   the receiver's Doppler speed.
/// - **Average speed** here is distance / moving time: an import has no timer. An activity's
///   summary (`list`, `show`, `stats`) averages over the timer instead, as a watch does;
///   for a recording on the device, distance and times come from the runtime's totals.
/// - **Maximum speed** is the highest speed the receiver reported when every point has one;
///   otherwise the highest speed over any stretch of at least `speedWindow` (5 s) within a
///   segment, since speeds from positions one second apart are mostly position noise. Either
///   way, speeds above `plausibleSpeed` (12 m/s, 43 km/h — faster than any runner's sprint)
///   are GPS spikes and are ignored.
/// - **Elevation gain and loss** use a 3 m hysteresis (`elevationHysteresis`): consumer
///   receivers' altitude wanders by a few metres from fix to fix, and counting that noise
///   would invent tens of metres of climb on a flat run.
public struct ActivityStatistics: Hashable, Sendable {
    public struct Parameters: Hashable, Sendable {
        /// Metres per second above which an interval counts as moving.
        public var movingSpeed: Double
        /// Metres per second above which a speed is a GPS spike, not the runner.
        public var plausibleSpeed: Double
        /// The shortest stretch a speed computed from positions is measured over.
        public var speedWindow: Duration
        /// Metres of altitude change ignored as noise.
        public var elevationHysteresis: Double
        /// Samples in the elevation profile.
        public var profileSamples: Int

        public init(movingSpeed: Double = 0.5, plausibleSpeed: Double = 12, speedWindow: Duration = .seconds(5),
                    elevationHysteresis: Double = 3, profileSamples: Int = 50) {
            self.movingSpeed = movingSpeed
            self.plausibleSpeed = plausibleSpeed
            self.speedWindow = speedWindow
            self.elevationHysteresis = elevationHysteresis
            self.profileSamples = profileSamples
        }
    }

    public var path: PathStatistics
    public var elapsedTime: Duration
    public var movingTime: Duration
    /// Metres per second: distance / moving time (0 when the runner never moved).
    public var averageSpeed: Double
    /// Metres per second (0 when nothing plausible was measured).
    public var maximumSpeed: Double
    /// The sum of each segment's first-to-last time: the active time when pauses start new
    /// segments. Used for an activity whose timer was lost (recovered, imported).
    public var segmentTime: Duration
    public var pointCount: Int
    public var segmentCount: Int
    public var startTime: UTCTimestamp?
    public var endTime: UTCTimestamp?

    public var distance: Double { path.distance }
    public var elevationGain: Double { path.elevationGain }
    public var elevationLoss: Double { path.elevationLoss }
    public var minimumElevation: Double? { path.minimumElevation }
    public var maximumElevation: Double? { path.maximumElevation }
    public var elevationProfile: [ProfileSample] { path.elevationProfile }

    public init(points: [TrackPoint], parameters: Parameters = Parameters()) {
        let segments = ActivityStatistics.segments(of: points)
        path = PathStatistics(
            segments: segments.map { $0.map { PathPoint(position: $0.position, altitude: $0.altitude) } },
            elevationHysteresis: parameters.elevationHysteresis, profileSamples: parameters.profileSamples)
        pointCount = points.count
        segmentCount = segments.count
        startTime = points.first?.time
        endTime = points.last?.time
        if let first = points.first, let last = points.last {
            elapsedTime = .milliseconds(Swift.max(0, last.time.millisecondsSince1970 - first.time.millisecondsSince1970))
        } else {
            elapsedTime = .zero
        }

        var movingMilliseconds: Int64 = 0
        var segmentMilliseconds: Int64 = 0
        for segment in segments {
            if let first = segment.first, let last = segment.last {
                segmentMilliseconds += Swift.max(0, last.time.millisecondsSince1970 - first.time.millisecondsSince1970)
            }
            for (a, b) in zip(segment, segment.dropFirst()) {
                let dt = b.time.millisecondsSince1970 - a.time.millisecondsSince1970
                guard dt > 0 else { continue }
                let derived = Geodesy.distance(a.position, b.position) / (Double(dt) / 1000)
                var moving = derived > parameters.movingSpeed
                if moving, let sa = a.speed, let sb = b.speed, Swift.max(sa, sb) <= parameters.movingSpeed {
                    moving = false
                }
                if moving { movingMilliseconds += dt }
            }
        }
        movingTime = .milliseconds(movingMilliseconds)
        segmentTime = .milliseconds(segmentMilliseconds)
        averageSpeed = movingMilliseconds > 0 ? path.distance / (Double(movingMilliseconds) / 1000) : 0

        var top = 0.0
        if !points.isEmpty, points.allSatisfy({ $0.speed != nil }) {
            for point in points {
                if let s = point.speed, s.isFinite, s <= parameters.plausibleSpeed { top = Swift.max(top, s) }
            }
        } else {
            let window = Int64(parameters.speedWindow.inSeconds * 1000)
            for segment in segments {
                top = Swift.max(top, ActivityStatistics.windowedMaximum(segment, windowMilliseconds: window,
                                                                        plausible: parameters.plausibleSpeed))
            }
        }
        maximumSpeed = top
    }

    /// The fastest plausible speed over any stretch of a segment lasting at least the window
    /// (the whole segment when it is shorter).
    static func windowedMaximum(_ segment: [TrackPoint], windowMilliseconds: Int64, plausible: Double) -> Double {
        guard segment.count > 1 else { return 0 }
        var cumulative = [0.0]
        cumulative.reserveCapacity(segment.count)
        for (a, b) in zip(segment, segment.dropFirst()) {
            cumulative.append(cumulative[cumulative.count - 1] + Geodesy.distance(a.position, b.position))
        }
        func speed(_ j: Int, _ i: Int) -> Double? {
            let dt = segment[i].time.millisecondsSince1970 - segment[j].time.millisecondsSince1970
            guard dt > 0 else { return nil }
            let v = (cumulative[i] - cumulative[j]) / (Double(dt) / 1000)
            return v <= plausible ? v : nil
        }
        let total = segment[segment.count - 1].time.millisecondsSince1970 - segment[0].time.millisecondsSince1970
        if total < windowMilliseconds { return speed(0, segment.count - 1) ?? 0 }
        var top = 0.0
        var j = 0
        for i in 1..<segment.count {
            let t = segment[i].time.millisecondsSince1970
            while j + 1 < i, t - segment[j + 1].time.millisecondsSince1970 >= windowMilliseconds { j += 1 }
            if t - segment[j].time.millisecondsSince1970 >= windowMilliseconds, let v = speed(j, i) {
                top = Swift.max(top, v)
            }
        }
        return top
    }

    /// Points split into segments: a new segment starts wherever the segment number changes.
    public static func segments(of points: [TrackPoint]) -> [[TrackPoint]] {
        var result: [[TrackPoint]] = []
        var current: [TrackPoint] = []
        for point in points {
            if let last = current.last, last.segment != point.segment {
                result.append(current)
                current = []
            }
            current.append(point)
        }
        if !current.isEmpty { result.append(current) }
        return result
    }
}

/// What the overall statistics need of one activity.
public struct ActivityDigest: Hashable, Sendable {
    public var id: Int64
    public var name: String
    public var date: UTCTimestamp?
    /// Metres.
    public var distance: Double
    /// Active time (the runner's timer).
    public var time: Duration
    /// Metres per second.
    public var maximumSpeed: Double

    public init(id: Int64, name: String, date: UTCTimestamp?, distance: Double, time: Duration, maximumSpeed: Double) {
        self.id = id
        self.name = name
        self.date = date
        self.distance = distance
        self.time = time
        self.maximumSpeed = maximumSpeed
    }
}

/// General statistics over all activities (R10): totals and records, each with a description.
public struct OverallStatistics: Hashable, Sendable {
    public var count: Int
    /// Metres.
    public var totalDistance: Double
    public var totalTime: Duration
    /// The activity with the highest maximum speed (the earliest on a tie).
    public var fastest: ActivityDigest?
    /// The activity with the longest distance.
    public var longest: ActivityDigest?
    /// The activity with the longest active time.
    public var longestInTime: ActivityDigest?

    public init(_ activities: [ActivityDigest]) {
        count = activities.count
        totalDistance = activities.reduce(0) { $0 + $1.distance }
        totalTime = activities.reduce(.zero) { $0 + $1.time }
        fastest = activities.filter { $0.maximumSpeed > 0 }.max { $0.maximumSpeed < $1.maximumSpeed }
        longest = activities.filter { $0.distance > 0 }.max { $0.distance < $1.distance }
        longestInTime = activities.filter { $0.time > .zero }.max { $0.time < $1.time }
        // max(by:) returns the last of equal elements; records go to the first who set them.
        if let f = fastest { fastest = activities.first { $0.maximumSpeed == f.maximumSpeed } }
        if let l = longest { longest = activities.first { $0.distance == l.distance } }
        if let l = longestInTime { longestInTime = activities.first { $0.time == l.time } }
    }

    /// Metres per second over all activities' active time.
    public var averageSpeed: Double {
        totalTime > .zero ? totalDistance / totalTime.inSeconds : 0
    }

    /// One line per figure, each saying what it is.
    public var descriptions: [String] {
        guard count > 0 else { return ["No activities yet: nothing to add up."] }
        var lines: [String] = []
        let plural = count == 1 ? "activity" : "activities"
        lines.append("Total distance: \(ActivityFormat.kilometres(totalDistance)) km over \(count) \(plural).")
        lines.append("Total time: \(ActivityFormat.clock(totalTime)) of running (timer time, pauses excluded).")
        lines.append("Average speed over all activities: \(ActivityFormat.kilometresPerHour(averageSpeed)) km/h (distance over timer time).")
        if let f = fastest {
            lines.append("Highest speed ever: \(ActivityFormat.kilometresPerHour(f.maximumSpeed)) km/h, in \(Self.describe(f)).")
        } else {
            lines.append("Highest speed ever: none measured yet.")
        }
        if let l = longest {
            lines.append("Longest run: \(ActivityFormat.kilometres(l.distance)) km in \(ActivityFormat.clock(l.time)), \(Self.describe(l)).")
        }
        if let l = longestInTime, l.id != longest?.id {
            lines.append("Longest time out: \(ActivityFormat.clock(l.time)) for \(ActivityFormat.kilometres(l.distance)) km, \(Self.describe(l)).")
        }
        return lines
    }

    static func describe(_ a: ActivityDigest) -> String {
        var s = "activity #\(a.id) \"\(a.name)\""
        if let date = a.date { s += " on \(date.date)" }
        return s
    }
}

/// Numbers for people: kilometres, km/h, hh:mm:ss. Without Foundation, so the domain stays pure.
public enum ActivityFormat {
    /// `12.35` (kilometres, two decimals) for metres.
    public static func kilometres(_ metres: Double) -> String { fixed(metres / 1000, places: 2) }

    /// `11.8` for metres per second.
    public static func kilometresPerHour(_ metresPerSecond: Double) -> String {
        fixed(Pace.kilometresPerHour(metresPerSecond), places: 1)
    }

    /// `01:02:03` (hours at least two digits), rounded to the nearest second.
    public static func clock(_ duration: Duration) -> String {
        let (s, atto) = duration.components
        var seconds = s + (atto >= 500_000_000_000_000_000 ? 1 : 0)
        let negative = seconds < 0
        if negative { seconds = -seconds }
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return (negative ? "-" : "") + "\(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60))"
    }

    /// `1234.5` for (1234.5, 1); `-0.25` for (-0.25, 2); `-` for a number that is not finite.
    public static func fixed(_ value: Double, places: Int) -> String {
        guard value.isFinite, abs(value) < 1e15 else { return "-" }
        var scale: Int64 = 1
        for _ in 0..<Swift.max(0, places) { scale *= 10 }
        let units = Int64((abs(value) * Double(scale)).rounded(.toNearestOrAwayFromZero))
        var text = value < 0 && units != 0 ? "-" : ""
        text += String(units / scale)
        if places > 0 {
            let fraction = String(units % scale)
            text += "." + String(repeating: "0", count: places - fraction.count) + fraction
        }
        return text
    }

    /// `2024-05-01 07:30` (UTC).
    public static func dateTime(_ time: UTCTimestamp, seconds: Bool = false) -> String {
        let ms = Int64(time.millisecondOfDay)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        var text = "\(time.date) \(two(ms / 3_600_000)):\(two(ms / 60_000 % 60))"
        if seconds { text += ":\(two(ms / 1000 % 60))" }
        return text
    }
}
