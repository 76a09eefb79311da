import Charts
import Coaching
import PacerCore
import Storage

/// The stored records as the reports (`Charts`) take them. Storage does not know Charts:
/// the command line, which uses both, turns the store's records into the pure report
/// builders' inputs and writes the pages they return; the companion page (which imports
/// both too) serves the same pages, so the conversion lives here, for both.
extension ActivityDetail {
    public var reportInput: ActivityReportInput { reportInput(heartRateZones: nil) }

    /// The same, with the athlete's heart-rate zones (the profile's `HeartRateFigures.zones`)
    /// for the page to count the points' heart rate in; nil draws the heart rate without them.
    public func reportInput(heartRateZones: HeartRateZones?) -> ActivityReportInput {
        let a = summary
        var input = ActivityReportInput(
            id: a.id, name: a.name, state: a.state.rawValue, startedAt: a.startedAt, endedAt: a.endedAt, plan: a.plan,
            workout: a.workout, profile: a.profile, source: a.source, distance: a.distance, timer: a.activeTime,
            elapsedTime: a.elapsedTime, movingTime: a.movingTime, averageSpeed: a.averageSpeed,
            maximumSpeed: a.maximumSpeed, points: points, waypoints: waypoints, cues: cues, phases: phaseResults,
            statistics: statistics)
        input.zone = .system
        input.lapMarks = lapMarks
        input.heartRateZones = heartRateZones
        input.ghost = a.ghost
        return input
    }
}

extension PacerStore {
    /// Activity `id`'s page input with the athlete's zones (`heartRateZones(at:)`): the page
    /// the command line writes and the companion page serves.
    public func activityReportInput(_ id: Int64) throws -> ActivityReportInput {
        let detail = try activities.activity(id)
        return detail.reportInput(heartRateZones: try heartRateZones(at: detail.summary.startedAt))
    }

    /// The zones a report counts a run's heart rate in: those of the profile in force when the
    /// run started (a report of last spring's run keeps last spring's zones, however the
    /// figures changed since), else the current profile's (figures first set after the run: a
    /// report telling the runner to set what they have set would be wrong); nil when the
    /// athlete has none.
    public func heartRateZones(at time: UTCTimestamp?) throws -> HeartRateZones? {
        if let time, let then = try athlete.athleteHistory().last(where: { $0.1 <= time })?.0.heartRate.zones {
            return then
        }
        return try athlete.athlete()?.profile.heartRate.zones
    }
}

extension RouteDetail {
    public var reportInput: RouteReportInput {
        RouteReportInput(
            id: summary.id, name: summary.name, source: summary.source, distance: summary.distance,
            duration: summary.duration,
            points: points.map { PathPoint(position: $0.position, altitude: $0.altitude, time: $0.time) },
            waypoints: waypoints.map {
                RouteReportInput.Waypoint(name: $0.name, description: $0.description, position: $0.position,
                                          altitude: $0.altitude)
            },
            statistics: statistics)
    }
}
