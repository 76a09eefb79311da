import Charts
import Foundation
import HAL
import PacerCore
@testable import ScenarioRunner
import Testing

@Suite("Profile comparison")
struct ProfileComparisonTests {
    /// A runner at `speed(t)` m/s heading north, one fix a second.
    static func track(_ seconds: Int, speed: (Int) -> Double) -> ReferenceTrack {
        var north = 0.0
        return ReferenceTrack(fixes: (0..<seconds).map { t in
            north += speed(t)
            return (Double(t), UTCTimestamp(millisecondsSince1970: 1_777_705_200_000 + Int64(t) * 1000),
                    GeoPoint(latitude: 52 + north / 111_195, longitude: 4.3), speed(t))
        })
    }

    static func outcome(_ events: [ScenarioEvent]) -> ScenarioOutcome {
        let scenario = Scenario(
            directory: "/x", file: "/x/scenario.yaml", name: "x", summary: nil, planPath: "/x/plan.yaml",
            workoutIndex: 0, profile: "high", date: nil, recording: "/x/run.nmea", recipe: nil, battery: .init(),
            script: [], faults: [], expectations: [])
        return ScenarioOutcome(scenario: scenario, events: events, activities: [], duration: .seconds(300), energy: [])
    }

    static func event(_ t: Int, _ kind: String, _ name: String? = nil, band: ClosedRange<Double>? = nil) -> ScenarioEvent {
        var e = ScenarioEvent(time: .seconds(t), kind: kind, name: name, activity: 1)
        e.band = band
        return e
    }

    @Test func latencyRunsFromLeavingTheBandToTheFirstCorrectiveCue() {
        // On pace (3 m/s in 2.78-3.33), too slow (2 m/s) from 100 to 130 s, too fast (4 m/s)
        // from 200 to 203 s (too short to count), on pace otherwise.
        let track = Self.track(300) { t in (100..<130).contains(t) ? 2 : (200..<203).contains(t) ? 4 : 3 }
        let o = Self.outcome([
            Self.event(0, "phase-started", band: 2.78...3.33),
            Self.event(60, "cue", "on-pace"),
            Self.event(108, "cue", "slow-down"),   // the wrong way: not a correction
            Self.event(111, "cue", "speed-up"),
            Self.event(121, "cue", "speed-up"),
            Self.event(290, "finished", "completed"),
        ])
        let (latencies, missed) = ProfileComparison.alertLatencies(o, reference: track)
        // The 5 s average falls below 2.78 at 101 s (two of the five samples at 2 m/s: 2.6).
        #expect(latencies == [10])
        #expect(missed == 0)
    }

    @Test func aDepartureWithoutACueIsMissedAndPausesDoNotCount() {
        let track = Self.track(300) { t in (50..<80).contains(t) || (150..<200).contains(t) ? 2 : 3 }
        let o = Self.outcome([
            Self.event(0, "phase-started", band: 2.78...3.33),
            Self.event(140, "paused"),
            Self.event(210, "resumed"),
        ])
        let (latencies, missed) = ProfileComparison.alertLatencies(o, reference: track)
        #expect(latencies.isEmpty)
        #expect(missed == 1)
    }

    @Test func theReferenceDistanceIsAlongEveryFix() {
        let track = Self.track(101) { _ in 3 }
        let d = track.distance(from: track.fixes[0].time, to: track.fixes[100].time)
        #expect(abs(d - 300) < 0.5)
    }

    @Test func theTableLinesUpAndSaysTheHardware() {
        let row = ProfileComparison.Row(
            profile: "high", hardware: "zero-m8n", energyMilliampHours: 89.31, averageMilliamps: 178.6,
            projectedRuntimeHours: 11.2, gpsOnPercent: 100, wakeups: 2191, trackPoints: 180,
            distanceErrorPercent: -0.64, cues: 187, latencies: [8, 9, 7], missed: 0, batteryCapacityMilliampHours: 2000)
        let table = ComparisonReport.table([row])
        #expect(table.contains("high           89.3   178.6       11.2     100.0     2191     180       -0.64   187"))
        #expect(table.contains("8.0 / 9.0"))
        #expect(table.hasSuffix("hardware zero-m8n, battery 2000 mAh\n"))
        let svg = ComparisonReport.svg([row], title: "t")
        #expect(svg.hasPrefix("<svg") && svg.contains("<circle") && svg.hasSuffix("</svg>\n"))
        #expect(svg.contains("hardware build zero-m8n, battery 2000 mAh"))
        let json = try? JSONSerialization.jsonObject(with: Data(ComparisonReport.json([row]).utf8)) as? [[String: Any]]
        #expect(json?.first?["latency_max_s"] as? Double == 9)
    }

