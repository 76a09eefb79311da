#if canImport(Glibc)
import Glibc
#endif
import HAL
@testable import LinuxHardware
import Logging
import Synchronization
import TestSupport
import Testing

/// The command line of the control protocol.
@Suite("Control command parsing")
struct ControlParsingTests {
    @Test("each command parses, and its line parses back to it")
    func commands() throws {
        let cases: [(String, ControlCommand)] = [
            ("waypoint Water", .waypoint("Water")),
            ("pause", .pause),
            ("resume", .resume),
            ("stop", .stop),
            ("status", .status),
            ("start", .start),
            ("  WAYPOINT   Water  stop \r\n", .waypoint("Water  stop")),
            ("Status\n", .status),
            ("waypoint\tBridge", .waypoint("Bridge")),
            ("waypoint Water 🚰", .waypoint("Water 🚰")),
        ]
        for (line, expected) in cases {
            #expect(try ControlCommand(parsing: line) == expected, "\(line)")
            #expect(try ControlCommand(parsing: expected.line) == expected)
        }
    }

    /// Found by the fuzzer (`scripts/fuzz.sh control`): a name that starts with a combining
    /// mark joined the space before it into one character, so the verb ran on into the name
    /// and `waypoint ͓x` was refused as an unknown command; the line `pacer ctl` would send
    /// for the name parsed differently from the name. The crashing input, as it was found.
    @Test("a name that starts with a combining mark is still a waypoint, and sends as one")
    func combiningMarkAfterTheVerb() throws {
        let found = String(decoding: [0x77, 0x61, 0x79, 0x70, 0x6f, 0x69, 0x6e, 0x74, 0x20, 0x09, 0x09, 0x09,
                                      0xcd, 0x93, 0xcd, 0x93, 0xcd, 0x93] as [UInt8], as: UTF8.self)
        let command = try ControlCommand(parsing: found)
        #expect(command == .waypoint("\u{353}\u{353}\u{353}"))
        #expect(try ControlCommand(parsing: command.line) == command)
        #expect(try ControlCommand(parsing: "WAYPOINT \u{301}Café ") == .waypoint("\u{301}Café"))
    }

    @Test("garbage is refused with a message that lists the commands")
    func refusals() {
        func message(_ line: String) -> String? {
            do {
                _ = try ControlCommand(parsing: line)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(message("jump") == "unknown command 'jump' (commands: waypoint NAME, pause, resume, lap, stop, status, say-status, start, press PATTERN)")
        #expect(message("") == "empty command (commands: waypoint NAME, pause, resume, lap, stop, status, say-status, start, press PATTERN)")
        // Switching the device off is for signals (systemctl stop), not for the socket.
        #expect(message("shutdown") == "unknown command 'shutdown' (commands: waypoint NAME, pause, resume, lap, stop, status, say-status, start, press PATTERN)")
        #expect(message("waypoint") == "waypoint needs a name: waypoint NAME")
        #expect(message("waypoint   ") == "waypoint needs a name: waypoint NAME")
        #expect(message("pause now") == "'pause' takes no argument")
        #expect(message("waypoint a\u{7}b") == "a waypoint name cannot hold control characters")
        #expect(message("waypoint " + String(repeating: "x", count: 300)) == "command too long (309 bytes; at most 256)")
        #expect(message("waypoint " + String(repeating: "x", count: 247)) == nil)
        // `pacer ctl press`: the button's four patterns, and nothing else.
        #expect(message("press") == "press needs a pattern: press short, double, long, very-long")
        #expect(message("press triple") == "unknown press 'triple' (presses: short, double, long, very-long)")
        #expect(message("press very long") == "unknown press 'very long' (presses: short, double, long, very-long)")
    }

    @Test("press takes the button's patterns, in any case, and prints back as it parses")
    func presses() throws {
        for pattern in PressPattern.allCases {
            let command = try ControlCommand(parsing: "press \(pattern.rawValue)")
            #expect(command == .press(pattern))
            #expect(try ControlCommand(parsing: command.line) == command)
        }
        #expect(try ControlCommand(parsing: " PRESS  Very-Long \n") == .press(.veryLong))
    }

    @Test("default path: $XDG_RUNTIME_DIR/pacer, else /tmp/pacer-<uid>")
    func defaultPath() {
        #expect(ControlSocketServer.defaultPath(runtimeDirectory: "/run/user/1000", uid: 1000)
                == "/run/user/1000/pacer/control.sock")
        #expect(ControlSocketServer.defaultPath(runtimeDirectory: "/run/user/1000/", uid: 1000)
                == "/run/user/1000/pacer/control.sock")
        #expect(ControlSocketServer.defaultPath(runtimeDirectory: nil, uid: 1000) == "/tmp/pacer-1000/control.sock")
        #expect(ControlSocketServer.defaultPath(runtimeDirectory: "", uid: 7) == "/tmp/pacer-7/control.sock")
        #expect(ControlSocketServer.defaultPath(runtimeDirectory: "relative", uid: 7) == "/tmp/pacer-7/control.sock")
    }

