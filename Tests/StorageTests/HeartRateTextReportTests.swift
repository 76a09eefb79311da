import Coaching
import PacerCore
import Storage
import Testing

/// The heart rate in the text `pacer activities show` prints (issue 41): its average and
/// maximum and the time in zones when the points carry one, how to set zones when the athlete
/// has none, and not a word of it without a strap.
@Suite("Heart rate in the text report")
struct HeartRateTextReportTests {
    static let t0: Int64 = 1_777_705_200_000

    /// 10 minutes at 130 bpm, then 5 at 160, a point every 10 s (nil rates: no strap).
    static func detail(rates: (Int) -> Int? = { $0 < 60 ? 130 : 160 }) -> ActivityDetail {
        let points = (0...90).map { i in
            TrackPoint(segment: 0, time: UTCTimestamp(millisecondsSince1970: t0 + Int64(i) * 10_000),
                       position: GeoPoint(latitude: 52 + Double(i) * 0.0003, longitude: 4.3), altitude: 5, speed: 3,
                       timer: .seconds(i * 10), distance: Double(i) * 30, heartRate: rates(i))
        }
        let summary = ActivitySummary(
            id: 3, name: "Steady", plan: nil, workout: nil, profile: "high", startedAt: UTCTimestamp(millisecondsSince1970: t0),
            endedAt: UTCTimestamp(millisecondsSince1970: t0 + 900_000), state: .completed, activeTime: .seconds(900),
            source: nil, distance: 2700, elapsedTime: .seconds(900), movingTime: .seconds(900), maximumSpeed: 3,
            elevationGain: 0, elevationLoss: 0, minimumElevation: 5, maximumElevation: 5, pointCount: points.count)
        return ActivityDetail(summary: summary, points: points, waypoints: [], cues: [], phaseResults: [],
                              statistics: ActivityStatistics(points: points))
    }

    @Test func theAverageMaximumAndTimeInEachZone() throws {
        let lines = ActivityReport.detail(Self.detail(), heartRateZones: .percentOfMaximum(200, estimated: false))
        #expect(lines.contains("Heart rate:     avg 140, max 160 bpm"))
        let start = try #require(lines.firstIndex(of: "Time in heart-rate zones: % of maximum heart rate"))
        #expect(Array(lines[(start + 1)...(start + 6)]) == [
            "  ZONE           BPM        TIME  SHARE",
            "  Z1 recovery    100-119   00:00    0 %",
            "  Z2 endurance   120-139   10:00   67 %",
            "  Z3 tempo       140-159   00:00    0 %",
            "  Z4 threshold   160-179   05:00   33 %",
            "  Z5 maximum     180-200   00:00    0 %",
        ])
        #expect(lines[start + 7].hasPrefix("  15:00 counted: between consecutive points with a heart rate"))
        #expect(lines[start + 8].hasPrefix("  Method: the five 10 % bands of maximum heart rate"))
    }

    @Test func withoutZonesItSaysHowToSetThem() {
        let lines = ActivityReport.detail(Self.detail())
        #expect(lines.contains("Heart rate:     avg 140, max 160 bpm"))
        #expect(lines.contains("  no heart-rate zones set: set them with `pacer profile set --max-hr BPM` (or --threshold-hr, --resting-hr, --age)"))
    }

    @Test func withoutHeartRateNothingChanges() {
        let none = Self.detail(rates: { _ in nil })
        let lines = ActivityReport.detail(none, heartRateZones: .percentOfMaximum(200, estimated: false))
        #expect(lines == ActivityReport.detail(none))
        #expect(!lines.contains { $0.contains("Heart") || $0.contains("heart") })
    }
}
