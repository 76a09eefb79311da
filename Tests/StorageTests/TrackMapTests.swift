import Coaching
import Foundation
import PacerCore
import Storage
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
}

@Suite("ActivityReport")
struct ActivityReportTests {
    @Test func showHasEveryStatisticOfR6() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try ActivityStore(directory: dir)
        let id = try SampleActivity().record(into: store)
        let detail = try store.activity(id)
        let lines = ActivityReport.detail(detail)
        let text = lines.joined(separator: "\n")
        #expect(lines[0] == "Activity #\(id) \"Tempo <Tuesday> & co\" (completed)")
        #expect(lines.contains("Date:           2024-05-01 08:00:00 UTC to 2024-05-01 08:01:15 UTC"))
        #expect(lines.contains("Workout:        10k in 50 / Tempo"))
        #expect(lines.contains("Distance:       \(ActivityFormat.kilometres(detail.statistics.distance)) km"))
        #expect(lines.contains("Elapsed time:   00:01:14 (first to last point)"))
        #expect(lines.contains("Timer:          00:00:34 (pauses excluded)"))
        #expect(lines.contains("Elevation gain: 9 m"))
        #expect(lines.contains("Lowest point:   200 m"))
        #expect(lines.contains("Highest point:  210 m"))
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
        let store = try ActivityStore(directory: dir)
        let id = try SampleActivity().record(into: store)
        let s = try store.activity(id).summary
        let lines = ActivityReport.list(try store.activities())
        #expect(lines.count == 2)
        #expect(lines[0] == "  ID  DATE (UTC)        NAME                      STATE           KM      TIME  AVG KM/H  GAIN M   LOW M  HIGH M")
        #expect(lines[1].hasPrefix("   1  2024-05-01 08:00  Tempo <Tuesday> & co      completed     0.1"))
        #expect(lines[1].contains("00:00:34  " + String(repeating: " ", count: 8 - ActivityFormat.kilometresPerHour(s.averageSpeed).count)
                                  + ActivityFormat.kilometresPerHour(s.averageSpeed)))
        #expect(ActivityReport.list([]) == ["No activities yet."])
    }
}
