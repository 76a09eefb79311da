import Coaching
import PacerCore

/// Where an activity is in its life.
public enum ActivityState: String, Hashable, Sendable, CaseIterable {
    /// Being recorded, or left so by a crash or a power cut until `recoverUnfinished()`.
    case recording
    case completed
    case stopped
    /// Found unfinished after a restart or a power cut (R28), closed at its last stored point.
    case recovered
    /// Its time ran out without a single fix: nothing measured, not completed.
    case noFix = "no-fix"

    public init(_ end: ActivityEnd) {
        switch end {
        case .completed: self = .completed
        case .stopped: self = .stopped
        case .recovered: self = .recovered
        case .noFix: self = .noFix
        }
    }
}

/// One activity as the list shows it (R22): what it is and its headline numbers.
public struct ActivitySummary: Hashable, Sendable {
    public var id: Int64
    public var name: String
    public var plan: String?
    public var workout: String?
    public var profile: String?
    public var startedAt: UTCTimestamp?
    public var endedAt: UTCTimestamp?
    public var state: ActivityState
    /// The runner's timer (pauses excluded), when the activity was closed with one.
    public var activeTime: Duration?
    /// The GPX file an imported activity came from; nil for one recorded on the device.
    public var source: String?
    /// The ghost it raced (`Ghost.name`), when it raced one.
    public var ghost: String?
    /// Metres.
    public var distance: Double
    public var elapsedTime: Duration
    public var movingTime: Duration
    /// Metres per second.
    public var maximumSpeed: Double
    public var elevationGain: Double
    public var elevationLoss: Double
    public var minimumElevation: Double?
    public var maximumElevation: Double?
    public var pointCount: Int

    public init(id: Int64, name: String, plan: String?, workout: String?, profile: String?,
                startedAt: UTCTimestamp?, endedAt: UTCTimestamp?, state: ActivityState, activeTime: Duration?,
                source: String?, distance: Double, elapsedTime: Duration, movingTime: Duration,
                maximumSpeed: Double, elevationGain: Double, elevationLoss: Double,
                minimumElevation: Double?, maximumElevation: Double?, pointCount: Int) {
        self.id = id
        self.name = name
        self.plan = plan
        self.workout = workout
        self.profile = profile
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.state = state
        self.activeTime = activeTime
        self.source = source
        self.distance = distance
        self.elapsedTime = elapsedTime
        self.movingTime = movingTime
        self.maximumSpeed = maximumSpeed
        self.elevationGain = elevationGain
        self.elevationLoss = elevationLoss
        self.minimumElevation = minimumElevation
        self.maximumElevation = maximumElevation
        self.pointCount = pointCount
    }

    /// The time to show: the runner's timer when known, else first to last point.
    public var time: Duration { activeTime ?? elapsedTime }

    /// Metres per second: distance over the timer (`time`), as a runner's watch averages;
    /// the one definition everywhere (list, show, stats, a scenario's summary).
    public var averageSpeed: Double {
        time > .zero ? distance / time.inSeconds : 0
    }

    /// What the overall statistics need.
    public var digest: ActivityDigest {
        ActivityDigest(id: id, name: name, date: startedAt, distance: distance, time: time, maximumSpeed: maximumSpeed)
    }
}

/// Everything stored for one activity (R6).
public struct ActivityDetail: Hashable, Sendable {
    public var summary: ActivitySummary
    /// In recording order.
    public var points: [TrackPoint]
    public var waypoints: [Waypoint]
    public var cues: [CueRecord]
    /// By phase index.
    public var phaseResults: [PhaseResult]
    /// The lap presses that ended no phase, in order.
    public var lapMarks: [LapMark]
    public var statistics: ActivityStatistics

    public init(summary: ActivitySummary, points: [TrackPoint], waypoints: [Waypoint], cues: [CueRecord],
                phaseResults: [PhaseResult], lapMarks: [LapMark] = [], statistics: ActivityStatistics) {
        self.lapMarks = lapMarks
        self.summary = summary
        self.points = points
        self.waypoints = waypoints
        self.cues = cues
        self.phaseResults = phaseResults
        self.statistics = statistics
    }

