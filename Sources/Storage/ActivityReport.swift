import Coaching
import PacerCore

/// The text the activity and route commands print (R6, R10, R19, R22): pure functions of
/// what the store returns, so tests can read them.
public enum ActivityReport {
    // MARK: - Activities

    /// The activity list (R22): one line per activity under a header; dates in `zone`.
    public static func list(_ activities: [ActivitySummary], zone: DisplayZone = .utc) -> [String] {
        guard !activities.isEmpty else { return ["No activities yet."] }
        var lines = [row([("ID", -4), (zone.isUTC ? "DATE (UTC)" : "DATE (local)", 16), ("NAME", 24), ("STATE", 9), ("KM", -7), ("TIME", -8),
                          ("AVG KM/H", -8), ("GAIN M", -6), ("LOW M", -6), ("HIGH M", -6)])]
        for a in activities {
            lines.append(row([
                ("\(a.id)", -4),
                (a.startedAt.map { ActivityFormat.dateTime($0, zone: zone) } ?? "-", 16),
                (clip(a.name, 24), 24),
                (a.state.rawValue, 9),
                (ActivityFormat.kilometres(a.distance), -7),
                (ActivityFormat.clock(a.time), -8),
                (ActivityFormat.kilometresPerHour(a.averageSpeed), -8),
                (ActivityFormat.fixed(a.elevationGain, places: 0), -6),
                (a.minimumElevation.map { ActivityFormat.fixed($0, places: 0) } ?? "-", -6),
                (a.maximumElevation.map { ActivityFormat.fixed($0, places: 0) } ?? "-", -6),
            ]))
        }
        return lines
    }

