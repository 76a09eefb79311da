import Coaching
import Foundation
import PacerCore
import Testing

/// Metres per degree of latitude on the sphere `Geodesy` uses: a meridian step of
/// `m / metresPerDegree` degrees is exactly `m` metres.
private let metresPerDegree = Geodesy.earthRadius * .pi / 180
private let start = UTCTimestamp(millisecondsSince1970: 1_714_550_400_000)  // 2024-05-01T08:00:00Z

/// A track built point by point: each step goes `north` and `east` metres in `seconds`.
private struct TrackBuilder {
    var points: [TrackPoint] = []
    var latitude = 45.0
    var longitude = 6.0
    var time = start
    var segment = 0

    mutating func add(altitude: Double? = nil, speed: Double? = nil) {
        points.append(TrackPoint(segment: segment, time: time, position: GeoPoint(latitude: latitude, longitude: longitude),
                                 altitude: altitude, speed: speed))
    }

    mutating func step(north: Double = 0, east: Double = 0, seconds: Double = 1, altitude: Double? = nil, speed: Double? = nil) {
        latitude += north / metresPerDegree
        longitude += east / (metresPerDegree * cos(latitude * .pi / 180))
        time.millisecondsSince1970 += Int64(seconds * 1000)
        add(altitude: altitude, speed: speed)
    }
}

@Suite("ActivityStatistics")
struct ActivityStatisticsTests {
    /// 1 km due north at a constant 4 m/s, one point a second.
    func straightKilometre(speeds: Bool) -> [TrackPoint] {
        var t = TrackBuilder()
        t.add(altitude: 100, speed: speeds ? 4 : nil)
        for _ in 0..<250 { t.step(north: 4, altitude: 100, speed: speeds ? 4 : nil) }
        return t.points
    }

    @Test func straightKilometreAtConstantSpeed() {
        let s = ActivityStatistics(points: straightKilometre(speeds: true))
        #expect(abs(s.distance - 1000) < 1)  // within 0.1 %
        #expect(s.elapsedTime == .seconds(250))
        #expect(s.movingTime == .seconds(250))
        #expect(abs(s.averageSpeed - 4) < 0.004)
        #expect(s.maximumSpeed == 4)
        #expect(s.pointCount == 251)
        #expect(s.segmentCount == 1)
        #expect(s.segmentTime == .seconds(250))
        #expect(s.elevationGain == 0)
        #expect(s.elevationLoss == 0)
        #expect(s.minimumElevation == 100)
        #expect(s.maximumElevation == 100)
        #expect(s.startTime == start)
        #expect(s.path.start == GeoPoint(latitude: 45, longitude: 6))
    }

    @Test func maximumSpeedFromPositionsWhenTheReceiverGaveNone() {
        let s = ActivityStatistics(points: straightKilometre(speeds: false))
        #expect(abs(s.maximumSpeed - 4) < 0.004)
        #expect(s.movingTime == .seconds(250))
    }

    @Test func implausibleReportedSpeedIsIgnored() {
        var points = straightKilometre(speeds: true)
        points[100].speed = 30  // 108 km/h: a GPS spike, not the runner
        #expect(ActivityStatistics(points: points).maximumSpeed == 4)
    }

    @Test func positionSpikeDoesNotMakeTheMaximumSpeed() {
        var t = TrackBuilder()
        t.add()
        for i in 0..<120 {
            if i == 60 {
                t.step(north: 4, east: 200)  // one fix 200 m off to the side
                t.step(north: 4, east: -200)
            } else {
                t.step(north: 3.5)
            }
        }
        let s = ActivityStatistics(points: t.points)
        #expect(s.maximumSpeed < 4.1)
        #expect(s.maximumSpeed > 3.4)
    }

    @Test func standingStillWithJitterIsNotMoving() {
        var t = TrackBuilder()
        t.add(speed: 3)
        for _ in 0..<60 { t.step(north: 3, speed: 3) }
        // A minute at a red light: the position wanders 2 m a second, the Doppler speed says 0.1.
        for i in 0..<60 { t.step(east: i % 2 == 0 ? 2 : -2, speed: 0.1) }
        for _ in 0..<60 { t.step(north: 3, speed: 3) }
        let s = ActivityStatistics(points: t.points)
        #expect(s.elapsedTime == .seconds(180))
        // The first interval of the stop still ends at 0.1 m/s but started at 3 m/s: moving.
        #expect(s.movingTime == .seconds(121))
    }

