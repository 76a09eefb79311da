import Foundation
import Glibc
import HAL
import LinuxHardware
import NMEA
import PacerCore
import Synchronization
import TestSupport

// Test support for the gpsd source: a real gpsd started on a pseudo-terminal, a simulated
// receiver writing NMEA into it, the clock's loop on a thread of its own, and an event log.
//
// How gpsd is started, and why:
//
//     /usr/bin/timeout -k 3 60 /usr/sbin/gpsd -N -n -b -S <port> -F <dir>/gpsd-N.sock <pty>
//
// -N stays in the foreground, so the pid we hold is gpsd's (or `timeout`'s, see below);
// -n opens the device at once instead of waiting for a client; -b opens it read-only and sends
// the receiver nothing (no probing of our pseudo-terminal); -S puts it on a free loopback port
// found by binding port 0; -F gives it a control socket in the test's own temporary directory
// (the default would be a shared path under /run).
//
// Running as root (here and in CI): gpsd opens the listening sockets, the control socket and,
// with -n, the devices named on its command line as root, and then drops privileges to the
// user `gpsd` and group `dialout` (Debian's build; `gpsd -D 2` logs "running with effective
// user ID 102"). A pseudo-terminal's slave belongs to root and is not open to others (0600
// here, 0620 root:tty on a stock devpts), so that first open works, but any open after the
// drop fails: without -n gpsd opens the device at the first client's WATCH, as `gpsd`, and
// logs "device open of /dev/pts/N failed: Permission denied ... freeing device"; the same goes
// for a reopen after a read error. So the slave is made 0666 and gpsd can always (re)open it. The
// control socket is created before the drop and is never reopened, so the directory can stay
// 0700 (gpsd cannot unlink its socket at exit, which is why the fixture removes the directory).
// After the drop gpsd also fails to remove the shared-memory segments it created as root
// ("shmctl for IPC_RMID failed"): they have fixed keys, so runs reuse them; nothing piles up.
//
// gpsd must never outlive a test: teardown sends SIGTERM and waits (SIGKILL to the process group
// after 5 s), and gpsd runs under coreutils `timeout`, which kills it after 60 s even if the
// test process itself dies. `timeout` forwards the SIGTERM it receives to gpsd.

/// Namespace for the gpsd tests' free functions (other suites share this test module).
enum GPSDTest {
    static let gpsdPath = "/usr/sbin/gpsd"
    static let timeoutPath = "/usr/bin/timeout"
}

struct GPSDTestError: Error, CustomStringConvertible {
    var description: String
}

// MARK: - The clock's loop and the events

/// A `MonotonicClock` whose loop runs on a thread of its own, as on the board.
final class GPSDClockLoop: Sendable {
    let clock = MonotonicClock()

    init() async throws {
        let clock = self.clock
        let running = Atomic<Bool>(false)
        Thread.detachNewThread { clock.run() }
        clock.execute { running.store(true, ordering: .relaxed) }
        guard await eventually(within: .seconds(5), { running.load(ordering: .relaxed) }) else {
            clock.stop()
            throw GPSDTestError(description: "the clock's loop did not start")
        }
    }

    func stop() {
        clock.stop()
    }

    /// Waits (up to 5 s) until the loop has run every task handed to it before this call.
    func drained() async -> Bool {
        let reached = Atomic<Bool>(false)
        clock.execute { reached.store(true, ordering: .relaxed) }
        return await eventually(within: .seconds(5)) { reached.load(ordering: .relaxed) }
    }
}

/// Everything a sink handed to the runtime, in order.
final class GPSDEventLog: Sendable {
    private let events = Mutex<[GPSEvent]>([])

    func append(_ event: GPSEvent) {
        events.withLock { $0.append(event) }
    }

    var all: [GPSEvent] { events.withLock { $0 } }
    var count: Int { events.withLock { $0.count } }

    var fixes: [Fix] { Self.fixes(in: all) }
    var statuses: [GPSStatus] { Self.statuses(in: all).map(\.status) }

    static func fixes(in events: some Sequence<GPSEvent>) -> [Fix] {
        events.compactMap { if case .fix(let fix) = $0 { fix } else { nil } }
    }

