import Coaching
import Foundation
import PacerCore
import Storage
import TestSupport
import Testing

@Suite("TrackMap")
struct TrackMapTests {
    @Test func squareTrackDrawsExactly() {
        // Up the west side, along the top, down the east side: a U, 111 m a side, at the equator.
        let track = [
            GeoPoint(latitude: 0, longitude: 0),
            GeoPoint(latitude: 0.001, longitude: 0),
            GeoPoint(latitude: 0.001, longitude: 0.001),
            GeoPoint(latitude: 0, longitude: 0.001),
        ]
        let map = TrackMap.render(segments: [track], waypoints: [GeoPoint(latitude: 0.001, longitude: 0.001)],
                                  width: 11, height: 6)
        #expect(map.joined(separator: "\n") == """
            **********W
            *         *
            *         *
            *         *
            *         *
            S         E
            """)
    }

    @Test func framedMapHasALegendAndAScale() {
        let track = [GeoPoint(latitude: 0, longitude: 0), GeoPoint(latitude: 0.001, longitude: 0),
                     GeoPoint(latitude: 0.001, longitude: 0.001), GeoPoint(latitude: 0, longitude: 0.001)]
        let lines = TrackMap.framed(segments: [track], width: 11, height: 6)
        #expect(lines == [
            "+-----------+",
            "|***********|",
            "|*         *|",
            "|*         *|",
            "|*         *|",
            "|*         *|",
            "|S         E|",
            "+-----------+",
            "S start  E end  W waypoint  * track; north up; a column is 11 m wide, a row twice that",
        ])
    }

    @Test func aLineEastIsCentredVertically() {
        let east = [GeoPoint(latitude: 45, longitude: 6), GeoPoint(latitude: 45, longitude: 6.01)]
        let map = TrackMap.render(segments: [east], width: 21, height: 5)
        let blank = String(repeating: " ", count: 21)
        #expect(map == [blank, blank, "S*******************E", blank, blank])
    }

    @Test func segmentGapsAreNotDrawn() {
        let a = [GeoPoint(latitude: 0, longitude: 0), GeoPoint(latitude: 0, longitude: 0.0004)]
        let b = [GeoPoint(latitude: 0, longitude: 0.0006), GeoPoint(latitude: 0, longitude: 0.001)]
        let map = TrackMap.render(segments: [a, b], width: 11, height: 1)
        #expect(map == ["S**** ****E"])
    }

    @Test func aSinglePointAndNothing() {
        let one = TrackMap.render(segments: [[GeoPoint(latitude: 45, longitude: 6)]], width: 5, height: 3)
        #expect(one == ["     ", "  S  ", "     "])
        #expect(TrackMap.render(segments: [], width: 3, height: 2) == ["   ", "   "])
    }

    @Test func elevationChart() {
        let chart = ElevationChart.render([ProfileSample(distance: 0, altitude: 100),
                                           ProfileSample(distance: 1000, altitude: 200)], width: 10, height: 3)
        #expect(chart == [
            "200 m |       ###",
            "      |   #######",
            "100 m |##########",
            "      +----------",
            "       0 km 1.00 km",
        ])
        #expect(ElevationChart.render([], width: 10, height: 3).isEmpty)
    }

    @Test func aFlatPathDrawsFlatOnRoundTicks() {
        // 1.7 to 2.3 m: the axis spans at least 10 m in round steps, not 2 m to 2 m full height.
        let profile = (0..<20).map { ProfileSample(distance: Double($0) * 100, altitude: 2 + 0.3 * sin(Double($0))) }
        let chart = ElevationChart.render(profile, width: 10, height: 6)
        #expect(chart[0] == "10 m |          ")
        #expect(chart[4] == "     |##########")
        #expect(chart[5] == " 0 m |##########")
    }

    @Test func ticksAreOneTwoOrFiveTimesAPowerOfTen() {
        // 103 to 168 m over 8 rows (7 steps): 65 / 7 = 9.3 → steps of 10 m from 100 m.
        let chart = ElevationChart.render([ProfileSample(distance: 0, altitude: 103),
                                           ProfileSample(distance: 500, altitude: 168)], width: 4, height: 8)
        #expect(chart[0].hasPrefix("170 m |"))
        #expect(chart[7].hasPrefix("100 m |"))
        // The bottom rounded down may leave the top short: 96 to 163 needs steps of 20 m from 80 m.
        let wider = ElevationChart.render([ProfileSample(distance: 0, altitude: 96),
                                           ProfileSample(distance: 500, altitude: 163)], width: 4, height: 8)
        #expect(wider[0].hasPrefix("220 m |"))
        #expect(wider[7].hasPrefix(" 80 m |"))
        // Negative altitudes round down too.
        let low = ElevationChart.render([ProfileSample(distance: 0, altitude: -3),
                                         ProfileSample(distance: 500, altitude: 4)], width: 4, height: 6)
        #expect(low[0].hasPrefix(" 6 m |"))
        #expect(low[5].hasPrefix("-4 m |"))
    }

    @Test func theAxisIncludesTheExtremes() {
        // The highest point (24.4 m) above every profile sample: 23.4 m over 2 steps → steps
        // of 20 m, and the top label is above it.
        let profile = [ProfileSample(distance: 0, altitude: 1), ProfileSample(distance: 500, altitude: 3)]
        let chart = ElevationChart.render(profile, width: 4, height: 3, include: [1, 24.4])
        #expect(chart[0].hasPrefix("40 m |"))
        #expect(chart[2].hasPrefix(" 0 m |"))
    }
}

@Suite("ActivityReport")
struct ActivityReportTests {
    @Test func showHasEveryStatisticOfR6() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        let id = try SampleActivity().record(into: store)
        let detail = try store.activities.activity(id)
        let lines = ActivityReport.detail(detail)
        let text = lines.joined(separator: "\n")
        #expect(lines[0] == "Activity #\(id) \"Tempo <Tuesday> & co\" (completed)")
        #expect(lines.contains("Date:           2024-05-01 08:00:00 UTC to 2024-05-01 08:01:15 UTC"))
        #expect(lines.contains("Workout:        10k in 50 / Tempo"))
        #expect(lines.contains("Distance:       \(ActivityFormat.kilometres(detail.statistics.distance)) km"))
        #expect(lines.contains("Elapsed time:   00:01:14 (start to end, pauses included)"))
        #expect(lines.contains("Timer:          00:00:34 (pauses excluded)"))
        // A 9 m rise within a minute is below the 10 m threshold; the extremes are the smoothed
        // altitudes', and the chart's axis (round 2 m rows) covers them.
        #expect(lines.contains("Elevation gain: 0 m"))
        #expect(lines.contains("Lowest point:   205 m"))
        #expect(lines.contains("Highest point:  210 m"))
        #expect(lines.contains { $0.hasPrefix("218 m |") })
        #expect(lines.contains { $0.hasPrefix("204 m |") })
        #expect(lines.contains("Points:         35 in 2 segments"))
        for label in ["Moving time:", "Average speed:", "Maximum speed:", "Elevation loss:"] {
            #expect(text.contains(label))
        }
        #expect(lines.contains("   #  NAME                      TIME   IN BAND  IN BAND %  AVG KM/H   RANGE KM/H      KM"))
        #expect(lines.contains("   1  Warm-up               00:00:20  00:00:16       78 %      11.4     9.0-12.6    0.06"))
        #expect(text.contains("  W2  Fountain \"north\"  2024-05-01 08:01:01  45.100600, 6.200040  (last known position: no fix)"))
        #expect(text.contains("Cues: 3 (start 1, faster 1, end 1)"))
        let map = try #require(lines.firstIndex(of: "Route"))
        #expect(lines[map + 1] == "+" + String(repeating: "-", count: 60) + "+")
        #expect(lines[map + 22] == lines[map + 1])
        #expect(lines[(map + 2)...(map + 21)].allSatisfy { $0.count == 62 })
        #expect(lines[(map + 2)...(map + 21)].contains { $0.contains("S") })
        #expect(lines[(map + 2)...(map + 21)].contains { $0.contains("E") })
        #expect(lines.contains("Elevation profile"))
    }

    @Test func listShowsOneLinePerActivity() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        let id = try SampleActivity().record(into: store)
        let s = try store.activities.activity(id).summary
        let lines = ActivityReport.list(try store.activities.activities())
        #expect(lines.count == 2)
        #expect(lines[0] == "  ID  DATE (UTC)        NAME                      STATE           KM      TIME  AVG KM/H  GAIN M   LOW M  HIGH M")
        #expect(lines[1].hasPrefix("   1  2024-05-01 08:00  Tempo <Tuesday> & co      completed     0.1"))
        #expect(lines[1].contains("00:00:34  " + String(repeating: " ", count: 8 - ActivityFormat.kilometresPerHour(s.averageSpeed).count)
                                  + ActivityFormat.kilometresPerHour(s.averageSpeed)))
        #expect(ActivityReport.list([]) == ["No activities yet."])
    }
}
