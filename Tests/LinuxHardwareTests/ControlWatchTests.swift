#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HAL
import LinuxHardware
import Synchronization
import TestSupport
import Testing

/// `watch` on the control socket (`pacer ctl watch`): real UNIX sockets in a temporary
/// directory, real clients (the library's `ControlClient.watch` on a thread of its own, and
/// raw sockets for watchers that misbehave). Every wait is bounded.
@Suite("Control socket watchers")
struct ControlWatchTests {
    struct Rig {
        let directory = TemporaryDirectory()
        let server: ControlSocketServer

        var path: String { directory.socketPath }

        init(clientTimeout: Duration = .seconds(2), maximumClients: Int = 16, maximumWatchers: Int = 4,
             watcherBacklog: Int = 256, greeting: String? = #"{"event":"status","n":-1}"#) throws {
            server = try ControlSocketServer(
                path: directory.socketPath, clientTimeout: clientTimeout, maximumClients: maximumClients,
                maximumWatchers: maximumWatchers, watcherBacklog: watcherBacklog)
            if let greeting { server.setWatchGreeting { greeting } }
            server.start(ControlRecorder().handler)
        }

        /// A raw watcher whose first line (the greeting) has arrived: it is registered.
        func watcher() throws -> LineReader {
            let reader = try #require(LineReader(path: path))
            reader.send("watch\n")
            _ = try #require(reader.line(), "no greeting")
            return reader
        }
    }

    /// `{"n":7,"pad":"xxx…"}`: a numbered line, padded to about `size` bytes.
    static func numbered(_ n: Int, size: Int = 0) -> String {
        #"{"n":\#(n),"pad":""# + String(repeating: "x", count: max(0, size - 20)) + #""}"#
    }

    static func number(_ line: String) -> Int? {
        guard let data = line.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        return object["n"] as? Int
    }

    @Test("a watcher hears the greeting, then every published line in order; stop ends its stream")
    func publishedLinesInOrder() async throws {
        let rig = try Rig()
        let watch = Watch()
        let path = rig.path
        Thread {
            do throws(ControlClientError) {
                try ControlClient.watch(socketPath: path, timeout: .seconds(10)) { line in
                    watch.lines.withLock { $0.append(line) }
                    return true
                }
                watch.ended.withLock { $0 = .success(()) }
            } catch {
                watch.ended.withLock { $0 = .failure(error) }
            }
        }.start()
        #expect(await eventually { rig.server.watcherCount == 1 })
        #expect(await eventually { watch.lines.withLock { $0.count } == 1 }, "the greeting")
        for n in 0..<200 { rig.server.publish(Self.numbered(n)) }
        #expect(await eventually { watch.lines.withLock { $0.count } == 201 })
        rig.server.stop()
        #expect(await eventually { watch.ended.withLock { $0 } != nil }, "the watch did not end with the server")
        let all = watch.lines.withLock { $0 }
        #expect(all.first == #"{"event":"status","n":-1}"#)
        #expect(all.dropFirst().map { Self.number($0) } == (0..<200).map { $0 })
        if case .failure(let error) = watch.ended.withLock({ $0 }) { Issue.record("the watch ended with \(error)") }
        #expect(rig.server.watcherCount == 0)
    }

    @Test("without a greeting a watcher hears {\"event\":\"watching\"}; a line with a break inside is not published")
    func defaultGreetingAndFraming() throws {
        let rig = try Rig(greeting: nil)
        let reader = try #require(LineReader(path: rig.path))
        reader.send("WATCH \r\n")
        #expect(reader.line() == #"{"event":"watching"}"#)
        rig.server.publish("{\"a\":1}\n{\"b\":2}")
        rig.server.publish("{\"c\":3}\n")
        #expect(reader.line() == #"{"c":3}"#)
        rig.server.stop()
        #expect(reader.toEnd() == .end(""))
    }

