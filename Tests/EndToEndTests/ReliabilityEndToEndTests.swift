import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import Testing

/// Faults a runner can meet, each reproduced with the real binary,
/// real files, real signals.
@Suite("Reliability, end to end", .serialized)
struct ReliabilityEndToEndTests {
    /// Waits (bounded) until the device answers on its socket.
    static func waitForSocket(_ socket: String) -> Bool {
        eventuallyBlocking(within: .seconds(10), every: .milliseconds(50)) {
            (try? Pacer.run(["ctl", "status", "--socket", socket]))?.status == 0
        }
    }

    static func sql(_ database: String, _ query: String) throws -> String {
        try Program.run("/usr/bin/sqlite3", [database, query]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Two devices on one data folder: the second is refused before it touches anything (the
    /// first's live activity is not "recovered"), even with a socket of its own; so is a
    /// command that writes; a reader is not.
    @Test func oneWriterPerDataFolder() throws {
        let dir = try makeTemporaryDirectory()
        let settings = try Pacer.settings(in: dir, gps: "file:\(Pacer.trackLoop)", profile: "high")
        let first = try Pacer.start(["run", "--plan", "easy-run", "--config", settings, "--today", "2026-05-02",
                                     "--socket", "/tmp/pacer-lock-\(getpid())-1.sock"])
        defer { if first.process.isRunning { kill(first.process.processIdentifier, SIGKILL) } }
        try #require(Self.waitForSocket("/tmp/pacer-lock-\(getpid())-1.sock"), "the first run never answered")
        let database = "\(dir)/data/pacer.sqlite"
        #expect(try Self.sql(database, "SELECT state FROM activities") == "recording")

        let second = try Pacer.run(["run", "--plan", "easy-run", "--config", settings, "--today", "2026-05-02",
                                    "--socket", "/tmp/pacer-lock-\(getpid())-2.sock"])
        #expect(second.status != 0)
        #expect(second.stderr.contains("is in use by another Pacer (PID \(first.process.processIdentifier), pacer run"),
                "\(second.stderr)")
        // A run is ended by `pacer ctl stop` or its PID, and the refusal says so.
        #expect(second.stderr.contains("Stop it first (pacer ctl stop ends the run, or kill \(first.process.processIdentifier))"),
                "\(second.stderr)")
        #expect(try Self.sql(database, "SELECT state FROM activities") == "recording", "the live activity was touched")
        #expect(try Self.sql(database, "SELECT COUNT(*) FROM activities") == "1")

        let device = try Pacer.run(["device", "--config", settings, "--socket", "/tmp/pacer-lock-\(getpid())-3.sock"])
        #expect(device.status != 0 && device.stderr.contains("in use by another Pacer"), "\(device.stderr)")
        let activate = try Pacer.run(["plan", "activate", "tempo", "--config", settings])
        #expect(activate.status != 0 && activate.stderr.contains("in use by another Pacer"), "\(activate.stderr)")
        let list = try Pacer.run(["activities", "list", "--config", settings])
        #expect(list.status == 0 && list.stdout.contains("recording"), "readers never wait: \(list.stderr)")

        kill(first.process.processIdentifier, SIGTERM)
        first.process.waitUntilExit()
        // The lock goes with its process.
        let after = try Pacer.run(["plan", "activate", "tempo", "--config", settings])
        #expect(after.status == 0, "\(after.stderr)")
    }

    /// A command that only reads creates nothing: a mistyped folder is an error, not a new
    /// empty database.
    @Test func readersCreateNothing() throws {
        let dir = try makeTemporaryDirectory()
        for arguments in [["activities", "list"], ["stats"], ["routes", "list"], ["activities", "show", "1"]] {
            let result = try Pacer.run(arguments + ["--data-dir", "\(dir)/nowhere/pacer"])
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stderr.contains("no activities in \(dir)/nowhere/pacer"), "\(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/nowhere"))
    }

    /// Stray signals (case 4): a closed terminal's SIGHUP stops and stores the workout; SIGUSR2
    /// is ignored; a closed output pipe (`pacer run | head -c 10`) never stops it.
    @Test(arguments: ["SIGHUP", "SIGUSR2", "SIGPIPE"])
    func aStraySignalNeverLosesTheWorkout(signalName: String) throws {
        let dir = try makeTemporaryDirectory()
        let settings = try Pacer.settings(in: dir, gps: "file:\(Pacer.trackLoop)", profile: "high")
        let socket = "/tmp/pacer-signal-\(getpid())-\(signalName).sock"
        let arguments = ["run", "--plan", "easy-run", "--config", settings, "--today", "2026-05-02", "--socket", socket]
        let run: RunningProcess
        if signalName == "SIGPIPE" {
            // As the probe ran it: `pacer run … | head -c 10`. head has gone after the header's
            // first ten bytes; every line after meets a closed pipe. The pipeline's status is
            // pacer's (pipefail).
            let line = ([Pacer.executable] + arguments).map { "'\($0)'" }.joined(separator: " ")
            run = try Program.start("/bin/bash", ["-o", "pipefail", "-c", "\(line) | head -c 10 >/dev/null"], in: repositoryRoot)
        } else {
            run = try Pacer.start(arguments)
        }
        defer { if run.process.isRunning { kill(run.process.processIdentifier, SIGKILL) } }
        try #require(Self.waitForSocket(socket), "the run never answered")
        let database = "\(dir)/data/pacer.sqlite"
        switch signalName {
        case "SIGHUP":
            kill(run.process.processIdentifier, SIGHUP)
        case "SIGUSR2":
            kill(run.process.processIdentifier, SIGUSR2)
            // The kernel acts on a signal as it is sent (an ignored one is dropped, a fatal one
            // ends the process then): an answer after the kill shows that the run outlived it.
            #expect(try Pacer.run(["ctl", "status", "--socket", socket]).status == 0)
            #expect(run.process.isRunning, "SIGUSR2 ended the run")
            kill(run.process.processIdentifier, SIGTERM)
        default:
            // Cues are printed as they sound: on the high profile the first pace cue comes
            // 10 s in (the settle time), and every one meets the closed pipe. A cue is printed
            // before it is published, so its event on the watch shows the print was tried.
            let watch = try Pacer.start(["ctl", "watch", "--socket", socket])
            defer { if watch.process.isRunning { kill(watch.process.processIdentifier, SIGKILL) } }
            let events = watch.follow()
            let cue = events.line(within: .seconds(30)) {
                $0.hasPrefix(#"{"event":"cue""#) && !$0.contains(#""cue":"started""#)
            }
            #expect(cue != nil, "no pace cue: \(events.stdout)")
            #expect(run.process.isRunning, "a closed output pipe ended the run")
            #expect(try Pacer.run(["ctl", "stop", "--socket", socket]).status == 0)
        }
        #expect(run.waitForExit(within: .seconds(20)), "the run did not end")
        #expect(run.process.terminationReason == .exit && run.process.terminationStatus == 0,
                "ended by \(run.process.terminationReason) \(run.process.terminationStatus)")
        #expect(try Self.sql(database, "SELECT state FROM activities") == "stopped")
        #expect(try Int(Self.sql(database, "SELECT COUNT(*) FROM track_points")) ?? 0 > 0)
    }

