import Coaching
import GRDB
import PacerCore

// An activity as laps: what TCX (and FIT) carry that GPX cannot. A lap per phase
// with the phase's timer time and stored distance; its points in tracks, one per recorded
// segment; each point's odometer distance. Made once from the store, for every lap-based
// format: the writers only write what they are given, and a share's privacy is applied here
// (`sharedLaps`), before any writer sees a point.

/// One point of a lap's track.
public struct LapPoint: Hashable, Sendable {
    public var time: UTCTimestamp
    /// nil: a point of time and distance only, the odometer's reading at the end of the
    /// activity past its last stored point (the medium profile keeps a point every 30 s).
    public var position: GeoPoint?
    public var altitude: Double?
    /// The odometer's metres at the point, from the start; nil in a share.
    public var distance: Double?
    /// Metres per second.
    public var speed: Double?
    /// Beats per minute; nil without one, and in a share.
    public var heartRate: Int?

    public init(time: UTCTimestamp, position: GeoPoint?, altitude: Double?, distance: Double?, speed: Double?,
                heartRate: Int? = nil) {
        self.time = time
        self.position = position
        self.altitude = altitude
        self.distance = distance
        self.speed = speed
        self.heartRate = heartRate
    }
}

/// One lap: a phase of the workout, or the whole run for an activity without phases.
public struct ActivityLap: Hashable, Sendable {
    /// The phase's name; nil for a lap that is not a phase.
    public var name: String?
    public var start: UTCTimestamp
    /// The timer's time in the lap (pauses excluded).
    public var totalTime: Duration
    /// Metres: the phase's stored distance (the odometer's), or in a share the shown points'.
    public var distance: Double
    /// Metres per second; nil when speeds are left out.
    public var maximumSpeed: Double?
    /// A recovery or a rest between repeats (the phase's name says so).
    public var resting: Bool
    public var trigger: TCXWriter.Trigger
    /// The lap's notes: its phase and repeat (`fast, repeat 3 of 6`), when in a repeat.
    public var notes: String?
    /// A track per recorded segment within the lap (and, in a share, per stretch between
    /// hidden places).
    public var tracks: [[LapPoint]]

    public init(name: String?, start: UTCTimestamp, totalTime: Duration, distance: Double, maximumSpeed: Double?,
                resting: Bool, trigger: TCXWriter.Trigger, notes: String? = nil, tracks: [[LapPoint]]) {
        self.notes = notes
        self.name = name
        self.start = start
        self.totalTime = totalTime
        self.distance = distance
        self.maximumSpeed = maximumSpeed
        self.resting = resting
        self.trigger = trigger
        self.tracks = tracks
    }

    public var pointCount: Int { tracks.reduce(0) { $0 + $1.count } }
}

/// An activity's laps and what goes with them in a file.
public struct LapExport: Hashable, Sendable {
    /// The activity's start: the file's identity. In a share with places hidden, the first
    /// shown point's time (the start would tell when the runner left the place).
    public var start: UTCTimestamp
    /// The activity's name, when it goes in the file.
    public var name: String?
    public var laps: [ActivityLap]
    /// Points stored, written and hidden, as a GPX export counts them (`segments`: tracks).
    public var report: GPXExportReport

    public init(start: UTCTimestamp, name: String?, laps: [ActivityLap], report: GPXExportReport) {
        self.start = start
        self.name = name
        self.laps = laps
        self.report = report
    }
}

extension LapSpan {
    /// As FIT and TCX say it: Time, Distance, or Manual (the runner: a press, the stop).
    public var trigger: TCXWriter.Trigger {
        switch ending {
        case .time: .time
        case .distance: .distance
        case .lap, .stop: .manual
        }
    }
}

public enum ActivityLaps {
    /// Whether a phase's name says it is a rest: a recovery, a rest, a walk or a jog between
    /// repeats. TCX's lap `Intensity` is Resting for these, Active for the others.
    public static func isResting(_ name: String) -> Bool {
        let lower = name.lowercased()
        return ["recover", "rest", "walk", "jog"].contains { lower.contains($0) }
    }

