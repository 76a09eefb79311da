import Coaching
import PacerCore

/// The report of one activity (R6, R20, R22) as a self-contained HTML page: the summary
/// figures, the route to scale coloured by pace against the phase's band, speed over the
/// timer against the bands with the cues, heart rate against the zones and the time in each
/// (when a strap was worn), the elevation profile, and the phases, splits, waypoints and cues
/// as tables. A pure function of the stored record (and the athlete's zones): the same
/// record gives the same bytes.
public enum ActivityReportPage {
    public static func html(_ input: ActivityReportInput) -> String {
        let run = RunAnalysis(input)
        let s = input.statistics
        let heading = "Activity #\(input.id): \(input.name)"
        // Nil without a heart rate: the page is then the one it was before heart rate.
        let heart = HeartRateSummary(points: input.points, zones: input.heartRateZones)
        var body = "<header>\n<h1>\(Markup.escape(heading))</h1>\n"
        body += HTMLPage.paragraph(meta(input), class: "meta")
        body += "</header>\n"
        body += HTMLPage.figures(figures(input, run: run) + (heart.map { [HeartRateSection.figure($0)] } ?? []))

        // The map.
        var map = MapChart()
        map.segments = ActivityStatistics.segments(of: input.points).map { segment in
            segment.map { p in (p.position, PaceClass.unbanded) }
        }
        // The classes, point by point, onto the segments.
        var k = 0
        for (si, segment) in map.segments.enumerated() {
            for pi in segment.indices {
                map.segments[si][pi].pace = run.legClasses[k]
                k += 1
            }
        }
        map.legend = run.phases.isEmpty ? [.unbanded] : [.slow, .inBand, .fast]
        map.lineName = "track"
        map.waypoints = input.waypoints.enumerated().map { i, w in ("W\(i + 1) \(clip(w.name, 28))", w.position) }
        map.kilometres = run.kilometreMarks.map { ($0.kilometre, $0.position) }
        let mapCaption = (run.phases.isEmpty
            ? "The track to scale, north up"
            : "The track to scale, north up, coloured by speed against the band of the phase being run "
                + "(each leg by the receiver's speed at the stored point it ends at)")
            + (run.onOdometer ? "; numbered circles mark each kilometre of the device's distance. "
                : "; numbered circles mark each kilometre of the stored track. ")
            + "Projection: equirectangular "
            + "about the middle latitude."
        body += HTMLPage.section("Route", HTMLPage.figure(map.render(title: "The route of \(heading)", id: "map"),
                                                          caption: mapCaption))

        // Speed.
        let speedCaption = run.onTimer
            ? "The receiver's speed at each stored point, on the runner's timer (pauses left out)"
                + (run.phases.isEmpty ? "." : ", against each phase's band (shaded); pace cues are marked on "
                    + "the line where they sounded, the other cues on the rail above.")
            : "The speed at each point, against the time since the first point (an imported activity has no "
                + "phases, so no bands)."
        body += HTMLPage.section("Speed", HTMLPage.figure(
            SpeedChart.render(run, cues: run.onTimer ? input.cues : [], title: "Speed over the run of \(heading)",
                              id: "speed"),
            caption: speedCaption))

        // Heart rate, on the same time axis as the speed above.
        if let heart {
            body += HeartRateSection.chart(run, summary: heart, heading: heading)
            body += HeartRateSection.timeInZones(heart) ?? ""
        }

        // Elevation.
        var elevationCaption = "Altitude smoothed over 3 minutes (the receiver's altitude wanders by metres), against the distance along the stored track."
        if let low = s.minimumElevation, let high = s.maximumElevation {
            elevationCaption += " Lowest \(metres(low)), highest \(metres(high)); gain \(metres(s.elevationGain)), "
                + "loss \(metres(s.elevationLoss)) (swings of 10 m or more)."
        }
        body += HTMLPage.section("Elevation", HTMLPage.figure(
            ElevationProfileChart.render(s.elevationProfile, title: "Elevation profile of \(heading)", id: "elevation"),
            caption: elevationCaption))

        if !input.phases.isEmpty {
            body += input.source == nil ? HTMLPage.section("Phases", phaseTable(input.phases))
                : HTMLPage.section("Laps (the file's)", lapTable(input.phases))
        }
        if let ghost = input.ghost {
            body += ghostSection(ghost, run: run)
        }
        if !input.lapMarks.isEmpty {
            // The runner's laps: the phases split where a lap press ended none.
            body += HTMLPage.section("Laps", runnerLapTable(LapSpan.spans(phases: input.phases, marks: input.lapMarks)))
        }
        let splits = run.splits
        if !splits.isEmpty {
            body += HTMLPage.section("Splits", HTMLPage.table(
                ["km", "distance km", run.onTimer ? "time" : "time (pauses included)", "pace min/km", "km/h", "at"],
                splits.map { sp in
                    ["\(sp.number)", ActivityFormat.kilometres(sp.distance), clock(sp.seconds),
                     Pace.minutesPerKilometre(sp.speed), ActivityFormat.kilometresPerHour(sp.speed), clock(sp.cumulative)]
                }, numeric: [0, 1, 2, 3, 4, 5])
                + HTMLPage.paragraph(run.onOdometer
                    ? "Each kilometre of the device's distance (the one above, from every fix); the last row is "
                        + "what is left."
                    : "Each kilometre along the stored track points; the last row is what is left. "
                        + "The distance above is the device's, from every fix, so it may differ by a few metres.",
                    class: "note"))
        }
        if !input.waypoints.isEmpty {
            body += HTMLPage.section("Waypoints", HTMLPage.table(
                ["", "name", input.zone.isUTC ? "time (UTC)" : "time (local)", "latitude, longitude", "altitude", "note"],
                input.waypoints.enumerated().map { i, w in
                    ["W\(i + 1)", clip(w.name, maximumNameLength), ActivityFormat.dateTime(w.time, seconds: true, zone: input.zone), coordinates(w.position),
                     w.altitude.map(metres) ?? "-", w.atLastKnownPosition ? "no fix: at the last known position" : ""]
                }, numeric: [3, 4], names: [1], prose: [5]))
        }
        if !input.cues.isEmpty {
            var counts: [(String, Int)] = []
            for c in input.cues {
                if let i = counts.firstIndex(where: { $0.0 == c.cue }) { counts[i].1 += 1 } else { counts.append((c.cue, 1)) }
            }
            body += HTMLPage.section("Cues", HTMLPage.table(
                ["cue", "times", "first at", "meaning"],
                counts.map { name, n in
                    let first = input.cues.first { $0.cue == name }.map { clock($0.elapsed.inSeconds) } ?? "-"
                    return [name, "\(n)", first, Cue(rawValue: name)?.meaning ?? ""]
                }, numeric: [1, 2], prose: [3]))
        }
        body += "<footer>Made by pacer activities report \(input.id) from the stored activity. "
            + "Times are \(input.zone.isUTC ? "UTC" : "local (the board's time zone)"); speeds km/h; distances km; "
            + "altitudes metres above sea level.</footer>\n"
        return HTMLPage.document(title: heading, body: body)
    }

    /// The race against the ghost: the gap stored at each point over the distance.
    static func ghostSection(_ ghost: String, run: RunAnalysis) -> String {
        let gaps = zip(run.along, run.points).compactMap { d, p in p.ghostGap.map { (d / 1000, $0) } }
        guard !gaps.isEmpty else { return "" }
        var chart = OverlayChart(xTitle: "distance (km)", yTitle: "ahead of the ghost (+) or behind it (−), m")
        chart.add("gap", colour: RunComparison.colourGap, gaps)
        chart.zeroLine = true
        let last = gaps[gaps.count - 1].1
        let caption = "Metres ahead of the ghost (\(ghost)) at each position, judged on distance run: "
            + "\(last >= 0 ? "\(ActivityFormat.fixed(last, places: 0)) m ahead" : "\(ActivityFormat.fixed(-last, places: 0)) m behind") at the last."
        return HTMLPage.section("Ghost", HTMLPage.figure(chart.render(title: "The gap to the ghost", id: "ghost"), caption: caption))
    }

    static func meta(_ a: ActivityReportInput) -> String {
        var parts: [String] = []
        if let start = a.startedAt {
            var when = ActivityFormat.dateTimeZoned(start, seconds: true, zone: a.zone)
            if let end = a.endedAt { when += " to " + ActivityFormat.dateTimeZoned(end, seconds: true, zone: a.zone) }
            parts.append(when)
        }
        parts.append(a.state)
        if a.plan != nil || a.workout != nil {
            parts.append("workout " + [a.plan, a.workout].compactMap { $0 }.joined(separator: " / "))
        }
        if let profile = a.profile { parts.append("power profile \(profile)") }
        if let source = a.source { parts.append("imported from \(source)") }
        return parts.joined(separator: " · ")
    }

    static func figures(_ a: ActivityReportInput, run: RunAnalysis) -> [(name: String, value: String, note: String?)] {
        let s = a.statistics
        var items: [(String, String, String?)] = [
            ("Distance", "\(ActivityFormat.kilometres(a.distance)) km", nil),
        ]
        if let timer = a.timer {
            items.append(("Time", ActivityFormat.clock(timer),
                          a.source == nil ? "timer, pauses excluded" : "its segments' spans, gaps left out"))
        }
        items.append(("Elapsed", ActivityFormat.clock(a.elapsedTime), "start to end"))
        items.append(("Moving time", ActivityFormat.clock(a.movingTime), nil))
        items.append(("Average speed", "\(ActivityFormat.kilometresPerHour(a.averageSpeed)) km/h",
                      "\(Pace.minutesPerKilometre(a.averageSpeed)) min/km"))
        items.append(("Maximum speed", "\(ActivityFormat.kilometresPerHour(a.maximumSpeed)) km/h", nil))
        items.append(("Elevation gain", metres(s.elevationGain), "loss \(metres(s.elevationLoss))"))
        items.append(lowestAndHighest(s.minimumElevation, s.maximumElevation))
        items.append(("Points", "\(s.pointCount)", "\(s.segmentCount) segment\(s.segmentCount == 1 ? "" : "s")"))
        if !a.phases.isEmpty {
            let total = a.phases.reduce(0.0) { $0 + $1.duration.inSeconds }
            let inBand = a.phases.reduce(0.0) { $0 + $1.timeInBand.inSeconds }
            items.append(("In the band", total > 0 ? "\(ActivityFormat.fixed(inBand / total * 100, places: 0)) %" : "-",
                          "of \(a.phases.count) phase\(a.phases.count == 1 ? "" : "s")"))
        }
        return items.map { (name: $0.0, value: $0.1, note: $0.2) }
    }

    static func lowestAndHighest(_ low: Double?, _ high: Double?) -> (String, String, String?) {
        guard let low, let high else { return ("Lowest, highest", "-", "no altitude recorded") }
        return ("Lowest, highest", "\(metres(low)), \(metres(high))", "above sea level")
    }

    static func phaseTable(_ phases: [PhaseResult]) -> String {
        HTMLPage.table(
            ["#", "phase", "band km/h", "time", "in band", "in band %", "avg km/h", "distance km"],
            phases.map { p in
                let share = p.duration > .zero ? p.timeInBand.inSeconds / p.duration.inSeconds * 100 : 0
                // A phase without a target (a recovery jog, a free run) had no band to be in.
                let banded = p.maximumSpeed > 0
                return ["\(p.index + 1)", p.name,
                        banded ? ActivityFormat.kilometresPerHour(p.minimumSpeed) + "–" + ActivityFormat.kilometresPerHour(p.maximumSpeed)
                            : "no target",
                        ActivityFormat.clock(p.duration), banded ? ActivityFormat.clock(p.timeInBand) : "-",
                        banded ? ActivityFormat.fixed(share, places: 0) + " %" : "-", ActivityFormat.kilometresPerHour(p.averageSpeed),
                        ActivityFormat.kilometres(p.distance)]
            }, numeric: [0, 2, 3, 4, 5, 6, 7], names: [1])
    }

    /// The runner's laps: each phase, split at the lap presses that ended none, and what ended it.
    static func runnerLapTable(_ laps: [LapSpan]) -> String {
        HTMLPage.table(
            ["#", "phase", "time", "avg km/h", "distance km", "ended by"],
            laps.enumerated().map { i, lap in
                let speed = lap.timerMS > 0 ? lap.distance * 1000 / Double(lap.timerMS) : 0
                return ["\(i + 1)", lap.name, ActivityFormat.clock(.milliseconds(lap.timerMS)),
                        ActivityFormat.kilometresPerHour(speed), ActivityFormat.kilometres(lap.distance),
                        lap.ending == .lap ? "lap press" : lap.ending.rawValue]
            }, numeric: [0, 2, 3, 4], names: [1])
    }

    /// An import's laps (its file's): no band to be in, and no slowest speed.
    static func lapTable(_ laps: [PhaseResult]) -> String {
        HTMLPage.table(
            ["#", "lap", "time", "avg km/h", "max km/h", "distance km"],
            laps.map { p in
                ["\(p.index + 1)", p.name, ActivityFormat.clock(p.duration), ActivityFormat.kilometresPerHour(p.averageSpeed),
                 ActivityFormat.kilometresPerHour(p.maximumSpeed), ActivityFormat.kilometres(p.distance)]
            }, numeric: [0, 2, 3, 4, 5], names: [1])
    }

    static func metres(_ value: Double) -> String { "\(ActivityFormat.fixed(value, places: 0)) m" }

    static func clock(_ seconds: Double) -> String { ActivityFormat.clock(.milliseconds(Int64((seconds * 1000).rounded()))) }

    static func coordinates(_ p: GeoPoint) -> String {
        "\(ActivityFormat.fixed(p.latitude, places: 6)), \(ActivityFormat.fixed(p.longitude, places: 6))"
    }

    /// At most `count` characters, an ellipsis standing for the rest.
    /// The longest name a table shows (a waypoint's, a route's): a longer one is cut with
    /// "…", so that one 3,000-character name cannot squash every other column to a character.
    /// The full name stays in the store and in exported GPX.
    static let maximumNameLength = 60

    static func clip(_ text: String, _ count: Int) -> String {
        text.count <= count ? text : String(text.prefix(count - 1)) + "…"
    }
}