    /// Under systemd (`RuntimeDirectory=pacer`) the service's socket is in its runtime
    /// directory; a client finds it there while the service runs, with no option.
    @Test("default path: the service's runtime directory first")
    func serviceDefaultPath() {
        func path(service: String?, exists: Bool) -> String {
            ControlSocketServer.defaultPath(serviceRuntimeDirectory: service, runtimeDirectory: "/run/user/1000", uid: 1000,
                                            serviceSocketExists: exists)
        }
        #expect(path(service: "/run/pacer", exists: false) == "/run/pacer/control.sock")
        #expect(path(service: "/run/pacer:/run/other", exists: false) == "/run/pacer/control.sock")
        #expect(path(service: nil, exists: true) == "/run/pacer/control.sock")
        #expect(path(service: "relative", exists: false) == "/run/user/1000/pacer/control.sock")
        #expect(path(service: nil, exists: false) == "/run/user/1000/pacer/control.sock")
    }

    /// In the service's runtime directory the socket is the group's too (0660): an
    /// administrator in group pacer can talk to the device; elsewhere it is the user's alone.
    @Test("the service's socket is open to its group")
    func serviceSocketMode() throws {
        let directory = TemporaryDirectory()
        setenv("RUNTIME_DIRECTORY", directory.path, 1)
        defer { unsetenv("RUNTIME_DIRECTORY") }
        let server = try ControlSocketServer(path: directory.socketPath)
        defer { server.stop() }
        var info = stat()
        #expect(lstat(directory.socketPath, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o660)
        #expect(ControlSocketServer.defaultPath() == directory.socketPath)
        unsetenv("RUNTIME_DIRECTORY")
        let other = TemporaryDirectory()
        let own = try ControlSocketServer(path: other.socketPath)
        defer { own.stop() }
        #expect(lstat(other.socketPath, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
    }
}

/// The control socket against real UNIX sockets in a temporary directory. Every wait is
/// bounded (the client's own timeout, or `eventually`).
@Suite("Control socket")
struct ControlSocketTests {
    struct Rig {
        let directory = TemporaryDirectory()
        let recorder: ControlRecorder
        let server: ControlSocketServer

        var path: String { directory.socketPath }

        init(
            clientTimeout: Duration = .seconds(2), replyTimeout: Duration = .seconds(5), maximumClients: Int = 16,
            logger: Logger? = nil,
            answer: @escaping @Sendable (ControlCommand) -> String? = { "ok \($0.line)" }
        ) throws {
            recorder = ControlRecorder(answer: answer)
            server = try ControlSocketServer(
                path: directory.socketPath, clientTimeout: clientTimeout, replyTimeout: replyTimeout,
                maximumClients: maximumClients, logger: logger)
            server.start(recorder.handler)
        }

        func send(_ line: String, timeout: Duration = .seconds(10)) throws(ControlClientError) -> String {
            try ControlClient.send(line, socketPath: path, timeout: timeout)
        }
    }