    static func statuses(in events: some Sequence<GPSEvent>) -> [(status: GPSStatus, detail: String?)] {
        events.compactMap { if case .status(let s, let detail) = $0 { (s, detail) } else { nil } }
    }
}

// MARK: - The simulated receiver

/// One receiver cycle a second (receiver time), GGA + RMC + GSA with correct checksums, moving
/// about 3.3 m north and 1.5 m east per cycle, on 2024-05-15 from 10:00:00 UTC.
///
/// The date matters: gpsd 3.22 takes dates far enough before its release for GPS week-rollover
/// victims and moves them on by 1024 weeks ("WKRO bug ... corrected"), so a 1994 test date
/// comes back as 2013.
enum GPSDSimulatedReceiver {
    static let startSecondOfDay = 10 * 3600

    /// The UTC time of cycle `index`.
    static func time(ofCycle index: Int) -> UTCTimestamp {
        UTCTimestamp(
            date: CivilDate(year: 2024, month: 5, day: 15)!,
            millisecondOfDay: Int32((startSecondOfDay + index) * 1000))
    }

    static func sentences(cycle index: Int) -> [String] {
        let second = startSecondOfDay + index
        let hhmmss = nmeaTime(secondOfDay: second)
        // Latitude and longitude in units of 1e-5 arc minutes.
        let lat = coordinate(units: (48 * 60 + 8) * 100_000 + 22_000 + index * 180, degreeDigits: 2)
        let lon = coordinate(units: (11 * 60 + 34) * 100_000 + 50_000 + index * 120, degreeDigits: 3)
        return [
            nmeaLine("GPGGA,\(hhmmss),\(lat),N,\(lon),E,1,08,0.9,520.3,M,47.0,M,,"),
            nmeaLine("GPRMC,\(hhmmss),A,\(lat),N,\(lon),E,6.4,33.0,150524,,,A"),
            nmeaLine("GPGSA,A,3,04,05,09,12,24,25,29,31,,,,,1.8,0.9,1.5"),
        ]
    }

    static func bytes(cycle index: Int) -> [UInt8] {
        Array(sentences(cycle: index).joined().utf8)
    }

    private static func coordinate(units: Int, degreeDigits: Int) -> String {
        let degrees = units / 6_000_000
        let minuteUnits = units % 6_000_000
        return padded(degrees, degreeDigits) + padded(minuteUnits / 100_000, 2) + "."
            + padded(minuteUnits % 100_000, 5)
    }
}

/// Writes one cycle of the simulated receiver every `interval` into whichever pseudo-terminal
/// is attached, and keeps every byte that was written so that the NMEA engine can decode the
/// very same stream. Cycles go on (receiver time keeps running) while nothing is attached.
final class GPSDNMEAFeeder: Sendable {
    private struct State {
        var fd: Int32 = -1
        var running = true
        var nextCycle = 0
        var written: [UInt8] = []
        var lastWrittenCycle: Int?
    }

    private let state = Mutex(State())

    init(interval: Duration = .milliseconds(100)) {
        let micros = UInt32(interval.nanoseconds / 1000)
        Thread.detachNewThread { [self] in
            while tick() { usleep(micros) }  // the stimulus: a receiver's cycle every interval
        }
    }

    /// Writes the next cycle; false once stopped.
    private func tick() -> Bool {
        state.withLock { s in
            guard s.running else { return false }
            let cycle = s.nextCycle
            s.nextCycle += 1
            guard s.fd >= 0 else { return true }
            let bytes = GPSDSimulatedReceiver.bytes(cycle: cycle)
            let n = bytes.withUnsafeBytes { write(s.fd, $0.baseAddress, $0.count) }
            if n > 0 {
                s.written += bytes[0..<n]
                if n == bytes.count { s.lastWrittenCycle = cycle }
            }
            return true
        }
    }

    /// Writes go to `fd` (a pseudo-terminal's master) from the next cycle on; -1 detaches.
    func attach(_ fd: Int32) {
        state.withLock { $0.fd = fd }
    }