    /// Everything about one activity (R6): the statistics, the phases, the waypoints, the map
    /// and the elevation profile; times in `zone`. When a point has a heart rate, its average
    /// and maximum and the time in each of `heartRateZones` (the athlete's; without them, how
    /// to set them); without one, not a word of heart rate.
    public static func detail(
        _ d: ActivityDetail, mapWidth: Int = 60, mapHeight: Int = 20, zone: DisplayZone = .utc,
        heartRateZones: HeartRateZones? = nil
    ) -> [String] {
        let a = d.summary
        let s = d.statistics
        let heart = HeartRateSummary(points: d.points, zones: heartRateZones)
        var lines = ["Activity #\(a.id) \"\(a.name)\" (\(a.state.rawValue))"]
        var when = a.startedAt.map { ActivityFormat.dateTimeZoned($0, seconds: true, zone: zone) } ?? "unknown"
        if let end = a.endedAt { when += " to " + ActivityFormat.dateTimeZoned(end, seconds: true, zone: zone) }
        lines.append(field("Date", when))
        if a.plan != nil || a.workout != nil {
            lines.append(field("Workout", [a.plan, a.workout].compactMap { $0 }.joined(separator: " / ")))
        }
        if let profile = a.profile { lines.append(field("Power profile", profile)) }
        if let source = a.source { lines.append(field("Imported from", source)) }
        lines.append(field("Distance", "\(ActivityFormat.kilometres(a.distance)) km"))
        lines.append(field("Elapsed time", ActivityFormat.clock(a.elapsedTime) + " (start to end, pauses included)"))
        if let active = a.activeTime { lines.append(field("Timer", ActivityFormat.clock(active) + " (pauses excluded)")) }
        lines.append(field("Moving time", ActivityFormat.clock(a.movingTime) + " (faster than 1.8 km/h)"))
        lines.append(field("Average speed", "\(ActivityFormat.kilometresPerHour(a.averageSpeed)) km/h"
                                + " (\(Pace.minutesPerKilometre(a.averageSpeed)) min/km, distance over the timer)"))
        lines.append(field("Maximum speed", "\(ActivityFormat.kilometresPerHour(a.maximumSpeed)) km/h"))
        lines.append(field("Elevation gain", metres(s.elevationGain)))
        lines.append(field("Elevation loss", metres(s.elevationLoss)))
        lines.append(field("Lowest point", s.minimumElevation.map(metres) ?? "no altitude recorded"))
        lines.append(field("Highest point", s.maximumElevation.map(metres) ?? "no altitude recorded"))
        lines.append(field("Points", "\(s.pointCount) in \(s.segmentCount) segment\(s.segmentCount == 1 ? "" : "s")"))
        if let heart { lines.append(field("Heart rate", "avg \(heart.average), max \(heart.maximum) bpm")) }

        if !d.phaseResults.isEmpty {
            // An import's are the file's laps: no band to be in, and no slowest speed.
            let laps = a.source != nil
            lines.append("")
            lines.append(laps ? "Laps (the file's)" : "Phases")
            lines.append("  " + row([("#", -2), ("NAME", 20), ("TIME", -8), ("IN BAND", -8), ("IN BAND %", -9),
                                     ("AVG KM/H", -8), ("RANGE KM/H", -11), ("KM", -6)]))
            for p in d.phaseResults {
                let share = p.duration > .zero ? p.timeInBand.inSeconds / p.duration.inSeconds * 100 : 0
                // A phase without a target (a recovery jog, a free run) had no band to be in.
                let banded = !laps && p.maximumSpeed > 0
                lines.append("  " + row([
                    ("\(p.index + 1)", -2), (clip(p.name, 20), 20), (ActivityFormat.clock(p.duration), -8),
                    (banded ? ActivityFormat.clock(p.timeInBand) : "-", -8),
                    (banded ? ActivityFormat.fixed(share, places: 0) + " %" : "-", -9),
                    (ActivityFormat.kilometresPerHour(p.averageSpeed), -8),
                    (laps ? "max " + ActivityFormat.kilometresPerHour(p.maximumSpeed)
                          : banded ? ActivityFormat.kilometresPerHour(p.minimumSpeed) + "-" + ActivityFormat.kilometresPerHour(p.maximumSpeed)
                          : "no target", -11),
                    (ActivityFormat.kilometres(p.distance), -6),
                ]))
            }
        }
        if !d.lapMarks.isEmpty {
            // The runner's laps: the phases split where a lap press ended none (as FIT and TCX
            // carry them).
            lines.append("")
            lines.append("Laps")
            lines.append("  " + row([("#", -2), ("PHASE", 20), ("TIME", -8), ("AVG KM/H", -8), ("KM", -6), ("ENDED BY", 9)]))
            for (i, lap) in LapSpan.spans(phases: d.phaseResults, marks: d.lapMarks).enumerated() {
                let speed = lap.timerMS > 0 ? lap.distance * 1000 / Double(lap.timerMS) : 0
                lines.append("  " + row([
                    ("\(i + 1)", -2), (clip(lap.name, 20), 20), (ActivityFormat.clock(.milliseconds(lap.timerMS)), -8),
                    (ActivityFormat.kilometresPerHour(speed), -8), (ActivityFormat.kilometres(lap.distance), -6),
                    (lap.ending == .lap ? "lap press" : lap.ending.rawValue, 9),
                ]))
            }
        }
        if let heart { lines += timeInZones(heart) }
        if !d.waypoints.isEmpty {
            lines.append("")
            lines.append("Waypoints")
            for (i, w) in d.waypoints.enumerated() {
                var text = "  W\(i + 1)  \(w.name)  \(ActivityFormat.dateTime(w.time, seconds: true, zone: zone))"
                text += "  \(ActivityFormat.fixed(w.position.latitude, places: 6)), \(ActivityFormat.fixed(w.position.longitude, places: 6))"
                if let alt = w.altitude { text += "  \(metres(alt))" }
                if w.atLastKnownPosition { text += "  (last known position: no fix)" }
                lines.append(text)
            }
        }
        if !d.cues.isEmpty {
            var counts: [(String, Int)] = []
            for c in d.cues {
                if let i = counts.firstIndex(where: { $0.0 == c.cue }) { counts[i].1 += 1 } else { counts.append((c.cue, 1)) }
            }
            lines.append("")
            lines.append("Cues: \(d.cues.count) (" + counts.map { "\($0.0) \($0.1)" }.joined(separator: ", ") + ")")
        }
        let segments = d.segments.map { $0.map(\.position) }
        if !segments.isEmpty {
            lines.append("")
            lines.append("Route")
            lines += TrackMap.framed(segments: segments, waypoints: d.waypoints.map(\.position),
                                     width: mapWidth, height: mapHeight)
        }
        var profile = s.elevationProfile
        // On the odometer (a recording on the device) the axis ends at the activity's distance,
        // the one above: past the last stored point the runner ran on at its altitude.
        if !d.points.isEmpty, d.points.allSatisfy({ $0.distance != nil }), let last = profile.last,
           a.distance > last.distance {
            profile.append(ProfileSample(distance: a.distance, altitude: last.altitude))
        }
        let chart = ElevationChart.render(profile, width: mapWidth, height: 8,
                                          include: [s.minimumElevation, s.maximumElevation].compactMap { $0 })
        if !chart.isEmpty {
            lines.append("")
            lines.append("Elevation profile")
            lines += chart
        }
        return lines
    }

