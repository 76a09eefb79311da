#if canImport(Glibc)
import Glibc
#endif
import PacerCore
import Synchronization

/// What a hardware probe found: a verdict, the facts it saw, what is wrong and how to fix it.
/// Written for a person putting the device together (`pacer hw check` prints them).
public struct ProbeFinding: Hashable, Sendable {
    public enum Status: String, Hashable, Sendable, CaseIterable {
        /// The part is there and works.
        case ok
        /// The part works only partly, or is absent but the device manages without it.
        case warning
        /// The part is absent or does not work.
        case missing
    }

    public var status: Status
    /// What the probe saw, one fact per line.
    public var found: [String]
    /// What is wrong, in one sentence; nil when nothing is.
    public var problem: String?
    /// How to fix it: steps or commands, one per line, in the order to try them.
    public var fix: [String]
    /// Machine-readable facts (`gpsd_release`, `sentences`, `fixes`, `alsa_error`, …) for the
    /// `--json` report and for tests.
    public var facts: [String: String]

    public init(
        status: Status, found: [String] = [], problem: String? = nil, fix: [String] = [],
        facts: [String: String] = [:]
    ) {
        self.status = status
        self.found = found
        self.problem = problem
        self.fix = fix
        self.facts = facts
    }
}

/// Probes for each part of the device, for `pacer hw check`: each part's check sits beside its
/// adapter (`GPSDSource+Check.swift`, `SerialNMEASource+Check.swift`, `ALSABuzzer+Check.swift`,
/// `SysfsBattery+Check.swift`, `EvdevButtons+Check.swift`, `ESpeakSpeaker+Check.swift`,
/// `MonotonicClock+Check.swift`) and goes through the adapter's own library wrapper and helpers
/// (libgps and `GPSDLineBuffer`, `SerialPort`'s open and raw 8N1 set-up, `ALSABuzzer.probe`),
/// so that it checks what the firmware will do, step by step, and can say precisely which step
/// failed.
///
/// Every probe is bounded in time: sockets and serial ports are polled against a deadline,
/// and each probe runs on a thread of its own that is abandoned (not waited for) if the
/// system call it is in does not return in time. None raises; a failure is a finding.
public enum HardwareProbe {
    // MARK: shared helpers

    static func monotonicNanoseconds() -> Int64 {
        MonotonicCondition.now.nanoseconds
    }

    static func seconds(_ d: Duration) -> String {
        let s = d.inSeconds
        return s == s.rounded() ? "\(Int(s)) s" : "\((s * 10).rounded() / 10) s"
    }

    static func formatPercent(_ p: Double) -> String {
        p == p.rounded() ? String(Int(p)) : String((p * 10).rounded() / 10)
    }

    static func errnoText(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// Degrees to five decimals (about a metre), as a finding shows a position.
    static func coordinate(_ value: Double) -> String {
        String((value * 100_000).rounded() / 100_000)
    }

    /// Paths matching a shell pattern, sorted; none when nothing matches.
    static func glob(_ pattern: String) -> [String] {
        var g = glob_t()
        defer { globfree(&g) }
        guard Glibc.glob(pattern, 0, nil, &g) == 0 else { return [] }
        var paths: [String] = []
        for i in 0..<Int(g.gl_pathc) {
            if let p = g.gl_pathv[i] { paths.append(String(cString: p)) }
        }
        return paths.sorted()
    }

    /// The canonical path of `path` (links resolved), or nil when it does not resolve.
    static func resolve(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }

    /// Runs `body` on a thread of its own and waits up to `limit` for it. Returns nil when
    /// the time is up; the thread is then left to finish (or hang) on its own. A dedicated
    /// thread, not a dispatch or Swift concurrency pool: a probe stuck in a system call must
    /// not starve anyone else.
    static func runBounded<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () -> T) -> T? {
        let job = BoundedJob(body)
        guard job.ready else { return body() }
        let retained = Unmanaged.passRetained(job as any BoundedRunnable as AnyObject)
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { argument in
            let object = Unmanaged<AnyObject>.fromOpaque(argument!).takeRetainedValue()
            (object as! any BoundedRunnable).runJob()
            return nil
        }, retained.toOpaque())
        guard rc == 0 else {
            retained.release()
            return body()
        }
        pthread_detach(thread)
        return job.wait(limit)
    }
}

private protocol BoundedRunnable: AnyObject {
    func runJob()
}

/// A probe running on its own thread; the thread writes a byte to a pipe when it is done,
/// and the caller polls the pipe with a timeout.
private final class BoundedJob<T: Sendable>: BoundedRunnable, Sendable {
    private let body: @Sendable () -> T
    private let result = Mutex<T?>(nil)
    private let readFD: Int32
    private let writeFD: Int32

    init(_ body: @escaping @Sendable () -> T) {
        self.body = body
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        }
        readFD = fds[0]
        writeFD = fds[1]
    }

    /// False when no pipe could be made (out of file descriptors): run the body inline then.
    var ready: Bool { readFD >= 0 && writeFD >= 0 }

    deinit {
        if readFD >= 0 { close(readFD) }
        if writeFD >= 0 { close(writeFD) }
    }

    func runJob() {
        let value = body()
        result.withLock { $0 = value }
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)
    }

    func wait(_ limit: Duration) -> T? {
        let deadline = HardwareProbe.monotonicNanoseconds() + limit.nanoseconds
        var p = pollfd(fd: readFD, events: Int16(POLLIN), revents: 0)
        while true {
            let left = deadline - HardwareProbe.monotonicNanoseconds()
            if left <= 0 { return nil }
            let rc = poll(&p, 1, Int32(min(left / 1_000_000 + 1, Int64(Int32.max))))
            if rc > 0 { return result.withLock { $0 } }
            if rc < 0 && errno != EINTR { return nil }
        }
    }
}