    @Test func slowIntervalsAreNotMovingWithoutReportedSpeeds() {
        var t = TrackBuilder()
        t.add()
        for _ in 0..<10 { t.step(north: 3) }
        for _ in 0..<10 { t.step(north: 0.2) }  // 0.2 m/s: standing, drifting
        let s = ActivityStatistics(points: t.points)
        #expect(s.movingTime == .seconds(10))
        #expect(abs(s.averageSpeed - 32 / 10) < 0.01)
    }

    @Test func segmentGapsAreNotCounted() {
        var t = TrackBuilder()
        t.add(speed: 5)
        for _ in 0..<100 { t.step(north: 5, speed: 5) }  // 500 m in 100 s
        // Paused for ten minutes, walked 2 km away, resumed.
        t.segment = 1
        t.step(north: 2000, seconds: 600, speed: 5)
        for _ in 0..<100 { t.step(north: 5, speed: 5) }
        let s = ActivityStatistics(points: t.points)
        #expect(abs(s.distance - 1000) < 1)
        #expect(s.segmentCount == 2)
        #expect(s.elapsedTime == .seconds(800))
        #expect(s.movingTime == .seconds(200))
        #expect(s.segmentTime == .seconds(200))
        #expect(abs(s.averageSpeed - 5) < 0.01)
    }

    @Test func aRealClimbCountsInFullThroughNoise() {
        // A point every 10 s: 10 min flat at 100 m, 5 min up to 130 m, 10 min on top with
        // ±1.4 m wobble, 5 min down, 10 min flat: the climb and descent count whole.
        var t = TrackBuilder()
        t.add(altitude: 100)
        for _ in 0..<60 { t.step(north: 30, seconds: 10, altitude: 100) }
        for i in 1...30 { t.step(north: 30, seconds: 10, altitude: 100 + Double(i)) }
        let noise = [1.4, -1.4, 0]
        for i in 0..<60 { t.step(north: 30, seconds: 10, altitude: 130 + noise[i % noise.count]) }
        for i in 1...30 { t.step(north: 30, seconds: 10, altitude: 130 - Double(i)) }
        for _ in 0..<60 { t.step(north: 30, seconds: 10, altitude: 100) }
        let s = ActivityStatistics(points: t.points)
        #expect(abs(s.elevationGain - 30) < 0.5)
        #expect(abs(s.elevationLoss - 30) < 0.5)
        #expect(s.minimumElevation == 100)
        #expect(abs((s.maximumElevation ?? 0) - 130) < 0.5)
    }

    @Test func flatNoisyTrackClimbsNothing() {
        var t = TrackBuilder()
        t.add(altitude: 250)
        for i in 0..<300 { t.step(north: 3, altitude: 250 + (i % 3 == 0 ? 1.4 : i % 3 == 1 ? -1.4 : 0)) }
        let s = ActivityStatistics(points: t.points)
        #expect(s.elevationGain == 0)
        #expect(s.elevationLoss == 0)
    }

    @Test func slowGPSAltitudeWanderOnAFlatRunClimbsNothing() {
        // GPS altitude wanders slowly: ±5 m over a minute, for 20 min on the flat. A few
        // metres' hysteresis on the raw altitudes would count it as ~300 m of climb.
        var t = TrackBuilder()
        t.add(altitude: 2)
        for i in 1...1200 { t.step(north: 3, altitude: 2 + 5 * sin(Double(i) * 2 * .pi / 60)) }
        let s = ActivityStatistics(points: t.points)
        #expect(s.elevationGain == 0)
        #expect(s.elevationLoss == 0)
        // The extremes are the smoothed altitudes', as the profile draws them, not the noise's.
        #expect(abs((s.minimumElevation ?? 0) - 2) < 2)
        #expect(abs((s.maximumElevation ?? 0) - 2) < 2)
        for sample in s.elevationProfile {
            #expect(sample.altitude >= s.minimumElevation! - 1e-9 && sample.altitude <= s.maximumElevation! + 1e-9)
        }
    }

    @Test func aSpikeIsNotTheHighestPoint() {
        var t = TrackBuilder()
        t.add(altitude: 50)
        for i in 1...600 { t.step(north: 3, altitude: i == 300 ? 80 : 50) }
        let s = ActivityStatistics(points: t.points)
        #expect(s.elevationGain == 0)
        #expect((s.maximumElevation ?? 0) < 51)
    }

