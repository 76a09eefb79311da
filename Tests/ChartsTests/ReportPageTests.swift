@testable import Charts
import Coaching
import Foundation
import PacerCore
import Testing

/// The pages as text: escaped, well-formed, the same bytes every time, nothing cut.
@Suite("Report pages")
struct ReportPageTests {
    static let evil = "<script>alert(\"x\")</script> & Co"

    static func banded() -> ActivityReportInput {
        let points = northbound(count: 61, speed: 3, start: morning)
        return activity(
            name: evil, points: points,
            waypoints: [Waypoint(name: "<b>Bridge</b> & 'lock'", time: morning.adding(seconds: 100),
                                 position: points[10].position, altitude: 10, atLastKnownPosition: false)],
            cues: [CueRecord(elapsed: .seconds(0), cue: "started", phase: 0),
                   CueRecord(elapsed: .seconds(120), cue: "speed-up", phase: 1),
                   CueRecord(elapsed: .seconds(300), cue: "phase-change", phase: 1),
                   CueRecord(elapsed: .seconds(330), cue: "on-pace", phase: 1)],
            phases: [RunAnalysisTests.phase(0, seconds: 300, band: 2.5...3.5),
                     RunAnalysisTests.phase(1, seconds: 300, band: 3.2...3.8)])
    }

    @Test func namesFromDataAreEscapedAndThePageIsWellFormed() throws {
        let html = ActivityReportPage.html(Self.banded())
        #expect(!html.contains("<script"), "a name became markup")
        #expect(!html.contains("<b>"))
        #expect(html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Co"))
        #expect(html.contains("W1 &lt;b&gt;Bridge&lt;/b&gt; &amp; &#39;lock&#39;"))
        try expectWellFormed(html)
    }

    @Test func thePageIsSelfContained() {
        let html = ActivityReportPage.html(Self.banded())
            .replacingOccurrences(of: "xmlns=\"http://www.w3.org/2000/svg\"", with: "")
        #expect(html.contains("Content-Security-Policy\" content=\"default-src 'none'"))
        for reference in ["src=", "href=", "url(", "@import", "<link", "<script", "http:", "https:"] {
            #expect(!html.contains(reference), "the page refers to something outside it: \(reference)")
        }
    }

    @Test func theSameRecordGivesTheSameBytes() {
        #expect(ActivityReportPage.html(Self.banded()) == ActivityReportPage.html(Self.banded()))
    }

    @Test func aBandedRunShowsItsBandsCuesPhasesAndSplits() {
        let html = ActivityReportPage.html(Self.banded())
        for part in ["the phase&#39;s band", "speed-up (1)", "on-pace (1)", "slower than the band", "<h2>Phases</h2>",
                     "<h2>Splits</h2>", "<h2>Waypoints</h2>", "<h2>Cues</h2>", "9.0–12.6", "timer (minutes), pauses excluded"] {
            #expect(html.contains(part), "no \(part)")
        }
    }

    @Test func anImportedActivityHasNoBandsButItsPace() throws {
        let input = activity(name: "Imported", points: northbound(count: 30, speed: 3, start: morning), source: "run.gpx")
        let html = ActivityReportPage.html(input)
        #expect(!html.contains("the phase&#39;s band") && !html.contains("slower than the band"))
        #expect(!html.contains("<h2>Phases</h2>"))
        #expect(html.contains("time since the first point (minutes)"))
        #expect(html.contains("imported from run.gpx"))
        try expectWellFormed(html)
    }

    @Test func anActivityWithoutPointsStillHasAPage() throws {
        let html = ActivityReportPage.html(activity(name: "Empty", points: []))
        #expect(html.contains("No position was recorded."))
        #expect(html.contains("No altitude was recorded."))
        try expectWellFormed(html)
    }

    @Test func noLabelIsCutInAnyChart() {
        // Long names, high speeds, four hours: the widest labels the charts meet.
        var input = Self.banded()
        input.waypoints[0].name = "A waypoint with a very long name indeed, near the edge"
        let run = RunAnalysis(input)
        var map = MapChart()
        map.segments = [input.points.map { ($0.position, PaceClass.inBand) }]
        map.legend = [.slow, .inBand, .fast]
        map.waypoints = [("W1 A waypoint with a very long name indeed", input.points.last!.position),
                         ("W2 Another one, at the start", input.points[0].position)]
        map.kilometres = run.kilometreMarks.map { ($0.kilometre, $0.position) }
        let long = activity(points: northbound(count: 1441, speed: 5.5, every: 10, start: morning),
                            phases: [RunAnalysisTests.phase(0, seconds: 14_400, band: 2.5...3.5)])
        let charts = [
            map.render(title: "map", id: "map"),
            SpeedChart.render(run, cues: input.cues, title: "speed", id: "speed"),
            SpeedChart.render(RunAnalysis(long), cues: [], title: "speed", id: "speed"),
            ElevationProfileChart.render(input.statistics.elevationProfile, title: "elevation", id: "elevation"),
        ]
        for chart in charts {
            #expect(SVG.overflowingTexts(chart).isEmpty, "\(SVG.overflowingTexts(chart))")
        }
    }

    /// A 3,000-character waypoint name is cut in the table, so that it cannot squash every
    /// other column to one character per line.
    @Test func aVeryLongWaypointNameIsCutInTheTable() throws {
        var input = Self.banded()
        let long = String(repeating: "Longname", count: 375)
        input.waypoints[0].name = long
        let page = ActivityReportPage.html(input)
        try expectWellFormed(page)
        #expect(!page.contains(String(long.prefix(ActivityReportPage.maximumNameLength))))
        #expect(page.contains(String(long.prefix(ActivityReportPage.maximumNameLength - 1)) + "…"))
    }

    @Test func aFlatProfileIsDrawnFlat() {
        // Altitudes within 0.2 m: the axis spans at least 10 m of round numbers.
        let profile = (0...20).map { ProfileSample(distance: Double($0) * 100, altitude: 12.3 + Double($0 % 3) * 0.1) }
        let svg = ElevationProfileChart.render(profile, title: "flat", id: "e")
        #expect(svg.contains(">5</text>") && svg.contains(">20</text>"))
        #expect(!svg.contains(">12.3</text>"))
    }

    @Test func theMapIsToScaleAcrossAndDown() throws {
        // At 60° north a degree of longitude is half a degree of latitude's length.
        let p = try #require(MapChart.Projection([GeoPoint(latitude: 60, longitude: 10),
                                                  GeoPoint(latitude: 60.01, longitude: 10.02)]))
        let corner = p.metres(GeoPoint(latitude: 60.01, longitude: 10.02))
        #expect(abs(corner.x / corner.y - 1) < 0.001)
        #expect(MapChart.distanceLabel(500) == "500 m" && MapChart.distanceLabel(2000) == "2 km")
    }

    @Test func aRouteReportNamesItsWaypointsEscaped() throws {
        let points = northbound(count: 40, speed: 3, start: morning).map {
            PathPoint(position: $0.position, altitude: $0.altitude, time: nil)
        }
        let input = RouteReportInput(
            id: 3, name: Self.evil, source: "a&b.gpx", distance: 1170, duration: nil, points: points,
            waypoints: [.init(name: "Mill <1>", description: "<img src=x onerror=alert(1)>", position: points[5].position,
                              altitude: 8)],
            statistics: PathStatistics(segments: [points]))
        let html = RouteReportPage.html(input)
        #expect(!html.contains("<script") && !html.contains("<img"))
        #expect(html.contains("W1 Mill &lt;1&gt;"))
        #expect(html.contains("imported from a&amp;b.gpx"))
        try expectWellFormed(html)
    }
}
