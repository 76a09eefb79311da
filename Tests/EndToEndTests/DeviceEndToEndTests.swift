import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import Testing

/// `pacer device` as the unit runs it, on the bundled recording in real time: it waits (no
/// activity until a start), answers `pacer ctl`, streams its states to `pacer ctl watch`,
/// and SIGTERM switches it off after storing the workout.
@Suite("pacer device, end to end", .serialized)
struct DeviceEndToEndTests {
    /// `pacer device` on `data`, answering on `socket`, once it is ready (within the boot
    /// check's 3 s and the first fix; 10 s at most), with `pacer ctl status` then. Killed
    /// after a minute whatever happens, so a test that fails early leaves nothing running.
    static func startReadyDevice(data: String, socket: String) throws -> (RunningProcess, String) {
        let device = try Pacer.start(["device", "--data-dir", data, "--socket", socket])
        let pid = device.process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) { if device.process.isRunning { kill(pid, SIGKILL) } }
        return (device, StorageFaultsEndToEndTests.waitForStatus("ready", socket, seconds: 10))
    }

    /// Waits (up to 10 s) until the running workout has a position: its status line shows a
    /// speed, with a fix. The status then.
    static func waitForPosition(_ socket: String) -> String {
        polledBlocking(within: .seconds(10), every: .milliseconds(100), {
            (try? Pacer.run(["ctl", "status", "--socket", socket]))?.stdout ?? ""
        }, until: { $0.contains(" km/h") && !$0.contains("-- km/h") && $0.contains("  fix") })
    }

    /// `pacer ctl watch ARGUMENTS` on `socket`, its output read as it comes, once it watches
    /// (its first line, the device's status, came).
    static func startWatch(_ socket: String, _ arguments: [String] = []) throws -> (RunningProcess, FollowedOutput) {
        let watch = try Pacer.start(["ctl", "watch"] + arguments + ["--socket", socket])
        let output = watch.follow()
        try #require(output.line { _ in true } != nil, "the watch never began: \(output.stderr)")
        return (watch, output)
    }

    /// A replayed receiver 1024 weeks early (2006-09-16; the rollover scenario's recipe), with
    /// no system clock given and the board's own clock set: the plan that ended on 2026-01-01
    /// is expired, as `pacer run` judges it, and `ctl start` starts nothing (issue 39, item 7:
    /// it started, and recorded an activity dated 2006).
    @Test func aReplayedReceiver1024WeeksEarlyDoesNotStartAnEndedPlan() throws {
        let dir = try makeTemporaryDirectory()
        let data = "\(dir)/data"
        let socket = "/tmp/pacer-device-\(UUID().uuidString.prefix(8)).sock"
        defer { unlink(socket) }
        let synth = try Pacer.run(["nmea", "synth", "Scenarios/rollover/run.synth.yaml", "--out", "\(dir)/early.nmea"])
        try #require(synth.status == 0, "\(synth.stderr)")
        try """
            name: Ended
            deadline: 2026-01-01
            workouts:
              - name: One
                phases:
                  - {name: run, minutes: 2, speed_kmh: [9, 12]}
            """.write(toFile: "\(dir)/ended.yaml", atomically: true, encoding: .utf8)
        #expect(try Pacer.run(["plan", "activate", "\(dir)/ended.yaml", "--data-dir", data]).status == 0)
        let device = try Pacer.start(["device", "--data-dir", data, "--socket", socket, "--buzzer", "null",
                                      "--source", "file:\(dir)/early.nmea?speed=10"])
        defer { if device.process.isRunning { kill(device.process.processIdentifier, SIGKILL) } }
        let status = StorageFaultsEndToEndTests.waitForStatus("ready", socket, seconds: 10)
        #expect(status.contains("plan 'Ended' expired on 2026-01-01"), "\(status)")
        let start = try Pacer.run(["ctl", "start", "--socket", socket])
        #expect(start.status == 1 && start.stderr.contains("ended on 2026-01-01"), "\(start.stdout) \(start.stderr)")
        kill(device.process.processIdentifier, SIGTERM)
        _ = device.finish()
        let list = try Pacer.run(["activities", "list", "--data-dir", data])
        #expect(list.stdout.contains("No activities yet."), "\(list.stdout)")
    }

    @Test func waitsStartsOnCommandStreamsItsStatesAndSwitchesOffOnSIGTERM() throws {
        let dir = try makeTemporaryDirectory()
        let data = "\(dir)/data"
        // A socket's path has at most 107 bytes: not under the test's long folder name.
        let socket = "/tmp/pacer-device-\(UUID().uuidString.prefix(8)).sock"
        defer { unlink(socket) }
        let activate = try Pacer.run(["plan", "activate", "easy-run", "--data-dir", data])
        #expect(activate.status == 0, "\(activate.stderr)")

        let (device, status) = try Self.startReadyDevice(data: data, socket: socket)
        defer { if device.process.isRunning { kill(device.process.processIdentifier, SIGKILL) } }
        #expect(status.hasPrefix("ready  Easy run: workout 1/1 Easy 40  gps fix"), "\(status)")
        let before = try Pacer.run(["activities", "list", "--data-dir", data])
        #expect(!before.stdout.contains("Easy run"), "nothing is recorded before a start: \(before.stdout)")
        let refused = try Pacer.run(["ctl", "waypoint", "Gate", "--socket", socket])
        #expect(refused.status == 1 && refused.stderr.contains("no workout is running"), "\(refused.stderr)")

        let (watch, watched) = try Self.startWatch(socket)
        let start = try Pacer.run(["ctl", "start", "--socket", socket])
        #expect(start.stdout.hasPrefix("started: Easy run: workout 1 Easy 40"), "\(start.stdout) \(start.stderr)")
        // A waypoint needs a position to be stored at.
        let moving = Self.waitForPosition(socket)
        #expect(moving.contains("  fix"), "\(moving)")
        let waypoint = try Pacer.run(["ctl", "waypoint", "Gate", "--socket", socket])
        #expect(waypoint.status == 0, "\(waypoint.stderr)")
        kill(device.process.processIdentifier, SIGTERM)
        let out = device.standardOutputData()
        device.process.waitUntilExit()
        #expect(device.process.terminationStatus == 0, "\(String(decoding: out.0 + out.1, as: UTF8.self))")
        #expect(watched.waitForEnd(), "the watch did not end with the device")
        watch.process.waitUntilExit()

        let objects = try watched.lines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
        let states = objects.filter { $0["event"] as? String == "state" }.compactMap { $0["state"] as? String }
        #expect(states == ["running", "off"], "\(states)")
        #expect(objects.first?["event"] as? String == "status" && objects.first?["state"] as? String == "ready")
        let cues = objects.filter { $0["event"] as? String == "cue" }.compactMap { $0["cue"] as? String }
        #expect(cues == ["started", "waypoint-saved", "stopped"], "\(cues)")
        #expect(objects.contains { $0["event"] as? String == "finished" && $0["end"] as? String == "stopped" })

        let list = try Pacer.run(["activities", "list", "--data-dir", data])
        #expect(list.stdout.contains("Easy run: Easy 40") && list.stdout.contains("stopped"), "\(list.stdout)")
        let journal = String(decoding: out.0, as: UTF8.self)
        for line in ["state starting", "cue power-on", "state ready", "cue count 1", "state running", "state off"] {
            #expect(journal.contains(line), "the device's output lacks '\(line)': \(journal)")
        }
    }

    /// `pacer ctl press` is the button on a desktop. It goes where the
    /// button's decoder hands its patterns (the device's press, with its button_actions):
    /// double offers the next workout, very-long says it again, short starts it; an unknown
    /// pattern is refused with the list (64).
    @Test func ctlPressDoesWhatTheButtonDoes() throws {
        let dir = try makeTemporaryDirectory()
        let data = "\(dir)/data"
        let socket = "/tmp/pacer-press-\(UUID().uuidString.prefix(8)).sock"
        defer { unlink(socket) }
        let activate = try Pacer.run(["plan", "activate", "long-run", "--data-dir", data])
        #expect(activate.status == 0, "\(activate.stderr)")

        let unknown = try Pacer.run(["ctl", "press", "triple", "--socket", socket])
        #expect(unknown.status == 64, "\(unknown.stderr)")
        #expect(unknown.stderr.contains("unknown press 'triple' (presses: short, double, long, very-long)"), "\(unknown.stderr)")

        let (device, status) = try Self.startReadyDevice(data: data, socket: socket)
        defer { if device.process.isRunning { kill(device.process.processIdentifier, SIGKILL) } }
        #expect(status.hasPrefix("ready  Long run: workout 1/2"), "\(status)")

        // The device holds its folder; the refusal says what really stops it.
        let busy = try Pacer.run(["plan", "activate", "tempo", "--data-dir", data])
        #expect(busy.status == 75, "\(busy.stderr)")
        #expect(busy.stderr.contains("(PID \(device.process.processIdentifier), pacer device")
                && busy.stderr.contains("Stop it first (sudo systemctl stop pacer when it runs as the service, else kill \(device.process.processIdentifier))")
                && !busy.stderr.contains("pacer ctl stop"), "\(busy.stderr)")

        let (watch, watched) = try Self.startWatch(socket)
        let double = try Pacer.run(["ctl", "press", "double", "--socket", socket])
        #expect(double.status == 0, "\(double.stderr)")
        #expect(double.stdout.hasPrefix("double press: next-workout: ready  Long run: workout 2/2"), "\(double.stdout)")
        let again = try Pacer.run(["ctl", "press", "very-long", "--socket", socket])
        #expect(again.stdout.hasPrefix("very-long press: announce: ready  Long run: workout 2/2"), "\(again.stdout)")
        let back = try Pacer.run(["ctl", "press", "long", "--socket", socket])
        #expect(back.stdout.hasPrefix("long press: previous-workout: ready  Long run: workout 1/2"), "\(back.stdout)")
        let start = try Pacer.run(["ctl", "press", "short", "--socket", socket])
        #expect(start.stdout.hasPrefix("short press: start: started: Long run: workout 1"), "\(start.stdout) \(start.stderr)")
        let moving = Self.waitForPosition(socket)
        #expect(moving.contains("  fix"), "the workout records: \(moving)")
        // Running, a long press pauses (button_actions' running map).
        let pause = try Pacer.run(["ctl", "press", "long", "--socket", socket])
        #expect(pause.stdout.hasPrefix("long press: pause: "), "\(pause.stdout) \(pause.stderr)")
        // The device stays on after a workout; --until-end ends the watch
        // with the workout (a very long press stops it), the device still running.
        let (untilEnd, untilEndOutput) = try Self.startWatch(socket, ["--until-end"])
        let stop = try Pacer.run(["ctl", "press", "very-long", "--socket", socket])
        #expect(stop.stdout.hasPrefix("very-long press: stop: stopping: "), "\(stop.stdout) \(stop.stderr)")
        #expect(untilEndOutput.waitForEnd(), "the --until-end watch did not end")
        untilEnd.process.waitUntilExit()
        #expect(untilEnd.process.terminationStatus == 0, "\(untilEndOutput.stderr)")
        #expect(device.process.isRunning, "the device switched off: the watch did not end by itself")
        let endedLines = untilEndOutput.lines
        #expect(endedLines.last?.hasPrefix(#"{"event":"finished""#) == true, "\(endedLines)")
        #expect(watch.process.isRunning, "a watch without --until-end goes on after the workout")
        kill(device.process.processIdentifier, SIGTERM)
        let out = device.standardOutputData()
        device.process.waitUntilExit()
        #expect(watched.waitForEnd(), "the watch did not end with the device")
        watch.process.waitUntilExit()

        let objects = try watched.lines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
        let buttons = objects.filter { $0["event"] as? String == "button" }.map { "\($0["press"] ?? "-") \($0["action"] ?? "-")" }
        #expect(buttons == ["double next-workout", "very-long announce", "long previous-workout", "short start", "long pause", "very-long stop"],
                "\(buttons)")
        let offered = objects.filter { $0["event"] as? String == "offered" }.compactMap { $0["workout"] as? Int }
        #expect(Array(offered.prefix(2)) == [2, 1], "\(offered)")
        let journal = String(decoding: out.0, as: UTF8.self)
        for line in ["button double: next-workout", "offers Long run: workout 2/2", "button very-long: announce", "cue count 2"] {
            #expect(journal.contains(line), "the device's output lacks '\(line)': \(journal)")
        }
    }
}