    /// The laps of `detail`, everything in them (`options` leaves out speeds and elevations).
    ///
    /// An activity recorded here (its points carry the timer and the odometer): a lap per
    /// phase, from where the timer reached the phase's start to its end; a point on a phase
    /// change opens the next lap. The laps' distances are the phases' stored ones, which sum
    /// to the activity's; when the timer or the distance ran on past the phases (a workout
    /// stopped and run on, none at all), one more lap has the rest. Each point's distance is
    /// the odometer's (kept within its lap's); past the last stored point, a last point of
    /// time and distance only carries the odometer to the activity's distance.
    ///
    /// An import (no timer, no odometer): one lap, the activity's time and distance, its
    /// points' distances summed along each segment.
    public static func laps(of detail: ActivityDetail, options: GPXExportOptions = .all) -> LapExport {
        let a = detail.summary
        let points = detail.points
        let start = a.startedAt ?? points.first?.time ?? UTCTimestamp(millisecondsSince1970: 0)
        var report = GPXExportReport(zones: options.privacyZones)
        report.storedPoints = points.count
        report.writtenPoints = points.count
        func point(_ p: TrackPoint, distance: Double?) -> LapPoint {
            LapPoint(time: p.time, position: p.position, altitude: options.elevations ? p.altitude : nil,
                     distance: distance, speed: options.speeds ? p.speed : nil,
                     heartRate: options.heartRates ? HeartRateRecords.rate(p.heartRate) : nil)
        }
        let recorded = a.source == nil && !points.isEmpty && points.allSatisfy { $0.timer != nil && $0.distance != nil }
        let totalTime = a.activeTime ?? a.elapsedTime
        guard recorded else {
            // Along each segment, not across the gap between two.
            var tracks: [[LapPoint]] = []
            var along = TrackDistance(points: points, odometer: false).along.makeIterator()
            for segment in ActivityStatistics.segments(of: points) {
                tracks.append(segment.map { point($0, distance: along.next()) })
            }
            report.segments = tracks.count
            let lap = ActivityLap(name: nil, start: start, totalTime: totalTime, distance: a.distance,
                                  maximumSpeed: options.speeds ? a.maximumSpeed : nil, resting: false,
                                  trigger: .manual, tracks: tracks)
            return LapExport(start: start, name: options.name ? a.name : nil, laps: [lap], report: report)
        }

        // The laps' bounds on the timer and the odometer.
        struct Bounds {
            var name: String?
            var timer: (Int64, Int64)
            var distance: (Double, Double)
            var trigger: TCXWriter.Trigger
            var notes: String?
        }
        var bounds: [Bounds] = []
        var timer: Int64 = 0, distance = 0.0
        for span in LapSpan.spans(phases: detail.phaseResults, marks: detail.lapMarks) {
            // A phase's speeds are its band's limits: a lap's fastest is its points' (below).
            bounds.append(Bounds(name: span.name, timer: (timer, timer + span.timerMS),
                                 distance: (distance, distance + span.distance), trigger: span.trigger, notes: span.notes))
            timer += span.timerMS
            distance += span.distance
        }
        let lastTimer = points.last?.timer?.wholeMilliseconds ?? 0
        let endTimer = max(totalTime.wholeMilliseconds, lastTimer)
        let endDistance = max(a.distance, points.last?.distance ?? 0)
        // The rest, past the phases (or the whole run): more than half a second or 5 cm.
        if bounds.isEmpty || endTimer - timer > 500 || endDistance - distance > 0.05 {
            bounds.append(Bounds(name: nil, timer: (timer, max(timer, endTimer)),
                                 distance: (distance, max(distance, endDistance)), trigger: .manual))
        }

        // A phase ends when its time runs out; the last lap of a run stopped (or cut off)
        // before the workout's end, when the runner stopped.
        if a.state != .completed { bounds[bounds.count - 1].trigger = .manual }

        var laps: [ActivityLap] = []
        var index = 0
        var previous: TrackPoint?
        var odometer = 0.0
        for (n, b) in bounds.enumerated() {
            let last = n == bounds.count - 1
            // When the timer read the lap's start: from the point before it (no pause between).
            var lapStart = start
            if let p = previous ?? points.first, let t = p.timer?.wholeMilliseconds {
                lapStart = UTCTimestamp(millisecondsSince1970: p.time.millisecondsSince1970 + (b.timer.0 - t))
            }
            if n == 0 { lapStart = start }
            var tracks: [[LapPoint]] = []
            var segment: Int?
            var fastest = 0.0
            while index < points.count {
                let p = points[index]
                let t = p.timer?.wholeMilliseconds ?? 0
                guard last || t < b.timer.1 else { break }
                odometer = min(max(odometer, p.distance ?? 0, b.distance.0), b.distance.1)
                if p.segment != segment || tracks.isEmpty {
                    tracks.append([])
                    segment = p.segment
                }
                tracks[tracks.count - 1].append(point(p, distance: odometer))
                fastest = max(fastest, p.speed ?? 0)
                previous = p
                index += 1
            }
            if last, let p = previous, let t = p.timer?.wholeMilliseconds,
               b.timer.1 - t > 0 || b.distance.1 - odometer > 0.0005 {
                // The odometer ran on past the last stored point: its reading at the end.
                var end = p.time.millisecondsSince1970 + (b.timer.1 - t)
                if let ended = a.endedAt?.millisecondsSince1970 { end = min(max(end, p.time.millisecondsSince1970), ended) }
                if tracks.isEmpty { tracks.append([]) }
                tracks[tracks.count - 1].append(LapPoint(time: UTCTimestamp(millisecondsSince1970: end), position: nil,
                                                         altitude: nil, distance: b.distance.1, speed: nil))
                odometer = b.distance.1
            }
            report.segments += tracks.count
            laps.append(ActivityLap(
                name: b.name, start: lapStart, totalTime: .milliseconds(b.timer.1 - b.timer.0),
                distance: b.distance.1 - b.distance.0,
                maximumSpeed: options.speeds ? fastest : nil,
                resting: b.name.map(isResting) ?? false, trigger: b.trigger,
                // The phase's name, as the activity's: left out of a share that leaves names out.
                notes: options.name ? b.notes : nil, tracks: tracks))
        }
        return LapExport(start: start, name: options.name ? a.name : nil, laps: laps, report: report)
    }