    /// A strap's radio gets its line and fields only in a row that used it; a `--no-strap` row
    /// says what the strap cost; a row without either reads as before.
    @Test func theStrapsRadioIsSaidOnlyWhereItWasUsed() throws {
        func row(_ profile: String, energy: Double, runtime: Double, wakeups: Int) -> ProfileComparison.Row {
            .init(profile: profile, hardware: "zero-m8n", energyMilliampHours: energy, averageMilliamps: 170,
                  projectedRuntimeHours: runtime, gpsOnPercent: 100, wakeups: wakeups, trackPoints: 90,
                  distanceErrorPercent: 0, cues: 80, latencies: [], missed: 0, batteryCapacityMilliampHours: 2000)
        }
        var strap = row("medium", energy: 130.5, runtime: 11.5, wakeups: 3217)
        strap.bluetoothMilliampHours = 4.505
        strap.bluetoothScanningSeconds = 90
        strap.bluetoothConnectedSeconds = 2610
        var without = row("medium+no-strap", energy: 125.5, runtime: 12.0, wakeups: 517)
        without.strapExtraMilliampHours = 5.0
        without.strapExtraWakeups = 2700
        without.strapRuntimeHours = 11.5
        let table = ComparisonReport.table([strap, without])
        #expect(table.contains("medium: Bluetooth (strap) connected 43.5 min, scanning 1.5 min, 4.5 mAh (included above)\n"))
        #expect(table.contains(
            "medium+no-strap: the strap costs +5.0 mAh and 2700 wakeups over the run without it; runtime 11.5 h with it, 12.0 h without\n"))
        #expect(!table.contains("medium+no-strap: Bluetooth"))
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(ComparisonReport.json([strap, without]).utf8)) as? [[String: Any]])
        #expect(json[0]["bluetooth_mah"] as? Double == 4.505)
        #expect(json[0]["bluetooth_connected_s"] as? Double == 2610)
        #expect(json[1]["bluetooth_mah"] == nil)
        #expect(json[1]["strap_extra_mah"] as? Double == 5)
        // A build without Bluetooth figures: the time said, nothing charged.
        var imx = row("low", energy: 64.4, runtime: 23.3, wakeups: 3293)
        imx.hardware = "imx6ull-m8n"
        imx.bluetoothConnectedSeconds = 2700
        #expect(ComparisonReport.table([imx]).contains(
            "low: Bluetooth (strap) connected 45.0 min, scanning 0.0 min, no Bluetooth figure for build imx6ull-m8n, 0 mAh charged"))
        #expect(!ComparisonReport.table([row("high", energy: 1, runtime: 1, wakeups: 1)]).contains("Bluetooth"))
    }

    /// The comparison's chart: round ticks, the signed error below a zero line, the build and
    /// each profile's runtime in hours named, no label past the picture's edge.
    @Test func theChartTicksRoundNumbersSignsTheErrorAndCutsNoLabel() {
        func row(_ profile: String, energy: Double, runtime: Double, error: Double, latencies: [Double]) -> ProfileComparison.Row {
            ProfileComparison.Row(
                profile: profile, hardware: "imx6ull-m8n", energyMilliampHours: energy, averageMilliamps: 0,
                projectedRuntimeHours: runtime, gpsOnPercent: 100, wakeups: 0, trackPoints: 0,
                distanceErrorPercent: error, cues: 0, latencies: latencies, missed: 0, batteryCapacityMilliampHours: 2000)
        }
        let rows = [row("low", energy: 5.5, runtime: 181.46, error: -5.71, latencies: [43, 59]),
                    row("medium", energy: 41.7, runtime: 23.99, error: 0.82, latencies: [29]),
                    row("high", energy: 63.4, runtime: 18.1, error: 0.01, latencies: [9])]
        let svg = ComparisonReport.svg(rows, title: "Battery comparison: energy against alerts and track")
        // Ticks: 0 to 60 s by 10 (not 17.0, 33.9, 50.9, 67.9); energy 0 to 80 by 20, the last
        // label whole; the error from −6 to 2 %, with a minus sign.
        for label in ["60", "50", "80", "\u{2212}6", "\u{2212}2", "0", "2"] {
            #expect(svg.contains(">\(label)</text>"), "no tick \(label)")
        }
        for old in ["67.9", "33.9", "17.0", "0.9"] { #expect(!svg.contains(">\(old)</text>")) }
        #expect(svg.contains("hardware build imx6ull-m8n, battery 2000 mAh"))
        #expect(svg.contains("runtime on a full battery: low 181.5 h, medium 24.0 h, high 18.1 h"))
        #expect(svg.contains(">low (181.5 h)</text>"))
        // The zero line (thicker than the grid) lies between the low mark (below) and the
        // medium mark (above) of the error panel.
        let circles = svg.split(separator: "\n").filter { $0.hasPrefix("<circle") }.map { line -> Double in
            let cy = line.split(separator: " ").first { $0.hasPrefix("cy=") }!.dropFirst(4).dropLast()
            return Double(cy)!
        }
        #expect(circles.count == 6)
        let zero = svg.split(separator: "\n").first { $0.contains("stroke-width=\"1.5\"") && $0.hasPrefix("<line") }
        let zeroY = zero.flatMap { line in line.split(separator: " ").first { $0.hasPrefix("y1=") } }
            .flatMap { Double($0.dropFirst(4).dropLast()) }
        #expect(zeroY != nil)
        if let zeroY { #expect(circles[3] > zeroY && circles[4] < zeroY) }
        #expect(SVG.overflowingTexts(svg).isEmpty, "\(SVG.overflowingTexts(svg))")
    }
}
