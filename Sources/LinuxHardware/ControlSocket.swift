#if canImport(Glibc)
import Glibc
#endif
import HAL
import Logging
import PacerCore
import Synchronization

// The control socket (R20): `pacer ctl waypoint "Water"` talks to the running device over a
// UNIX stream socket. One command line per connection, one reply, then the server closes:
//
//     client → server   waypoint Water 🚰\n        (UTF-8, at most 256 bytes before the \n)
//     server → client   waypoint 'Water 🚰' stored at 48.1173 N 11.5167 E\n
//
// Commands: `waypoint NAME…` (the rest of the line, trimmed, is the name), `pause`, `resume`,
// `stop`, `status`. Anything else is answered with `error: …` (the parser's message), as is
// a line that is too long, not UTF-8, or does not arrive in time. What the device answers
// to a good command is the runtime's business; by convention a refusal begins `error:` too,
// and `pacer ctl` exits 1 on it.
//
// `watch` (`pacer ctl watch`: a phone over SSH) is the one line that keeps its connection:
// the server answers with the device's state now (the greeting: `{"event":"status",…}` from
// `pacer run`, or `{"event":"watching"}` when no producer gave one), then sends every line
// published after it (`publish`), one JSON object a line, until the device stops — the
// server then closes, and the watcher reads the end of the stream — or the watcher hangs up.
// The server reads nothing more from a watcher; what it sends is read away.
//
//     client → server   watch\n
//     server → client   {"event":"status",…,"status":{"elapsed_s":0.0,…}}\n
//                       {"event":"cue","cue":"started",…}\n   … for as long as the device runs
//
// A watcher that falls behind by more than `watcherBacklog` lines (256: minutes of events even
// in a burst, on top of what its socket's buffer holds) is told so in a last line,
// `{"event":"error","error":"…"}`, and closed: the lines it missed are not sent, so a watcher
// either sees every event in order, or is told it did not. At most `maximumWatchers` (4)
// watch at once; one more is answered `error: …` and closed.

// MARK: - Errors

/// The control socket cannot be set up: the path is unusable, or another Pacer owns it.
public struct ControlSocketError: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "control socket \(path): \(reason)" }
}

/// Why `pacer ctl` got no answer.
public enum ControlClientError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Nothing listens on the path (no socket file, or a stale one).
    case noServer(path: String)
    case permissionDenied(path: String)
    /// The device did not answer (or take the command) within the timeout.
    case timedOut(path: String, timeout: Duration)
    /// The command cannot be sent as one protocol line.
    case invalidCommand(String)
    case failed(path: String, reason: String)

    public var description: String {
        switch self {
        case .noServer(let path): "no Pacer running: nothing listens on \(path)"
        case .permissionDenied(let path):
            "cannot reach Pacer on \(path): permission denied. The service's socket is for the pacer group: "
                + "sudo usermod -aG pacer $USER, then log in again (or run as the pacer user)"
        case .timedOut(let path, let timeout): "Pacer on \(path) did not answer within \(ControlIO.text(timeout))"
        case .invalidCommand(let reason): reason
        case .failed(let path, let reason): "Pacer on \(path): \(reason)"
        }
    }
}

// MARK: - The server

/// The control socket server (R20): listens on a UNIX stream socket for `pacer ctl`.
///
/// The initializer claims the path: it refuses, with a clear error, if another Pacer answers
/// there; it removes a stale socket file (one nobody listens on, left by a Pacer that
/// crashed); it refuses to remove anything that is not a socket. The socket is mode 0600,
/// or 0660 in the service's runtime directory (`$RUNTIME_DIRECTORY`: the pacer group).
/// For the default path (`defaultPath()`) it creates the directory, mode 0700, and refuses
/// one that is a symlink, another user's, or open to others. Because it binds at once, a
/// second `pacer run` fails before its activity starts; connections that arrive before
/// `start` wait in the backlog.
///
/// `start` spawns one thread that serves every client with `poll` over non-blocking
/// descriptors: a client that connects and sends nothing, sends slowly, or stops reading
/// holds only its own connection, which is dropped after `clientTimeout` (2 s) for the
/// line or for the reply to be taken. At most `maximumClients` connections are open at once;
/// more are answered `error: busy` and closed. A command line longer than
/// `ControlCommand.maximumLineLength` bytes is refused.
///
/// The handler is called on the server thread and must not block (the runtime hops onto
/// its clock's loop); its `reply` may come from any thread, at most once per command. A
/// command whose reply has not come within `replyTimeout` (5 s) is answered
/// `error: the device did not answer in time`.
///
/// Watchers (`watch`, see above) have their own limit, `maximumWatchers`, and do not count
/// against `maximumClients`: four phones watching never lock out `pacer ctl status`. A
/// watcher never times out while it keeps up (a quiet device sends nothing for minutes);
/// one that hangs up is dropped as soon as the server thread sees it (its `poll` reports the
/// hang-up), one that stops reading once `watcherBacklog` lines wait for it. `publish` may be
/// called from any thread and never blocks: it appends to each watcher's queue under the
/// lock and wakes the server thread, which does the writing.
///
/// `stop()` ends the thread (woken through its pipe), writes the replies already given (so
/// `pacer ctl stop` hears its answer when the device then stops) and the lines already
/// published (at once, without waiting: a watcher that is behind misses the rest), closes
/// every connection,
/// closes the socket and unlinks its file (unless another server has replaced it
/// meanwhile). A server that is never started must still be stopped to release the path.
/// `stop` may be called from the handler, on the server thread: the thread then cleans up
/// as it ends, just after.
///
/// Threading: the descriptors, flags and pending replies are guarded by `state` (a
/// `Mutex`); connections and their buffers belong to the server thread alone.
public final class ControlSocketServer: ControlInput, EventPublisher {
    public typealias Handler = @Sendable (ControlCommand, _ reply: @escaping @Sendable (String) -> Void) -> Void

