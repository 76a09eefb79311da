import Configurator
import Foundation
import HAL
import PacerCore
@testable import ScenarioRunner
import Storage
import TestSupport
import Testing

/// Scenarios run end to end on the bundled recording (`Hardware/recordings/track-loop.nmea`,
/// ten minutes around a 400 m track at 3.0 ± 0.5 m/s, made by scripts/make-sample-recording.py)
/// under the demo plan (nine minutes: warm-up, fast, walk, steady).
@Suite("Scenario runs")
struct ScenarioRunnerTests {
    static let recording = hardwareDirectory + "/recordings/track-loop.nmea"

    var options: ScenarioOptions {
        get throws {
            var settings = try Settings.load(path: hardwareDirectory + "/config/simulated.yaml")
            settings.hardwareDirectory = hardwareDirectory
            return ScenarioOptions(settings: settings)
        }
    }

    /// A scenario folder with `body` after the plan and recording lines.
    func scenario(_ body: String, profile: String = "medium") throws -> Scenario {
        let dir = try makeTemporaryDirectory()
        try FileManager.default.copyItem(atPath: Self.recording, toPath: "\(dir)/run.nmea")
        try write("name: Test\nplan: demo\nprofile: \(profile)\nrecording: run.nmea\n" + body, to: "scenario.yaml", in: dir)
        return try ScenarioLoader.load(directory: dir, plansDir: plansDirectory)
    }

    func run(_ s: Scenario) throws -> (ScenarioOutcome, String) {
        let out = try makeTemporaryDirectory("out")
        return (try ScenarioRunner.run(s, out: out, options: try options), out)
    }

