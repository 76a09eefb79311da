import Foundation
#if canImport(Glibc)
import Glibc
#endif
import PacerCore
import TestSupport
import Testing

/// A person's path through the device: run a bundled workout against the bundled
/// recording, get the cues, the stored activity, its statistics and a valid GPX.
@Suite("pacer run, end to end", .serialized)
struct RunEndToEndTests {
    /// A plan of two one-minute workouts.
    static let twoShort = """
        name: Two short
        workouts:
          - name: First
            phases:
              - {name: run, minutes: 1, speed_kmh: [9, 12]}
          - name: Second
            phases:
              - {name: run, minutes: 1, speed_kmh: [9, 12]}
        """

    @Test func demoWorkoutToAStoredActivityAndAValidGPX() throws {
        let data = try makeTemporaryDirectory()
        let run = try Pacer.run([
            "run", "--plan", "demo", "--source", "file:Hardware/recordings/track-loop.nmea", "--fast",
            "--buzzer", "wav:\(data)/cues.wav", "--profile", "high", "--data-dir", data, "--today", "2026-05-02",
            "--socket", "\(data)/control.sock",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        // R7: speed-up and slow-down cues for a phase, and the phases' changes.
        for cue in ["[speed-up]", "[slow-down]", "[on-pace]", "[phase-change]", "[workout-complete]"] {
            #expect(run.stdout.contains(cue), "no \(cue) in the run's output")
        }
        #expect(run.stdout.contains("Route"), "the route drawn (R6)")

        let list = try Pacer.run(["activities", "list", "--data-dir", data])
        #expect(list.status == 0)
        #expect(list.stdout.contains("completed"))

        let gpx = "\(data)/run.gpx"
        let export = try Pacer.run(["activities", "export", "1", "--gpx", gpx, "--data-dir", data])
        #expect(export.status == 0, "\(export.stderr)")
        let schema = repositoryRoot + "/../shared/schemas/gpx-1.1.xsd"
        let lint = try Program.run("/usr/bin/xmllint", ["--noout", "--schema", schema, gpx])
        #expect(lint.status == 0, "xmllint: \(lint.stderr)")

        // The distance is what the runner ran, as independent tools measure it: gpsbabel reads
        // every fix of the recording, gpxpy gives the 2D length over the workout's 9 minutes.
        let everyFix = "\(data)/recording.gpx"
        let babel = try Program.run("/usr/bin/gpsbabel", [
            "-i", "nmea", "-f", Pacer.trackLoop, "-o", "gpx", "-F", everyFix,
        ])
        try #require(babel.status == 0, "gpsbabel: \(babel.stderr)")
        let gpxpy = try Program.run("/usr/bin/python3", [
            "-c", """
            import datetime, gpxpy, gpxpy.geo, sys
            points = [p for t in gpxpy.parse(open(sys.argv[1])).tracks for s in t.segments for p in s.points]
            end = points[0].time + datetime.timedelta(seconds=540)
            print(gpxpy.geo.length_2d([p for p in points if p.time <= end]))
            """, everyFix,
        ])
        try #require(gpxpy.status == 0, "gpxpy: \(gpxpy.stderr) (apt-get install python3-gpxpy)")
        let independent = try #require(Double(gpxpy.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let show = try Pacer.run(["activities", "show", "1", "--data-dir", data])
        let ours = try #require(Self.distanceKilometres(in: show.stdout))
        #expect(abs(ours * 1000 - independent) / independent < 0.01,
                "pacer says \(ours) km, gpxpy over every fix \(independent) m")

        let stats = try Pacer.run(["stats", "--data-dir", data])
        #expect(stats.status == 0)
        #expect(stats.stdout.lowercased().contains("km"))
    }

    /// From any working directory: the default settings are the ones beside the binary, and
    /// their relative paths are their folder's; a settings file named by an absolute path
    /// finds its plans and recording the same way.
    @Test func itWorksFromAnyWorkingDirectory() throws {
        let elsewhere = try makeTemporaryDirectory()
        let plans = try Pacer.run(["plan", "list"], in: elsewhere)
        #expect(plans.status == 0, "\(plans.stderr)")
        #expect(plans.stdout.contains("easy-run.yaml"))
        let beep = try Pacer.run(["beep", "--list"], in: elsewhere)
        #expect(beep.status == 0, "\(beep.stderr)")
        let run = try Pacer.run([
            "run", "--plan", "demo", "--fast", "--config", repositoryRoot + "/Hardware/config/simulated.yaml",
            "--data-dir", "\(elsewhere)/data", "--socket", "\(elsewhere)/control.sock",
        ], in: elsewhere)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("[workout-complete]"))
        let scenario = try Pacer.run(["scenario", "run", repositoryRoot + "/Scenarios/stop-early", "--quiet"], in: elsewhere)
        #expect(scenario.status == 0, "\(scenario.stderr)")
    }

