import Coaching
import Foundation
import PacerCore
import Storage
import TestSupport
import Testing

/// A track point of a test file: where, when (seconds after `t0`; nil for no time), at what
/// elevation (as the file writes it).
struct TestTrackPoint {
    var lat: Double
    var lon: Double
    var seconds: Int?
    var ele: String? = "200"
}

/// A GPX track of `points`, one a line: the first on line 4, point `i` on line `4 + i`.
func trackFile(_ points: [TestTrackPoint]) -> String {
    var body = "<trk><name>Test</name><trkseg>\n"
    for p in points {
        body += "<trkpt lat=\"\(p.lat)\" lon=\"\(p.lon)\">"
        if let ele = p.ele { body += "<ele>\(ele)</ele>" }
        if let s = p.seconds { body += "<time>\(UTCTimestamp(millisecondsSince1970: t0.millisecondsSince1970 + Int64(s) * 1000))</time>" }
        body += "</trkpt>\n"
    }
    return gpxDocument(body + "</trkseg></trk>")
}

/// A runner going north from 45° N 6° E at `speed` m/s, a point a second; with `jitter`, each
/// position off by up to that many metres each way, as a receiver's are (a fixed
/// pseudo-random sequence, the same every run).
func runNorth(_ count: Int, speed: Double = 3, jitter: Double = 0) -> [TestTrackPoint] {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func noise() -> Double {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return (Double(state >> 11) / Double(1 << 53) * 2 - 1) * jitter
    }
    let east = metresPerDegree * cos(45 * Double.pi / 180)
    return (0..<count).map { i in
        TestTrackPoint(lat: 45 + (Double(i) * speed + noise()) / metresPerDegree, lon: 6 + noise() / east, seconds: i)
    }
}

/// Issue 14: files no runner could have recorded, refused with the point's line and why.
extension GPXRefusalTests {
    static let implausible: [Case] = {
        // The file: 19,967 km in 1 s, half the Earth round.
        let far = trackFile([TestTrackPoint(lat: 0, lon: 0, seconds: 0), TestTrackPoint(lat: 0, lon: 179.568, seconds: 1)])
        var car = runNorth(100, speed: 27.8)  // 100 km/h, a point a second: 28 m each, within GPS error
        car[0].ele = nil
        var jump = runNorth(40)
        for i in 20..<40 { jump[i].lat += 1000 / metresPerDegree }
        var twoSpikes = runNorth(20)
        twoSpikes[5].lat += 1
        twoSpikes[12].lat += 1
        var backwards = runNorth(40)
        for i in 20..<40 { backwards[i].seconds = i - 30 }
        var sky = runNorth(3)
        sky[1].ele = "1e308"
        var feet = runNorth(20)
        for i in feet.indices { feet[i].ele = "29029" }  // Everest in feet, all along
        let oneTime = runNorth(100).map { TestTrackPoint(lat: $0.lat, lon: $0.lon, seconds: 0) }
        return [
            Case(name: "19,967 km in 1 s, as an activity", content: far, kind: .activity, line: 5,
                 reason: "<trkpt> is 19967 km from the point at line 4, 1 s earlier (71881481 km/h): faster than anyone on foot "
                    + "(50 km/h, give or take 50 m of GPS error) — 1 point of 2 out of line like this: too many to drop"),
            Case(name: "19,967 km in 1 s, as a route", content: far, kind: .route, line: 5,
                 reason: "<trkpt> is 19967 km from the point at line 4, 1 s earlier"),
            Case(name: "100 points with one time", content: trackFile(oneTime), kind: .activity, line: 5,
                 reason: "all 100 track points have the same time, 2024-05-01T08:00:00.000Z: an activity needs times "
                    + "that advance (import the file as a route)"),
            Case(name: "a car at 100 km/h, 28 m a second", content: trackFile(car), kind: .activity, line: 4 + 30,
                 reason: "<trkpt> is 834 m from the point at line 4, 30 s earlier (100 km/h)"),
            Case(name: "a jump the track does not come back from", content: trackFile(jump), kind: .activity, line: 4 + 20,
                 reason: "<trkpt> is 1003 m from the point at line 23, 1 s earlier (3611 km/h): faster than anyone on foot "
                    + "(50 km/h, give or take 50 m of GPS error) — and the track does not come back in line within 5 points"),
            Case(name: "two spikes in 20 points", content: trackFile(twoSpikes), kind: .activity, line: 4 + 5,
                 reason: "<trkpt> is 111 km from the point at line 8, 1 s earlier"),
            Case(name: "times going back for good", content: trackFile(backwards), kind: .activity, line: 4 + 20,
                 reason: "<trkpt> time 2024-05-01T07:59:50.000Z is before the previous point's 2024-05-01T08:00:19.000Z (line 23)"),
            Case(name: "elevation 1e308", content: trackFile(sky), kind: .activity, line: 5,
                 reason: "<ele> 1e+308 m is outside the elevations a runner meets (-500 to 9000 m)"),
            Case(name: "elevations in feet", content: trackFile(feet), kind: .route, line: 4,
                 reason: "<ele> 29029.0 m is outside the elevations a runner meets (-500 to 9000 m) — 20 elevations of 20"),
            Case(name: "elevation not finite", content: gpxDocument("<wpt lat=\"45\" lon=\"6\"><ele>1e999</ele></wpt>"),
                 line: 3, reason: "<ele> \"1e999\" is not a number"),
            Case(name: "elevation NaN", content: gpxDocument("<wpt lat=\"45\" lon=\"6\"><ele>NaN</ele></wpt>"),
                 line: 3, reason: "<ele> \"NaN\" is not a number"),
        ]
    }()

