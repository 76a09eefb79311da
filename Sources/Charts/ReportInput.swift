import Coaching
import PacerCore

/// What an activity's report shows, as the store records it: the record's figures, its
/// points, waypoints, cues and phase results. Plain values, so the report is a pure function
/// of them.
public struct ActivityReportInput: Hashable, Sendable {
    public var id: Int64
    public var name: String
    /// `completed`, `stopped`, `recovered` or `recording`.
    public var state: String
    public var startedAt: UTCTimestamp?
    public var endedAt: UTCTimestamp?
    public var plan: String?
    public var workout: String?
    public var profile: String?
    /// The GPX file of an imported activity; nil for one recorded on the device.
    public var source: String?
    /// Metres, as the activity was closed with (the runtime's, from every fix).
    public var distance: Double
    /// The runner's timer (pauses excluded), when the device kept one.
    public var timer: Duration?
    public var elapsedTime: Duration
    public var movingTime: Duration
    /// Metres per second.
    public var averageSpeed: Double
    public var maximumSpeed: Double
    public var points: [TrackPoint]
    public var waypoints: [Waypoint]
    public var cues: [CueRecord]
    /// By phase index; each carries its speed band (`minimumSpeed...maximumSpeed`).
    public var phases: [PhaseResult]
    /// The lap presses that ended no phase (the laps split the phases there).
    public var lapMarks: [LapMark] = []
    public var statistics: ActivityStatistics
    /// The zone the page shows times in (stored times are UTC).
    public var zone: DisplayZone = .utc
    /// The athlete's heart-rate zones (the profile's `HeartRateFigures.zones`) that the
    /// points' heart rate is counted in; nil when none are set. Plain values, as the rest: the
    /// caller picks the profile (the one in force on the run's day, or today's).
    public var heartRateZones: HeartRateZones?
    /// The ghost the run raced (its name), when it raced one: its points carry the gap.
    public var ghost: String?

    public init(
        id: Int64, name: String, state: String, startedAt: UTCTimestamp?, endedAt: UTCTimestamp?, plan: String?,
        workout: String?, profile: String?, source: String?, distance: Double, timer: Duration?,
        elapsedTime: Duration, movingTime: Duration, averageSpeed: Double, maximumSpeed: Double,
        points: [TrackPoint], waypoints: [Waypoint], cues: [CueRecord], phases: [PhaseResult],
        statistics: ActivityStatistics
    ) {
        self.id = id
        self.name = name
        self.state = state
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.plan = plan
        self.workout = workout
        self.profile = profile
        self.source = source
        self.distance = distance
        self.timer = timer
        self.elapsedTime = elapsedTime
        self.movingTime = movingTime
        self.averageSpeed = averageSpeed
        self.maximumSpeed = maximumSpeed
        self.points = points
        self.waypoints = waypoints
        self.cues = cues
        self.phases = phases
        self.statistics = statistics
    }
}

/// What a route's report shows: an imported GPX route's line, waypoints and numbers.
public struct RouteReportInput: Hashable, Sendable {
    public struct Waypoint: Hashable, Sendable {
        public var name: String?
        public var description: String?
        public var position: GeoPoint
        public var altitude: Double?

        public init(name: String?, description: String?, position: GeoPoint, altitude: Double?) {
            self.name = name
            self.description = description
            self.position = position
            self.altitude = altitude
        }
    }

    public var id: Int64
    public var name: String
    public var source: String?
    /// Metres.
    public var distance: Double
    /// First to last point, when the file gave times.
    public var duration: Duration?
    public var points: [PathPoint]
    public var waypoints: [Waypoint]
    public var statistics: PathStatistics

    public init(id: Int64, name: String, source: String?, distance: Double, duration: Duration?, points: [PathPoint],
                waypoints: [Waypoint], statistics: PathStatistics) {
        self.id = id
        self.name = name
        self.source = source
        self.distance = distance
        self.duration = duration
        self.points = points
        self.waypoints = waypoints
        self.statistics = statistics
    }
}
