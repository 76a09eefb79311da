@testable import Charts
import Coaching
import Foundation
import PacerCore
import Testing

/// Heart rate in an activity's report (issue 41): the time in zones counted to the second on
/// made-up runs, the chart's bands and gaps, the page with and without zones, and a page
/// without heart rate left as it was.
@Suite("Heart rate report")
struct HeartRateReportTests {
    /// Zones by % of a 200 bpm maximum: 100, 120, 140, 160, 180 and 200.
    static let zones = HeartRateZones.percentOfMaximum(200, estimated: false)

    /// `rates` (nil: no heart rate) at points `every` seconds apart, northbound at 3 m/s.
    static func points(_ rates: [Int?], every: Double = 10, segmentAt: Int? = nil) -> [TrackPoint] {
        var points = northbound(count: rates.count, speed: 3, every: every, start: morning)
        for i in points.indices {
            points[i].heartRate = rates[i]
            if let segmentAt, i >= segmentAt { points[i].segment = 1 }
        }
        return points
    }

    /// 10 minutes at 130 bpm (zone 2), then 5 at 160 (zone 4), a point every `every` seconds;
    /// the last point at 15:00 closes the last interval.
    static func tenAndFive(every: Int) -> [Int?] {
        (0...(900 / every)).map { $0 * every < 600 ? 130 : 160 }
    }

    static func run(_ points: [TrackPoint], zones: HeartRateZones? = zones) -> ActivityReportInput {
        var input = activity(name: "Intervals", points: points)
        input.heartRateZones = zones
        return input
    }

    // MARK: - Time in zones