    /// The time in each heart-rate zone, as the page's table has it (`HeartRateSummary`: the
    /// rule that counts it, said in the last lines), or how to set zones when there are none.
    static func timeInZones(_ heart: HeartRateSummary) -> [String] {
        var lines = ["", "Time in heart-rate zones"]
        guard let zones = heart.zones else {
            lines.append("  " + HeartRateSummary.noZones)
            return lines
        }
        lines[1] += ": " + HeartRateSummary.methodLine(zones)
        lines.append("  " + row([("ZONE", 13), ("BPM", 7), ("TIME", -6), ("SHARE", -5)]))
        for n in heart.shownZones {
            lines.append("  " + row([
                (HeartRateSummary.zoneName(n), 13), (HeartRateSummary.zoneRange(n, zones), 7),
                (HeartRateSummary.minutesAndSeconds(heart.millisecondsInZone[n]), -6),
                (heart.countedMilliseconds > 0 ? ActivityFormat.fixed(heart.share(zone: n) * 100, places: 0) + " %" : "-", -5),
            ]))
        }
        lines.append("  \(HeartRateSummary.minutesAndSeconds(heart.countedMilliseconds)) counted: between consecutive "
            + "points with a heart rate, each interval in the earlier point's zone; none over \(heart.gapLimitText) or "
            + "across a segment's end")
        lines.append("  Method: " + zones.method.citation)
        return lines
    }

    /// General statistics (R10), each with its description; says how many activities are
    /// still recording and not counted.
    public static func overall(_ statistics: OverallStatistics, recording: Int = 0) -> [String] {
        var lines = statistics.descriptions
        if recording > 0 {
            lines.append("(\(recording) activit\(recording == 1 ? "y is" : "ies are") still recording and not counted.)")
        }
        return lines
    }

    // MARK: - Routes

    /// The route list (R19); with a position, the distance to each route's start.
    public static func routes(_ routes: [RouteSummary], from position: GeoPoint? = nil) -> [String] {
        guard !routes.isEmpty else { return ["No routes yet: import one with `pacer activities import FILE.gpx`."] }
        var header: [(String, Int)] = [("ID", -4), ("NAME", 24), ("KM", -7), ("TIME", -8), ("GAIN M", -6),
                                       ("LOSS M", -6), ("LOW M", -6), ("HIGH M", -6), ("POINTS", -6), ("WPTS", -4)]
        if position != nil { header.append(("TO START KM", -11)) }
        var lines = [row(header)]
        for r in routes {
            var cells: [(String, Int)] = [
                ("\(r.id)", -4), (clip(r.name, 24), 24), (ActivityFormat.kilometres(r.distance), -7),
                (r.duration.map(ActivityFormat.clock) ?? "-", -8),
                (ActivityFormat.fixed(r.elevationGain, places: 0), -6),
                (ActivityFormat.fixed(r.elevationLoss, places: 0), -6),
                (r.minimumElevation.map { ActivityFormat.fixed($0, places: 0) } ?? "-", -6),
                (r.maximumElevation.map { ActivityFormat.fixed($0, places: 0) } ?? "-", -6),
                ("\(r.pointCount)", -6), ("\(r.waypointCount)", -4),
            ]
            if let position {
                cells.append((r.distanceToStart(from: position).map { ActivityFormat.kilometres($0) } ?? "-", -11))
            }
            lines.append(row(cells))
        }
        return lines
    }

