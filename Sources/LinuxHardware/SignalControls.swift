#if canImport(Glibc)
import Glibc
#endif
import HAL
import Logging
import Synchronization

/// Signals as controls (R20): SIGUSR1 marks a waypoint (`kill -USR1 $(pidof pacer)`, or a
/// button wired to a script), named `Waypoint N` like a key press; SIGTERM, SIGINT and
/// SIGHUP stop the activity, so that `systemctl stop pacer`, Ctrl-C and a closed terminal
/// end it cleanly, stored as stopped. The signals are parameters (tests use SIGUSR2 for the stop); pass no stop
/// signals to keep their usual meaning. Replies are logged.
///
/// A second stop signal is not caught: the first one puts the stop signals' previous
/// dispositions back, so if the device hangs while stopping, a second Ctrl-C (or systemd's
/// SIGKILL after its timeout) ends the process as usual.
///
/// How: `start` installs a handler (`sigaction`, `SA_RESTART`) that only writes the signal's
/// number to a pipe — all a signal handler may safely do — and a thread of its own reads the
/// pipe and calls the command handler. `stop()` puts back the dispositions the signals had
/// before `start`, then ends the thread. Dispositions are process-wide: one `SignalControls`
/// can be started at a time in a process (a second `start` logs an error and does nothing),
/// and nothing else should handle these signals meanwhile (a `DispatchSource` for SIGINT,
/// as `pacer gps watch` has, belongs to another command). The pipe the handler writes to is
/// made once and kept for the life of the process, so a signal arriving while `stop` runs
/// never writes to a closed descriptor.
public final class SignalControls: ControlInput {
    public typealias Handler = @Sendable (ControlCommand, _ reply: @escaping @Sendable (String) -> Void) -> Void