    /// Stops writing; no byte is written after this returns.
    func stop() {
        state.withLock {
            $0.running = false
            $0.fd = -1
        }
    }

    var written: [UInt8] { state.withLock { $0.written } }
    var lastWrittenCycle: Int? { state.withLock { $0.lastWrittenCycle } }
}

extension GPSDTest {
    /// What the NMEA engine makes of `bytes`: its fixes, by time.
    static func referenceFixes(_ bytes: [UInt8]) -> [UTCTimestamp: Fix] {
        var decoder = NMEADecoder()
        var fixes: [UTCTimestamp: Fix] = [:]
        let collect = { (epoch: NMEAEpoch) in
            if case .fix(let fix) = epoch { fixes[fix.time] = fix }
        }
        decoder.feed(bytes, onEpoch: collect)
        decoder.finish(onEpoch: collect)
        return fixes
    }
}

// MARK: - Sockets, pseudo-terminals, processes (free ports come from TestSupport)

extension GPSDTest {
    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    static func acceptsConnections(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

extension GPSDTest {
    /// A raw pseudo-terminal for gpsd: writes into its master never block a test, and its
    /// slave is open to everyone (see the top of this file). Both ends stay open until
    /// `close()`, so gpsd never sees a hang-up from the test.
    static func pseudoTerminal() throws -> PseudoTerminal {
        let terminal = try PseudoTerminal(raw: true)
        _ = fcntl(terminal.master, F_SETFL, fcntl(terminal.master, F_GETFL) | O_NONBLOCK)
        chmod(terminal.path, 0o666)
        return terminal
    }
}

/// A gpsd process.
final class GPSDaemon {
    let pid: pid_t
    let logPath: String
    private var reaped = false

    /// Starts gpsd on `port` reading `device`, and waits (at most 5 s) until it accepts
    /// connections. Throws with gpsd's own stderr if it exits or never listens.
    init(port: Int, device: String, directory: String, generation: Int) async throws {
        guard access(GPSDTest.gpsdPath, X_OK) == 0 else {
            throw GPSDTestError(
                description: "\(GPSDTest.gpsdPath) not found: these tests need gpsd (apt-get install gpsd)")
        }
        logPath = "\(directory)/gpsd-\(generation).log"
        var arguments = [
            GPSDTest.gpsdPath, "-N", "-n", "-b", "-S", String(port),
            "-F", "\(directory)/gpsd-\(generation).sock", device,
        ]
        if access(GPSDTest.timeoutPath, X_OK) == 0 {
            arguments = [GPSDTest.timeoutPath, "-k", "3", "60"] + arguments
        }
        pid = try spawn(arguments, output: logPath)

        let started = await eventually(within: .seconds(5), every: .milliseconds(20)) { [pid] in
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { return true }  // exited: no point waiting
            return GPSDTest.acceptsConnections(port: port)
        }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid {
            reaped = true
            throw GPSDTestError(description: "gpsd exited at start (status \(status)); its stderr:\n\(log)")
        }
        if !started {
            await terminate()
            throw GPSDTestError(
                description: "gpsd did not listen on port \(port) within 5 s; its stderr:\n\(log)")
        }
    }

    /// gpsd's stderr so far.
    var log: String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "(no log at \(logPath))"
    }

    /// SIGTERM, then waits for the exit; SIGKILL to the whole process group after 5 s.
    func terminate() async {
        guard !reaped else { return }
        kill(pid, SIGTERM)
        let pid = self.pid
        let exited = await eventually(within: .seconds(5), every: .milliseconds(10)) {
            var status: Int32 = 0
            return waitpid(pid, &status, WNOHANG) == pid
        }
        if !exited {
            kill(-pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        reaped = true
    }

    deinit {
        // Safety net for a test that threw before its teardown ran.
        if !reaped {
            kill(-pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
    }
}

/// posix_spawn with stdin from /dev/null, stdout and stderr to `output`, every other
/// descriptor closed, default signal handling, and a process group of its own (so that
/// `kill(-pid)` reaches everything it starts).
private func spawn(_ arguments: [String], output: String) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 2, 1)
    // glibc 2.34+ has posix_spawn_file_actions_addclosefrom_np, but Swift's Glibc module does
    // not import it (it needs _GNU_SOURCE): look it up. Without it a gpsd could inherit
    // descriptors that other tests running in parallel have open (their pseudo-terminals).
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    let closeFromName = "posix_spawn_file_actions_addclosefrom_np"
    if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), closeFromName) {
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
    }

    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setpgroup(&attributes, 0)
    posix_spawnattr_setflags(
        &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

    let argv = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, environ)
    guard rc == 0 else {
        throw GPSDTestError(description: "posix_spawn \(arguments[0]): \(String(cString: strerror(rc)))")
    }
    return pid
}

// MARK: - The fixture

/// A temporary directory, a free port, the simulated receiver, and gpsd on a pseudo-terminal,
/// which can be stopped and started again on the same port.
final class GPSDFixture {
    let port: Int
    let feeder: GPSDNMEAFeeder
    /// gpsd's logs and control sockets; removed with the fixture.
    private let folder = TemporaryDirectory("gpsd")
    private var daemon: GPSDaemon?
    private var terminal: PseudoTerminal?
    private var generation = 0

