import Configurator
import Foundation
import PacerCore
@testable import ScenarioRunner
import TestSupport
import Testing

/// The repository's plans, which scenarios name.
let plansDirectory = hardwareDirectory + "/plans"

@Suite("Scenario files")
struct ScenarioLoaderTests {
    static let full = """
        name: Everything
        summary: Every key once.
        plan: demo
        workout: 1
        profile: low
        date: 2026-05-02
        recording: run.nmea
        battery: {capacity_mah: 500, level: 40}
        script:
          - {at: "5:00", do: waypoint, name: Bridge}
          - {at: "1:02:03.5", do: stop}
          - {at: 90, do: pause}
          - {at: "1:45", do: resume}
          - {at: "3:00", do: battery, level: 14}
          - {at: "4:00", do: power-cut, restart_after: "0:45"}
          - {at: "6:00", do: press, hold: 1.5}
        gps:
          - {from: "7:00", to: "7:40", fault: invalid}
          - {from: "3:00", to: "4:30", fault: silent}
          - {from: "9:00", to: "9:30", fault: unplug}
        expect:
          - {cue: speed-up, at: "2:10", within: 15}
          - {cue: slow-down, count: 0}
          - {cue: on-pace, min: 3, from: "4:00", to: "8:00"}
          - {gps: fix-lost, at: "3:05"}
          - {event: paused, count: 1}
          - {distance_km: 2.4, within: 0.05}
          - {end: recovered, activity: 1}
          - {activities: 2}
          - {waypoints: 1}
          - {segments: 2, activity: 2}
          - {phases: 4}
          - {timer: "30:00", elapsed: "30:42", within: 2}
        """

    func scenario(_ text: String, files: [String] = ["run.nmea"]) throws(DataFileError) -> Scenario {
        let dir = try! makeTemporaryDirectory()
        for f in files { try! write("", to: f, in: dir) }
        try! write(text, to: "scenario.yaml", in: dir)
        return try ScenarioLoader.load(directory: dir, plansDir: plansDirectory)
    }

    func error(_ text: String, files: [String] = ["run.nmea"]) throws -> DataFileError {
        do {
            _ = try scenario(text, files: files)
        } catch {
            return error
        }
        Issue.record("accepted: \(text)")
        return DataFileError(file: "", reason: "")
    }

    @Test func aDeviceModeScenarioIsRead() throws {
        let s = try scenario("name: x\nplan: demo\nrecording: run.nmea\nmode: device\nuntil: \"12:30\"\n"
            + "script:\n  - {at: 5, do: start}\n")
        #expect(s.deviceMode && s.until == .seconds(750))
        #expect(s.script.map(\.action) == [.start])
        let run = try scenario("name: x\nplan: demo\nrecording: run.nmea\n")
        #expect(!run.deviceMode && run.until == nil)
    }