    /// The laps as a share may show them (R18), from the export's: no point within a hidden
    /// place (`mask`), the track cut where it enters one and again where a straight line
    /// between two shown points would cross one; no distance a share did not choose (each
    /// point's odometer reading and the lap's stored distance would tell how far the shown
    /// track is from the hidden start): a lap's distance is then its shown points', along
    /// each track, and, when a point of it is hidden or a hidden place cuts it, its time is
    /// the shown tracks' (first to last point of each) and it starts at its first; a lap with
    /// no point shown is left out, and the file starts at the first point shown.
    static func shared(_ export: LapExport, mask: PrivacyMask?, options: GPXExportOptions) -> LapExport {
        var out = export
        var report = GPXExportReport(zones: options.privacyZones)
        report.storedPoints = export.report.storedPoints
        var laps: [ActivityLap] = []
        var previous: GeoPoint?
        for lap in export.laps {
            var tracks: [[LapPoint]] = []
            var whole = true
            for track in lap.tracks {
                var cut = true
                for p in track {
                    // A point of time and distance only tells the odometer: not in a share.
                    guard let position = p.position else { continue }
                    if let place = mask?.place(of: position) {
                        report.hiddenPoints[place] += 1
                        cut = true
                        whole = false
                        continue
                    }
                    if let previous, let mask, mask.crosses(from: previous, to: position) {
                        cut = true
                        whole = false
                    }
                    previous = position
                    if cut { tracks.append([]) }
                    cut = false
                    var shown = p
                    if !options.distance || mask != nil { shown.distance = nil }
                    tracks[tracks.count - 1].append(shown)
                }
            }
            guard let first = tracks.first?.first else { continue }
            var shown = lap
            shown.tracks = tracks
            if !options.distance || mask != nil {
                var ms: Int64 = 0
                for track in tracks {
                    ms += track.last!.time.millisecondsSince1970 - track[0].time.millisecondsSince1970
                }
                shown.distance = TrackDistance.legs(tracks.map { $0.map { $0.position! } })
                // A lap with nothing hidden keeps its timer's time and start; one with a
                // hidden stretch has its shown tracks' (its whole time would tell how long
                // the runner was in the place).
                if !whole {
                    shown.totalTime = .milliseconds(ms)
                    shown.start = first.time
                }
                shown.maximumSpeed = options.speeds ? tracks.joined().compactMap(\.speed).max() : nil
            }
            report.writtenPoints += shown.pointCount
            report.segments += tracks.count
            laps.append(shown)
        }
        out.laps = laps
        out.report = report
        if mask != nil, let first = laps.first?.tracks.first?.first { out.start = first.time }
        return out
    }
}

extension GPXExchange {
    /// Activity `id` as laps, `options` applied: everything for an export; for a share
    /// (`options.distance` false, or places hidden), only what `shared` lets through.
    static func laps(activity id: Int64, options: GPXExportOptions, _ db: Database) throws -> LapExport {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM activities WHERE id = ?", arguments: [id]) else {
            throw StorageError.unknownActivity(id)
        }
        let points = try ActivityLogStore.fetchPoints(id, db)
        let statistics = ActivityStatistics(points: points)
        let results = try ActivityLogStore.fetchPhaseResults(id, db)
        let detail = ActivityDetail(
            summary: try ActivityLogStore.summary(row, db, statistics: statistics), points: points, waypoints: [],
            cues: [], phaseResults: results, lapMarks: try ActivityLogStore.fetchLapMarks(id, db), statistics: statistics)
        let export = ActivityLaps.laps(of: detail, options: options)
        let mask = try privacyMask(activity: id, options: options, db)
        guard mask != nil || !options.distance else { return export }
        return ActivityLaps.shared(export, mask: mask, options: options)
    }

    /// The laps a share of activity `id` with `choice` shows: the privacy rules applied, for
    /// any lap-based format's writer (TCX here; FIT takes the same).
    public func sharedLaps(activity id: Int64, choice: ShareChoice, secret: ShareSecret? = nil) throws -> LapExport {
        try choice.check()
        var options = choice.options
        options.secret = secret
        return try read { db in
            try Self.activityExists(id, db)
            return try Self.laps(activity: id, options: options, db)
        }
    }
}

private extension Duration {
    var wholeMilliseconds: Int64 { nanoseconds / 1_000_000 }
}
