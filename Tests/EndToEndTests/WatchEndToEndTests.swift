import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import TestSupport
import Testing

/// `pacer ctl watch` against a real `pacer run`: a phone over SSH would run exactly this.
@Suite("pacer ctl watch, end to end", .serialized)
struct WatchEndToEndTests {
    /// A 15-second workout on the bundled recording, replayed in real time (the runner at
    /// about 11 km/h): a first phase far too fast for the runner (a speed-up cue once the
    /// coach's 10 s of settling are over), then a short second one.
    @Test func aWatcherFollowsARunToItsEnd() throws {
        let dir = try makeTemporaryDirectory()
        let hardware = try Pacer.testHardware(in: dir, quickProfile: """
            summary: Test profile that samples often.
            position_interval_s: 0.5
            alert_interval_s: 2
            cue_style: beeps
            smoothing_window_s: 1
            track_flush_interval_s: 1
            """, plans: ["watch": """
            name: Watch
            workouts:
              - name: Short "watched" run
                phases:
                  - {name: too fast, minutes: 0.2, speed_kmh: [20, 25]}
                  - {name: easy, minutes: 0.05, speed_kmh: [6, 8]}
            """])
        let settings = try Pacer.settings(in: dir, gps: "file:\(Pacer.trackLoop)", profile: "quick", hardware: hardware)
        let socket = "\(dir)/control.sock"

        let run = try Pacer.start(["run", "--plan", "watch", "--config", settings, "--today", "2026-05-02", "--socket", socket])
        // Bounded: whatever hangs is killed after 90 s, and the test fails rather than hangs.
        let started = Started(run)
        let watchdog = DispatchWorkItem {
            for p in started.all.withLock({ $0 }) where p.process.isRunning { kill(p.process.processIdentifier, SIGKILL) }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + 90, execute: watchdog)
        defer { watchdog.cancel() }

        let answering = eventuallyBlocking(within: .seconds(10), every: .milliseconds(50)) {
            (try? Pacer.run(["ctl", "status", "--socket", socket]))?.status == 0
        }
        try #require(answering, "pacer run never answered on its control socket")
        // `pacer ctl press` on `pacer run`: mapped by the running button_actions,
        // where a double press does nothing by default, and says so.
        let press = try Pacer.run(["ctl", "press", "double", "--socket", socket])
        #expect(press.status == 0 && press.stdout == "double press: none (button_actions gives it no action while running)\n",
                "\(press.stdout) \(press.stderr)")

        let watch = try Pacer.start(["ctl", "watch", "--socket", socket])
        let counted = try Pacer.start(["ctl", "watch", "--socket", socket, "--count", "2"])
        started.all.withLock { $0 += [watch, counted] }

        // --count 2: the status and the next event, printed as they come, then it exits while
        // the run goes on.
        let countedOut = counted.standardOutputData()
        counted.process.waitUntilExit()
        let runStillGoing = run.process.isRunning
        #expect(counted.process.terminationStatus == 0, "\(String(decoding: countedOut.1, as: UTF8.self))")
        let countedLines = String(decoding: countedOut.0, as: UTF8.self).split(separator: "\n")
        #expect(countedLines.count == 2)
        #expect(countedLines.first?.hasPrefix(#"{"event":"status""#) == true)
        #expect(runStillGoing, "the second line came only at the end: the stream is not live")

        // The full watch ends when the run does, with status 0.
        let watchOut = watch.standardOutputData()
        watch.process.waitUntilExit()
        let text = String(decoding: watchOut.0, as: UTF8.self)
        #expect(watch.process.terminationStatus == 0, "\(String(decoding: watchOut.1, as: UTF8.self))")
        let runOut = run.standardOutputData()
        run.process.waitUntilExit()
        #expect(run.process.terminationStatus == 0, "\(String(decoding: runOut.1, as: UTF8.self))")

        let objects = try text.split(separator: "\n").map { line in
            let parsed = try JSONSerialization.jsonObject(with: Data(line.utf8))
            return try #require(parsed as? [String: Any], "not a JSON object: \(line)")
        }
        let events = objects.compactMap { $0["event"] as? String }
        #expect(events.count == objects.count, "a line without its event")
        print("pacer ctl watch printed \(objects.count) lines: \(events.joined(separator: " "))")

        // First where things stand, for a watcher that connects mid-run.
        let first = try #require(objects.first)
        #expect(first["event"] as? String == "status")
        #expect(first["workout"] as? String == #"Short "watched" run"#)
        #expect(first["time"] is String)
        let firstStatus = try #require(first["status"] as? [String: Any])
        #expect(firstStatus["phases"] as? Int == 2)
        #expect(firstStatus["elapsed_s"] is Double)

        // Then the cues as they sound, the phases, and the end.
        let cues = objects.filter { $0["event"] as? String == "cue" }.compactMap { $0["cue"] as? String }
        for cue in ["speed-up", "phase-change", "workout-complete"] {
            #expect(cues.contains(cue), "no \(cue) cue in \(cues)")
        }
        #expect(events.contains("phase-started"))
        let last = try #require(objects.last)
        #expect(last["event"] as? String == "finished")
        #expect(last["end"] as? String == "completed")
        let lastStatus = try #require(last["status"] as? [String: Any])
        #expect(lastStatus["state"] as? String == "finished")
        #expect((lastStatus["distance_m"] as? Double).map { $0 > 20 } == true, "\(lastStatus)")

        // No device: a clear message, status 69 (EX_UNAVAILABLE), as `pacer ctl status` gives.
        let none = try Pacer.run(["ctl", "watch", "--socket", socket])
        #expect(none.status == 69)
        #expect(none.stderr.contains("no Pacer running"), "\(none.stderr)")
        #expect(none.stdout.isEmpty)
    }
}

/// The processes a test started, for its watchdog.
private final class Started: Sendable {
    let all: Mutex<[RunningProcess]>

    init(_ first: RunningProcess) {
        all = Mutex([first])
    }
}