    /// A watcher that stops reading holds nothing up: publish returns at once however far
    /// behind it is, another watcher gets every line, and the slow one is dropped with a
    /// last line that says so, after an unbroken run of the first lines.
    @Test("a slow watcher does not block publish, and is dropped with a last line that says so")
    func slowWatcher() async throws {
        let rig = try Rig(clientTimeout: .seconds(30), watcherBacklog: 256)
        let slow = try rig.watcher()  // reads nothing until the end
        let fast = try rig.watcher()
        let watch = Watch()
        // The reader waits for as long as the test may take: on a loaded machine the test's
        // own task can wait tens of seconds for a thread between batches (the pool's threads
        // are as many as the cores, and other suites block them), and a reader that gave up
        // would fail every batch after it.
        Thread {
            while let line = fast.line(timeout: .seconds(600)) {
                watch.lines.withLock { $0.append(line) }
            }
        }.start()

        // The slow one's last line waits `clientTimeout` for it: it is read as soon as the
        // server drops it, however long the batches take on a loaded machine.
        let slowEnd = Mutex<LineReader.End?>(nil)
        let slowRead = DispatchSemaphore(value: 0)
        Thread {
            _ = eventuallyBlocking(within: .seconds(600), every: .milliseconds(10)) { rig.server.watcherCount <= 1 }
            let end = slow.toEnd(timeout: .seconds(20))
            slowEnd.withLock { $0 = end }
            slowRead.signal()
        }.start()

        let clock = ContinuousClock()
        var slowest = Duration.zero
        var total = Duration.zero
        let batches = 20, perBatch = 100
        for batch in 0..<batches {
            for i in 0..<perBatch {
                let line = Self.numbered(batch * perBatch + i, size: 1000)
                let start = clock.now
                rig.server.publish(line)
                let took = clock.now - start
                total += took
                slowest = max(slowest, took)
            }
            // The fast watcher keeps up: a batch is well under the backlog.
            let expected = (batch + 1) * perBatch
            #expect(await eventually(within: .seconds(120)) { watch.lines.withLock { $0.count } >= expected },
                    "batch \(batch)")
        }
        print("publish: \(batches * perBatch) lines of 1 kB to 2 watchers (one not reading): \(total) in all, slowest \(slowest)")
        #expect(slowest < .milliseconds(500), "publish waited \(slowest)")
        #expect(watch.lines.withLock { $0 }.map { Self.number($0) } == (0..<batches * perBatch).map { $0 })
        #expect(await eventually { rig.server.watcherCount == 1 }, "the slow watcher is still registered")