    /// The points split where the segment number changes (pauses, fix losses).
    public var segments: [[TrackPoint]] { ActivityStatistics.segments(of: points) }
}

/// A point of an imported route; GPX routes may or may not carry times.
public struct RoutePoint: Hashable, Sendable {
    public var position: GeoPoint
    public var altitude: Double?
    public var time: UTCTimestamp?

    public init(position: GeoPoint, altitude: Double?, time: UTCTimestamp?) {
        self.position = position
        self.altitude = altitude
        self.time = time
    }
}

/// A waypoint of an imported route.
public struct RouteWaypoint: Hashable, Sendable {
    public var name: String?
    public var description: String?
    public var position: GeoPoint
    public var altitude: Double?
    public var time: UTCTimestamp?

    public init(name: String?, description: String?, position: GeoPoint, altitude: Double?, time: UTCTimestamp?) {
        self.name = name
        self.description = description
        self.position = position
        self.altitude = altitude
        self.time = time
    }
}

/// One imported route as the list shows it (R19).
public struct RouteSummary: Hashable, Sendable {
    public var id: Int64
    public var name: String
    /// The GPX file it was imported from.
    public var source: String?
    /// Metres.
    public var distance: Double
    /// First to last point, when the file gave times.
    public var duration: Duration?
    public var elevationGain: Double
    public var elevationLoss: Double
    public var minimumElevation: Double?
    public var maximumElevation: Double?
    public var pointCount: Int
    public var waypointCount: Int
    public var start: GeoPoint?

    public init(id: Int64, name: String, source: String?, distance: Double, duration: Duration?,
                elevationGain: Double, elevationLoss: Double, minimumElevation: Double?, maximumElevation: Double?,
                pointCount: Int, waypointCount: Int, start: GeoPoint?) {
        self.id = id
        self.name = name
        self.source = source
        self.distance = distance
        self.duration = duration
        self.elevationGain = elevationGain
        self.elevationLoss = elevationLoss
        self.minimumElevation = minimumElevation
        self.maximumElevation = maximumElevation
        self.pointCount = pointCount
        self.waypointCount = waypointCount
        self.start = start
    }

    /// Metres from `position` to the route's first point; nil for a route without points.
    public func distanceToStart(from position: GeoPoint) -> Double? {
        start.map { Geodesy.distance(position, $0) }
    }
}

/// Everything stored for one route.
public struct RouteDetail: Hashable, Sendable {
    public var summary: RouteSummary
    public var points: [RoutePoint]
    public var waypoints: [RouteWaypoint]
    public var statistics: PathStatistics

    public init(summary: RouteSummary, points: [RoutePoint], waypoints: [RouteWaypoint], statistics: PathStatistics) {
        self.summary = summary
        self.points = points
        self.waypoints = waypoints
        self.statistics = statistics
    }
}

