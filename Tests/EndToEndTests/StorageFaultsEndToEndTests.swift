import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import Testing

/// Storage faults on the device, each as a runner meets it: the real
/// binary as the unit runs it (`pacer device`, real time), a real file system (a small
/// tmpfs that fills, a read-only bind mount, a folder removed), `pacer ctl` to press.
@Suite("Storage faults on the device, end to end", .serialized)
struct StorageFaultsEndToEndTests {
    /// `query`'s answer from the database in `data` ("" when it cannot be read).
    static func sql(_ data: String, _ query: String) -> String {
        (try? ReliabilityEndToEndTests.sql("\(data)/pacer.sqlite", query)) ?? ""
    }

    static func ctl(_ words: [String], _ socket: String) -> (status: Int32, stdout: String, stderr: String) {
        guard let r = try? Pacer.run(["ctl"] + words + ["--socket", socket]) else { return (-1, "", "") }
        return (r.status, r.stdout, r.stderr)
    }

    /// Waits (up to `seconds`) until `pacer ctl status` starts with `prefix`.
    static func waitForStatus(_ prefix: String, _ socket: String, seconds: Double = 30) -> String {
        polledBlocking(within: .seconds(seconds), every: .milliseconds(100), { ctl(["status"], socket).stdout },
                       until: { $0.hasPrefix(prefix) })
    }

    /// Waits (up to `seconds`) until `query` gives `value`.
    static func waitFor(_ data: String, _ query: String, is value: String, seconds: Double = 20) -> String {
        polledBlocking(within: .seconds(seconds), every: .milliseconds(100), { sql(data, query) }, until: { $0 == value })
    }

    /// A device on the quick profile and the twenty-second plan, its data in `data`.
    struct Rig {
        let dir: String
        let data: String
        let socket: String
        let settings: String

        init(mountedSize: String?) throws {
            dir = try makeTemporaryDirectory()
            data = "\(dir)/data"
            try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
            if let mountedSize {
                let mount = try Program.run("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=\(mountedSize)", "tmpfs", data])
                try #require(mount.status == 0, "\(mount.stderr)")
            }
            socket = "/tmp/pacer-sf-\(UUID().uuidString.prefix(8)).sock"
            let hardware = try Pacer.quickHardware(in: dir)
            settings = try Pacer.settings(
                in: dir, gps: "file:\(Pacer.trackLoop)", profile: "quick", data: data, hardware: hardware)
            let activate = try Pacer.run(["plan", "activate", "short", "--config", settings])
            try #require(activate.status == 0, "\(activate.stderr)")
        }

        /// The device, and its outputs read as they come (its journal, to wait on).
        func startDevice() throws -> (RunningProcess, FollowedOutput) {
            let device = try Pacer.start(["device", "--config", settings, "--socket", socket])
            let pid = device.process.processIdentifier
            DispatchQueue.global().asyncAfter(deadline: .now() + 120) { kill(pid, SIGKILL) }
            return (device, device.follow())
        }

        /// Switches the device off (SIGTERM); its standard output and error.
        func switchOff(_ device: RunningProcess, _ output: FollowedOutput) -> (stdout: String, stderr: String) {
            kill(device.process.processIdentifier, SIGTERM)
            _ = output.waitForEnd()
            device.process.waitUntilExit()
            unlink(socket)
            return (output.stdout, output.stderr)
        }