        // The slow one: the first lines without a gap (what its socket held), then the news.
        #expect(slowRead.wait(timeout: .now() + 60) == .success, "the slow watcher was never dropped")
        guard case .end(let rest)? = slowEnd.withLock({ $0 }) else {
            Issue.record("the slow watcher's stream did not end cleanly")
            return
        }
        let lines = rest.split(separator: "\n").map(String.init)
        let numbers = lines.dropLast().map { Self.number($0) }
        #expect(numbers == (0..<numbers.count).map { $0 }, "an unbroken run of the first lines")
        #expect(numbers.count < batches * perBatch)
        #expect(lines.last?.hasPrefix(#"{"event":"error","error":"too slow: more than 256 lines"#) == true, "\(lines.last ?? "")")
        print("slow watcher: got \(numbers.count) lines before being dropped")
        let error = try #require(lines.last?.data(using: .utf8))
        #expect((try JSONSerialization.jsonObject(with: error) as? [String: Any])?["event"] as? String == "error")
        rig.server.stop()  // the fast watcher's thread reads the end, and ends
    }

    /// Watchers have their own limit: with four watching and two command connections
    /// allowed, `status` is still answered; a fifth watcher is refused with a clear line.
    @Test("at most 4 watchers, and they never lock out commands")
    func limits() throws {
        let rig = try Rig(maximumClients: 2)
        defer { rig.server.stop() }
        let watchers = try (0..<4).map { _ in try rig.watcher() }
        #expect(rig.server.watcherCount == 4)
        #expect(try ControlClient.send("status", socketPath: rig.path, timeout: .seconds(10)) == "ok status")
        #expect(try ControlClient.send("status", socketPath: rig.path, timeout: .seconds(10)) == "ok status")

        var refusal: [String] = []
        try ControlClient.watch(socketPath: rig.path, timeout: .seconds(10)) { line in
            refusal.append(line)
            return true
        }
        #expect(refusal == ["error: 4 watchers already, the most at once; try again later"])
        #expect(try ControlClient.send("watch me", socketPath: rig.path, timeout: .seconds(10))
                == "error: 'watch' takes no argument")
        // The four still get what is published.
        rig.server.publish(Self.numbered(1))
        for w in watchers { #expect(w.line().flatMap(Self.number) == 1) }
    }

    /// A watcher that hangs up frees its place at once; one that only shuts its sending
    /// side (`nc -N`) still reads, and stays.
    @Test("a watcher that closes its end is dropped promptly; a half-closed one stays")
    func closedWatcher() throws {
        let rig = try Rig()
        defer { rig.server.stop() }
        var gone: LineReader? = try rig.watcher()
        let half = try rig.watcher()
        shutdown(half.fd, Int32(SHUT_WR))
        #expect(rig.server.watcherCount == 2)
        let clock = ContinuousClock()
        let closedAt = clock.now
        gone = nil  // closes its socket
        #expect(gone == nil)
        // Waited for on this thread, not in a task: the figure is the server's, not the
        // test pool's (busy with every other test).
        _ = eventuallyBlocking(within: .seconds(5), every: .microseconds(500)) { rig.server.watcherCount == 1 }
        let took = clock.now - closedAt
        print("a watcher that hung up was removed after \(took)")
        #expect(took < .seconds(2), "removed after \(took)")
        rig.server.publish(Self.numbered(5))
        #expect(half.line().flatMap(Self.number) == 5)
        #expect(rig.server.watcherCount == 1)
    }

    @Test("stop ends every watcher cleanly, after the lines already published")
    func stopEndsWatchers() throws {
        let rig = try Rig()
        let watchers = try (0..<3).map { _ in try rig.watcher() }
        for n in 0..<3 { rig.server.publish(Self.numbered(n)) }
        rig.server.stop()
        for w in watchers {
            guard case .end(let rest) = w.toEnd() else {
                Issue.record("not a clean end")
                continue
            }
            #expect(rest.split(separator: "\n").map { Self.number(String($0)) } == [0, 1, 2])
        }
        #expect(rig.server.watcherCount == 0)
        rig.server.publish(Self.numbered(9))  // after stop: nothing, no crash
        #expect(LineReader(path: rig.path) == nil, "the socket is gone")
    }

    @Test("publish costs next to nothing, watched or not")
    func publishCost() throws {
        let rig = try Rig()
        defer { rig.server.stop() }
        let line = Self.numbered(1, size: 300)
        let clock = ContinuousClock()
        func cost(_ count: Int) -> Duration {
            let start = clock.now
            for _ in 0..<count { rig.server.publish(line) }
            return (clock.now - start) / count
        }
        let unwatched = cost(10_000)
        let watcher = try rig.watcher()
        let watched = cost(200)
        print("publish: \(unwatched) a line with no watcher, \(watched) with one")
        #expect(unwatched < .milliseconds(1))
        #expect(watched < .milliseconds(5))
        for _ in 0..<200 { #expect(watcher.line() == line) }
    }
}

/// What a watcher on a thread of its own received.
final class Watch: Sendable {
    let lines = Mutex<[String]>([])
    let ended = Mutex<Result<Void, ControlClientError>?>(nil)
}

/// A raw client socket read line by line, for watchers.
final class LineReader: @unchecked Sendable {
    let fd: Int32
    private var buffer: [UInt8] = []

    enum End: Equatable {
        /// The server closed: what came before the end, not split.
        case end(String)
        case reset
        case timedOut
    }

    init?(path: String) {
        guard let fd = ControlTest.connect(to: path) else { return nil }
        self.fd = fd
    }

    deinit {
        close(fd)
    }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// The next line, without its newline; nil at the end of the stream or after `timeout`.
    func line(timeout: Duration = .seconds(10)) -> String? {
        let deadline = ContinuousClock().now + timeout
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            guard fill(until: deadline) == .some(true) else { return nil }
        }
    }

    /// Everything until the server closes.
    func toEnd(timeout: Duration = .seconds(10)) -> End {
        let deadline = ContinuousClock().now + timeout
        while true {
            switch fill(until: deadline) {
            case .some(true): continue
            case .some(false):
                return errno == ECONNRESET ? .reset : .end(String(decoding: buffer, as: UTF8.self))
            case nil: return .timedOut
            }
        }
    }

    /// Reads once: true when bytes came, false at the end (or an error), nil after `deadline`.
    private func fill(until deadline: ContinuousClock.Instant) -> Bool? {
        let clock = ContinuousClock()
        while true {
            let left = deadline - clock.now
            guard left > .zero else { return nil }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ms = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            guard poll(&p, 1, ms) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                buffer.append(contentsOf: chunk[0..<n])
                return true
            }
            if n == 0 { errno = 0 }
            return false
        }
    }
}