    public let path: String
    /// `control socket <path>`.
    public let name: String
    /// How long a client has to send its line, and to take the reply.
    public let clientTimeout: Duration
    /// How long the handler has to reply.
    public let replyTimeout: Duration
    /// Connections served at once, watchers not counted.
    public let maximumClients: Int
    /// Watchers served at once.
    public let maximumWatchers: Int
    /// Lines that may wait in the server for one watcher (beyond what its socket's buffer
    /// holds) before it is dropped as too slow.
    public let watcherBacklog: Int

    private let logger: Logger?
    private let state: Mutex<State>
    /// The socket file as bound (device, inode): only that file is unlinked at stop.
    private let boundFile: (dev: UInt64, ino: UInt64)?

    private struct State {
        var listener: Int32
        var started = false
        var stopping = false
        var thread: ControlThread?
        var wake: WakePipe?
        /// Commands handed to the handler and not answered yet.
        var awaiting: Set<UInt64> = []
        var replies: [(UInt64, String)] = []
        var served = 0
        /// The watchers, with the lines published for them that the server thread has not
        /// taken yet.
        var watchers: [WatchQueue] = []
        var greeting: (@Sendable () -> String?)?
    }

    private struct WatchQueue {
        let id: UInt64
        /// Each with its `\n`.
        var lines: [[UInt8]] = []
        /// More than `watcherBacklog` lines were waiting: the watcher is to be dropped.
        var overflowed = false
    }

    /// The first line a watcher gets when no producer set a greeting.
    static let defaultGreeting = #"{"event":"watching"}"#

    /// Where the service keeps its socket: systemd's `RuntimeDirectory=pacer`.
    public static let serviceDirectory = "/run/pacer"

    /// The service's socket when this process is the service (`$RUNTIME_DIRECTORY`, set by
    /// systemd's `RuntimeDirectory=`), or when the service is running (its socket is in
    /// `/run/pacer`): so `pacer ctl` finds the device without options. Otherwise
    /// `$XDG_RUNTIME_DIR/pacer/control.sock`, else `/tmp/pacer-<uid>/control.sock`.
    public static func defaultPath() -> String {
        let env = { (name: String) in getenv(name).map { String(cString: $0) } }
        return defaultPath(serviceRuntimeDirectory: env("RUNTIME_DIRECTORY"), runtimeDirectory: env("XDG_RUNTIME_DIR"),
                           uid: getuid(), serviceSocketExists: socketExists("\(serviceDirectory)/control.sock"))
    }

    /// The default path for a given environment: `serviceRuntimeDirectory` is
    /// `$RUNTIME_DIRECTORY` (the first of its folders), `runtimeDirectory` `$XDG_RUNTIME_DIR`.
    public static func defaultPath(serviceRuntimeDirectory: String?, runtimeDirectory: String?, uid: uid_t,
                                   serviceSocketExists: Bool) -> String {
        if let service = serviceRuntimeDirectory?.split(separator: ":").first, service.hasPrefix("/") {
            return service + "/control.sock"
        }
        if serviceSocketExists { return "\(serviceDirectory)/control.sock" }
        return defaultPath(runtimeDirectory: runtimeDirectory, uid: uid)
    }