    @Test func swingsBelowTheThresholdAreIgnoredAndSwingsAboveCountWhole() {
        // Up 25 (with a 5 m dip on the way), down 15: the dip is below the 10 m threshold.
        let c = PathStatistics.elevationChanges([0, 5, 3, 25, 20, 24, 10], threshold: 10)
        #expect(c.gain == 25)
        #expect(c.loss == 15)
        // Wobbling 9 m never confirms a direction.
        #expect(PathStatistics.elevationChanges([0, 9, 0, 9, 0, 9], threshold: 10) == (0, 0))
        // A first move down, then up.
        let d = PathStatistics.elevationChanges([100, 96, 92, 80, 85, 95], threshold: 10)
        #expect(d.loss == 20)
        #expect(d.gain == 15)
        #expect(PathStatistics.elevationChanges([], threshold: 10) == (0, 0))
    }

    @Test func smoothingIsACentredMeanOverTheWindow() {
        let rule = ElevationRule(smoothing: .seconds(20))
        let t0 = start.millisecondsSince1970
        let samples: [(time: UTCTimestamp?, altitude: Double)] = (0..<5).map {
            (UTCTimestamp(millisecondsSince1970: t0 + Int64($0) * 10_000), [0.0, 0, 30, 0, 0][$0])
        }
        // ±10 s: each point with its neighbours; the ends with the one they have.
        #expect(rule.smoothed(samples) == [0, 10, 10, 10, 0])
        // Without times (a planned route), as they are.
        #expect(rule.smoothed(samples.map { (nil, $0.altitude) }) == [0, 0, 30, 0, 0])
    }

    /// A track resumed 50 m higher after a gap (an outage run through uphill, a pause) climbed
    /// those 50 m: counted, as the same track imported as a route counts them (counted
    /// segment by segment, the gain would be 0).
    @Test func elevationIsCountedAcrossSegmentGaps() {
        var t = TrackBuilder()
        t.add(altitude: 100)
        for _ in 0..<10 { t.step(north: 3, altitude: 100) }
        t.segment = 1
        for _ in 0..<10 { t.step(north: 3, seconds: 60, altitude: 150) }  // resumed 50 m higher
        let s = ActivityStatistics(points: t.points)
        #expect(s.elevationGain == 50)
        #expect(s.maximumElevation == 150)
    }

    @Test func elevationProfileIsEvenlySpacedByDistance() {
        var t = TrackBuilder()
        t.add(altitude: 100)
        for i in 1...100 { t.step(north: 10, altitude: 100 + Double(i)) }  // 1 km, 100 → 200 m
        let unsmoothed = ActivityStatistics.Parameters(elevation: ElevationRule(smoothing: .zero))
        let profile = ActivityStatistics(points: t.points, parameters: unsmoothed).elevationProfile
        #expect(profile.count == 50)
        #expect(profile.first == ProfileSample(distance: 0, altitude: 100))
        #expect(abs(profile[49].distance - 1000) < 1)
        for (k, sample) in profile.enumerated() {
            #expect(abs(sample.altitude - (100 + 100 * Double(k) / 49)) < 0.01)
        }
    }

    @Test func noPointsNoNumbers() {
        let s = ActivityStatistics(points: [])
        #expect(s.distance == 0)
        #expect(s.elapsedTime == .zero)
        #expect(s.movingTime == .zero)
        #expect(s.averageSpeed == 0)
        #expect(s.maximumSpeed == 0)
        #expect(s.minimumElevation == nil)
        #expect(s.elevationProfile.isEmpty)
        #expect(s.segmentCount == 0)
    }

    @Test func segmentsSplitWhereTheNumberChanges() {
        var t = TrackBuilder()
        t.add()
        t.step(north: 1)
        t.segment = 3
        t.step(north: 1)
        t.segment = 0
        t.step(north: 1)
        #expect(ActivityStatistics.segments(of: t.points).map(\.count) == [2, 1, 1])
    }