    var directory: String { folder.path }

    init(cycleInterval: Duration = .milliseconds(100)) throws {
        port = try freeLoopbackPort()
        feeder = GPSDNMEAFeeder(interval: cycleInterval)
    }

    /// Starts gpsd on a fresh pseudo-terminal; the receiver writes into it from now on.
    func startDaemon() async throws {
        precondition(daemon == nil, "gpsd is already running")
        generation += 1
        let terminal = try GPSDTest.pseudoTerminal()
        self.terminal = terminal
        daemon = try await GPSDaemon(
            port: port, device: terminal.path, directory: directory, generation: generation)
        feeder.attach(terminal.master)
    }

    /// Stops gpsd (SIGTERM, waited for) and closes its pseudo-terminal.
    func stopDaemon() async {
        feeder.attach(-1)
        await daemon?.terminate()
        daemon = nil
        terminal?.close()
        terminal = nil
    }

    var daemonLog: String { daemon?.log ?? "(gpsd not running)" }

    func tearDown() async {
        feeder.stop()
        await stopDaemon()
    }
}

extension GPSDTest {
    /// Runs `body` with a fixture whose gpsd is running, and tears it down however `body` ends.
    static func withGPSD(
        cycleInterval: Duration = .milliseconds(100), _ body: (GPSDFixture) async throws -> Void
    ) async throws {
        let fixture = try GPSDFixture(cycleInterval: cycleInterval)
        do {
            try await fixture.startDaemon()
            try await body(fixture)
        } catch {
            await fixture.tearDown()
            throw error
        }
        await fixture.tearDown()
    }
}

// MARK: - A fake gpsd

/// A one-shot TCP server on a free loopback port that plays gpsd for one client: it sends
/// `lines` (as given: a line may be cut short), then closes the connection in order (FIN) and
/// stops listening.
final class GPSDFakeServer: Sendable {
    let port: Int
    private let finished = Atomic<Bool>(false)

    init(lines: [String]) throws {
        let (listener, port) = try boundLoopbackSocket(listening: 1)
        self.port = port
        let payload = Array(lines.joined().utf8)
        Thread.detachNewThread { [self] in
            defer {
                close(listener)
                finished.store(true, ordering: .relaxed)
            }
            var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 10_000) == 1 else { return }  // nobody came within 10 s
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            _ = payload.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            // Read what the client sent (its ?WATCH, waited for up to 2 s), so that closing is
            // an orderly FIN, not the RST that unread data would turn it into.
            var asked = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
            _ = poll(&asked, 1, 2_000)
            var sink = [UInt8](repeating: 0, count: 4096)
            while recv(client, &sink, sink.count, Int32(MSG_DONTWAIT)) > 0 {}
            close(client)
        }
    }

    /// The connection has been served and closed, and nothing listens any more.
    var isFinished: Bool { finished.load(ordering: .relaxed) }
}
