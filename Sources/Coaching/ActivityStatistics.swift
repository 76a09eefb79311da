import PacerCore

// Statistics of recordings and routes (R6, R10, R19, R20, R22): pure computation over points,
// no storage, no I/O. The store caches what `ActivityStatistics` computes when an activity
// closes; the commands and the runtime's summary show it.

/// A point of a path for distance and elevation: a track point, or a route point with or
/// without time.
public struct PathPoint: Hashable, Sendable {
    public var position: GeoPoint
    /// Metres above mean sea level.
    public var altitude: Double?
    /// When the receiver measured it; nil for a planned route's point.
    public var time: UTCTimestamp?
    /// The odometer's metres at the point, for a point recorded on the device: the distance
    /// the activity's figures use (the straight lines between points kept every 30 s are
    /// shorter).
    public var odometer: Double?

    public init(position: GeoPoint, altitude: Double?, time: UTCTimestamp? = nil, odometer: Double? = nil) {
        self.position = position
        self.altitude = altitude
        self.time = time
        self.odometer = odometer
    }
}

/// How elevation gain, loss and the extremes are read from altitudes (R19, R20).
///
/// A receiver's altitude is noisy and slow: about 1.6 times its horizontal error (σ ≈ 4 m
/// at 2.5 m horizontally), wandering with a correlation time of tens of seconds (the
/// simulator models 25 s through an 8 s receiver filter, `PositionNoise`). Differences of
/// raw altitudes, or a few metres' hysteresis on them, count that wander as climb: 30 to 90 m
/// on the bundled flat recordings. So, for a path whose points carry times (a recording):
/// - **Smoothing:** each altitude is replaced by the mean of the segment's altitudes within
///   `smoothing` / 2 of its time (a centred moving average over `smoothing`, 180 s: several
///   correlation times, so the noise averages out; measured on the simulator's flat park
///   loop, σ 3.7 m raw → 1.9 m smoothed, at 1 Hz or 30 s between points alike). Near a
///   segment's ends the window holds what there is.
/// - **Threshold:** gain and loss count only swings of the smoothed altitude of at least
///   `threshold` (10 m, about five times the smoothed noise), each counted in full (see
///   `PathStatistics.elevationChanges`). The threshold runs over the whole track, across
///   the gaps between segments: a climb cut by auto-pauses or outages into pieces each under
///   10 m counts whole, as the runner climbed it (smoothing stays within each segment).
/// The price: climbs smaller than 10 m are not counted, and a hill shorter than the window
/// (about 500 m at 10 km/h) is flattened — a 32 m climb over 400 m counts about 20 m.
/// A path without times (a planned route, drawn or from a map) has no receiver noise: its
/// altitudes are used as they are, with `plannedThreshold` (1 m) against rounding only.
/// The lowest and highest point, and the profile, are of the same altitudes as the gain.
public struct ElevationRule: Hashable, Sendable {
    /// The moving-average window applied to timed altitudes.
    public var smoothing: Duration
    /// Metres: the smallest swing of a recording's smoothed altitude that counts.
    public var threshold: Double
    /// Metres: the smallest swing that counts on a path without times.
    public var plannedThreshold: Double

    public init(smoothing: Duration = .seconds(180), threshold: Double = 10, plannedThreshold: Double = 1) {
        self.smoothing = smoothing
        self.threshold = threshold
        self.plannedThreshold = plannedThreshold
    }