    @Test(arguments: implausible)
    func refusedAsImplausible(_ c: Case) throws {
        try refused(c)
    }
}

@Suite("GPX import plausibility")
struct GPXPlausibilityTests {
    /// Imports `points` as an activity into a fresh store.
    static func importActivity(_ points: [TestTrackPoint], in dir: String, name: String = "run.gpx")
        throws -> (PacerStore, ImportResult, String) {
        let store = try PacerStore(directory: "\(dir)/\(name).data")
        let path = try write(trackFile(points), to: name, in: dir)
        return (store, try store.gpx.importGPX(file: path, as: .activity), path)
    }

    /// Issue 38, case 2: an import's statistics take its points at once, so a file has at most
    /// `maximumPoints` (100,000); past them, GPX and FIT alike are refused at the point, and
    /// nothing is stored.
    @Test func aFileOfMorePointsThanTheLimitIsRefusedAtTheFirstPointPast() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(TrackPlausibility.standard.maximumPoints == 100_000)
        let rules = TrackPlausibility(maximumPoints: 100)
        let path = dir + "/long.gpx"
        try trackFile(runNorth(101)).write(toFile: path, atomically: true, encoding: .utf8)
        let store = try PacerStore(directory: dir + "/data")
        #expect(throws: GPXError(file: path, line: 104, reason: "more than 100 points: longer than any run or route Pacer keeps "
                                     + "(0 hours at one a second); split the file")) {
            try store.gpx.importGPX(file: path, as: .activity, rules: rules)
        }
        #expect(throws: GPXError.self) { try store.gpx.importGPX(file: path, as: .route, rules: rules) }
        #expect(try store.activities.activities().isEmpty && store.routes.routes().isEmpty)
        try trackFile(runNorth(100)).write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try store.gpx.importGPX(file: path, as: .activity, rules: rules).pointCount == 100)
    }

    /// Issue 38, case 10, for GPX as for FIT: a point dated 1989 or 2126 is no run's; the file
    /// is refused at its line, by the same bounds as a FIT record.
    @Test func aPointDatedBefore2000OrFrom2100IsRefusedAtItsLine() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir + "/data")
        let path = dir + "/dated.gpx"
        for (year, line) in [("1989-12-31T00:00:05Z", 5), ("2126-02-07T06:28:16Z", 5)] {
            let text = gpxDocument("<trk><trkseg>\n<trkpt lat=\"45\" lon=\"6\"><time>2024-05-01T06:00:00Z</time></trkpt>\n"
                + "<trkpt lat=\"45.00003\" lon=\"6\"><time>\(year)</time></trkpt>\n</trkseg></trk>")
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let error = #expect(throws: GPXError.self) { try store.gpx.importGPX(file: path, as: .activity) }
            #expect(error?.reason.contains("no run's time (2000 to 2100)") == true, "\(String(describing: error))")
            #expect(error?.line == line, "\(String(describing: error))")
        }
        #expect(FITReader.earliestTime == TrackPlausibility.earliestTime && FITReader.latestTime == TrackPlausibility.latestTime)
    }

    /// A receiver's noise at 1 Hz (10 m each way) is not taken for speed: nothing dropped.
    @Test func aNoisyOneHertzRunImportsWhole() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (_, result, _) = try Self.importActivity(runNorth(3600, speed: 4, jitter: 10), in: dir)
        #expect(result.pointCount == 3600)
        #expect(result.droppedPoints == 0)
        #expect(result.notes.isEmpty)
    }

    /// The 19,967 km jump as one point of a long run: dropped and said, and the
    /// activity (and `pacer stats`) are the run's, as if the point had never been there.
    @Test func aSpikeIsDroppedAndTheStatisticsAreTheRunsOwn() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var spiked = runNorth(1000)
        spiked[500].lat = -spiked[500].lat
        spiked[500].lon -= 179.568
        let (store, result, path) = try Self.importActivity(spiked, in: dir)
        #expect(result.pointCount == 999)
        #expect(result.pointsRead == 1000)
        #expect(result.droppedPoints == 1)
        #expect(result.notes.map(\.line) == [4 + 500])
        #expect(result.notes.first?.description.hasPrefix("\(path):504: <trkpt> dropped as a GPS glitch: is 19") == true,
                "\(result.notes)")

        var without = runNorth(1000)
        without.remove(at: 500)
        let (clean, _, _) = try Self.importActivity(without, in: dir, name: "clean.gpx")
        let stats = try store.activities.overallStatistics(), expected = try clean.activities.overallStatistics()
        #expect(stats.totalDistance == expected.totalDistance)
        #expect(stats.totalTime == expected.totalTime)
        #expect(stats.fastest?.maximumSpeed == expected.fastest?.maximumSpeed)
        #expect(abs(stats.totalDistance - 2997) < 1)
        #expect(try store.activities.activity(result.id).points.count == 999)
    }

    /// A first fix far off (a receiver starting), and a last one: dropped, at either end.
    @Test func aGlitchAtTheStartOrTheEndIsDropped() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var start = runNorth(100)
        start[0].lat += 2000 / metresPerDegree
        let (_, first, _) = try Self.importActivity(start, in: dir, name: "start.gpx")
        #expect(first.droppedPoints == 1)
        #expect(first.notes.map(\.line) == [4])
        #expect(first.notes.first?.reason.hasPrefix("<trkpt> dropped as a GPS glitch at the start of a segment: "
                                                     + "the point at line 5 is 1997 m from it, 1 s later") == true,
                "\(first.notes)")

        var end = runNorth(100)
        end[99].lon += 1
        let (_, last, _) = try Self.importActivity(end, in: dir, name: "end.gpx")
        #expect(last.droppedPoints == 1)
        #expect(last.notes.map(\.line) == [4 + 99])
    }

    /// A few points in a row out of line and back (a reflection off a building): dropped
    /// together; a point whose time goes back, alone, likewise.
    @Test func aShortRunOfBadPointsIsDropped() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var points = runNorth(1000)
        for i in 300..<305 { points[i].lat += 500 / metresPerDegree }
        points[700].seconds = 650
        let (store, result, _) = try Self.importActivity(points, in: dir)
        #expect(result.droppedPoints == 6)
        #expect(result.notes.map(\.line) == [304, 305, 306, 307, 308, 704])
        let times = try store.activities.activity(result.id).points.map(\.time)
        #expect(times == times.sorted())
    }

    /// Many glitches in a long track, within 1 in 100: all dropped, the first ten listed.
    @Test func manyGlitchesAreCountedAndTheFirstTenListed() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var points = runNorth(2000)
        for k in 0..<12 { points[100 + k * 100].lon += 1 }
        let (_, result, _) = try Self.importActivity(points, in: dir)
        #expect(result.droppedPoints == 12)
        #expect(result.notes.map(\.line) == (0..<10).map { 104 + $0 * 100 })
        #expect(result.notesLeftOut == 2)
    }

    /// One impossible elevation in a long track: left out of its point, which is kept.
    @Test func anImpossibleElevationIsLeftOutOfItsPoint() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var points = runNorth(200)
        points[50].ele = "1e308"
        let (store, result, _) = try Self.importActivity(points, in: dir)
        #expect(result.pointCount == 200)
        #expect(result.droppedElevations == 1)
        #expect(result.notes.map(\.reason) == [
            "<ele> 1e+308 m left out (the point is kept): outside the elevations a runner meets (-500 to 9000 m)",
        ])
        let activity = try store.activities.activity(result.id)
        #expect(activity.points[50].altitude == nil)
        #expect(activity.summary.maximumElevation == 200)
    }

    /// A route needs no times: one whose times are all the same imports, without them.
    @Test func aRouteWithOneTimeForAllIsStoredWithoutTimes() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        let points = runNorth(100).map { TestTrackPoint(lat: $0.lat, lon: $0.lon, seconds: 0) }
        let path = try write(trackFile(points), to: "planned.gpx", in: dir)
        let result = try store.gpx.importGPX(file: path, as: .route)
        #expect(result.pointCount == 100)
        #expect(result.timesLeftOut)
        #expect(result.notes.map(\.description) == [
            "\(path):2: the points' times are all the same: left out, the route is its points in order",
        ])
        let route = try store.routes.route(result.id)
        #expect(route.points.allSatisfy { $0.time == nil })
        #expect(route.summary.duration == nil)
        #expect(abs(route.summary.distance - 297) < 1)
    }

    @Test func toleranceIsOneInAHundredAndNoneUnderTen() {
        let rules = TrackPlausibility.standard
        #expect([2, 9, 10, 199, 200, 86_400].map(rules.tolerated) == [0, 0, 1, 1, 2, 864])
    }
}
