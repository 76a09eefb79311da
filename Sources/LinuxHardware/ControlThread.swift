#if canImport(Glibc)
import Glibc
#endif
import Synchronization

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