    /// The altitudes of one segment, smoothed when every one has a time and the times never go
    /// backwards; as they are otherwise.
    public func smoothed(_ samples: [(time: UTCTimestamp?, altitude: Double)]) -> [Double] {
        var times: [Int64] = []
        times.reserveCapacity(samples.count)
        for sample in samples {
            guard let t = sample.time?.millisecondsSince1970, t >= (times.last ?? t) else {
                return samples.map(\.altitude)
            }
            times.append(t)
        }
        let (seconds, atto) = smoothing.components
        let half = (seconds * 1000 + atto / 1_000_000_000_000_000) / 2
        guard half > 0 else { return samples.map(\.altitude) }
        var result: [Double] = []
        result.reserveCapacity(samples.count)
        var sum = 0.0
        var lo = 0, hi = 0  // the window is lo..<hi
        for i in samples.indices {
            while hi < samples.count, times[hi] - times[i] <= half {
                sum += samples[hi].altitude
                hi += 1
            }
            while times[i] - times[lo] > half {
                sum -= samples[lo].altitude
                lo += 1
            }
            result.append(sum / Double(hi - lo))
        }
        return result
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
    /// Metres climbed, from the smoothed altitudes with a threshold (see `elevationChanges`).
    public var elevationGain: Double
    /// Metres descended, counted the same way.
    public var elevationLoss: Double
    /// The lowest and highest smoothed altitude (the same altitudes the gain and the profile
    /// use, so the chart and these agree); nil when no point has an altitude.
    public var minimumElevation: Double?
    public var maximumElevation: Double?
    /// Smoothed altitude against distance, evenly spaced by distance; empty when no point has
    /// an altitude. The distance is the odometer's when every point carries it (a recording on
    /// the device: the profile ends at the activity's distance), else along the points
    /// (`TrackDistance`).
    public var elevationProfile: [ProfileSample]
    public var start: GeoPoint?
    public var end: GeoPoint?

    public init(segments: [[PathPoint]], elevation: ElevationRule = ElevationRule(),
                profileSamples: Int = ActivityStatistics.Parameters().profileSamples) {
        var cumulative: [ProfileSample] = []
        var minimum: Double?
        var maximum: Double?
        // Every segment's smoothed altitudes in one run: a climb is counted across the gaps
        // between segments (an outage run through, a pause), as the runner climbed it, not
        // cut into pieces each under the threshold.
        var path: [Double] = []
        var timed = true
        let track = TrackDistance(segments: segments)
        var index = 0
        var axisEnd = 0.0
        for segment in segments {
            var measured: [(distance: Double, altitude: Double, time: UTCTimestamp?)] = []
            measured.reserveCapacity(segment.count)
            for point in segment {
                let along = track.along[index]
                index += 1
                axisEnd = Swift.max(axisEnd, along)
                if let altitude = point.altitude, altitude.isFinite {
                    measured.append((along, altitude, point.time))
                }
            }
            let altitudes = elevation.smoothed(measured.map { ($0.time, $0.altitude) })
            for (m, altitude) in zip(measured, altitudes) {
                cumulative.append(ProfileSample(distance: m.distance, altitude: altitude))
                minimum = Swift.min(minimum ?? altitude, altitude)
                maximum = Swift.max(maximum ?? altitude, altitude)
            }
            if !measured.allSatisfy({ $0.time != nil }) { timed = false }
            path += altitudes
        }
        let changes = PathStatistics.elevationChanges(
            path, threshold: timed && !path.isEmpty ? elevation.threshold : elevation.plannedThreshold)
        self.distance = track.legs
        self.elevationGain = changes.gain
        self.elevationLoss = changes.loss
        self.minimumElevation = minimum
        self.maximumElevation = maximum
        self.elevationProfile = PathStatistics.resample(cumulative, total: axisEnd, samples: profileSamples)
        self.start = segments.first(where: { !$0.isEmpty })?.first?.position
        self.end = segments.last(where: { !$0.isEmpty })?.last?.position
    }

    /// Climb and descent of one continuous run of altitudes, counting only swings of at least
    /// `threshold` metres, each in full. A climb is confirmed once the altitude has risen
    /// `threshold` above the lowest point since the last turn, and it is counted from that
    /// lowest point to the highest it reaches before falling `threshold` again (or to the
    /// highest at the end); a descent the same way down. Wobbles smaller than the threshold
    /// add nothing, and a real climb is counted whole, not in steps that lose its top.
    public static func elevationChanges(_ altitudes: [Double], threshold: Double) -> (gain: Double, loss: Double) {
        guard let first = altitudes.first else { return (0, 0) }
        var gain = 0.0
        var loss = 0.0
        var climbing: Bool?  // nil until the first swing is confirmed
        var low = first, high = first  // extremes while the direction is not known
        var turn = first  // the altitude of the last turning point
        var extreme = first  // the highest (climbing) or lowest (descending) since the turn
        for altitude in altitudes.dropFirst() {
            switch climbing {
            case nil:
                low = Swift.min(low, altitude)
                high = Swift.max(high, altitude)
                if high - low >= threshold {
                    climbing = altitude == high
                    turn = climbing == true ? low : high
                    extreme = altitude
                }
            case true?:
                if altitude > extreme {
                    extreme = altitude
                } else if extreme - altitude >= threshold {
                    gain += extreme - turn
                    (turn, extreme, climbing) = (extreme, altitude, false)
                }
            case false?:
                if altitude < extreme {
                    extreme = altitude
                } else if altitude - extreme >= threshold {
                    loss += turn - extreme
                    (turn, extreme, climbing) = (extreme, altitude, true)
                }
            }
        }
        switch climbing {
        case true?: gain += extreme - turn
        case false?: loss += turn - extreme
        case nil: break
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
/// - **Elevation gain and loss, lowest and highest point** follow `ElevationRule`: the
///   altitudes smoothed over 180 s, then only swings of 10 m or more counted, in full;
///   consumer receivers' altitude wanders by metres over tens of seconds, and counting that
///   noise would invent tens of metres of climb on a flat run.
public struct ActivityStatistics: Hashable, Sendable {
    public struct Parameters: Hashable, Sendable {
        /// Metres per second above which an interval counts as moving.
        public var movingSpeed: Double
        /// Metres per second above which a speed is a GPS spike, not the runner.
        public var plausibleSpeed: Double
        /// The shortest stretch a speed computed from positions is measured over.
        public var speedWindow: Duration
        /// How altitudes become gain, loss and extremes.
        public var elevation: ElevationRule
        /// Samples in the elevation profile.
        public var profileSamples: Int

        public init(movingSpeed: Double = 0.5, plausibleSpeed: Double = 12, speedWindow: Duration = .seconds(5),
                    elevation: ElevationRule = ElevationRule(), profileSamples: Int = 50) {
            self.movingSpeed = movingSpeed
            self.plausibleSpeed = plausibleSpeed
            self.speedWindow = speedWindow
            self.elevation = elevation
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
            segments: segments.map { $0.map { PathPoint(position: $0.position, altitude: $0.altitude, time: $0.time,
                                                         odometer: $0.distance) } },
            elevation: parameters.elevation, profileSamples: parameters.profileSamples)
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
    public static func dateTime(_ time: UTCTimestamp, seconds: Bool = false, zone: DisplayZone = .utc) -> String {
        let time = zone.wallClock(time)
        let ms = Int64(time.millisecondOfDay)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        var text = "\(time.date) \(two(ms / 3_600_000)):\(two(ms / 60_000 % 60))"
        if seconds { text += ":\(two(ms / 1000 % 60))" }
        return text
    }

    /// `dateTime` with the zone said: `2026-05-02 09:00:00 CEST`.
    public static func dateTimeZoned(_ time: UTCTimestamp, seconds: Bool = false, zone: DisplayZone = .utc) -> String {
        dateTime(time, seconds: seconds, zone: zone) + " " + zone.period(at: time).label
    }
}