    @Test("every command round-trips: the handler gets it parsed, the client gets the reply")
    func roundTrips() throws {
        let rig = try Rig()
        defer { rig.server.stop() }
        let commands: [ControlCommand] = [.waypoint("Water"), .pause, .resume, .status, .stop]
        for command in commands {
            #expect(try rig.send(command.line) == "ok \(command.line)")
        }
        #expect(rig.recorder.commands == commands)
        #expect(rig.server.commandsServed == commands.count)
    }

    @Test("a waypoint name with spaces and UTF-8 survives the trip")
    func utf8Name() throws {
        let rig = try Rig { command in
            guard case .waypoint(let name) = command else { return "?" }
            return "waypoint '\(name)' stored"
        }
        defer { rig.server.stop() }
        #expect(try rig.send("waypoint Water 🚰") == "waypoint 'Water 🚰' stored")
        #expect(try rig.send("waypoint Café am Fluss — km 3") == "waypoint 'Café am Fluss — km 3' stored")
        #expect(rig.recorder.commands == [.waypoint("Water 🚰"), .waypoint("Café am Fluss — km 3")])
    }

    @Test("an unknown command is answered with an error, and the server keeps serving")
    func unknownCommand() throws {
        let rig = try Rig()
        defer { rig.server.stop() }
        #expect(try rig.send("jump") == "error: unknown command 'jump' (commands: waypoint NAME, pause, resume, lap, stop, status, say-status, start, press PATTERN)")
        #expect(try rig.send("pause please") == "error: 'pause' takes no argument")
        #expect(try rig.send("status") == "ok status")
        #expect(rig.recorder.commands == [.status])
    }

    @Test("bytes that are not UTF-8 are refused")
    func notUTF8() throws {
        let rig = try Rig()
        defer { rig.server.stop() }
        let client = try #require(RawControlClient(path: rig.path))
        client.send(Array("waypoint ".utf8) + [0xFF, 0xFE, 0x0A])
        #expect(client.readToEnd() == "error: the command is not UTF-8 text\n")
        #expect(rig.recorder.commands.isEmpty)
    }