    func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    /// A workout that never ends (paused, never resumed) ends the scenario with an error at
    /// its time limit, on the virtual clock at once, instead of running for ever.
    @Test func aWorkoutThatNeverEndsIsStoppedAtTheLimit() throws {
        let clock = ContinuousClock()
        let started = clock.now
        let error = #expect(throws: ScenarioError.self) {
            _ = try run(try scenario("script:\n  - {at: 60, do: pause}\n"))
        }
        #expect(error?.description.contains("the workout had not ended after 06:00:00 of scenario time") == true,
                "\(String(describing: error))")
        #expect(clock.now - started < .seconds(30))
    }

    @Test func aPlainRunFollowsTheWorkoutAndWritesTheFourFiles() throws {
        let (outcome, out) = try run(try scenario(""))
        for f in ScenarioOutcome.resultFiles { #expect(FileManager.default.fileExists(atPath: "\(out)/\(f)")) }
        #expect(outcome.activities.count == 1)
        let a = try #require(outcome.activities.first)
        #expect(a.summary.state == .completed)
        #expect(a.phaseResults.count == 4)
        #expect(outcome.duration == .seconds(540))
        let cues = outcome.events.filter { $0.kind == "cue" }.compactMap(\.name)
        // The demo's story: go, on pace, too slow in the fast phase, too fast in the walk, on pace again.
        #expect(Array(cues.prefix(2)) == ["started", "on-pace"])
        #expect(cues.contains("speed-up") && cues.contains("slow-down"))
        #expect(cues.filter { $0 == "phase-change" }.count == 3)
        #expect(cues.last == "workout-complete")
        let timeline = try text("\(out)/timeline.txt")
        #expect(timeline.contains("00:01:30  phase 2/4 fast  "))
        #expect(timeline.contains("  SPEED UP  "))
        // The summary is the stored activity; events.jsonl has a line per event.
        let summary = try text("\(out)/summary.json")
        #expect(summary.contains("\"state\": \"completed\""))
        let lines = try text("\(out)/events.jsonl").split(separator: "\n")
        #expect(lines.count == outcome.events.count)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["t"] != nil && object?["event"] != nil)
        }
        // The GPX reads back with the same number of points the store holds.
        let gpx = try GPXReader.read(path: "\(out)/track.gpx")
        #expect(gpx.tracks.first?.segments.flatMap { $0 }.count == a.points.count)
    }

    @Test func twoRunsFromDifferentFoldersAreByteIdentical() throws {
        let body = "script:\n  - {at: 70, do: waypoint, name: Gate}\n  - {at: 200, do: pause}\n  - {at: 230, do: resume}\n"
        let (_, first) = try run(try scenario(body))
        let (_, second) = try run(try scenario(body))
        for f in ScenarioOutcome.resultFiles {
            #expect(FileManager.default.contents(atPath: "\(first)/\(f)") == FileManager.default.contents(atPath: "\(second)/\(f)"), "\(f)")
        }
    }

    @Test func pressesPausesAndStopsHappenAtTheirTimes() throws {
        let (outcome, _) = try run(try scenario("""
            script:
              - {at: 60, do: waypoint, name: Bridge}
              - {at: 60.4, do: waypoint, name: Bridge}
              - {at: 200, do: pause}
              - {at: 260, do: resume}
              - {at: 400, do: stop}
            """))
        let kinds = outcome.events.map { "\($0.kind)@\(Int($0.time.inSeconds))" }
        #expect(kinds.contains("waypoint@60") && kinds.contains("waypoint-refused@60"))
        #expect(kinds.contains("paused@200") && kinds.contains("resumed@260"))
        let a = try #require(outcome.activities.first)
        #expect(a.summary.state == .stopped)
        #expect(a.waypoints.map(\.name) == ["Bridge"])
        #expect(a.segments.count == 2)
        // Time stops during the pause: 400 s on the clock, 340 s active.
        #expect(a.summary.activeTime == .seconds(340))
        #expect(outcome.duration == .seconds(400))
    }

    @Test func aPowerCutLosesOnlyWhatWasNotCommittedAndTheRestartRecoversIt() throws {
        // Medium commits every 30 s and samples every 30 s. A cycle's fix reaches the device
        // when the next cycle starts, so the 240 s point arrives just after the 240 s commit:
        // at the cut (250 s) the points up to 210 s are committed, the one at 240 s is lost.
        let (outcome, _) = try run(try scenario("script:\n  - {at: 250, do: power-cut, restart_after: 20}\n"))
        #expect(outcome.activities.count == 2)
        let cut = outcome.activities[0], after = outcome.activities[1]
        #expect(cut.summary.state == .recovered)
        #expect(after.summary.state == .completed)
        let last = try #require(cut.points.last)
        let first = try #require(cut.points.first)
        #expect(last.time.millisecondsSince1970 - first.time.millisecondsSince1970 == 210_000)
        let kinds = outcome.events.map(\.kind)
        let cutAt = try #require(kinds.firstIndex(of: "power-cut"))
        #expect(Array(kinds[cutAt...].prefix(3)) == ["power-cut", "restart", "recovered"])
        // Nothing from the first device after the cut.
        #expect(outcome.events[cutAt + 1].time == .seconds(270))
        // The second device replays the recording from 270 s on: its first point is then.
        let secondFirst = try #require(after.points.first)
        #expect(secondFirst.time.millisecondsSince1970 - first.time.millisecondsSince1970 == 270_000)
    }

    @Test func gpsFaultsReachTheCoach() throws {
        let (outcome, _) = try run(try scenario("""
            gps:
              - {from: 100, to: 160, fault: silent}
              - {from: 300, to: 330, fault: unplug}
              - {from: 400, to: 430, fault: invalid}
            """))
        let gps = outcome.events.filter { $0.kind == "gps" }.map { "\($0.name ?? "")@\(Int($0.time.inSeconds))" }
        // Medium tracks for its first five minutes (the calibration): the silence from 100 s
        // is a loss after 5 s without a sentence (the last at 99 s: 104 s). Then it keeps the
        // receiver in power-save, a fix every 30 s: an unplug is a loss at once; the no-fix
        // report comes with the first update inside the invalid window (420 s).
        #expect(gps.contains("fix-lost@104"), "\(gps)")
        #expect(gps.contains("disconnected@300"))
        #expect(gps.contains("fix-lost@420"), "\(gps)")
        let cues = outcome.events.filter { $0.kind == "cue" }
        #expect(cues.filter { $0.name == "gps-lost" }.count >= 3)
        #expect(cues.filter { $0.name == "gps-back" }.count >= 3)
        #expect(try #require(outcome.activities.first).segments.count == 4)
    }

    /// A gap while the runner stood, end to end: on high (1 Hz) the runner runs east at 3.05 m/s for 120 s,
    /// the receiver goes silent for 74 s while the runner stops, and comes back 9.5 m further
    /// at 0.67 m/s, then standing to the end. The gap adds under 15 m (the mean speed over it
    /// would add 137.6 m).
    @Test func aSilenceWhileTheRunnerStoodAddsAlmostNothing() throws {
        let dir = try makeTemporaryDirectory()
        let metresPerMinuteOfLongitude = 111_195.0 * cos(52.0 * .pi / 180) / 60
        var lines: [String] = []
        func fix(_ second: Int, east: Double, speed: Double) {
            let minutes = 18.0 + east / metresPerMinuteOfLongitude
            let lon = "004" + (minutes < 10 ? "0" : "") + String(format: "%.5f", minutes)
            let time = nmeaTime(secondOfDay: 7 * 3600 + second)
            let knots = String(format: "%.3f", speed / 0.514444)
            lines.append(nmea("GNRMC,\(time),A,5204.00000,N,\(lon),E,\(knots),90.00,020526,,,A"))
            lines.append(nmea("GNGGA,\(time),5204.00000,N,\(lon),E,1,09,0.92,2.0,M,46.3,M,,"))
        }
        for s in 0...120 { fix(s, east: 3.05 * Double(s), speed: 3.05) }
        fix(194, east: 366 + 9.5, speed: 0.67)
        for s in 195...560 { fix(s, east: 366 + 9.5, speed: 0.1) }
        try write(lines.joined(separator: "\n") + "\n", to: "run.nmea", in: dir)
        try write("name: Gap\nplan: demo\nprofile: high\nrecording: run.nmea\nscript:\n  - {at: 300, do: stop}\n", to: "scenario.yaml", in: dir)
        let (outcome, _) = try run(try ScenarioLoader.load(directory: dir, plansDir: plansDirectory))
        let distance = try #require(outcome.activities.first).summary.distance
        #expect(distance > 366 - 5 && distance < 366 + 15, "\(distance) m")
    }

    @Test func aLowBatterySoundsTheCueAtTheNextCheck() throws {
        let (outcome, _) = try run(try scenario("battery: {level: 50}\nscript:\n  - {at: 125, do: battery, level: 14}\n"))
        let low = outcome.events.filter { $0.kind == "cue" && $0.name == "low-battery" }
        #expect(low.map(\.time) == [.seconds(180)])
    }

    @Test func expectationsThatFailSayWhereAndWhatHappened() throws {
        let s = try scenario("""
            expect:
              - {cue: speed-up, at: "2:05", within: 10}
              - {cue: speed-up, at: "8:00", within: 5}
              - {cue: slow-down, count: 0}
              - {distance_km: 1.675, within: 0.02}
              - {distance_km: 5, within: 0.1}
              - {end: completed}
              - {end: stopped}
              - {activities: 1}
              - {segments: 1}
              - {phases: 4}
              - {waypoints: 2}
              - {timer: "9:00", within: 0}
              - {timer: "9:00", moving: "5:00"}
            """)
        let (outcome, _) = try run(s)
        let failed = ScenarioCheck.failedExpectations(outcome)
        #expect(failed.count == 6, "\(failed.joined(separator: "\n"))")
        #expect(failed.contains { $0.contains("scenario.yaml:18: expected activity 1's moving time at 5:00 ± 0:01; it is ") })
        #expect(failed.contains { $0.hasSuffix("scenario.yaml:7: expected speed-up cue(s) at 00:08:00 ± 00:00:05; got: 00:02:00, 00:02:30, 00:03:00") })
        #expect(failed.contains { $0.contains("scenario.yaml:8: expected exactly 0 slow-down cue(s); got ") })
        #expect(failed.contains { $0.contains("scenario.yaml:10: expected activity 1 to cover 5.0 ± 0.1 km; it covered 1.") })
        #expect(failed.contains { $0.contains("scenario.yaml:12: expected activity 1 stopped; it is completed") })
        #expect(failed.contains { $0.contains("scenario.yaml:16: expected 2 waypoints in activity 1; it has 0") })
    }

    /// The rules every scenario keeps, stated or not: a clean run keeps them; two different
    /// pace cues within 2 s with no phase change between, an elapsed time shorter than the
    /// timer, or a phase in band all along averaging outside its band each fail, by name.
    @Test func everyRunIsCheckedForContradictingCuesAndImpossibleFigures() throws {
        let (outcome, _) = try run(try scenario(""))
        #expect(ScenarioCheck.invariantFailures(outcome).isEmpty, "\(ScenarioCheck.invariantFailures(outcome))")

        var o = outcome
        let at = Duration.seconds(200)
        o.events.append(ScenarioEvent(time: at, kind: "cue", name: "on-pace", activity: 1))
        o.events.append(ScenarioEvent(time: at + .seconds(1), kind: "cue", name: "slow-down", activity: 1))
        // The same pair across a phase change is the new phase's first judgement: allowed.
        o.events.append(ScenarioEvent(time: at + .seconds(10), kind: "cue", name: "on-pace", activity: 1))
        o.events.append(ScenarioEvent(time: at + .seconds(10), kind: "phase-started", name: nil, activity: 1))
        o.events.append(ScenarioEvent(time: at + .seconds(11), kind: "cue", name: "speed-up", activity: 1))
        o.activities[0].summary.elapsedTime = .seconds(100)
        o.activities[0].phaseResults[0].timeInBand = o.activities[0].phaseResults[0].duration
        o.activities[0].phaseResults[0].distance = 0
        let failures = ScenarioCheck.invariantFailures(o)
        #expect(failures.count == 3, "\(failures.joined(separator: "\n"))")
        #expect(failures.contains { $0.contains("contradicting pace cues with no phase change between: on-pace at 00:03:20, slow-down at 00:03:21") })
        #expect(failures.contains { $0.contains("activity 1 elapsed 00:01:40 is shorter than its timer 00:09:00") })
        #expect(failures.contains { $0.contains("activity 1 phase 1 was in band all its 00:01:30 but averaged 0.0 km/h, outside 9.5–13.5") })
    }

    /// An activity's distance never decreases from one event to the next: a fall fails, by
    /// activity and time; a new activity (after a power cut) starts from nothing.
    @Test func aDistanceThatFallsFailsTheRun() throws {
        let (outcome, _) = try run(try scenario(""))
        #expect(outcome.events.contains { $0.distance ?? 0 > 100 }, "the events carry the distance")
        var o = outcome
        let at = Duration.seconds(600)
        o.events.append(ScenarioEvent(time: at, kind: "cue", name: "on-pace", activity: 1, distance: 2712))
        o.events.append(ScenarioEvent(time: at + .seconds(30), kind: "cue", name: "gps-lost", activity: 1, distance: 2590))
        o.events.append(ScenarioEvent(time: at + .seconds(40), kind: "started", name: nil, activity: 2, distance: 0))
        let failures = ScenarioCheck.invariantFailures(o)
        #expect(failures.count == 1, "\(failures.joined(separator: "\n"))")
        #expect(failures.contains { $0.hasSuffix("activity 1's distance fell from 2712.0 m at 00:10:00 to 2590.0 m at 00:10:30") })
    }

    @Test func goldensAreComparedAndUpdated() throws {
        let s = try scenario("")
        let (_, out) = try run(s)
        #expect(ScenarioCheck.compareGoldens(s, out: out).count == 4)  // none yet
        try ScenarioCheck.updateGoldens(s, out: out)
        #expect(ScenarioCheck.compareGoldens(s, out: out).isEmpty)
        // One changed line in a golden is shown as a diff naming the file.
        let golden = "\(s.directory)/golden/timeline.txt"
        let original = try text(golden)
        try original.replacingOccurrences(of: "SLOW DOWN", with: "SLOWER").write(toFile: golden, atomically: true, encoding: .utf8)
        let diffs = ScenarioCheck.compareGoldens(s, out: out)
        #expect(diffs.count == 1)
        #expect(diffs[0].hasPrefix("--- \(golden)"))
        #expect(diffs[0].contains("\n-") && diffs[0].contains("SLOWER") && diffs[0].contains("\n+"))
    }

    @Test func aPlanPastItsDeadlineIsNotStarted() throws {
        let dir = try makeTemporaryDirectory()
        try FileManager.default.copyItem(atPath: Self.recording, toPath: "\(dir)/run.nmea")
        try write("""
            name: Old
            deadline: 2026-05-01
            workouts:
              - name: W
                phases: [{name: p, minutes: 1, speed_kmh: [8, 10]}]
            """, to: "plan.yaml", in: dir)
        try write("name: x\nplan: plan.yaml\nrecording: run.nmea\n", to: "scenario.yaml", in: dir)
        let s = try ScenarioLoader.load(directory: dir, plansDir: plansDirectory)
        // The recording is dated 2026-05-02, the device's today.
        #expect(throws: ScenarioError.self) { try run(s) }
    }
}