    public let name: String
    public let waypointSignal: Int32?
    public let stopSignals: [Int32]
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        var started = false
        var stopping = false
        var thread: ControlThread?
        /// The dispositions the signals had before `start`, to put back.
        var previous: [Int32: sigaction] = [:]
    }

    public init(
        waypointSignal: Int32? = SIGUSR1, stopSignals: [Int32] = [SIGTERM, SIGINT, SIGHUP],
        logger: Logger = Logger(label: "pacer.signals")
    ) {
        precondition(waypointSignal.map { !stopSignals.contains($0) } ?? true, "a signal cannot both mark and stop")
        self.waypointSignal = waypointSignal
        self.stopSignals = stopSignals
        self.logger = logger
        var parts: [String] = []
        if let waypointSignal { parts.append("\(SignalControls.signalName(waypointSignal)): waypoint") }
        if !stopSignals.isEmpty { parts.append(stopSignals.map(SignalControls.signalName).joined(separator: ", ") + ": stop") }
        name = "signals (" + (parts.isEmpty ? "none" : parts.joined(separator: "; ")) + ")"
    }

    /// Whether the signals are being caught.
    public var isActive: Bool { state.withLock { $0.thread != nil } }

    /// `SIGUSR1`, `SIGTERM`, … (`signal 34` for the ones without a short name).
    public static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGUSR1: "SIGUSR1"
        case SIGUSR2: "SIGUSR2"
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        case SIGHUP: "SIGHUP"
        case SIGQUIT: "SIGQUIT"
        default: "signal \(signal)"
        }
    }

    // MARK: ControlInput

    public func start(_ handler: @escaping Handler) {
        let go = state.withLock { s -> Bool in
            guard !s.started, !s.stopping else { return false }
            s.started = true
            return true
        }
        guard go else { return }
        guard SignalRelay.claim(ObjectIdentifier(self)) else {
            logger.error("\(name): another SignalControls is running in this process; these signals are not caught")
            return
        }
        guard let relay = SignalRelay.pipe() else {
            logger.error("\(name): cannot create the signal pipe: \(ControlIO.describe(errno)); signals are not caught")
            SignalRelay.release(ObjectIdentifier(self))
            return
        }
        let wake: WakePipe
        do {
            wake = try WakePipe()
        } catch {
            logger.error("\(name): cannot create the wake-up pipe: \(ControlIO.describe(error.code)); signals are not caught")
            SignalRelay.release(ObjectIdentifier(self))
            return
        }
        relay.drain()  // anything left over from an earlier instance
        var previous: [Int32: sigaction] = [:]
        for signal in [waypointSignal].compactMap({ $0 }) + stopSignals {
            if let old = SignalRelay.install(signal) {
                previous[signal] = old
            } else {
                logger.error("\(name): cannot catch \(Self.signalName(signal)): \(ControlIO.describe(errno))")
            }
        }
        state.withLock { $0.previous = previous }
        // Another SignalControls may start once this one's thread is done with the relay.
        let id = ObjectIdentifier(self)
        let started = ControlThread.start(
            wake: wake, cleanup: { SignalRelay.release(id) },
            body: { [self] in read(relay: relay, wake: wake, handler: handler) })
        switch started {
        case .success(let thread):
            state.withLock { $0.thread = thread }
            logger.debug("\(name): catching")
        case .failure(let error):
            logger.error("\(name): cannot start the signal thread: \(ControlIO.describe(error.code)); signals are not caught")
            restore(state.withLock { s in
                defer { s.previous = [:] }
                return s.previous
            })
            wake.close()
            SignalRelay.release(ObjectIdentifier(self))
        }
    }

    /// Puts the signals' previous dispositions back and ends the thread. Idempotent.
    public func stop() {
        let (thread, previous): (ControlThread?, [Int32: sigaction]) = state.withLock { s in
            s.stopping = true
            defer {
                s.thread = nil
                s.previous = [:]
            }
            return (s.thread, s.previous)
        }
        restore(previous)
        thread?.stop()
    }

    private func restore(_ previous: [Int32: sigaction]) {
        for (signal, old) in previous {
            var action = old
            _ = sigaction(signal, &action, nil)
        }
    }

    // MARK: The thread

    private func read(relay: WakePipe, wake: WakePipe, handler: @escaping Handler) {
        var fds = [pollfd(fd: relay.readEnd, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            fds[0].revents = 0
            fds[1].revents = 0
            if poll(&fds, 2, -1) < 0 {
                if errno == EINTR { continue }
                logger.error("\(name): poll failed: \(ControlIO.describe(errno)); signals are no longer acted on")
                return
            }
            if fds[1].revents != 0 || state.withLock({ $0.stopping }) { return }
            guard fds[0].revents != 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { Glibc.read(relay.readEnd, $0.baseAddress, $0.count) }
            guard n > 0 else { continue }
            for byte in buffer[0..<n] {
                signalled(Int32(byte), handler: handler)
            }
        }
    }

    private func signalled(_ signal: Int32, handler: Handler) {
        let logger = self.logger
        let signalName = Self.signalName(signal)
        if signal == waypointSignal {
            let command = ControlCommand.markWaypoint
            logger.info("\(signalName): \(command.line)")
            handler(command) { reply in logger.info("\(signalName) waypoint: \(reply)") }
        } else if stopSignals.contains(signal) {
            // Already stopping? (Several stop signals can be in the pipe together.)
            let first = state.withLock { s -> [Int32: sigaction]? in
                let stops = s.previous.filter { stopSignals.contains($0.key) }
                guard !stops.isEmpty else { return nil }
                for key in stops.keys { s.previous.removeValue(forKey: key) }
                return stops
            }
            guard let first else { return }
            restore(first)
            logger.notice("\(signalName): stopping the activity (send it again to quit at once)")
            handler(.shutdown) { reply in logger.info("\(signalName) stop: \(reply)") }
        }
    }
}

/// What the signal handler writes to: one pipe for the process, made once and never closed,
/// and which `SignalControls` owns the signals now.
enum SignalRelay {
    /// The pipe's write end, for the handler (-1: not made yet). Set before any handler is
    /// installed; an atomic load and a `write` are all the handler does.
    private static let writeEnd = Atomic<Int32>(-1)
    private static let made = Mutex<WakePipe?>(nil)
    private static let owner = Mutex<ObjectIdentifier?>(nil)

    static func claim(_ id: ObjectIdentifier) -> Bool {
        owner.withLock { o in
            guard o == nil else { return false }
            o = id
            return true
        }
    }

    static func release(_ id: ObjectIdentifier) {
        owner.withLock { o in
            if o == id { o = nil }
        }
    }

    static func pipe() -> WakePipe? {
        made.withLock { p in
            if p == nil, let fresh = try? WakePipe() {
                p = fresh
                writeEnd.store(fresh.writeEnd, ordering: .releasing)
            }
            return p
        }
    }

    /// Installs the relaying handler for `signal`; returns the disposition it replaced, or
    /// nil (errno set) when the signal cannot be caught.
    static func install(_ signal: Int32) -> sigaction? {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signo in
            let saved = errno
            var byte = UInt8(truncatingIfNeeded: signo)
            let fd = SignalRelay.writeEnd.load(ordering: .acquiring)
            if fd >= 0 { _ = write(fd, &byte, 1) }
            errno = saved
        }
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        var old = sigaction()
        guard sigaction(signal, &action, &old) == 0 else { return nil }
        return old
    }
}