/// What went wrong in the store, said for a person (R26).
public enum StorageError: Error, Hashable, Sendable, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    /// Another writer holds the data folder (`DataFolderLock`): its `PID COMMAND`.
    case busy(directory: String, holder: String?)
    /// A command that only reads found no database in the folder (a mistyped --data-dir).
    case noDatabase(directory: String)
    case unknownActivity(Int64)
    case unknownRoute(Int64)
    /// Something was added to an activity that is closed.
    case notRecording(Int64, ActivityState)
    case invalidPoint(activity: Int64, reason: String)
    case database(String)
    case file(path: String, reason: String)
    case unknownPlan(Int64)
    /// A plan that cannot be stored: the reason.
    case invalidPlan(String)
    /// An athlete profile with problems (`AthleteProfile.problems`), said together.
    case invalidAthlete(String)
    /// A profile change dated before the latest stored one (a clock gone back?).
    case athleteChangeOutOfOrder(latest: UTCTimestamp, given: UTCTimestamp)
    /// Too few points for what was asked (a route of one point): the reason.
    case tooFewPoints(String)
    /// Writing an output file (or standard output) failed part way: a full disk, an I/O error.
    case writeFailed(path: String, reason: String)
    /// A new file was to be written where one is already (another writer was first).
    case exists(path: String)
    /// An import of a run the store has already: the activity with the same start (within
    /// 2 s) and distance (within 2 %, or 50 m).
    case alreadyImported(path: String, activity: Int64, started: UTCTimestamp?, distance: Double)

    /// What really stops the holder of a data folder (`PID COMMAND`, as the lock file has it):
    /// `pacer ctl stop` ends a `pacer run` but never `pacer device`, which the service runs
    /// (systemd would start a killed one again) or a shell (SIGTERM stores and switches off).
    static func howToStop(_ holder: String?) -> String {
        let parts = holder?.split(separator: " ", maxSplits: 1) ?? []
        let pid = parts.first.map { "kill \($0)" } ?? "stop the other Pacer"
        let command = parts.count > 1 ? String(parts[1]) : ""
        if command.hasPrefix("pacer run") {
            return "pacer ctl stop ends the run, or \(pid)"
        }
        if command.hasPrefix("pacer device") {
            return "sudo systemctl stop pacer when it runs as the service, else \(pid)"
        }
        return "\(pid); the service: sudo systemctl stop pacer"
    }

    /// A busy folder's message, with `stop`: what stops the holder (`howToStop`, or the
    /// configurator's steps for the service's own folder).
    public static func describeBusy(directory: String, holder: String?, stop: String) -> String {
        "\(directory) is in use by another Pacer"
            + (holder.map { s in
                let parts = s.split(separator: " ", maxSplits: 1)
                return " (PID \(parts[0])" + (parts.count > 1 ? ", \(parts[1]))" : ")")
            } ?? "")
            + ": one device or command writes to a data folder at a time. Stop it first ("
            + stop + "), or use another --data-dir"
    }

    public var description: String {
        switch self {
        case .writeFailed(let path, let reason): "\(path): cannot write it: \(reason)"
        case .exists(let path): "\(path): a file of this name is there already"
        case .alreadyImported(let path, let activity, let started, let distance):
            "\(path): the same run as activity #\(activity) (started \(started?.iso8601 ?? "at an unknown time"), "
                + String(format: "%.2f km", distance / 1000) + "): not imported again (--again, or the page's \"again\", imports it anyway)"
        case .tooFewPoints(let reason): reason
        case .cannotOpen(let path, let reason): "cannot open the activity database \(path): \(reason)"
        case .busy(let directory, let holder):
            StorageError.describeBusy(directory: directory, holder: holder, stop: StorageError.howToStop(holder))
        case .noDatabase(let directory):
            "no activities in \(directory): it holds no \(PacerDatabase.fileName) (is the data folder right? "
                + "the device's is the settings' data_dir, /var/lib/pacer on the board)"
        case .unknownActivity(let id): "there is no activity #\(id)"
        case .unknownRoute(let id): "there is no route #\(id)"
        case .notRecording(let id, let state): "activity #\(id) is \(state.rawValue), not recording: nothing can be added to it"
        case .invalidPoint(let id, let reason): "activity #\(id): \(reason)"
        case .database(let reason): "activity database: \(reason)"
        case .file(let path, let reason): "\(path): \(reason)"
        case .unknownPlan(let id): "there is no stored plan #\(id)"
        case .invalidPlan(let reason): "cannot store the plan: \(reason)"
        case .invalidAthlete(let reason): "the athlete profile is not plausible: \(reason)"
        case .athleteChangeOutOfOrder(let latest, let given):
            "the athlete profile last changed at \(latest.iso8601), after \(given.iso8601): is the clock right?"
        }
    }
}