    @Test func everyKeyIsRead() throws {
        let s = try scenario(Self.full)
        #expect(s.name == "Everything")
        #expect(s.planPath.hasSuffix("plans/demo.yaml"))
        #expect(s.profile == "low")
        #expect(s.date == CivilDate(year: 2026, month: 5, day: 2))
        #expect(s.battery == .init(capacityMilliampHours: 500, percent: 40))
        // The script is sorted by time; same-time actions would keep the file's order.
        #expect(s.script.map(\.at) == [.seconds(90), .seconds(105), .seconds(180), .seconds(240), .seconds(300),
                                      .seconds(360), .milliseconds(3_723_500)])
        #expect(s.script[0].action == .pause)
        #expect(s.script[3].action == .powerCut(restartAfter: .seconds(45)))
        #expect(s.script[5].action == .press(hold: .milliseconds(1500)))
        #expect(s.powerCuts.count == 1)
        #expect(s.faults.map(\.kind) == [.silent, .invalid, .unplug])
        #expect(s.expectations.count == 12)
        #expect(s.expectations[0].check == .cue(.speedUp, near: .init(at: .seconds(130), tolerance: .seconds(15)),
                                                count: nil, window: nil))
        #expect(s.expectations[3].check == .gps("fix-lost", near: .init(at: .seconds(185), tolerance: .seconds(5)), count: nil))
        #expect(s.expectations[9].check == .segments(activity: 2, count: 2))
        #expect(s.expectations[11].check == .times(activity: nil, timer: .seconds(1800), elapsed: .seconds(1842),
                                                    moving: nil, tolerance: .seconds(2)))
    }

    /// `plan: demo` is the bundled plan even beside a file called `demo`; `plan: ./demo` is the file.
    @Test func aBareNameIsABundledPlanAndAPathTheFolders() throws {
        let dir = try makeTemporaryDirectory()
        try write("", to: "run.nmea", in: dir)
        try write(try String(contentsOfFile: "\(plansDirectory)/demo.yaml", encoding: .utf8), to: "demo", in: dir)
        try write("name: x\nplan: demo\nrecording: run.nmea\n", to: "scenario.yaml", in: dir)
        #expect(try ScenarioLoader.load(directory: dir, plansDir: plansDirectory).planPath == "\(plansDirectory)/demo.yaml")
        try write("name: x\nplan: ./demo\nrecording: run.nmea\n", to: "scenario.yaml", in: dir)
        #expect(try ScenarioLoader.load(directory: dir, plansDir: plansDirectory).planPath == "\(dir)/./demo")
    }

    @Test func durationsReadAsSecondsOrClockTimes() {
        #expect(ScenarioLoader.parseDuration("95") == .seconds(95))
        #expect(ScenarioLoader.parseDuration("2.5") == .milliseconds(2500))
        #expect(ScenarioLoader.parseDuration("1:05") == .seconds(65))
        #expect(ScenarioLoader.parseDuration("1:00:05.250") == .milliseconds(3_605_250))
        for bad in ["", "1:60", "-3", "a", "1:2:3:4", "1.5:00", "inf"] {
            #expect(ScenarioLoader.parseDuration(bad) == nil, "\(bad)")
        }
        #expect(ScenarioLoader.clock(.milliseconds(3_605_250)) == "1:00:05.250")
        #expect(ScenarioLoader.clock(.seconds(65)) == "1:05")
    }

    @Test(arguments: [
        ("plan: demo\nrecording: run.nmea\n", nil, "missing key 'name'"),
        ("name: x\nplan: nowhere\nrecording: run.nmea\n", 2, "no plan named 'nowhere'"),
        ("name: x\nplan: ./nowhere.yaml\nrecording: run.nmea\n", 2, "no plan file './nowhere.yaml'"),
        ("name: x\nplan: demo\n", nil, "names no recording"),
        ("name: x\nplan: demo\nrecording: missing.nmea\n", 3, "does not exist"),
        ("name: x\nplan: demo\nrecording: /dev/zero\n", 3, "/dev/zero is not a regular file"),
        ("name: x\nplan: demo\nrecording: /dev/urandom\n", 3, "/dev/urandom is not a regular file"),
        ("name: x\nplan: demo\nrecording: run.nmea\nworkout: 0\n", 4, "workout: must be from 1 to 999999, got 0"),
        ("name: x\nplan: demo\nrecording: run.nmea\ndate: 2026-13-01\n", 4, "is not a date"),
        ("name: x\nplan: demo\nrecording: run.nmea\nbattery: {level: 140}\n", 4, "must be from 0 to 100 %, got 140"),
        ("name: x\nplan: demo\nrecording: run.nmea\nbattery: {capacity_mah: 0}\n", 4, "must be above 0 and at most 100000 mAh, got 0"),
        ("name: x\nplan: demo\nrecording: run.nmea\nscript: {at: 3}\n", 4, "expected a list"),
        ("name: x\nplan: demo\nrecording: run.nmea\nscript:\n  - {at: 3, do: jump}\n", 5, "'jump' is not one of"),
        ("name: x\nplan: demo\nrecording: run.nmea\nscript:\n  - {at: 3, do: press, hold: 0}\n", 5, "must be from 0.01 to 60 s, got 0"),
        ("name: x\nplan: demo\nrecording: run.nmea\nscript:\n  - {at: 3, do: press, hold: 1e20}\n", 5, "must be from 0.01 to 60 s, got 1e20"),
        ("name: x\nplan: demo\nrecording: run.nmea\nscript:\n  - {do: stop}\n", 5, "missing key 'at'"),
        ("name: x\nplan: demo\nrecording: run.nmea\nscript:\n  - {at: \"1:75\", do: stop}\n", 5, "expected seconds, M:SS"),
        ("name: x\nplan: demo\nrecording: run.nmea\nscript:\n  - {at: 3, do: battery}\n", 5, "missing key 'script[0].level'"),
        ("name: x\nplan: demo\nrecording: run.nmea\nscript:\n  - {at: 3, do: stop, when: now}\n", 5, "unknown key"),
        ("name: x\nplan: demo\nrecording: run.nmea\ngps:\n  - {from: 10, to: 5, fault: silent}\n", 5, "must be after from"),
        ("name: x\nplan: demo\nrecording: run.nmea\ngps:\n  - {from: 1, to: 5, fault: gone}\n", 5, "'gone' is not one of"),
        ("name: x\nplan: demo\nrecording: run.nmea\ngps:\n  - {from: 1, to: 5, fault: silent}\n  - {from: 4, to: 9, fault: unplug}\n",
         6, "overlaps"),
        ("name: x\nplan: demo\nrecording: run.nmea\nexpect:\n  - {cue: beep, count: 1}\n", 5, "'beep' is not a cue"),
        ("name: x\nplan: demo\nrecording: run.nmea\nexpect:\n  - {cue: on-pace}\n", 5, "needs `at`"),
        ("name: x\nplan: demo\nrecording: run.nmea\nexpect:\n  - {cue: on-pace, count: 1, min: 2}\n", 5, "not both"),
        ("name: x\nplan: demo\nrecording: run.nmea\nexpect:\n  - {gps: lost, count: 1}\n", 5, "'lost' is not one of"),
        ("name: x\nplan: demo\nrecording: run.nmea\nexpect:\n  - {end: crashed}\n", 5, "'crashed' is not one of"),
        ("name: x\nplan: demo\nrecording: run.nmea\nexpect:\n  - {waypoints: -1}\n", 5, "must be from 0 to 999999999, got -1"),
        ("name: x\nplan: demo\nrecording: run.nmea\nexpect:\n  - {timer: soon}\n", 5, "expected seconds, M:SS or H:MM:SS, got 'soon'"),
        ("name: x\nplan: demo\nrecording: run.nmea\nexpect:\n  - {timer: 60, paused: 5}\n", 5, "unknown key"),
        ("name: x\nplan: demo\nrecording: run.nmea\nexpect:\n  - {speed: 3}\n", 5, "expected one of cue"),
        ("name: x\nplan: demo\nrecording: run.nmea\ncolour: red\n", 4, "unknown key"),
        ("name: x\nplan: demo\nrecording: run.nmea\nroute: nowhere.gpx\n", 4, "nowhere.gpx does not exist"),
        ("name: x\nplan: demo\nrecording: run.nmea\nexpect:\n  - {event: lost-the-way, count: 1}\n", 5, "'lost-the-way' is not one of"),
        ("name: x\nplan: demo\nrecording: run.nmea\nmode: watch\n", 4, "'watch' is not one of run, device"),
        ("name: x\nplan: demo\nrecording: run.nmea\nmode: device\n", nil, "needs `until:`"),
        ("name: x\nplan: demo\nrecording: run.nmea\nmode: device\nuntil: 60\nworkout: 2\n", 6, "has no workout"),
        ("name: x\nplan: demo\nrecording: run.nmea\nuntil: 60\n", 4, "only a device-mode scenario"),
        ("name: x\nplan: demo\nrecording: run.nmea\nscript:\n  - {at: 3, do: start}\n", 5, "is for a device-mode scenario"),
        ("name: x\nplan: demo\nrecording: run.nmea\nsystem_clock: system\n", 4, "is not a simulated clock"),
        ("name: x\nplan: demo\nrecording: run.nmea\nsystem_clock: \"sim?at=noon\"\n", 4, "at=noon is not a UTC time"),
        ("name: x\nplan: demo\nrecording: run.nmea\nsystem_clock: \"sim?offset=5\"\n", 4, "unknown query item 'offset'"),
        ("name: x\nplan: demo\nrecording: run.nmea\nsystem_clock: \"\"\n", 4, "is empty"),
        ("name: x\nplan: demo\nrecording: run.nmea\nradio: sysfs\n", 4, "'sysfs' is not a simulated radio"),
        ("name: x\nplan: demo\nrecording: run.nmea\nradio: \"sim?loud=yes\"\n", 4, "unknown option 'loud'"),
        ("name: [x\n", nil, "not valid YAML"),
        // Numbers out of every range: refused with the range and the value, never converted
        // (each trapped converting to Int64 before).
        ("name: x\nplan: demo\nrecording: run.nmea\ndate: 9223372036854775807-05-02\n", 4, "is not a date"),
        ("name: x\nplan: demo\nrecording: run.nmea\nworkout: 1e20\n", 4, "workout: must be from 1 to 999999, got 1e20"),
        ("name: x\nplan: demo\nrecording: run.nmea\nworkout: .nan\n", 4, "expected a number, got '.nan'"),
        ("name: x\nplan: demo\nrecording: run.nmea\nbattery: {capacity_mah: .inf}\n", 4, "expected a number, got '.inf'"),
        ("name: x\nplan: demo\nrecording: run.nmea\nbattery: {capacity_mah: 1e20}\n", 4,
         "must be above 0 and at most 100000 mAh, got 1e20"),
        ("name: x\nplan: demo\nrecording: run.nmea\nscript:\n  - {at: 99999999999999999999999, do: stop}\n", 5,
         "script[0].at: must be from 0 to 168:00:00 (a week), got 99999999999999999999999"),
        ("name: x\nplan: demo\nrecording: run.nmea\nscript:\n  - {at: 3, do: battery, level: -1e20}\n", 5,
         "must be from 0 to 100 %, got -1e20"),
        ("name: x\nplan: demo\nrecording: run.nmea\nexpect:\n  - {distance_km: 1e20}\n", 5,
         "distance_km: must be from 0 to 1000 km, got 1e20"),
        ("name: x\nplan: demo\nrecording: run.nmea\nexpect:\n  - {timer: \"1:00\", within: 99999999999999999999}\n", 5,
         "within: must be from 0 to 168:00:00 (a week)"),
        ("name: x\nplan: demo\nrecording: run.nmea\nexpect:\n  - {activities: 1e20}\n", 5,
         "activities: must be from 0 to 999999999, got 1e20"),
    ] as [(String, Int?, String)])
    func brokenFilesAreRefusedWithTheirLineAndReason(text: String, line: Int?, reason: String) throws {
        let e = try error(text)
        #expect(e.file.hasSuffix("scenario.yaml"))
        if let line { #expect(e.line == line, "\(e)") }
        #expect(e.description.contains(reason), "\(e)")
    }
}

@Suite("Golden diffs")
struct LineDiffTests {
    @Test func aChangedLineIsShownWithItsContext() {
        let old = (1...40).map { "line \($0)" }.joined(separator: "\n")
        var lines = (1...40).map { "line \($0)" }
        lines[9] = "line ten"
        lines.insert("new line", at: 30)
        let diff = LineDiff.unified(old: old, new: lines.joined(separator: "\n"), oldName: "a", newName: "b")
        let out = diff.split(separator: "\n").map(String.init)
        #expect(out[0] == "--- a" && out[1] == "+++ b")
        #expect(out.contains("-line 10") && out.contains("+line ten") && out.contains("+new line"))
        #expect(out.contains(" line 7") && out.contains(" line 13"))
        #expect(out.contains(" line 30") && out.contains(" line 31") && out.contains(" line 33"))
        #expect(!out.contains(" line 1") && !out.contains(" line 20") && !out.contains(" line 40"))
        #expect(out.filter { $0.hasPrefix("@@") }.count == 2)
    }

    @Test func identicalTextsHaveNoChanges() {
        let diff = LineDiff.unified(old: "a\nb\n", new: "a\nb\n", oldName: "x", newName: "y")
        #expect(diff == "--- x\n+++ y")
    }
}
