import Coaching
import PacerCore

/// The heart-rate parts of an activity's page (issue 41): the headline figure, the chart
/// against the zones, and the time in each zone as a table with a bar per zone. The page
/// shows them only when a point has a heart rate, so a run without a strap has the page it
/// always had, byte for byte.
enum HeartRateSection {
    /// The summary's figure: the average, the maximum in its note.
    static func figure(_ summary: HeartRateSummary) -> (name: String, value: String, note: String?) {
        (name: "Heart rate", value: "\(summary.average) bpm", note: "average; maximum \(summary.maximum) bpm")
    }

    /// The "Heart rate" section: the chart, its caption, and without zones how to set them.
    static func chart(_ run: RunAnalysis, summary: HeartRateSummary, heading: String) -> String {
        var caption = "The strap's heart rate at each stored point, "
            + (run.onTimer ? "on the runner's timer (pauses left out)" : "against the time since the first point")
        if let zones = summary.zones {
            caption += ", against the athlete's five zones (shaded: \(HeartRateSummary.methodLine(zones)))"
        }
        caption += ". The line breaks where no heart rate was counted: a point without one (the strap lost), "
            + "a new segment, or more than \(summary.gapLimitText) between points."
        var html = HTMLPage.figure(
            HeartRateChart.render(run, summary: summary, title: "Heart rate over the run of \(heading)", id: "heart-rate"),
            caption: caption)
        if summary.zones == nil {
            html += HTMLPage.paragraph("No zones are drawn: " + HeartRateSummary.noZones + ".", class: "note")
        }
        return HTMLPage.section("Heart rate", html)
    }

    /// The "Time in zones" section; nil without zones (the chart's section says how to set them).
    static func timeInZones(_ summary: HeartRateSummary) -> String? {
        guard let zones = summary.zones else { return nil }
        var s = "<div class=\"table\"><table>\n<thead><tr><th>zone</th><th class=\"n\">bpm</th><th class=\"n\">time</th>"
            + "<th class=\"n\">share</th><th></th></tr></thead>\n<tbody>\n"
        for n in summary.shownZones {
            let share = summary.share(zone: n)
            let percent = summary.countedMilliseconds > 0 ? ActivityFormat.fixed(share * 100, places: 0) + " %" : "-"
            let cells = [HeartRateSummary.zoneName(n), HeartRateSummary.zoneRange(n, zones, dash: "–"),
                         HeartRateSummary.minutesAndSeconds(summary.millisecondsInZone[n]), percent]
            s += "<tr><td>" + Markup.escape(cells[0]) + "</td>"
            s += cells.dropFirst().map { "<td class=\"n\">" + Markup.escape($0) + "</td>" }.joined()
            s += "<td>" + bar(n, share: share, percent: percent) + "</td></tr>\n"
        }
        s += "</tbody>\n</table></div>\n"
        s += HTMLPage.paragraph(
            "Zones: " + HeartRateSummary.methodLine(zones) + ". Time is counted between consecutive stored points "
                + "that both have a heart rate, each interval in the zone of the earlier point's rate; a point without "
                + "one (the strap lost), a new segment, or more than \(summary.gapLimitText) between points is a gap "
                + "and not counted: \(HeartRateSummary.minutesAndSeconds(summary.countedMilliseconds)) counted in all, "
                + "which the shares are of.",
            class: "note")
        s += "<p class=\"note\"><small>" + Markup.escape("Method: " + zones.method.citation + ".") + "</small></p>\n"
        return HTMLPage.section("Time in zones", s)
    }

    /// A zone's share as a small horizontal bar in its zone's colour, on a pale track.
    static func bar(_ n: Int, share: Double, percent: String) -> String {
        // Narrow enough that the table fits a phone's width without scrolling.
        let width = 80.0
        var svg = SVG(width: width, height: 12)
        svg.rect(x: 0, y: 1, width: width, height: 10, fill: "#f1f3f5")
        svg.rect(x: 0, y: 1, width: width * min(1, max(0, share)), height: 10, fill: Palette.heartRateZone(n))
        return svg.render(title: "\(HeartRateSummary.zoneName(n)): \(percent)")
    }
}