        func unmount() {
            _ = try? Program.run("/usr/bin/umount", ["-l", data])
        }
    }

    /// Case 2: the disk is full when a workout ends. What waits to be written is kept in
    /// memory, not dropped ("5 items not written"), and stored when space comes back while the
    /// device stays on: the activity is completed, with points to its end.
    /// (600 kB: a new database's migrations pass through its WAL, about 400 kB with v9, before
    /// they are checkpointed; the disk is filled after that.)
    @Test func aWorkoutEndedOnAFullDiskIsStoredWhenSpaceComesBack() throws {
        try #require(getuid() == 0, "mounting a small tmpfs needs root (CI runs as root)")
        let rig = try Rig(mountedSize: "600k")
        defer { rig.unmount() }
        let (device, journal) = try rig.startDevice()
        defer { if device.process.isRunning { kill(device.process.processIdentifier, SIGKILL) } }
        #expect(Self.waitForStatus("ready", rig.socket).hasPrefix("ready"))
        let start = Self.ctl(["start"], rig.socket)
        try #require(start.status == 0, "\(start.stdout) \(start.stderr)")
        let committed = ReliabilityEndToEndTests.waitForPoints(5, in: rig.data)
        try #require(committed >= 5, "nothing was committed before the fault")
        _ = try Program.run("/usr/bin/dd", ["if=/dev/zero", "of=\(rig.data)/filler", "bs=4k"])
        // The workout runs to its end (about 20 s), on a full disk.
        let after = Self.waitForStatus("ready", rig.socket, seconds: 40)
        #expect(after.hasPrefix("ready"), "\(after)")
        // The device says that the end waits in memory, to be tried again while it is on.
        let fault = journal.line { $0.hasPrefix("FAULT the activity could not be stored yet") }
        #expect(fault != nil, "\(journal.stdout)")
        #expect(Self.sql(rig.data, "SELECT state FROM activities WHERE id = 1") == "recording", "not closed on a full disk")
        try FileManager.default.removeItem(atPath: "\(rig.data)/filler")
        let state = Self.waitFor(rig.data, "SELECT state FROM activities WHERE id = 1", is: "completed")
        #expect(state == "completed", "stored once space came back")
        let span = Int(Self.sql(rig.data, "SELECT MAX(time) - MIN(time) FROM track_points WHERE activity_id = 1")) ?? 0
        #expect(span >= 19_000, "points to the end of the twenty-second workout: \(span) ms")
        let out = rig.switchOff(device, journal)
        #expect(out.stdout.contains("FAULT the activity could not be stored yet"), "\(out.stdout)")
        #expect(out.stderr.contains("storage works again: activity 1 is stored whole"), "\(out.stderr)")
    }

    /// Case 3: the data folder is removed while a workout records. The folder is made again
    /// with everything stored so far, and this workout and the next are on the disk, not
    /// "recorded" into the unlinked file.
    @Test func aDataFolderRemovedMidRunIsMadeAgainAndLaterWorkoutsAreStored() throws {
        let rig = try Rig(mountedSize: nil)
        let (device, journal) = try rig.startDevice()
        defer { if device.process.isRunning { kill(device.process.processIdentifier, SIGKILL) } }
        #expect(Self.waitForStatus("ready", rig.socket).hasPrefix("ready"))
        try #require(Self.ctl(["start"], rig.socket).status == 0)
        try #require(ReliabilityEndToEndTests.waitForPoints(5, in: rig.data) >= 5, "nothing was committed")
        try FileManager.default.removeItem(atPath: rig.data)
        #expect(Self.waitForStatus("ready", rig.socket, seconds: 40).hasPrefix("ready"))
        #expect(Self.sql(rig.data, "SELECT state FROM activities WHERE id = 1") == "completed")
        let span = Int(Self.sql(rig.data, "SELECT MAX(time) - MIN(time) FROM track_points WHERE activity_id = 1")) ?? 0
        #expect(span >= 19_000, "points from before and after the removal: \(span) ms")
        // The next workout is stored too.
        try #require(Self.ctl(["start"], rig.socket).status == 0)
        let recorded = Self.waitFor(rig.data, "SELECT COUNT(*) > 0 FROM track_points WHERE activity_id = 2", is: "1")
        #expect(recorded == "1", "the next workout committed no point")
        _ = Self.ctl(["stop"], rig.socket)
        #expect(Self.waitForStatus("ready", rig.socket).hasPrefix("ready"))
        #expect(Self.sql(rig.data, "SELECT group_concat(state) FROM activities") == "completed,stopped")
        #expect(Int(Self.sql(rig.data, "SELECT COUNT(*) FROM track_points WHERE activity_id = 2")) ?? 0 > 0)
        let out = rig.switchOff(device, journal)
        #expect(!out.stdout.contains("[storage-fault]") && !out.stdout.contains("FAULT"), "nothing was lost: \(out.stdout)")
    }

    /// `pacer run` too: the folder made again holds the whole run, and it ends well (0).
    @Test func aRunWhoseFolderIsRemovedEndsWithTheWholeRunStored() throws {
        let dir = try makeTemporaryDirectory()
        let data = "\(dir)/data"
        let hardware = try Pacer.quickHardware(in: dir)
        let settings = try Pacer.settings(
            in: dir, gps: "file:\(Pacer.trackLoop)", profile: "quick", data: data, hardware: hardware)
        let run = try Pacer.start(["run", "--plan", "short", "--config", settings, "--today", "2026-05-02",
                                   "--socket", "/tmp/pacer-removed-\(getpid()).sock"])
        defer { if run.process.isRunning { kill(run.process.processIdentifier, SIGKILL) } }
        try #require(ReliabilityEndToEndTests.waitForPoints(10, in: data) >= 10, "nothing was committed before the fault")
        try FileManager.default.removeItem(atPath: data)
        let out = run.standardOutputData()
        run.process.waitUntilExit()
        let stdout = String(decoding: out.0, as: UTF8.self), stderr = String(decoding: out.1, as: UTF8.self)
        #expect(run.process.terminationStatus == 0, "exit \(run.process.terminationStatus): \(stderr)")
        #expect(!stdout.contains("[storage-fault]"), "\(stdout)")
        #expect(Self.sql(data, "SELECT state FROM activities") == "completed")
        let span = Int(Self.sql(data, "SELECT MAX(time) - MIN(time) FROM track_points")) ?? 0
        #expect(span >= 19_000, "the whole run: \(span) ms")
    }

    /// Case 4: a full or read-only card at power-on. `pacer device` stays up (it does not exit
    /// 73 with no sound for the unit to restart every 5 s): the fault cue with the reason in
    /// the journal, a start refused with it; once the card is mended, the next start works
    /// without a restart.
    @Test(arguments: ["full", "read-only"])
    func aCardThatCannotBeWrittenAtPowerOnGivesTheFaultCueAndTheDeviceStaysUp(fault: String) throws {
        try #require(getuid() == 0, "mounting needs root (CI runs as root)")
        let rig = try Rig(mountedSize: fault == "full" ? "600k" : nil)
        defer { rig.unmount() }
        if fault == "full" {
            _ = try Program.run("/usr/bin/dd", ["if=/dev/zero", "of=\(rig.data)/filler", "bs=4k"])
        } else {
            let mount = try Program.run("/usr/bin/mount", ["--bind", "-o", "ro", rig.data, rig.data])
            try #require(mount.status == 0, "\(mount.stderr)")
        }
        let (device, journal) = try rig.startDevice()
        defer { if device.process.isRunning { kill(device.process.processIdentifier, SIGKILL) } }
        let status = Self.waitForStatus("ready", rig.socket)
        #expect(device.process.isRunning, "the device stays up")
        #expect(status.contains("the data folder cannot be used"), "\(status)")
        let refused = Self.ctl(["start"], rig.socket)
        #expect(refused.status == 1 && refused.stderr.contains("the data folder cannot be used"), "\(refused.stderr)")
        // Mended over SSH: space freed, or the card remounted read-write.
        if fault == "full" {
            try FileManager.default.removeItem(atPath: "\(rig.data)/filler")
        } else {
            _ = try Program.run("/usr/bin/umount", [rig.data])
        }
        let start = Self.ctl(["start"], rig.socket)
        #expect(start.status == 0 && start.stdout.hasPrefix("started: Short"), "\(start.stdout) \(start.stderr)")
        let recorded = Self.waitFor(rig.data, "SELECT COUNT(*) > 0 FROM track_points", is: "1")
        #expect(recorded == "1", "the workout on the mended card committed no point")
        _ = Self.ctl(["stop"], rig.socket)
        #expect(Self.waitForStatus("ready", rig.socket).hasPrefix("ready"))
        #expect(Self.sql(rig.data, "SELECT state FROM activities") == "stopped")
        let out = rig.switchOff(device, journal)
        let reason = fault == "full" ? "disk I/O error" : "read-only file system"
        #expect(out.stdout.contains("FAULT the data folder cannot be used") && out.stdout.contains(reason), "\(out.stdout)")
        let cues = out.stdout.split(separator: "\n").filter { $0.hasPrefix("cue ") }
        #expect(cues.first == "cue fault", "the fault cue at power-on, not power-on: \(cues)")
        #expect(out.stderr.contains("storage works now"), "\(out.stderr)")
    }
}