    /// Every interval between points is the earlier point's, on the high profile's 10 s, the
    /// medium's 30 s, the low's 60 s and an import's 1 s alike.
    @Test(arguments: [1, 10, 30, 60])
    func tenMinutesAtOneRateAndFiveAtAnotherAreCountedToTheSecond(every: Int) throws {
        let summary = try #require(HeartRateSummary(points: Self.points(Self.tenAndFive(every: every), every: Double(every)),
                                                    zones: Self.zones))
        #expect(summary.millisecondsInZone == [0, 0, 600_000, 0, 300_000, 0, 0])
        #expect(summary.countedMilliseconds == 900_000)
        #expect(summary.share(zone: 2) == 600.0 / 900 && summary.share(zone: 4) == 300.0 / 900)
        #expect(summary.maximum == 160)
        #expect(HeartRateSummary.minutesAndSeconds(summary.millisecondsInZone[2]) == "10:00")
        #expect(HeartRateSummary.minutesAndSeconds(summary.millisecondsInZone[4]) == "05:00")
        #expect(summary.shownZones == [1, 2, 3, 4, 5], "no time below zone 1 or above zone 5: no rows for them")
    }

    /// A strap lost for two minutes, a pause (a new segment) and a 40 s hole in a
    /// second-by-second file count nothing; the rest counts exactly.
    @Test func gapsAreNotCounted() throws {
        // 0…300 s at 130, lost 300…420 s (points without a rate), 420…600 s at 150.
        var rates: [Int?] = (0..<30).map { _ in 130 }
        rates += (30..<42).map { _ in nil }
        rates += (42...60).map { _ in 150 }
        let lost = try #require(HeartRateSummary(points: Self.points(rates), zones: Self.zones))
        // 130's last point at 290 s has no rate after it: 0…290 counted; 420…600 at 150.
        #expect(lost.millisecondsInZone == [0, 0, 290_000, 180_000, 0, 0, 0])
        #expect(lost.countedMilliseconds == 470_000)

        // The same rates throughout, a new segment at the 31st point: its interval is not counted.
        let paused = try #require(HeartRateSummary(points: Self.points((0...60).map { _ in 130 }, segmentAt: 30),
                                                   zones: Self.zones))
        #expect(paused.countedMilliseconds == 590_000)

        // A point a second for 100 s at 130 (zone 2), 40 s without one, 100 s more at 170
        // (zone 4): the median interval is 1 s, so the hole is over the 10 s limit.
        var holed = Self.points((0...100).map { _ in 130 }, every: 1)
        holed += Self.points((0...100).map { _ in 170 }, every: 1).map { p in
            var p = p
            p.time = p.time.adding(seconds: 140)
            return p
        }
        let summary = try #require(HeartRateSummary(points: holed, zones: Self.zones))
        #expect(summary.gapLimit == 10_000)
        #expect(summary.millisecondsInZone == [0, 0, 100_000, 0, 100_000, 0, 0])
    }

    @Test func timeBelowZoneOneAndAboveZoneFiveIsShownOnlyWhenSpent() throws {
        let summary = try #require(HeartRateSummary(points: Self.points([90, 90, 205, 205, 150]), zones: Self.zones))
        #expect(summary.millisecondsInZone == [20_000, 0, 0, 0, 0, 0, 20_000])
        #expect(summary.shownZones == [0, 1, 2, 3, 4, 5, 6])
        #expect(HeartRateSummary.zoneRange(0, Self.zones) == "< 100" && HeartRateSummary.zoneRange(6, Self.zones) == "> 200")
        #expect(HeartRateSummary.zoneRange(2, Self.zones) == "120-139" && HeartRateSummary.zoneRange(5, Self.zones) == "180-200")
    }

    @Test func aRunWithoutHeartRateHasNoSummary() {
        #expect(HeartRateSummary(points: Self.points([nil, nil, 0]), zones: Self.zones) == nil)
        #expect(HeartRateSummary(points: [], zones: nil) == nil)
    }

    @Test func theMediumProfilesPointsEvery30SecondsAreNotGaps() throws {
        let summary = try #require(HeartRateSummary(points: Self.points(Self.tenAndFive(every: 30), every: 30), zones: nil))
        #expect(summary.gapLimit == 45_000 && summary.countedMilliseconds == 900_000)
        #expect(summary.millisecondsInZone == [0, 0, 0, 0, 0, 0, 0], "no zones: nothing to count in")
    }

    // MARK: - The chart

    /// The `<path` elements of the chart's heart-rate line, each `d` split into its points.
    static func linePaths(_ svg: String) throws -> [[(x: Double, y: Double)]] {
        let group = try #require(svg.range(of: "<g class=\"heart-rate\""))
        let end = try #require(svg.range(of: "</g>", range: group.upperBound..<svg.endIndex))
        return svg[group.upperBound..<end.lowerBound].split(separator: "\n").filter { $0.hasPrefix("<path") }.map { line in
            let d = line.split(separator: "\"")[1]
            return d.split(separator: " ", omittingEmptySubsequences: true).map(String.init).chunked().map { pair in
                (Double(pair[0].filter { $0 != "M" && $0 != "L" })!, Double(pair[1])!)
            }
        }
    }

    @Test func theChartHasABandPerZoneAndALineWithItsGaps() throws {
        var rates: [Int?] = (0..<30).map { _ in 130 }
        rates += (30..<42).map { _ in nil }
        rates += (42...60).map { _ in 170 }
        let input = Self.run(Self.points(rates))
        let summary = try #require(HeartRateSummary(points: input.points, zones: Self.zones))
        let svg = HeartRateChart.render(RunAnalysis(input), summary: summary, title: "hr", id: "hr")
        try expectWellFormed(svg)
        for n in 1...5 {
            #expect(svg.components(separatedBy: "class=\"zone-\(n)\"").count == 2, "one band for zone \(n)")
        }
        for label in ["Z1 100–119", "Z2 120–139", "Z3 140–159", "Z4 160–179", "Z5 180–200"] {
            #expect(svg.contains(">\(label)</text>"), "no label \(label)")
        }
        let paths = try Self.linePaths(svg)
        #expect(paths.count == 2, "the strap lost: two stretches, not joined")
        #expect(paths.map(\.count) == [30, 19])
        // The first stretch ends (at 290 s) before the second begins (at 420 s).
        let frame = try #require(paths.first?.last?.x), next = try #require(paths.last?.first?.x)
        #expect(frame < next)
        #expect(svg.contains("a gap: no heart rate, or no point for over 15 s"))
        #expect(SVG.overflowingTexts(svg).isEmpty, "\(SVG.overflowingTexts(svg))")
    }

    @Test func withoutZonesTheChartHasNoBandsAndAPointAloneIsADot() throws {
        let input = Self.run(Self.points([140, nil, 150, 152]), zones: nil)
        let summary = try #require(HeartRateSummary(points: input.points, zones: nil))
        let svg = HeartRateChart.render(RunAnalysis(input), summary: summary, title: "hr", id: "hr")
        #expect(!svg.contains("class=\"zones\"") && !svg.contains("zone-1"))
        #expect(try Self.linePaths(svg).count == 1)
        #expect(svg.contains("<circle"), "the point alone at 0 s")
        #expect(SVG.overflowingTexts(svg).isEmpty, "\(SVG.overflowingTexts(svg))")
    }

    @Test func aFourHourRunsChartCutsNoLabel() {
        let rates = (0...1440).map { Optional(120 + $0 % 70) }
        var input = Self.run(Self.points(rates, every: 10), zones: .friel(threshold: 171, maximum: 190))
        input.heartRateZones = .friel(threshold: 171, maximum: 190)
        let summary = HeartRateSummary(points: input.points, zones: input.heartRateZones)!
        let svg = HeartRateChart.render(RunAnalysis(input), summary: summary, title: "hr", id: "hr", width: 400)
        #expect(SVG.overflowingTexts(svg).isEmpty, "\(SVG.overflowingTexts(svg))")
    }

    // MARK: - The page

    @Test func aPageWithHeartRateShowsTheFigureChartAndTimeInZones() throws {
        let input = Self.run(Self.points(Self.tenAndFive(every: 10)),
                             zones: .percentOfMaximum(HeartRateZones.tanakaMaximum(age: 40), estimated: true))
        let html = ActivityReportPage.html(input)
        try expectWellFormed(html)
        for part in ["<dt>Heart rate</dt><dd>140 bpm <small>average; maximum 160 bpm</small>",
                     "<h2>Heart rate</h2>", "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"heart-rate\"",
                     "<h2>Time in zones</h2>", "% of maximum heart rate, estimated from age",
                     "<small>Method: the five 10 % bands of maximum heart rate"] {
            #expect(html.contains(part), "no \(part)")
        }
        // Tanaka at 40: 180 bpm; zones 90, 108, 126, 144, 162, 180. 130 is zone 3, 160 zone 4.
        #expect(html.contains("<tr><td>Z3 tempo</td><td class=\"n\">126–143</td><td class=\"n\">10:00</td><td class=\"n\">67 %</td>"))
        #expect(html.contains("<tr><td>Z4 threshold</td><td class=\"n\">144–161</td><td class=\"n\">05:00</td><td class=\"n\">33 %</td>"))
        #expect(html.contains("<title>Z3 tempo: 67 %</title>"), "the zone's bar")
        #expect(!html.contains("below Z1") && !html.contains("above Z5"))
        #expect(!html.contains("pacer profile set"))
        // On the speed chart's time axis, after it.
        let speed = try #require(html.range(of: "<h2>Speed</h2>")), heart = try #require(html.range(of: "<h2>Heart rate</h2>"))
        #expect(speed.lowerBound < heart.lowerBound)
    }

    @Test func aPageWithHeartRateAndNoZonesSaysHowToSetThem() throws {
        let html = ActivityReportPage.html(Self.run(Self.points(Self.tenAndFive(every: 10)), zones: nil))
        try expectWellFormed(html)
        #expect(html.contains("<h2>Heart rate</h2>"))
        #expect(!html.contains("<h2>Time in zones</h2>") && !html.contains("class=\"zones\""))
        #expect(html.contains("No zones are drawn: no heart-rate zones set: set them with `pacer profile set --max-hr BPM`"))
    }

    /// A run without heart rate: not a byte of the page changes, zones or none (the goldens
    /// and `pacer scenario test Scenarios` hold the rest).
    @Test func aPageWithoutHeartRateIsTheSameWithOrWithoutZones() {
        let plain = ReportPageTests.banded()
        var zoned = plain
        zoned.heartRateZones = Self.zones
        #expect(ActivityReportPage.html(plain) == ActivityReportPage.html(zoned))
        let html = ActivityReportPage.html(zoned)
        for absent in ["Heart rate", "heart-rate", "Time in zones", "bpm"] { #expect(!html.contains(absent), "\(absent)") }
    }

    // MARK: - In a browser

    /// The page with heart rate, its zones below zone 1 and above zone 5 too, opened in
    /// headless Chromium by scripts/check-page.py at a desktop's width and a phone's (one after
    /// the other: a browser at a time on a small machine): no console error, no request, no
    /// word broken, nothing wider than the window. Like the report tests end to end, it fails
    /// without Chromium rather than passing by skipping.
    @Test func thePageLoadsCleanlyInChromium() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Browser.chromium),
                     "chromium is missing at \(Browser.chromium): scripts/setup.sh installs it (apt-get install chromium)")
        var rates: [Int?] = (0...90).map { [95, 130, 150, 170, 190, 205][$0 / 16] }
        rates[40] = nil
        let html = ActivityReportPage.html(Self.run(Self.points(rates)))
        #expect(html.contains("below Z1") && html.contains("above Z5"))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pacer-hr-\(getpid())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let page = "\(dir)/heart-rate.html"
        try html.write(toFile: page, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: Browser.screenshots, withIntermediateDirectories: true)
        for width in [1000, 420] {
            let check = try await Browser.check(page, ["--width", "\(width)", "--self-contained",
                                                       "--screenshot", "\(Browser.screenshots)/heart-rate-\(width).png"])
            #expect(check.status == 0, "at \(width) px: \(check.output)")
            #expect(check.output.contains("OK "), "at \(width) px: \(check.output)")
        }
    }
}

extension [String] {
    /// Pairs: `[a, b, c, d]` → `[[a, b], [c, d]]`.
    fileprivate func chunked() -> [[String]] {
        stride(from: 0, to: count - 1, by: 2).map { [self[$0], self[$0 + 1]] }
    }
}