    @Test func routePathStatistics() {
        var points: [PathPoint] = []
        for i in 0...10 {
            let latitude: Double = 45 + Double(i) * 100 / metresPerDegree
            let altitude: Double = i <= 5 ? 200 + Double(i) * 10 : 250 - Double(i - 5) * 20
            points.append(PathPoint(position: GeoPoint(latitude: latitude, longitude: 6), altitude: altitude))
        }
        let s = PathStatistics(segments: [points])
        #expect(abs(s.distance - 1000) < 0.5)
        #expect(s.elevationGain == 50)
        #expect(s.elevationLoss == 100)
        #expect(s.minimumElevation == 150)
        #expect(s.maximumElevation == 250)
    }
}

@Suite("ActivityStatistics overall")
struct OverallStatisticsTests {
    let may1 = UTCTimestamp(millisecondsSince1970: 1_714_550_400_000)
    let may8 = UTCTimestamp(millisecondsSince1970: 1_715_155_200_000)
    let may15 = UTCTimestamp(millisecondsSince1970: 1_715_760_000_000)

    @Test func totalsAndRecords() {
        let stats = OverallStatistics([
            ActivityDigest(id: 1, name: "Easy", date: may1, distance: 5_000, time: .seconds(1800), maximumSpeed: 3.5),
            ActivityDigest(id: 2, name: "Intervals", date: may8, distance: 8_000, time: .seconds(2700), maximumSpeed: 5.5),
            ActivityDigest(id: 3, name: "Long run", date: may15, distance: 21_100, time: .seconds(7200), maximumSpeed: 4),
        ])
        #expect(stats.count == 3)
        #expect(stats.totalDistance == 34_100)
        #expect(stats.totalTime == .seconds(11_700))
        #expect(stats.fastest?.id == 2)
        #expect(stats.longest?.id == 3)
        #expect(stats.longestInTime?.id == 3)
        #expect(stats.descriptions == [
            "Total distance: 34.10 km over 3 activities.",
            "Total time: 03:15:00 of running (timer time, pauses excluded).",
            "Average speed over all activities: 10.5 km/h (distance over timer time).",
            "Highest speed ever: 19.8 km/h, in activity #2 \"Intervals\" on 2024-05-08.",
            "Longest run: 21.10 km in 02:00:00, activity #3 \"Long run\" on 2024-05-15.",
        ])
    }

    @Test func recordsGoToTheFirstToSetThem() {
        let stats = OverallStatistics([
            ActivityDigest(id: 1, name: "A", date: may1, distance: 5_000, time: .seconds(1800), maximumSpeed: 4),
            ActivityDigest(id: 2, name: "B", date: may8, distance: 5_000, time: .seconds(1800), maximumSpeed: 4),
        ])
        #expect(stats.fastest?.id == 1)
        #expect(stats.longest?.id == 1)
    }

    @Test func longestInTimeIsNamedWhenItIsAnotherActivity() {
        let stats = OverallStatistics([
            ActivityDigest(id: 1, name: "Fast 10k", date: may1, distance: 10_000, time: .seconds(2400), maximumSpeed: 5),
            ActivityDigest(id: 2, name: "Hike", date: nil, distance: 9_000, time: .seconds(9000), maximumSpeed: 2),
        ])
        #expect(stats.descriptions.last == "Longest time out: 02:30:00 for 9.00 km, activity #2 \"Hike\".")
    }

    @Test func noActivities() {
        let stats = OverallStatistics([])
        #expect(stats.count == 0)
        #expect(stats.fastest == nil)
        #expect(stats.descriptions == ["No activities yet: nothing to add up."])
    }

    @Test func formats() {
        #expect(ActivityFormat.clock(.milliseconds(3_723_600)) == "01:02:04")
        #expect(ActivityFormat.clock(.seconds(0)) == "00:00:00")
        #expect(ActivityFormat.clock(.seconds(100 * 3600)) == "100:00:00")
        #expect(ActivityFormat.fixed(-0.25, places: 2) == "-0.25")
        #expect(ActivityFormat.fixed(-0.001, places: 1) == "0.0")
        #expect(ActivityFormat.fixed(7, places: 0) == "7")
        #expect(ActivityFormat.fixed(.nan, places: 1) == "-")
        #expect(ActivityFormat.kilometres(12_346) == "12.35")
        #expect(ActivityFormat.kilometresPerHour(4) == "14.4")
        #expect(ActivityFormat.dateTime(may1) == "2024-05-01 08:00")
        #expect(ActivityFormat.dateTime(UTCTimestamp(millisecondsSince1970: 1_714_550_409_000), seconds: true)
                == "2024-05-01 08:00:09")
    }
}