    @Test("an over-long line is refused, by the server and by the client")
    func overLong() throws {
        let rig = try Rig()
        defer { rig.server.stop() }
        let client = try #require(RawControlClient(path: rig.path))
        client.send(Array(("waypoint " + String(repeating: "x", count: 2000) + "\n").utf8))
        let reply = client.readToEnd()
        #expect(reply == "error: command too long (at most 256 bytes)\n")

        #expect(throws: ControlClientError.invalidCommand("command too long (1009 bytes; at most 256)")) {
            try rig.send("waypoint " + String(repeating: "x", count: 1000))
        }
        // 256 bytes exactly is fine.
        let longest = "waypoint " + String(repeating: "y", count: 247)
        #expect(try rig.send(longest) == "ok \(longest)")
        #expect(rig.recorder.commands == [.waypoint(String(repeating: "y", count: 247))])
    }

    @Test("a client that connects and says nothing does not hold up the next one, and is dropped")
    func silentClient() throws {
        let rig = try Rig(clientTimeout: .seconds(3))
        defer { rig.server.stop() }
        let silent = try #require(RawControlClient(path: rig.path))
        let (reply, took) = try elapsed { try rig.send("status", timeout: .seconds(10)) }
        #expect(reply == "ok status")
        // Well within the silent client's 3 s: the next client did not wait for it.
        #expect(took < .seconds(2), "the next client waited \(took)")
        // The silent one is told, and closed, after the client timeout.
        #expect(silent.readToEnd(timeout: .seconds(10)) == "error: no command within 3 s\n")
    }

    @Test("a client that sends half a line and stalls is dropped after the client timeout")
    func stalledClient() throws {
        let rig = try Rig(clientTimeout: .milliseconds(300))
        defer { rig.server.stop() }
        let stalled = try #require(RawControlClient(path: rig.path))
        stalled.send(Array("wayp".utf8))
        #expect(try rig.send("pause") == "ok pause")
        #expect(stalled.readToEnd(timeout: .seconds(10)) == "error: no command within 300 ms\n")
        #expect(rig.recorder.commands == [.pause])
    }

    @Test("a line without its newline counts when the client closes its side")
    func lineAtEndOfStream() throws {
        let rig = try Rig()
        defer { rig.server.stop() }
        let client = try #require(RawControlClient(path: rig.path))
        client.send(Array("resume".utf8))
        shutdown(client.fd, Int32(SHUT_WR))
        #expect(client.readToEnd() == "ok resume\n")
    }

    @Test("more clients than allowed are told the server is busy")
    func busy() throws {
        let rig = try Rig(clientTimeout: .seconds(10), maximumClients: 2)
        defer { rig.server.stop() }
        let a = try #require(RawControlClient(path: rig.path))
        let b = try #require(RawControlClient(path: rig.path))
        // Both are accepted before the third connects: the server handles them in order.
        let c = try #require(RawControlClient(path: rig.path))
        let reply = c.readToEnd()
        #expect(reply == "error: busy, try again\n")
        // `pacer ctl` reads it as "try again": EX_TEMPFAIL.
        #expect(ControlRefusal(reply: reply ?? "") == .busy)
        #expect(ControlRefusal.busy.exitStatus == 75)
        _ = (a, b)
    }

    /// A flood of clients beyond the limit is refused one by one, and the journal hears of it
    /// once per ten seconds with a count, not once per client.
    @Test func aFloodOfRefusedClientsIsOneWarning() throws {
        let log = LogRecorder()
        let rig = try Rig(clientTimeout: .seconds(10), maximumClients: 1, logger: log.logger)
        defer { rig.server.stop() }
        let holder = try #require(RawControlClient(path: rig.path))
        for _ in 0..<200 {
            let c = try #require(RawControlClient(path: rig.path))
            #expect(c.readToEnd() == "error: busy, try again\n")
        }
        let warnings = log.entries.filter { $0.level == .warning }.map(\.message)
        #expect(warnings.count == 1, "\(warnings.count) lines: \(warnings.prefix(3))")
        #expect(warnings.first?.contains("clients already; refused one") == true)
        _ = holder
    }

    @Test func theLimiterSaysHowManyItHeldBack() {
        var limiter = WarningLimiter()
        let t0 = ContinuousClock.now
        #expect(limiter.line("busy", "full", at: t0) == "full")
        #expect(limiter.line("busy", "full", at: t0 + .seconds(1)) == nil)
        #expect(limiter.line("busy", "full", at: t0 + .seconds(9)) == nil)
        #expect(limiter.line("slow", "dropped", at: t0 + .seconds(9)) == "dropped", "each kind its own")
        #expect(limiter.line("busy", "full", at: t0 + .seconds(10)) == "full (and 2 more like it in the 10 s before)")
        #expect(limiter.line("busy", "full", at: t0 + .seconds(30)) == "full")
    }

    /// What each of the server's own replies means for `pacer ctl`'s exit status.
    @Test func refusalsMapToTheirExitStatus() {
        #expect(ControlRefusal(reply: "error: the device did not answer in time")?.exitStatus == 75)
        #expect(ControlRefusal(reply: "error: 4 watchers already, the most at once; try again later")?.exitStatus == 75)
        #expect(ControlRefusal(reply: "error: command too long (at most 256 bytes)")?.exitStatus == 64)
        #expect(ControlRefusal(reply: "error: the command is not UTF-8 text")?.exitStatus == 64)
        #expect(ControlRefusal(reply: "error: not recording")?.exitStatus == 1)
        #expect(ControlRefusal(reply: "waypoint 'Water' stored at 52.0, 4.3") == nil)
    }

    @Test("a reply may come later, from another thread")
    func asynchronousReply() throws {
        let directory = TemporaryDirectory()
        let server = try ControlSocketServer(path: directory.socketPath)
        defer { server.stop() }
        server.start { command, reply in
            ControlTestThread.after(.milliseconds(50)) { reply("later: \(command.line)") }
        }
        #expect(try ControlClient.send("status", socketPath: directory.socketPath) == "later: status")
    }

    @Test("a handler that never answers: the client hears so after the reply timeout")
    func noReply() throws {
        let rig = try Rig(replyTimeout: .milliseconds(200)) { _ in nil }
        defer { rig.server.stop() }
        #expect(try rig.send("stop") == "error: the device did not answer in time")
        #expect(rig.recorder.commands == [.stop])
    }

    @Test("only the first reply to a command counts")
    func firstReplyCounts() throws {
        let directory = TemporaryDirectory()
        let server = try ControlSocketServer(path: directory.socketPath)
        defer { server.stop() }
        server.start { _, reply in
            reply("one")
            reply("two")
        }
        #expect(try ControlClient.send("status", socketPath: directory.socketPath) == "one")
        #expect(try ControlClient.send("status", socketPath: directory.socketPath) == "one")
    }

    @Test("a stale socket file is replaced")
    func staleSocket() throws {
        let directory = TemporaryDirectory()
        ControlTest.makeStaleSocket(directory.socketPath)
        #expect(throws: ControlClientError.noServer(path: directory.socketPath)) {
            try ControlClient.send("status", socketPath: directory.socketPath)
        }
        let recorder = ControlRecorder()
        let server = try ControlSocketServer(path: directory.socketPath)
        defer { server.stop() }
        server.start(recorder.handler)
        #expect(try ControlClient.send("status", socketPath: directory.socketPath) == "ok status")
    }

    @Test("a second server on a live path is refused, and the first keeps serving")
    func secondServer() throws {
        let rig = try Rig()
        defer { rig.server.stop() }
        do {
            let second = try ControlSocketServer(path: rig.path)
            second.stop()
            Issue.record("a second server started on a live socket")
        } catch {
            #expect(error.description == "control socket \(rig.path): another Pacer is already running and "
                + "listening on it (stop it, or use another socket path)")
        }
        #expect(try rig.send("status") == "ok status")
        #expect(ControlTest.exists(rig.path))
    }

    @Test("a file that is not a socket is not removed")
    func notASocket() throws {
        let directory = TemporaryDirectory()
        let fd = open(directory.socketPath, O_CREAT | O_WRONLY, 0o600)
        close(fd)
        #expect(throws: ControlSocketError(
            path: directory.socketPath, reason: "a file that is not a socket is in the way; not removing it")) {
            _ = try ControlSocketServer(path: directory.socketPath)
        }
        #expect(ControlTest.exists(directory.socketPath))
    }

    @Test("a missing directory is created, mode 0700; the socket is mode 0600")
    func directoryCreated() throws {
        let directory = TemporaryDirectory()
        let path = "\(directory.path)/run/control.sock"
        let server = try ControlSocketServer(path: path)
        defer {
            server.stop()
            rmdir("\(directory.path)/run")
        }
        var info = stat()
        #expect(lstat("\(directory.path)/run", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o700)
        #expect(lstat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
    }

    @Test("no server: the client says that no Pacer is running")
    func missingSocket() throws {
        let directory = TemporaryDirectory()
        let path = "\(directory.path)/nothing.sock"
        #expect(throws: ControlClientError.noServer(path: path)) {
            try ControlClient.send("status", socketPath: path)
        }
        #expect(ControlClientError.noServer(path: path).description == "no Pacer running: nothing listens on \(path)")
        #expect(throws: ControlClientError.noServer(path: "/nonexistent-dir/control.sock")) {
            try ControlClient.send("status", socketPath: "/nonexistent-dir/control.sock")
        }
    }

    @Test("stop closes and unlinks the socket; stop is idempotent")
    func stopUnlinks() throws {
        let rig = try Rig()
        #expect(ControlTest.exists(rig.path))
        #expect(try rig.send("status") == "ok status")
        rig.server.stop()
        #expect(!ControlTest.exists(rig.path))
        rig.server.stop()
        #expect(throws: ControlClientError.noServer(path: rig.path)) { try rig.send("status") }
    }

    @Test("a server never started still releases the path on stop")
    func stopUnstarted() throws {
        let directory = TemporaryDirectory()
        let server = try ControlSocketServer(path: directory.socketPath)
        #expect(ControlTest.exists(directory.socketPath))
        server.stop()
        #expect(!ControlTest.exists(directory.socketPath))
        let again = try ControlSocketServer(path: directory.socketPath)
        again.stop()
    }

    @Test("stop with a command awaiting its reply is prompt, and the client is told")
    func stopWhileWaiting() async throws {
        // Reply and client timeouts far beyond the test, so only stop can end the wait (and on
        // a loaded machine this task may wait tens of seconds for a thread before it stops the
        // server: the client must still be waiting then).
        let rig = try Rig(replyTimeout: .seconds(900)) { _ in nil }
        let path = rig.path
        let result = Mutex<Result<String, ControlClientError>?>(nil)
        let done = ControlTestThread.run {
            let r = Result { () throws(ControlClientError) -> String in
                try ControlClient.send("status", socketPath: path, timeout: .seconds(600))
            }
            result.withLock { $0 = r }
        }
        #expect(await eventually(within: .seconds(120)) { rig.recorder.commands == [.status] })
        let (_, took) = elapsed { rig.server.stop() }
        #expect(took < .seconds(2))
        #expect(await eventually(within: .seconds(120)) { done.isFinished })
        let outcome = result.withLock { $0 }
        #expect(outcome == .failure(.failed(path: path, reason: "closed the connection without answering")))
    }

    @Test("a handler that answers and then stops the server on its own thread: the answer is written, the path released")
    func stopFromHandler() async throws {
        let directory = TemporaryDirectory()
        let server = try ControlSocketServer(path: directory.socketPath)
        let box = Mutex<ControlSocketServer?>(server)
        server.start { command, reply in
            reply("stopping after \(command.line)")
            box.withLock { $0 }?.stop()
        }
        #expect(try ControlClient.send("stop", socketPath: directory.socketPath, timeout: .seconds(10))
                == "stopping after stop")
        #expect(await eventually { !ControlTest.exists(directory.socketPath) })
        server.stop()
        box.withLock { $0 = nil }
    }

    @Test("a client timeout is bounded when the server never answers")
    func clientTimeout() throws {
        let rig = try Rig(replyTimeout: .seconds(30)) { _ in nil }
        defer { rig.server.stop() }
        let (result, took) = elapsed {
            Result { () throws(ControlClientError) -> String in try rig.send("status", timeout: .milliseconds(200)) }
        }
        #expect(result == .failure(.timedOut(path: rig.path, timeout: .milliseconds(200))))
        #expect(took < .seconds(3))
        #expect(ControlClientError.timedOut(path: "/p", timeout: .milliseconds(200)).description
                == "Pacer on /p did not answer within 200 ms")
    }
}

/// A detached pthread for a test's background work.
final class ControlTestThread: Sendable {
    private let finished = Atomic<Bool>(false)

    var isFinished: Bool { finished.load(ordering: .acquiring) }

    @discardableResult
    static func run(_ body: @escaping @Sendable () -> Void) -> ControlTestThread {
        let handle = ControlTestThread()
        let box = Unmanaged.passRetained(Box {
            body()
            handle.finished.store(true, ordering: .releasing)
        }).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { raw in
            Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, box)
        precondition(created == 0)
        pthread_detach(thread)
        return handle
    }

    static func after(_ delay: Duration, _ body: @escaping @Sendable () -> Void) {
        run {
            var ts = timespec(tv_sec: Int(delay.components.seconds), tv_nsec: Int(delay.components.attoseconds / 1_000_000_000))
            nanosleep(&ts, nil)
            body()
        }
    }

    private final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}
