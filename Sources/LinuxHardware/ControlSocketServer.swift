#if canImport(Glibc)
import Glibc
#endif
import HAL
import Logging
import PacerCore
import Synchronization

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

    let logger: Logger?
    let state: Mutex<State>
    /// The server's warnings, at most one line per kind per ten seconds.
    let warnings = Mutex(WarningLimiter())
    /// The socket file as bound (device, inode): only that file is unlinked at stop.
    let boundFile: (dev: UInt64, ino: UInt64)?


    struct State {
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
        let listener: Int32
        (listener, boundFile) = try Self.claim(path, logger: logger)
        state = Mutex(State(listener: listener))
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

    func unlinkIfOurs() {
        var info = stat()
        guard let boundFile, lstat(path, &info) == 0,
              UInt64(info.st_dev) == boundFile.dev, UInt64(info.st_ino) == boundFile.ino else { return }
        unlink(path)
    }

    /// Logs a warning of `kind`, unless one of that kind was logged in the last ten seconds
    /// (then it is counted, and said with the next).
    func warn(_ kind: String, _ text: @autoclosure () -> String) {
        guard let logger else { return }
        let now = ContinuousClock.now
        if let line = warnings.withLock({ $0.line(kind, text(), at: now) }) { logger.warning("\(line)") }
    }
}
