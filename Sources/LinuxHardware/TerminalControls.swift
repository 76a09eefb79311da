#if canImport(Glibc)
import Glibc
#endif
import HAL
import Logging
import Synchronization

/// Keys in the foreground terminal (R20): `w` marks a waypoint (`Waypoint 1`, `Waypoint 2`,
/// …), `p` pauses and resumes, `s` stops the activity, `?` or `h` shows the keys. Upper case
/// works too; other keys, and escape sequences (arrows, function keys), are ignored.
///
/// `start` does something only when the input is a terminal (`isatty`) and this process is
/// in its foreground (or the terminal is not this process's controlling terminal, as a test's
/// pseudo-terminal): otherwise — stdin a pipe or `/dev/null`, a systemd service, `pacer run &`
/// — there are no keys, `isActive` stays false, and the other controls (the socket, signals)
/// are the way in. Reading keys, it turns off canonical mode and echo (so a key acts at once
/// and does not smear the status line) and leaves `ISIG` on, so Ctrl-C still interrupts.
///
/// The terminal's original settings come back on `stop()`, and also when the process exits
/// through `exit` (an `atexit` hook restores every terminal still changed). A process killed
/// by a signal it does not handle leaves the terminal without echo (`stty sane` or `reset`
/// mends it); `SignalControls` turns SIGTERM and SIGINT into a clean stop so that this does
/// not happen in normal use.
///
/// `p` sends `pause` or `resume`: by `isPaused`, when given (the runtime's state, which also
/// knows about pauses from the socket), else by a toggle of its own that starts running.
/// Replies (and the key help) are written to the output on a line of their own — after
/// `\r` and clear-to-end-of-line when the output is a terminal, so they overwrite the status
/// line, which the caller redraws.
///
/// Threading: a reader thread polls the input and a wake-up pipe; `stop()` wakes and joins
/// it, then restores the terminal. Mutable state is in a `Mutex`. The input descriptor is
/// the caller's: it is never closed, and never made non-blocking (on stdin that would leak
/// to the shell); reads do not block because VMIN and VTIME are 0.
public final class TerminalControls: ControlInput {
    public typealias Handler = @Sendable (ControlCommand, _ reply: @escaping @Sendable (String) -> Void) -> Void

    /// The key help, printed on `?` and `h`.
    public static let help = "keys: w waypoint · p pause/resume · s stop · ? help"

    public let name = "terminal keys"
    public let input: Int32
    private let isPaused: (@Sendable () -> Bool)?
    private let output: @Sendable (String) -> Void
    private let logger: Logger?
    private let state = Mutex(State())

    private struct State {
        var started = false
        var stopping = false
        var thread: ControlThread?
        var original: termios?
        var pausedToggle = false
    }

    /// - Parameters:
    ///   - input: the terminal to read keys from (stdin; a pseudo-terminal in tests).
    ///   - isPaused: whether the activity is paused now, for `p`; nil keeps a toggle.
    ///   - output: where replies go; default: stdout, as described above.
    public init(
        input: Int32 = STDIN_FILENO,
        isPaused: (@Sendable () -> Bool)? = nil, output: (@Sendable (String) -> Void)? = nil,
        logger: Logger? = nil
    ) {
        self.input = input
        self.isPaused = isPaused
        self.output = output ?? TerminalControls.printLine
        self.logger = logger
    }

    /// Whether keys are being read (the input is a terminal and `start` set it up).
    public var isActive: Bool { state.withLock { $0.thread != nil } }

    /// Writes `line` to stdout on a line of its own.
    public static func printLine(_ line: String) {
        ControlIO.writeAll(STDOUT_FILENO, (isatty(STDOUT_FILENO) == 1 ? "\r\u{1B}[K" : "") + line + "\n")
    }

    // MARK: ControlInput

    public func start(_ handler: @escaping Handler) {
        let go = state.withLock { s -> Bool in
            guard !s.started, !s.stopping else { return false }
            s.started = true
            return true
        }
        guard go else { return }
        guard isatty(input) == 1 else {
            logger?.debug("input is not a terminal: no keys")
            return
        }
        let foreground = tcgetpgrp(input)
        if foreground >= 0 && foreground != getpgrp() {
            logger?.info("running in the background: no keys (use pacer ctl)")
            return
        }
        var original = termios()
        guard tcgetattr(input, &original) == 0 else {
            logger?.warning("cannot read the terminal settings: \(ControlIO.describe(errno)); no keys")
            return
        }
        var keys = original
        keys.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &keys.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        let wake: WakePipe
        do {
            wake = try WakePipe()
        } catch {
            logger?.warning("cannot create the wake-up pipe: \(ControlIO.describe(error.code)); no keys")
            return
        }
        TerminalRestore.remember(input, original)
        guard tcsetattr(input, TCSANOW, &keys) == 0 else {
            logger?.warning("cannot set the terminal up for keys: \(ControlIO.describe(errno)); no keys")
            TerminalRestore.forget(input)
            wake.close()
            return
        }
        let input = self.input
        switch ControlThread.start(wake: wake, body: { [self] in read(input: input, wake: wake, handler: handler) }) {
        case .success(let thread):
            state.withLock { s in
                s.thread = thread
                s.original = original
            }
        case .failure(let error):
            logger?.warning("cannot start the key reader: \(ControlIO.describe(error.code)); no keys")
            var restore = original
            _ = tcsetattr(input, TCSANOW, &restore)
            TerminalRestore.forget(input)
            wake.close()
        }
    }