    /// A storage fault (case 2): the disk fills up while a workout records. (A mounted file
    /// system cannot be made read-only under open files; a read-only folder is refused at
    /// the start, below. A data folder removed is made again: StorageFaultsEndToEndTests.)
    /// The workout goes on (the cues sound), the runner hears storage-fault once, and the
    /// end says what could not be stored and exits 74 (EX_IOERR) instead of "completed";
    /// what reached the disk stays, for the next start to recover.
    @Test func aFullDiskIsLoudAndTheEndSaysWhatWasLost() throws {
        try #require(getuid() == 0, "mounting a small tmpfs needs root (CI runs as root)")
        let dir = try makeTemporaryDirectory()
        let data = "\(dir)/data"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let mount = try Program.run("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", data])
        try #require(mount.status == 0, "\(mount.stderr)")
        defer { _ = try? Program.run("/usr/bin/umount", ["-l", data]) }
        let hardware = try Pacer.quickHardware(in: dir)
        let settings = try Pacer.settings(
            in: dir, gps: "file:\(Pacer.trackLoop)", profile: "quick", data: data, hardware: hardware)
        let run = try Pacer.start(["run", "--plan", "short", "--config", settings, "--today", "2026-05-02",
                                   "--socket", "/tmp/pacer-storage-\(getpid())-full.sock"])
        defer { if run.process.isRunning { kill(run.process.processIdentifier, SIGKILL) } }
        // Let it commit for a few seconds, then fill the disk.
        let committed = Self.waitForPoints(10, in: data)
        try #require(committed >= 10, "nothing was committed before the fault")
        _ = try Program.run("/usr/bin/dd", ["if=/dev/zero", "of=\(data)/filler", "bs=4k"])
        let out = run.standardOutputData()
        run.process.waitUntilExit()
        let stdout = String(decoding: out.0, as: UTF8.self), stderr = String(decoding: out.1, as: UTF8.self)
        #expect(run.process.terminationStatus == 74, "exit \(run.process.terminationStatus): \(stderr)")
        #expect(stderr.contains("error: the activity could not be stored"), "\(stderr)")
        #expect(stdout.components(separatedBy: "[storage-fault]").count == 2, "the cue once: \(stdout)")
        #expect(stdout.contains("[workout-complete]"), "the workout went on to its end")
        // What reached the disk is there, still recording: the next start recovers it.
        #expect(try Self.sql("\(data)/pacer.sqlite", "SELECT state FROM activities") == "recording")
        #expect(Int(try Self.sql("\(data)/pacer.sqlite", "SELECT COUNT(*) FROM track_points")) ?? 0 >= committed)
    }

    /// Waits (up to 30 s: a loaded machine commits slowly) until `n` track points are committed in `data`; how many are.
    static func waitForPoints(_ n: Int, in data: String) -> Int {
        polledBlocking(within: .seconds(30), every: .milliseconds(100), {
            Int((try? sql("\(data)/pacer.sqlite", "SELECT COUNT(*) FROM track_points")) ?? "") ?? 0
        }, until: { $0 >= n })
    }

    /// A read-only data folder (a card mounted read-only after a file system error): a
    /// device refuses to start, saying so, rather than coach a run it cannot keep.
    @Test func aReadOnlyDataFolderIsRefusedAtTheStart() throws {
        try #require(getuid() == 0, "mounting a read-only tmpfs needs root (CI runs as root)")
        let dir = try makeTemporaryDirectory()
        let settings = try Pacer.settings(in: dir, gps: "file:\(Pacer.trackLoop)", profile: "high")
        let data = "\(dir)/data"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        #expect(try Pacer.run(["plan", "activate", "easy-run", "--config", settings]).status == 0)
        let mount = try Program.run("/usr/bin/mount", ["--bind", "-o", "ro", data, data])
        try #require(mount.status == 0, "\(mount.stderr)")
        defer { _ = try? Program.run("/usr/bin/umount", ["-l", data]) }
        let run = try Pacer.run(["run", "--config", settings, "--today", "2026-05-02", "--socket", "/tmp/pacer-ro-\(getpid()).sock"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("the data folder is on a read-only file system"), "\(run.stderr)")
        #expect(!run.stdout.contains("START"), "it coached a run it could not keep")
    }
}