    /// The device's plan: activated once, `pacer run` follows it workout after workout, by
    /// the plan's identity (a copy under the same name keeps its own progress).
    @Test func theActivatedPlanIsFollowedWorkoutAfterWorkout() throws {
        let dir = try makeTemporaryDirectory()
        let plan = "\(dir)/two.yaml"
        let text = Self.twoShort
        try text.write(toFile: plan, atomically: true, encoding: .utf8)
        let common = ["--data-dir", "\(dir)/data"]
        let none = try Pacer.run(["run", "--fast", "--socket", "\(dir)/c.sock"] + common)
        #expect(none.status != 0)
        #expect(none.stderr.contains("pacer plan activate PLAN"), "\(none.stderr)")
        let activate = try Pacer.run(["plan", "activate", plan] + common)
        #expect(activate.status == 0, "\(activate.stderr)")
        #expect(activate.stdout.contains("0/2 workouts done; next: workout 1, First"), "\(activate.stdout)")
        for expected in ["Workout:        Two short / First", "Workout:        Two short / Second"] {
            let run = try Pacer.run(["run", "--fast", "--socket", "\(dir)/c.sock"] + common)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains(expected), "\(run.stdout)")
        }
        let active = try Pacer.run(["plan", "active"] + common)
        #expect(active.stdout.contains("2/2 workouts done: every workout is done"), "\(active.stdout)")
        // Done: the plan is followed again from its start (the unit's easy run at every boot).
        let again = try Pacer.run(["run", "--fast", "--socket", "\(dir)/c.sock"] + common)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("Every workout of plan 'Two short' is done: starting again from workout 1."))
        #expect(again.stdout.contains("Workout:        Two short / First"), "\(again.stdout)")
        // The same name, another file: progress of its own.
        try (text + "\n# a copy\n").write(toFile: "\(dir)/copy.yaml", atomically: true, encoding: .utf8)
        let copy = try Pacer.run(["plan", "activate", "\(dir)/copy.yaml"] + common)
        #expect(copy.stdout.contains("0/2 workouts done; next: workout 1, First"), "\(copy.stdout)")
    }

    /// A plan file where the service cannot see it (/var/tmp, /tmp, a home: the unit's
    /// PrivateTmp and ProtectHome; a board under emulation said `FAULT the device's plan
    /// /var/tmp/board-plan.yaml cannot be read`): activating it keeps the device's own copy
    /// in the data folder, which the device follows when the file is changed or gone.
    /// Activating it again is the same copy.
    @Test func anActivatedPlanIsTheDevicesOwnCopyInItsDataFolder() throws {
        let dir = try makeTemporaryDirectory()
        try FileManager.default.createDirectory(atPath: "\(dir)/mine", withIntermediateDirectories: false)
        let plan = "\(dir)/mine/two.yaml"
        try Self.twoShort.write(toFile: plan, atomically: true, encoding: .utf8)
        let common = ["--data-dir", "\(dir)/data"]
        let activate = try Pacer.run(["plan", "activate", plan] + common)
        #expect(activate.status == 0, "\(activate.stderr)")
        let folder = "\(dir)/data/plans/activated"
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
        try #require(names.count == 1, "\(names)")
        let copy = "\(folder)/\(names[0])"
        #expect(activate.stdout.hasPrefix("The device's plan is now 'Two short' (\(plan), plan:"), "\(activate.stdout)")
        #expect(activate.stdout.contains("), copied to \(copy).\n0/2 workouts done; next: workout 1, First"), "\(activate.stdout)")
        #expect(FileManager.default.contents(atPath: copy) == Data(Self.twoShort.utf8))
        let mode = (try FileManager.default.attributesOfItem(atPath: copy)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o644)
        // Again: the same copy, the same message.
        let again = try Pacer.run(["plan", "activate", plan] + common)
        #expect(again.stdout == activate.stdout, "\(again.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == names)
        // The file changed, then gone: the device's plan is still the one activated.
        try (Self.twoShort + "\n# changed\n").write(toFile: plan, atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(atPath: "\(dir)/mine")
        let active = try Pacer.run(["plan", "active"] + common)
        #expect(active.status == 0, "\(active.stderr)")
        #expect(active.stdout == "'Two short' (\(copy), plan:\(names[0].dropLast(5)))\n0/2 workouts done; next: workout 1, First\n",
                "\(active.stdout)")
        let run = try Pacer.run(["run", "--fast", "--socket", "\(dir)/c.sock"] + common)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Workout:        Two short / First"), "\(run.stdout)")
    }

    /// `?speed=20` on a replay with `pacer run` (no `--fast`): the device's clock keeps pace
    /// with the replay, so a 3-minute workout takes 9 s of the wall, its timer reads 3:00, the
    /// receiver's times never "jump", and a waypoint is answered where it is stored (issue 39,
    /// item 13: the timer ran on the wall clock, +569 s jumps, a waypoint 120 m off).
    @Test func aReplayTwentyTimesFasterRunsTheWorkoutTwentyTimesFaster() throws {
        let dir = try makeTemporaryDirectory()
        try """
            name: Short
            workouts:
              - name: Three
                phases:
                  - {name: run, minutes: 3, speed_kmh: [9, 12]}
            """.write(toFile: "\(dir)/short.yaml", atomically: true, encoding: .utf8)
        let socket = "/tmp/pacer-speed-\(UUID().uuidString.prefix(8)).sock"
        defer { unlink(socket) }
        let began = ContinuousClock.now
        let run = try Pacer.start(["run", "--plan", "\(dir)/short.yaml", "--source", "file:Scenarios/steady/run.nmea?speed=20",
                                   "--buzzer", "null", "--socket", socket, "--data-dir", "\(dir)/data"])
        defer { if run.process.isRunning { kill(run.process.processIdentifier, SIGKILL) } }
        // A waypoint once the runner is under way (the recording's fix comes in its first seconds).
        var answer = ""
        for _ in 0..<100 where !answer.contains("stored at") {
            usleep(100_000)
            answer = (try? Pacer.run(["ctl", "waypoint", "Bench", "--socket", socket]))?.stdout ?? ""
        }
        let result = run.finish()
        let wall = ContinuousClock.now - began
        #expect(result.status == 0, "\(result.stderr)")
        #expect(wall < .seconds(90), "180 s of workout at 20 times: \(wall) of the wall")
        #expect(result.stdout.contains("Timer:          00:03:00"), "\(result.stdout)")
        #expect(!result.stderr.contains("jumped"), "\(result.stderr)")
        // The answer's position (5 decimals) and the stored one (refined at the fix after the
        // press) are the same place, to a few metres.
        let said = answer.split(separator: " ").suffix(2).map { Double($0.trimmingCharacters(in: CharacterSet(charactersIn: ",\n"))) ?? .nan }
        let gpx = "\(dir)/w.gpx"
        #expect(try Pacer.run(["activities", "export", "1", "--gpx", gpx, "--data-dir", "\(dir)/data"]).status == 0)
        let text = try String(contentsOfFile: gpx, encoding: .utf8)
        let wpt = try #require(text.range(of: #"<wpt lat="([0-9.]+)" lon="([0-9.]+)""#, options: .regularExpression).map { String(text[$0]) },
                               "\(answer)")
        let numbers = wpt.split(separator: "\"").compactMap { Double($0) }
        try #require(said.count == 2 && numbers.count == 2, "\(answer) / \(wpt)")
        let metres = Geodesy.distance(GeoPoint(latitude: said[0], longitude: said[1]), GeoPoint(latitude: numbers[0], longitude: numbers[1]))
        #expect(metres < 10, "answered \(answer), stored \(wpt): \(metres) m apart")
    }

    /// A workout whose time runs out without a single fix (a receiver that never found the
    /// sky) measured nothing: it ends `no-fix`, not completed, and the plan offers it again
    /// (issue 39, item 12: a "completed" 0.00 km run counted as done).
    @Test func aWorkoutThatNeverHadAFixIsNotCompleted() throws {
        let dir = try makeTemporaryDirectory()
        try Self.twoShort.write(toFile: "\(dir)/two.yaml", atomically: true, encoding: .utf8)
        // Ninety seconds of a receiver searching: RMC with status V, no position.
        var nmea = ""
        for s in 0..<90 {
            let body = String(format: "GPRMC,0700%02d.00,V,,,,,,,020526,,,N", s)
            nmea += "$\(body)*\(String(format: "%02X", body.utf8.reduce(0) { $0 ^ $1 }))\r\n"
        }
        try nmea.write(toFile: "\(dir)/searching.nmea", atomically: true, encoding: .utf8)
        let common = ["--data-dir", "\(dir)/data"]
        #expect(try Pacer.run(["plan", "activate", "\(dir)/two.yaml"] + common).status == 0)
        let run = try Pacer.run(["run", "--fast", "--socket", "\(dir)/c.sock", "--source", "file:\(dir)/searching.nmea"] + common)
        #expect(run.stdout.contains("Workout:        Two short / First"), "\(run.stdout)")
        let list = try Pacer.run(["activities", "list"] + common)
        #expect(list.stdout.contains("no-fix"), "\(list.stdout)")
        #expect(!list.stdout.contains("completed"), "\(list.stdout)")
        let active = try Pacer.run(["plan", "active"] + common)
        #expect(active.stdout.contains("0/2 workouts done; next: workout 1, First"), "\(active.stdout)")
    }

    /// Another user on a data folder hears that it is a permission problem, with the folder's
    /// owner and mode, not SQLite's "unable to open database file"; this folder is not the
    /// device's, so no word of its group (issue 42: AnotherUserEndToEndTests has the
    /// device's). (Switching users needs root, as CI and the development machines run.)
    @Test(.enabled(if: getuid() == 0, "switching to another user needs root"))
    func aDataFolderThisUserMayNotUseIsReportedAsSuch() throws {
        let dir = try makeTemporaryDirectory()
        let data = "\(dir)/data"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        chmod(dir, 0o755)
        chmod(data, 0o700)
        // A copy nobody may run wherever the checkout is (a clone in /root is not).
        let binary = "\(dir)/pacer"
        try FileManager.default.copyItem(atPath: Pacer.executable, toPath: binary)
        chmod(binary, 0o755)
        let asNobody = try Program.run("/usr/sbin/runuser", [
            "-u", "nobody", "--", binary, "activities", "list", "--data-dir", data,
        ])
        #expect(asNobody.status == 77, "\(asNobody.stderr)")
        #expect(asNobody.stderr.contains("cannot read \(data): permission denied (owned by root:root, mode 700)"), "\(asNobody.stderr)")
        #expect(!asNobody.stderr.contains("the device's data folder"), "\(asNobody.stderr)")
    }

    /// Power cut: the process is killed with SIGKILL in the middle of a recording; the next
    /// start finds the unfinished activity and closes it as recovered with its points.
    @Test func sigkillMidRecordingIsRecovered() throws {
        let dir = try makeTemporaryDirectory()
        // A profile that samples and commits often, so that a short run stores points.
        let hardware = try Pacer.testHardware(in: dir, quickProfile: """
            summary: Test profile that samples and commits often.
            position_interval_s: 0.1
            alert_interval_s: 1
            cue_style: beeps
            smoothing_window_s: 0.5
            track_flush_interval_s: 0.2
            """, bundledPlans: true)
        let settings = try Pacer.settings(
            in: dir, gps: "file:\(Pacer.trackLoop)?speed=20", profile: "quick", hardware: hardware)

        let running = try Pacer.start([
            "run", "--plan", "demo", "--config", settings, "--today", "2026-05-02", "--socket", "\(dir)/first.sock",
        ])
        // Wait until the store holds committed points (bounded), then pull the plug.
        let committed = polledBlocking(within: .seconds(10), every: .milliseconds(100), {
            let count = try? Program.run("/usr/bin/sqlite3", ["\(dir)/data/pacer.sqlite", "SELECT COUNT(*) FROM track_points"])
            return Int(count?.stdout.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
        }, until: { $0 >= 20 })
        kill(running.process.processIdentifier, SIGKILL)
        running.process.waitUntilExit()
        #expect(running.process.terminationReason == .uncaughtSignal)
        try #require(committed >= 20, "no points were committed before the kill")

        let state = try Program.run("/usr/bin/sqlite3", ["\(dir)/data/pacer.sqlite", "SELECT state FROM activities"])
        #expect(state.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "recording")

        // The next start recovers it; stop that run through its control socket once it answers
        // (a signal sent before the run has taken over its signals could come too early).
        let socket = "\(dir)/control.sock"
        let again = try Pacer.start([
            "run", "--plan", "demo", "--config", settings, "--today", "2026-05-02", "--socket", socket,
        ])
        let stopped = eventuallyBlocking(within: .seconds(20), every: .milliseconds(100)) {
            (try? Pacer.run(["ctl", "stop", "--socket", socket]))?.status == 0
        }
        #expect(stopped, "the second run never answered on its control socket")
        // Bounded: a run that does not end is killed, and the test fails rather than hangs.
        if !again.waitForExit(within: .seconds(30)) {
            kill(again.process.processIdentifier, SIGKILL)
            Issue.record("the second run did not stop within 30 s")
        }
        let out = again.standardOutputData()
        again.process.waitUntilExit()
        let text = String(decoding: out.0, as: UTF8.self)
        #expect(text.contains("recovered unfinished activity 1"), "\(text)")

        let list = try Pacer.run(["activities", "list", "--config", settings])
        #expect(list.stdout.contains("recovered"), "\(list.stdout)")
        let points = try Program.run("/usr/bin/sqlite3", ["\(dir)/data/pacer.sqlite", "SELECT COUNT(*) FROM track_points WHERE activity_id = 1"])
        let recovered = Int(points.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(recovered >= committed, "every committed point survives: \(recovered) < \(committed)")
    }

    /// `Distance:  1.44 km` in `pacer activities show`.
    static func distanceKilometres(in text: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix("Distance") {
            let words = line.split(separator: " ")
            if let i = words.firstIndex(of: "km"), i > 0 { return Double(words[i - 1]) }
        }
        return nil
    }
}