    /// Ends the key reader and gives the terminal its original settings back. Idempotent.
    public func stop() {
        let (thread, original): (ControlThread?, termios?) = state.withLock { s in
            s.stopping = true
            defer {
                s.thread = nil
                s.original = nil
            }
            return (s.thread, s.original)
        }
        thread?.stop()
        if var original {
            _ = tcsetattr(input, TCSANOW, &original)
            TerminalRestore.forget(input)
        }
    }

    // MARK: The reader thread

    private var isStopping: Bool { state.withLock { $0.stopping } }

    private enum Escape {
        case none
        case started  // after ESC
        case sequence  // after ESC [ or ESC O, until the final byte
    }

    private func read(input: Int32, wake: WakePipe, handler: @escaping Handler) {
        var fds = [pollfd(fd: input, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            fds[0].revents = 0
            fds[1].revents = 0
            if poll(&fds, 2, -1) < 0 {
                if errno == EINTR { continue }
                logger?.warning("poll failed on the terminal: \(ControlIO.describe(errno)); no more keys")
                return
            }
            if fds[1].revents != 0 || isStopping { return }
            let events = Int32(fds[0].revents)
            guard events != 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { Glibc.read(input, $0.baseAddress, $0.count) }
            if n > 0 {
                keys(buffer[0..<n], handler: handler)
                continue
            }
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if n < 0 || events & (POLLHUP | POLLERR | POLLNVAL) != 0 {
                // The terminal went away (an ssh session dropped): the activity goes on.
                logger?.info("the terminal closed; no more keys")
                return
            }
        }
    }

    /// The keys in one read. An escape sequence arrives in one read; a lone ESC does not
    /// swallow the next key pressed later.
    private func keys(_ bytes: ArraySlice<UInt8>, handler: @escaping Handler) {
        var escape = Escape.none
        for byte in bytes {
            switch escape {
            case .started:
                escape = byte == UInt8(ascii: "[") || byte == UInt8(ascii: "O") ? .sequence : .none
                continue
            case .sequence:
                if (0x40...0x7E).contains(byte) { escape = .none }
                continue
            case .none:
                break
            }
            switch byte {
            case 0x1B:
                escape = .started
            case UInt8(ascii: "w"), UInt8(ascii: "W"):
                send(.markWaypoint, handler)
            case UInt8(ascii: "p"), UInt8(ascii: "P"):
                let paused = isPaused?() ?? state.withLock { s -> Bool in
                    defer { s.pausedToggle.toggle() }
                    return s.pausedToggle
                }
                send(paused ? .resume : .pause, handler)
            case UInt8(ascii: "s"), UInt8(ascii: "S"):
                send(.stop, handler)
            case UInt8(ascii: "?"), UInt8(ascii: "h"), UInt8(ascii: "H"):
                output(Self.help)
            default:
                break
            }
        }
    }

    private func send(_ command: ControlCommand, _ handler: Handler) {
        logger?.debug("key: \(command.line)")
        let output = self.output
        handler(command) { reply in output(reply) }
    }
}

/// The terminals whose settings keys changed, for the `atexit` hook that restores them.
enum TerminalRestore {
    private static let saved = Mutex<[Int32: termios]>([:])
    private static let hooked = Atomic<Bool>(false)

    static func remember(_ fd: Int32, _ settings: termios) {
        saved.withLock { $0[fd] = settings }
        if !hooked.exchange(true, ordering: .acquiringAndReleasing) {
            atexit { TerminalRestore.restoreAll() }
        }
    }

    static func forget(_ fd: Int32) {
        _ = saved.withLock { $0.removeValue(forKey: fd) }
    }

    static func restoreAll() {
        let all = saved.withLock { s in
            defer { s.removeAll() }
            return s
        }
        for (fd, settings) in all {
            var t = settings
            _ = tcsetattr(fd, TCSANOW, &t)
        }
    }
}