    static func socketExists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK
    }

    /// The default path for a given `XDG_RUNTIME_DIR` (ignored unless absolute) and user.
    public static func defaultPath(runtimeDirectory: String?, uid: uid_t) -> String {
        defaultDirectory(runtimeDirectory: runtimeDirectory, uid: uid) + "/control.sock"
    }

    static func defaultDirectory(runtimeDirectory: String?, uid: uid_t) -> String {
        if let dir = runtimeDirectory, dir.hasPrefix("/") {
            return (dir.hasSuffix("/") ? String(dir.dropLast()) : dir) + "/pacer"
        }
        return "/tmp/pacer-\(uid)"
    }

    /// Claims `path` and listens on it (see the type's documentation); throws
    /// `ControlSocketError` when it cannot.
    public init(
        path: String = ControlSocketServer.defaultPath(), clientTimeout: Duration = .seconds(2),
        replyTimeout: Duration = .seconds(5), maximumClients: Int = 16, maximumWatchers: Int = 4,
        watcherBacklog: Int = 256, logger: Logger? = nil
    ) throws(ControlSocketError) {
        precondition(clientTimeout > .zero && replyTimeout > .zero && maximumClients > 0 && maximumWatchers > 0
                     && watcherBacklog > 0, "bad limits")
        self.path = path
        self.clientTimeout = clientTimeout
        self.replyTimeout = replyTimeout
        self.maximumClients = maximumClients
        self.maximumWatchers = maximumWatchers
        self.watcherBacklog = watcherBacklog
        self.logger = logger
        name = "control socket \(path)"
        func failure(_ reason: String) -> ControlSocketError { ControlSocketError(path: path, reason: reason) }

        guard ControlIO.address(path) != nil else {
            throw failure("path too long for a UNIX socket (at most \(ControlIO.maximumPathLength) bytes)")
        }
        let directory = ControlIO.directory(of: path)
        let uid = getuid()
        let isDefault = directory == Self.defaultDirectory(
            runtimeDirectory: getenv("XDG_RUNTIME_DIR").map { String(cString: $0) }, uid: uid)
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            throw failure("cannot create the directory \(directory): \(ControlIO.describe(errno))")
        }
        var info = stat()
        guard lstat(directory, &info) == 0 else {
            throw failure("cannot examine \(directory): \(ControlIO.describe(errno))")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw failure("\(directory) is not a directory") }
        if isDefault, info.st_uid != uid || info.st_mode & 0o077 != 0 {
            throw failure("\(directory) belongs to another user or is open to others; remove it or use another path")
        }

        // A file already there: a live server (refuse), a stale socket (remove), or something else (refuse).
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK else {
                throw failure("a file that is not a socket is in the way; not removing it")
            }
            switch ControlIO.probe(path) {
            case .live:
                throw failure("another Pacer is already running and listening on it (stop it, or use another socket path)")
            case .stale:
                guard unlink(path) == 0 || errno == ENOENT else {
                    throw failure("cannot remove the stale socket file: \(ControlIO.describe(errno))")
                }
                logger?.info("\(path): removed a stale control socket")
            case .error(let reason):
                throw failure("cannot check the socket file already there: \(reason)")
            }
        }

        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw failure("cannot create a socket: \(ControlIO.describe(errno))") }
        var address = ControlIO.address(path)!
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw failure(code == EADDRINUSE
                ? "another Pacer took it while this one was starting"
                : "cannot bind: \(ControlIO.describe(code))")
        }
        // In the service's runtime directory (group pacer) the group may connect: an
        // administrator in group pacer runs `pacer ctl`. Elsewhere only its user.
        let inServiceDirectory = getenv("RUNTIME_DIRECTORY").map { String(cString: $0) }
            .map { $0.split(separator: ":").contains { String($0) == directory } } ?? false
        _ = chmod(path, inServiceDirectory ? 0o660 : 0o600)
        guard listen(fd, 16) == 0 else {
            let code = errno
            close(fd)
            unlink(path)
            throw failure("cannot listen: \(ControlIO.describe(code))")
        }
        boundFile = lstat(path, &info) == 0 ? (UInt64(info.st_dev), UInt64(info.st_ino)) : nil
        state = Mutex(State(listener: fd))
    }

    deinit {
        // Only reached for a server whose thread has ended (the thread holds `self`).
        let fd = state.withLock { $0.listener }
        if fd >= 0 {
            close(fd)
            unlinkIfOurs()
        }
    }

    /// How many commands have been handed to the handler.
    public var commandsServed: Int { state.withLock { $0.served } }

    // MARK: EventPublisher

    public var watcherCount: Int { state.withLock { $0.watchers.count } }

    public func setWatchGreeting(_ greeting: @escaping @Sendable () -> String?) {
        state.withLock { $0.greeting = greeting }
    }

    /// Queues `line` for every watcher and wakes the server thread; a watcher with
    /// `watcherBacklog` lines already queued is marked to be dropped instead. A line with a
    /// line break inside would break the stream's framing: it is not published (logged).
    public func publish(_ line: String) {
        guard state.withLock({ !$0.watchers.isEmpty }) else { return }  // nobody to tell: no copy made
        guard let bytes = Self.lineBytes(line) else {
            logger?.error("\(name): not published: a line with a line break inside")
            return
        }
        state.withLock { s in
            guard !s.stopping, !s.watchers.isEmpty else { return }
            var poke = false
            for i in s.watchers.indices where !s.watchers[i].overflowed {
                // The server thread takes every queue at once: one wake-up per batch is enough.
                if s.watchers[i].lines.isEmpty { poke = true }
                if s.watchers[i].lines.count >= watcherBacklog {
                    s.watchers[i].overflowed = true
                    s.watchers[i].lines.removeAll()
                    poke = true
                } else {
                    s.watchers[i].lines.append(bytes)
                }
            }
            // Poked under the lock, as replies are: never a closed pipe.
            if poke { s.wake?.poke() }
        }
    }

    /// `line` with its `\n`, a final line ending dropped first; nil when it holds another.
    static func lineBytes(_ line: String) -> [UInt8]? {
        var bytes = Array(line.utf8)
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        guard !bytes.contains(UInt8(ascii: "\n")), !bytes.contains(UInt8(ascii: "\r")) else { return nil }
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    // MARK: ControlInput

    public func start(_ handler: @escaping Handler) {
        let listener: Int32? = state.withLock { s in
            guard !s.started, !s.stopping, s.listener >= 0 else { return nil }
            s.started = true
            return s.listener
        }
        guard let listener else { return }
        let wake: WakePipe
        do {
            wake = try WakePipe()
        } catch {
            logger?.error("\(name): cannot create the wake-up pipe: \(ControlIO.describe(error.code)); pacer ctl will not work")
            return
        }
        state.withLock { $0.wake = wake }
        // The listener is closed, and the file unlinked, once the thread is done with them.
        let started = ControlThread.start(
            wake: wake,
            cleanup: { [weak self] in
                close(listener)
                self?.unlinkIfOurs()
            },
            body: { [self] in serve(listener: listener, wake: wake, handler: handler) })
        switch started {
        case .success(let thread):
            state.withLock { $0.thread = thread }
            logger?.info("\(name): listening")
        case .failure(let error):
            state.withLock { $0.wake = nil }
            wake.close()
            logger?.error("\(name): cannot start the server thread: \(ControlIO.describe(error.code)); pacer ctl will not work")
        }
    }

    /// Ends the server thread, closes the connections and the socket, and unlinks the socket
    /// file. Idempotent. Replies that come after this are dropped (the client is told the
    /// connection closed without an answer).
    public func stop() {
        let (thread, listener): (ControlThread?, Int32) = state.withLock { s in
            s.stopping = true
            s.awaiting.removeAll()
            // Lines already queued stay: the thread writes them as it ends.
            defer {
                s.thread = nil
                s.wake = nil
                s.listener = -1
            }
            // Poked under the lock: a reply racing with stop never writes to a closed pipe.
            s.wake?.poke()
            return (s.thread, s.listener)
        }
        if let thread {
            thread.stop()  // closes the listener and unlinks, once the thread is done with them
        } else if listener >= 0 {
            close(listener)
            unlinkIfOurs()
        }
    }

    private func unlinkIfOurs() {
        var info = stat()
        guard let boundFile, lstat(path, &info) == 0,
              UInt64(info.st_dev) == boundFile.dev, UInt64(info.st_ino) == boundFile.ino else { return }
        unlink(path)
    }

    // MARK: The server thread

    private enum Phase {
        case reading
        case awaitingReply
        case writing
        /// A watcher: sent `watch`, gets the published lines.
        case watching
        case closed
    }

    private struct Connection {
        let fd: Int32
        let id: UInt64
        var phase = Phase.reading
        var deadline: ContinuousClock.Instant
        var input: [UInt8] = []
        var output: [UInt8] = []
        /// Of `output`, or of a watcher's first line.
        var written = 0
        /// A watcher's lines not sent yet, oldest first, each with its `\n`: the first may be
        /// partly sent (`written`).
        var lines: [[UInt8]] = []
        /// The watcher is being dropped: closed once its last line is out, or at `deadline`.
        var ending = false
        /// The watcher shut its sending side (`nc -N`): it may still read, but its input is
        /// no longer polled.
        var inputDone = false
    }

    private var isStopping: Bool { state.withLock { $0.stopping } }

    private func serve(listener: Int32, wake: WakePipe, handler: @escaping Handler) {
        let clock = ContinuousClock()
        var connections: [Connection] = []
        var nextID: UInt64 = 0
        var buffer = [UInt8](repeating: 0, count: 512)
        var fds: [pollfd] = []
        defer {
            for c in connections where c.phase != .closed { close(c.fd) }
        }

        while true {
            let now = clock.now
            var timeout: Int32 = -1
            fds.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0))
            fds.append(pollfd(fd: listener, events: Int16(POLLIN), revents: 0))
            for c in connections {
                let events: Int32 = switch c.phase {
                case .reading: POLLIN
                case .writing: POLLOUT
                case .watching: (c.inputDone ? 0 : POLLIN) | (c.lines.isEmpty ? 0 : POLLOUT)
                case .awaitingReply, .closed: 0
                }
                // A connection waiting for the handler is not polled: its peer's hang-up
                // would report at once, again and again. A watcher always is: its hang-up
                // (reported whatever is asked) is how it leaves.
                let polled = events != 0 || c.phase == .watching
                fds.append(pollfd(fd: polled ? c.fd : -1, events: Int16(events), revents: 0))
                // A watcher has no deadline while it keeps up: the device may be quiet for long.
                if c.phase != .watching || c.ending { timeout = ControlIO.earliest(timeout, c.deadline - now) }
            }
            if poll(&fds, nfds_t(fds.count), timeout) < 0 {
                let code = errno
                if code == EINTR { continue }
                logger?.error("\(name): poll failed: \(ControlIO.describe(code)); the control socket stops serving")
                return
            }
            if fds[0].revents != 0 { wake.drain() }

            // Replies: they turn waiting connections into writing ones. Replies given before
            // `stop` are still written (at once, without waiting: a line fits in the socket's
            // buffer), so `pacer ctl stop` hears its answer when the device stops right after.
            let (replies, stopping, published) = state.withLock { s in
                defer { s.replies.removeAll() }
                var published: [WatchQueue] = []
                for i in s.watchers.indices where !s.watchers[i].lines.isEmpty || s.watchers[i].overflowed {
                    published.append(s.watchers[i])
                    s.watchers[i].lines.removeAll()
                }
                return (s.replies, s.stopping, published)
            }
            for (id, text) in replies {
                guard let i = connections.firstIndex(where: { $0.id == id && $0.phase == .awaitingReply }) else { continue }
                respond(&connections[i], text, now: clock.now)
            }
            // Published lines: to their watchers, in order; a watcher too far behind is dropped.
            for queue in published {
                guard let i = connections.firstIndex(where: { $0.id == queue.id && $0.phase == .watching }),
                      !connections[i].ending else { continue }
                if queue.overflowed || connections[i].lines.count + queue.lines.count > watcherBacklog {
                    dropSlowWatcher(&connections[i], now: clock.now)
                } else {
                    connections[i].lines.append(contentsOf: queue.lines)
                    flushWatcher(&connections[i])
                }
            }
            if stopping {
                // What is published is written now, at once; then the watchers read the end.
                for i in connections.indices where connections[i].phase == .watching {
                    flushWatcher(&connections[i])
                    finish(&connections[i])
                }
                return
            }

            // Traffic on the connections polled.
            for i in connections.indices {
                let revents = Int32(fds[2 + i].revents)
                guard revents != 0 else { continue }
                switch connections[i].phase {
                case .reading:
                    read(&connections[i], buffer: &buffer, handler: handler, clock: clock)
                case .writing:
                    flush(&connections[i])
                case .watching:
                    serveWatcher(&connections[i], revents: revents)
                case .awaitingReply, .closed:
                    break
                }
            }

            if isStopping { continue }  // a handler stopped the server: write its reply, end

            // New clients.
            if fds[1].revents & Int16(POLLIN) != 0 {
                while true {
                    let fd = accept(listener, nil, nil)
                    if fd < 0 {
                        let code = errno
                        if code == EINTR || code == ECONNABORTED { continue }
                        if code != EAGAIN && code != EWOULDBLOCK {
                            // EMFILE and the like: stop accepting for a moment, not spin.
                            logger?.warning("\(name): cannot accept: \(ControlIO.describe(code))")
                            _ = poll(nil, 0, 100)
                        }
                        break
                    }
                    // (accept4 is not in Swift's Glibc; a child spawned in between could
                    // inherit this descriptor, which is harmless.)
                    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                    _ = fcntl(fd, F_SETFL, O_NONBLOCK)
                    let open = connections.reduce(0) { $0 + ($1.phase == .closed || $1.phase == .watching ? 0 : 1) }
                    if open >= maximumClients {
                        ControlIO.sendOnce(fd, "error: busy, try again\n")
                        close(fd)
                        logger?.warning("\(name): \(open) clients already; refused one")
                        continue
                    }
                    connections.append(Connection(fd: fd, id: nextID, deadline: clock.now + clientTimeout))
                    nextID &+= 1
                }
            }

            // Deadlines.
            let later = clock.now
            for i in connections.indices where connections[i].phase != .closed && connections[i].deadline <= later {
                switch connections[i].phase {
                case .reading:
                    ControlIO.sendOnce(connections[i].fd, "error: no command within \(ControlIO.text(clientTimeout))\n")
                    logger?.debug("\(name): a client sent no command in time")
                    finish(&connections[i])
                case .awaitingReply:
                    let id = connections[i].id
                    state.withLock { _ = $0.awaiting.remove(id) }
                    logger?.warning("\(name): no reply within \(ControlIO.text(replyTimeout))")
                    respond(&connections[i], "error: the device did not answer in time", now: later)
                case .writing:
                    logger?.debug("\(name): a client did not take its reply in time")
                    finish(&connections[i])
                case .watching:
                    // Only a watcher being dropped has a deadline: it did not take its last line.
                    if connections[i].ending { finish(&connections[i]) }
                case .closed:
                    break
                }
            }
            connections.removeAll { $0.phase == .closed }
        }
    }

    /// Reads what the client sent; on a full line, parses it and hands it to the handler.
    private func read(
        _ c: inout Connection, buffer: inout [UInt8], handler: @escaping Handler, clock: ContinuousClock
    ) {
        let n = buffer.withUnsafeMutableBytes { recv(c.fd, $0.baseAddress, $0.count, 0) }
        if n < 0 {
            let code = errno
            if code == EINTR || code == EAGAIN || code == EWOULDBLOCK { return }
            finish(&c)
            return
        }
        if n == 0 && c.input.isEmpty {
            finish(&c)  // connected and hung up without a word (a probe, or `nc -z`)
            return
        }
        c.input.append(contentsOf: buffer[0..<n])
        var line: ArraySlice<UInt8>
        if let newline = c.input.firstIndex(of: UInt8(ascii: "\n")) {
            line = c.input[..<newline]
        } else if n == 0 {
            line = c.input[...]  // the last line, without its newline
        } else if c.input.count > ControlCommand.maximumLineLength + 1 {
            respond(&c, "error: command too long (at most \(ControlCommand.maximumLineLength) bytes)", now: clock.now)
            return
        } else {
            return
        }
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        guard let text = String(validating: line, as: UTF8.self) else {
            respond(&c, "error: the command is not UTF-8 text", now: clock.now)
            return
        }
        // `watch` is the server's own: the connection stays open for the published lines.
        if let argument = Self.watchArgument(text) {
            guard argument.isEmpty else {
                respond(&c, "error: 'watch' takes no argument", now: clock.now)
                return
            }
            watch(&c, inputDone: n == 0, now: clock.now)
            return
        }
        let command: ControlCommand
        do {
            command = try ControlCommand(parsing: text)
        } catch {
            logger?.debug("\(name): refused '\(text)': \(error)")
            respond(&c, "error: \(error)", now: clock.now)
            return
        }
        let id = c.id
        c.phase = .awaitingReply
        c.deadline = clock.now + replyTimeout
        state.withLock { s in
            s.awaiting.insert(id)
            s.served += 1
        }
        logger?.debug("\(name): \(command.line)")
        handler(command) { [weak self] reply in self?.deliver(reply, to: id) }
    }

    /// The rest of the line after a `watch` verb (any case; spaces and tabs around it), or
    /// nil when the line is not a `watch`.
    static func watchArgument(_ line: String) -> Substring? {
        let isSpace = { (c: Character) in c == " " || c == "\t" }
        var text = Substring(line)
        while let c = text.first, isSpace(c) { text = text.dropFirst() }
        while let c = text.last, isSpace(c) { text = text.dropLast() }
        let verbEnd = text.firstIndex(where: isSpace) ?? text.endIndex
        guard text[..<verbEnd].lowercased() == "watch" else { return nil }
        var rest = text[verbEnd...]
        while let c = rest.first, isSpace(c) { rest = rest.dropFirst() }
        return rest
    }

    /// Turns a connection that sent `watch` into a watcher, or refuses it when
    /// `maximumWatchers` watch already. Registered before the greeting is made: a line
    /// published meanwhile follows the greeting (which may already count it) rather than
    /// being lost.
    private func watch(_ c: inout Connection, inputDone: Bool, now: ContinuousClock.Instant) {
        let id = c.id
        let (admitted, greeting) = state.withLock { s -> (Bool, (@Sendable () -> String?)?) in
            guard !s.stopping, s.watchers.count < maximumWatchers else { return (false, nil) }
            s.watchers.append(WatchQueue(id: id))
            return (true, s.greeting)
        }
        guard admitted else {
            logger?.warning("\(name): \(maximumWatchers) watchers already; refused one")
            respond(&c, "error: \(maximumWatchers) watchers already, the most at once; try again later", now: now)
            return
        }
        var first = greeting?().flatMap(Self.lineBytes)
        if first == nil {
            if greeting != nil { logger?.error("\(name): the watch greeting is not one line; sent the default") }
            first = Self.lineBytes(Self.defaultGreeting)
        }
        c.phase = .watching
        c.input = []
        c.inputDone = inputDone
        c.lines = [first!]
        c.written = 0
        logger?.debug("\(name): a watcher connected")
        flushWatcher(&c)
    }

    /// Traffic on a watcher: its hang-up ends it; what it sends is read away; room in its
    /// socket takes more of its lines.
    private func serveWatcher(_ c: inout Connection, revents: Int32) {
        if revents & (POLLHUP | POLLERR) != 0 {
            logger?.debug("\(name): a watcher left")
            finish(&c)
            return
        }
        if revents & POLLIN != 0 {
            // A bounded amount each time: a watcher that sends without end cannot hold the thread.
            var scrap = [UInt8](repeating: 0, count: 4096)
            for _ in 0..<16 {
                let n = scrap.withUnsafeMutableBytes { recv(c.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if n > 0 { continue }
                if n == 0 {
                    c.inputDone = true  // it shut its sending side; it may still read
                    break
                }
                let code = errno
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK { break }
                finish(&c)
                return
            }
        }
        if revents & POLLOUT != 0 { flushWatcher(&c) }
    }

    /// Writes what it can of a watcher's lines without waiting; closes a watcher being
    /// dropped once its last line is out, and one that left.
    private func flushWatcher(_ c: inout Connection) {
        guard c.phase == .watching else { return }
        while let line = c.lines.first {
            let n = line[c.written...].withUnsafeBytes { send(c.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n > 0 {
                c.written += n
                if c.written == line.count {
                    c.lines.removeFirst()
                    c.written = 0
                }
                continue
            }
            let code = errno
            if n < 0 && code == EINTR { continue }
            if n < 0 && (code == EAGAIN || code == EWOULDBLOCK) { return }
            finish(&c)  // EPIPE, ECONNRESET: the watcher left
            return
        }
        if c.ending { finish(&c) }
    }

    /// A watcher more than `watcherBacklog` lines behind: the lines waiting are dropped (but
    /// the one partly sent, so that no half line comes before it) and it gets one last line
    /// that says so, with `clientTimeout` to take it.
    private func dropSlowWatcher(_ c: inout Connection, now: ContinuousClock.Instant) {
        let id = c.id
        state.withLock { s in s.watchers.removeAll { $0.id == id } }
        c.lines.removeSubrange((c.written > 0 ? 1 : 0)...)
        let reason = "too slow: more than \(watcherBacklog) lines were waiting for this watcher; it missed them and is disconnected"
        c.lines.append(Self.lineBytes(#"{"event":"error","error":""# + reason + #""}"#)!)
        c.ending = true
        c.deadline = now + clientTimeout
        logger?.warning("\(name): dropped a watcher more than \(watcherBacklog) lines behind")
        flushWatcher(&c)
    }

    /// A reply from the handler, on any thread: the first one for a command counts.
    private func deliver(_ reply: String, to id: UInt64) {
        state.withLock { s in
            guard !s.stopping, s.awaiting.remove(id) != nil, let wake = s.wake else { return }
            s.replies.append((id, reply))
            wake.poke()
        }
    }

    private func respond(_ c: inout Connection, _ text: String, now: ContinuousClock.Instant) {
        c.output = Array(text.utf8)
        if c.output.last != UInt8(ascii: "\n") { c.output.append(UInt8(ascii: "\n")) }
        c.written = 0
        c.phase = .writing
        c.deadline = now + clientTimeout
        flush(&c)
    }

    /// Writes what it can of the reply without waiting; closes when all of it is out.
    private func flush(_ c: inout Connection) {
        while c.written < c.output.count {
            let n = c.output[c.written...].withUnsafeBytes { send(c.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n > 0 {
                c.written += n
                continue
            }
            let code = errno
            if n < 0 && (code == EINTR) { continue }
            if n < 0 && (code == EAGAIN || code == EWOULDBLOCK) { return }
            finish(&c)  // EPIPE, ECONNRESET: the client left
            return
        }
        finish(&c)
    }

    /// Closes a connection. Input the client sent beyond its line is read away first, so
    /// that closing does not turn into a reset the client sees instead of the reply.
    private func finish(_ c: inout Connection) {
        guard c.phase != .closed else { return }
        if c.phase == .watching {
            let id = c.id
            state.withLock { s in s.watchers.removeAll { $0.id == id } }
        }
        var scrap = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<16 {
            let n = scrap.withUnsafeMutableBytes { recv(c.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n <= 0 { break }
        }
        close(c.fd)
        c.phase = .closed
    }
}

// MARK: - The client

/// The client side of the control socket, for `pacer ctl`.
public enum ControlClient {
    /// The most of a reply read.
    static let maximumReply = 64 * 1024

    /// Sends one command line (`waypoint Water`, `status`, …; without its newline) to the
    /// device listening on `socketPath` and returns its reply, without the final newline.
    /// Everything, connecting included, is done within `timeout`.
    public static func send(
        _ command: String, socketPath: String = ControlSocketServer.defaultPath(), timeout: Duration = .seconds(5)
    ) throws(ControlClientError) -> String {
        let path = socketPath
        var line = command
        if line.hasSuffix("\n") { line.removeLast() }
        guard !line.contains("\n") && !line.contains("\r") else {
            throw .invalidCommand("a command is one line")
        }
        guard line.utf8.count <= ControlCommand.maximumLineLength else {
            throw .invalidCommand("command too long (\(line.utf8.count) bytes; at most \(ControlCommand.maximumLineLength))")
        }
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        let fd = try connect(path, deadline: deadline, timeout: timeout)
        defer { close(fd) }

        func wait(_ events: Int32) throws(ControlClientError) {
            try ControlClient.wait(fd, events, path: path, deadline: deadline, timeout: timeout)
        }

        // Send the line.
        try sendLine(line, fd: fd, wait: wait)

        // Read the reply, to the end.
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while reply.count < maximumReply {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                reply.append(contentsOf: buffer[0..<n])
                continue
            }
            if n == 0 { break }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK {
                try wait(POLLIN)
                continue
            }
            if code == ECONNRESET && !reply.isEmpty { break }
            throw .failed(path: path, reason: "cannot read the reply: \(ControlIO.describe(code))")
        }
        while reply.last == UInt8(ascii: "\n") || reply.last == UInt8(ascii: "\r") { reply.removeLast() }
        guard !reply.isEmpty else {
            throw .failed(path: path, reason: "closed the connection without answering")
        }
        return String(decoding: reply, as: UTF8.self)
    }

    /// Watches the device listening on `socketPath` (`pacer ctl watch`): sends `watch` and
    /// hands `onLine` each line the device sends, without its newline, as it arrives, until
    /// the device ends the stream (it stopped: `watch` returns) or `onLine` returns false.
    /// The first line is the device's state now, or `error: …` when it refuses (too many
    /// watchers, or a device that does not know `watch`); `timeout` bounds connecting and
    /// that first line. After it the stream may be quiet for any time.
    public static func watch(
        socketPath: String = ControlSocketServer.defaultPath(), timeout: Duration = .seconds(5),
        _ onLine: (String) -> Bool
    ) throws(ControlClientError) {
        let path = socketPath
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        let fd = try connect(path, deadline: deadline, timeout: timeout)
        defer { close(fd) }
        try sendLine("watch", fd: fd) { (events: Int32) throws(ControlClientError) in
            try ControlClient.wait(fd, events, path: path, deadline: deadline, timeout: timeout)
        }

        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var lines = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                pending.append(contentsOf: buffer[0..<n])
                var start = 0
                while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                    var end = newline
                    if end > start, pending[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                    lines += 1
                    guard onLine(String(decoding: pending[start..<end], as: UTF8.self)) else { return }
                    start = newline + 1
                }
                pending.removeSubrange(0..<start)
                guard pending.count <= maximumReply else {
                    throw .failed(path: path, reason: "sent a line longer than \(maximumReply / 1024) KiB")
                }
                continue
            }
            // The end of the stream; an unfinished last line is not a line.
            if n == 0 { break }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK {
                if lines == 0 {
                    try wait(fd, POLLIN, path: path, deadline: deadline, timeout: timeout)
                } else {
                    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    if poll(&p, 1, -1) < 0 && errno != EINTR {
                        throw .failed(path: path, reason: "poll failed: \(ControlIO.describe(errno))")
                    }
                }
                continue
            }
            if code == ECONNRESET && lines > 0 { break }
            throw .failed(path: path, reason: "cannot read the stream: \(ControlIO.describe(code))")
        }
        guard lines > 0 else {
            throw .failed(path: path, reason: "closed the connection without answering")
        }
    }

    /// A connected non-blocking socket to the server on `path`. A UNIX socket connects at
    /// once or says EAGAIN (the server's backlog is full): then it tries again until `deadline`.
    private static func connect(
        _ path: String, deadline: ContinuousClock.Instant, timeout: Duration
    ) throws(ControlClientError) -> Int32 {
        guard var address = ControlIO.address(path) else {
            throw .failed(path: path, reason: "path too long for a UNIX socket")
        }
        let clock = ContinuousClock()
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .failed(path: path, reason: "cannot create a socket: \(ControlIO.describe(errno))") }
        var connected = false
        defer { if !connected { close(fd) } }
        while true {
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            if result == 0 { break }
            let code = errno
            switch code {
            case EINTR:
                continue
            case EAGAIN, EINPROGRESS:
                guard clock.now < deadline else { throw .timedOut(path: path, timeout: timeout) }
                _ = poll(nil, 0, 10)
            case ENOENT, ECONNREFUSED, ENOTDIR:
                throw .noServer(path: path)
            case EACCES, EPERM:
                throw .permissionDenied(path: path)
            default:
                throw .failed(path: path, reason: "cannot connect: \(ControlIO.describe(code))")
            }
        }
        connected = true
        return fd
    }

    /// Waits until `fd` is ready for `events`, at most until `deadline`.
    private static func wait(
        _ fd: Int32, _ events: Int32, path: String, deadline: ContinuousClock.Instant, timeout: Duration
    ) throws(ControlClientError) {
        let clock = ContinuousClock()
        while true {
            let left = deadline - clock.now
            guard left > .zero else { throw .timedOut(path: path, timeout: timeout) }
            var p = pollfd(fd: fd, events: Int16(events), revents: 0)
            let r = poll(&p, 1, ControlIO.earliest(-1, left))
            if r > 0 { return }
            if r < 0 && errno != EINTR {
                throw .failed(path: path, reason: "poll failed: \(ControlIO.describe(errno))")
            }
        }
    }

    /// Sends `line` and its newline; stops early, quietly, when the server closed (it refused
    /// the command: its reply may be waiting).
    private static func sendLine(
        _ line: String, fd: Int32, wait: (Int32) throws(ControlClientError) -> Void
    ) throws(ControlClientError) {
        let bytes = Array((line + "\n").utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n > 0 {
                sent += n
                continue
            }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK {
                try wait(POLLOUT)
                continue
            }
            break
        }
    }
}

// MARK: - Shared helpers (socket, terminal and signal controls)

/// Small POSIX helpers for the controls.
enum ControlIO {
    /// `sun_path` holds 108 bytes with the terminating NUL.
    static let maximumPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// `2 s`, `500 ms`.
    static func text(_ d: Duration) -> String {
        let ms = d.nanoseconds / 1_000_000
        return ms % 1000 == 0 ? "\(ms / 1000) s" : "\(ms) ms"
    }

    /// A `poll` timeout: the earlier of `current` (-1: none) and `left`, rounded up to a
    /// millisecond, never negative.
    static func earliest(_ current: Int32, _ left: Duration) -> Int32 {
        let ms = Int32(clamping: max(0, (left.nanoseconds + 999_999) / 1_000_000))
        return current < 0 ? ms : min(current, ms)
    }

    /// The address for `path`, or nil when it does not fit.
    static func address(_ path: String) -> sockaddr_un? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumPathLength, !bytes.contains(0) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        return address
    }

    /// The directory part of a path (`.` for a bare name).
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    enum Probe {
        case live
        case stale
        case error(String)
    }

    /// Whether a server answers on the socket file at `path`.
    static func probe(_ path: String) -> Probe {
        guard var address = address(path) else { return .error("path too long") }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return .error(describe(errno)) }
        defer { close(fd) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if result == 0 { return .live }
        switch errno {
        case ECONNREFUSED: return .stale
        case EAGAIN, EINPROGRESS: return .live  // a live server with a full backlog
        case ENOENT: return .stale  // gone meanwhile
        case let code: return .error(describe(code))
        }
    }

    /// One non-blocking attempt to send a short text; for farewells to clients being dropped.
    static func sendOnce(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
    }

    /// Writes all of `text` to `fd` (a terminal or a pipe), retrying short writes.
    static func writeAll(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                offset += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }
}

/// An errno value, thrown.
struct ErrnoError: Error {
    let code: Int32
}

/// A pipe that wakes a thread blocked in `poll`: both ends non-blocking and close-on-exec.
struct WakePipe: Sendable {
    let readEnd: Int32
    let writeEnd: Int32

    init() throws(ErrnoError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw ErrnoError(code: errno) }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    func poke() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    func drain() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while bytes.withUnsafeMutableBytes({ read(readEnd, $0.baseAddress, $0.count) }) > 0 {}
    }

    func close() {
        Glibc.close(readEnd)
        Glibc.close(writeEnd)
    }
}

/// A control's own thread and its wake-up pipe (the socket server's, the keys', the
/// signals'). `stop()` may be called from any thread, the control's own included (a handler
/// that stops the device at once): it wakes the thread, waits for it unless it is the
/// caller, and runs `cleanup` — then closes the pipe — exactly once, when the thread no
/// longer uses what they release: at once after the join, or as the thread ends when `stop`
/// ran on it.
final class ControlThread: Sendable {
    private struct State {
        var thread: pthread_t?
        var cleanup: (@Sendable () -> Void)?
        var cleanUpOnExit = false
    }

    let wake: WakePipe
    private let state: Mutex<State>

    private init(wake: WakePipe, cleanup: @escaping @Sendable () -> Void) {
        self.wake = wake
        state = Mutex(State(cleanup: cleanup))
    }

    /// Runs `body` on a thread of its own; `body` returns once `wake` is poked. On failure
    /// nothing is cleaned up: the caller still owns `wake` and what `cleanup` would release.
    static func start(
        wake: WakePipe, cleanup: @escaping @Sendable () -> Void = {}, body: @escaping @Sendable () -> Void
    ) -> Result<ControlThread, ErrnoError> {
        let control = ControlThread(wake: wake, cleanup: cleanup)
        let context = Unmanaged.passRetained(ControlThreadBody {
            control.state.withLock { $0.thread = pthread_self() }
            body()
            if control.state.withLock({ $0.cleanUpOnExit }) { control.runCleanup() }
        }).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { raw in
            Unmanaged<ControlThreadBody>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, context)
        guard created == 0 else {
            Unmanaged<ControlThreadBody>.fromOpaque(context).release()
            return .failure(ErrnoError(code: created))
        }
        control.state.withLock { $0.thread = thread }
        return .success(control)
    }

    /// Wakes the thread, waits for it (unless called on it), cleans up. Idempotent.
    func stop() {
        wake.poke()
        let thread = state.withLock { s -> pthread_t? in
            defer { s.thread = nil }
            return s.thread
        }
        guard let thread else { return }
        if pthread_equal(thread, pthread_self()) != 0 {
            pthread_detach(thread)
            state.withLock { $0.cleanUpOnExit = true }
        } else {
            pthread_join(thread, nil)
            runCleanup()
        }
    }

    private func runCleanup() {
        let cleanup = state.withLock { s -> (@Sendable () -> Void)? in
            defer { s.cleanup = nil }
            return s.cleanup
        }
        guard let cleanup else { return }
        cleanup()
        wake.close()
    }
}

private final class ControlThreadBody: Sendable {
    let run: @Sendable () -> Void

    init(_ run: @escaping @Sendable () -> Void) {
        self.run = run
    }
}

/// `Waypoint 1`, `Waypoint 2`, …: names for waypoints marked without a name (a key, a
/// signal). Share one between the terminal and the signal controls so that their names
/// do not repeat.
public final class WaypointNames: Sendable {
    public let prefix: String
    private let count = Mutex(0)

    public init(prefix: String = "Waypoint") {
        self.prefix = prefix
    }

    public func next() -> String {
        let n = count.withLock { c -> Int in
            c += 1
            return c
        }
        return "\(prefix) \(n)"
    }
}