    /// Everything about one route (R19): numbers, waypoints, the line on a map, the profile.
    public static func route(_ d: RouteDetail, from position: GeoPoint? = nil, mapWidth: Int = 60,
                             mapHeight: Int = 20) -> [String] {
        let r = d.summary
        var lines = ["Route #\(r.id) \"\(r.name)\""]
        if let source = r.source { lines.append(field("Imported from", source)) }
        lines.append(field("Distance", "\(ActivityFormat.kilometres(r.distance)) km"))
        if let duration = r.duration { lines.append(field("Time", ActivityFormat.clock(duration))) }
        if let position, let d = r.distanceToStart(from: position) {
            lines.append(field("To the start", "\(ActivityFormat.kilometres(d)) km"))
        }
        lines.append(field("Elevation gain", metres(r.elevationGain)))
        lines.append(field("Elevation loss", metres(r.elevationLoss)))
        lines.append(field("Lowest point", r.minimumElevation.map(metres) ?? "no altitude in the file"))
        lines.append(field("Highest point", r.maximumElevation.map(metres) ?? "no altitude in the file"))
        if let start = d.points.first?.position, let end = d.points.last?.position {
            lines.append(field("Start", coordinates(start)))
            lines.append(field("End", coordinates(end)))
        }
        lines.append(field("Points", "\(r.pointCount)"))
        if !d.waypoints.isEmpty {
            lines.append("")
            lines.append("Waypoints")
            for (i, w) in d.waypoints.enumerated() {
                var text = "  W\(i + 1)  \(w.name ?? "(unnamed)")  \(coordinates(w.position))"
                if let alt = w.altitude { text += "  \(metres(alt))" }
                if let desc = w.description, !desc.isEmpty { text += "  \(desc)" }
                lines.append(text)
            }
        }
        if !d.points.isEmpty {
            lines.append("")
            lines.append("Route")
            lines += TrackMap.framed(segments: [d.points.map(\.position)], waypoints: d.waypoints.map(\.position),
                                     width: mapWidth, height: mapHeight)
        }
        let chart = ElevationChart.render(d.statistics.elevationProfile, width: mapWidth, height: 8,
                                          include: [d.statistics.minimumElevation, d.statistics.maximumElevation].compactMap { $0 })
        if !chart.isEmpty {
            lines.append("")
            lines.append("Elevation profile")
            lines += chart
        }
        return lines
    }

    // MARK: - Pieces

    static func field(_ name: String, _ value: String) -> String {
        name + ":" + String(repeating: " ", count: max(1, 15 - name.count)) + value
    }

    static func metres(_ value: Double) -> String { "\(ActivityFormat.fixed(value, places: 0)) m" }

    static func coordinates(_ p: GeoPoint) -> String {
        "\(ActivityFormat.fixed(p.latitude, places: 6)), \(ActivityFormat.fixed(p.longitude, places: 6))"
    }

    static func clip(_ text: String, _ width: Int) -> String {
        text.count <= width ? text : String(text.prefix(width - 1)) + "~"
    }

    /// Cells joined by two spaces; a positive width pads on the right (text), a negative one
    /// on the left (numbers). Trailing spaces are trimmed.
    static func row(_ cells: [(String, Int)]) -> String {
        var line = cells.map { text, width in
            let n = abs(width) - text.count
            guard n > 0 else { return text }
            let pad = String(repeating: " ", count: n)
            return width < 0 ? pad + text : text + pad
        }.joined(separator: "  ")
        while line.last == " " { line.removeLast() }
        return line
    }
}
