#if canImport(Glibc)
import Glibc
#endif
import CGPS
import HAL
import NMEA
import Logging
import PacerCore
import Synchronization

/// Positions from gpsd, through libgps (`gpsd://host:port`).
///
/// **Reading.** `start` launches a reader thread of the source's own. It opens libgps
/// (`gps_open`, `gps_stream(WATCH_ENABLE | WATCH_JSON)`), then reads the socket itself: one
/// `poll` on the socket and the source's wake-up pipe (which only `stop()` writes), with no
/// timeout unless a fix is held (`Timing.settle`), one `recv` of whatever gpsd sent, and every
/// whole line in it handed to libgps's `gps_unpack` (what `gps_read` does after its own
/// `recv`). The thread wakes for data and for a stop only: at 1 Hz that is a `poll`, a `recv`
/// and the settle `poll` a second (`scripts/bench-wakeups.sh`). `gps_waiting` and `gps_read`
/// are not used: they keep libgps's buffer hidden, so the reader could not tell "nothing
/// buffered" from "a line buffered" without one more system call per line. TPV reports become
/// `Fix` values: time from `fix.time` (rounded to the millisecond), latitude, longitude,
/// altitude above mean sea level (`altMSL`, else gpsd's deprecated `altitude`), speed (m/s),
/// track, mode 2/3, `status` as the quality, and, best effort, HDOP and the satellites used and
/// in view from gpsd's latest SKY report. gpsd 3.22 puts none of those three in TPV, and sends
/// SKY only when the receiver lists its satellites (GSV); without SKY they are nil.
///
/// The gps.h macros used here (`WATCH_*`, `TIME_SET`, `LATLON_SET`, `MODE_*`, `STATUS_*`) all
/// import into Swift as constants (`WATCH_*` as `UInt32`, the `*_SET` shifts as `UInt64`,
/// `MODE_*`/`STATUS_*` as `Int32`), so none is redefined here.
///
/// **One fix per cycle.** gpsd sends a TPV for every sentence that changes its picture of the
/// fix, so one receiver cycle can give several TPVs with the same time and growing content.
/// The source keeps the latest TPV of the current time (`CycleAssembler` over `GPSDCycle`) and delivers it when
/// a TPV with another time arrives, or when gpsd has been quiet for `Timing.settle` (the
/// `poll` timeout while a fix is held), so the last cycle of a burst is not held back. Each fix time reaches
/// the sink once: `sink.fix` for mode 2/3 with a valid position and time, `sink.noFix` for a
/// TPV of mode 0/1. A TPV with a position but no time (gpsd before the receiver gave a date)
/// cannot be a `Fix` and is skipped.
///
/// **Status.** `sink.opened` on connecting; `sink.closed(reason)` when gpsd cannot be reached
/// or the connection drops; `sink.silent` when no TPV has arrived for `Timing.silence` while
/// connected (the sink's watchdog measures it on the device's clock; the reader tells it of
/// every TPV). Note that the sink's status starts at
/// `.disconnected`, so a gpsd that is unreachable from the start changes no status; the reason
/// is in `diagnostics.lastFailure` and the log.
///
/// **Reconnecting.** When `gps_open` fails or the connection drops (`recv` returns 0 or fails),
/// the reader closes libgps, waits, and tries again, forever until `stop()`: 0.25 s, doubling
/// to 8 s (`Timing`), back to the start once a connection delivers a TPV. The same source and
/// sink carry on, so fixes resume by themselves when gpsd comes back. The waits are `poll`s of
/// the wake-up pipe with the delay as the timeout (`poll` measures it on `CLOCK_MONOTONIC`),
/// which `stop()` makes readable: nothing sleeps, nothing spins, and no wall clock is read.
///
/// **Stopping.** `stop()` sets the stop flag, writes the wake-up pipe and waits (at most
/// `Timing.stopTimeout`) for the reader to end; the reader disables the watch and closes libgps
/// itself. Stopping is immediate both while reading (the wake-up pipe is in the reader's `poll`)
/// and during a reconnect wait. After `stop()` returns the reader reports nothing more (what it
/// reported before may still be queued on the clock's loop). The one wait that cannot be cut
/// short is a TCP connect to an unreachable remote host inside `gps_open`; if `stop()` gives up
/// waiting, the reader ends, and closes libgps, when that connect returns.
///
/// **Threads.** The public surface may be used from any thread. `control` (a pthread mutex and
/// a monotonic condition variable) guards the start/stop phase and the stop flag, and owns the
/// wake-up pipe (open from `start` until the source is freed); `counters`
/// (a `Mutex`) guards `diagnostics`. Everything else the reader uses (the libgps handle, the
/// cycle filter, the backoff, the line buffer) lives on the reader thread's stack and no
/// other thread touches it; libgps handles are not thread-safe, so only the reader calls
/// libgps, including the final `gps_close`. The reader blocks `SIGPIPE` for itself, so a
/// watch command written to a gpsd that has just died fails with `EPIPE` instead of killing
/// the process (libgps writes with `write`, not `send(MSG_NOSIGNAL)`).
public final class GPSDSource: GPSSource {
    /// The reader's waits and timeouts.
    public struct Timing: Hashable, Sendable {
        /// How long gpsd must be quiet after a TPV before its cycle is taken to be over.
        public var settle: Duration
        /// No TPV for this long while connected: `sink.silent`.
        public var silence: Duration
        /// The first reconnect delay; doubled after every failure up to `maxRetry`.
        public var firstRetry: Duration
        public var maxRetry: Duration
        /// How long `stop()` waits for the reader to end.
        public var stopTimeout: Duration

        public init(
            settle: Duration = .milliseconds(250),
            silence: Duration = .seconds(5), firstRetry: Duration = .milliseconds(250),
            maxRetry: Duration = .seconds(8), stopTimeout: Duration = .seconds(2)
        ) {
            self.settle = settle
            self.silence = silence
            self.firstRetry = firstRetry
            self.maxRetry = maxRetry
            self.stopTimeout = stopTimeout
        }
    }

    /// What the source has done so far, for `pacer status`, bug reports and tests.
    public struct Diagnostics: Hashable, Sendable {
        /// `gps_open` calls.
        public var connectAttempts = 0
        /// Connections that were opened and watched.
        public var connections = 0
        /// The reader holds an open connection.
        public var isConnected = false
        /// TPV reports read.
        public var reports = 0
        /// Fixes handed to the sink.
        public var fixes = 0
        /// Why the last connection attempt failed or the last connection ended.
        public var lastFailure: String?

        public init() {}
    }

    public let name: String
    public let host: String
    public let port: Int
    public let timing: Timing
    private let logger: Logger
    private let control = ReaderControl()
    private let counters = Mutex(Diagnostics())

    /// Without a `logger` the source logs nothing.
    public init(
        host: String = "localhost", port: Int = 2947,
        timing: Timing = Timing(), logger: Logger? = nil
    ) {
        self.host = host
        self.port = port
        self.timing = timing
        self.logger = logger ?? Logger(label: "pacer.gpsd", factory: { _ in SwiftLogNoOpLogHandler() })
        name = "gpsd://\(host):\(port)"
    }

    public var diagnostics: Diagnostics {
        counters.withLock { $0 }
    }

    public func start(_ sink: GPSEventSink) {
        guard control.claimStart() else {
            logger.warning("\(name): start() called on a source that was already started or stopped")
            return
        }
        if let code = control.openWake() {
            control.markFinished()
            let reason = "\(name): cannot create the reader's wake-up pipe: \(String(cString: strerror(code)))"
            logger.error("\(reason)")
            counters.withLock { $0.lastFailure = reason }
            sink.closed(reason)
            return
        }
        let entry = ThreadEntry { [self] in readerMain(sink) }
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let context = Unmanaged.passRetained(entry).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, &attributes, { context in
            Unmanaged<ThreadEntry>.fromOpaque(context!).takeRetainedValue().body()
            return nil
        }, context)
        pthread_attr_destroy(&attributes)
        if rc != 0 {
            Unmanaged<ThreadEntry>.fromOpaque(context).release()
            control.markFinished()
            let reason = "\(name): cannot start the reader thread: \(String(cString: strerror(rc)))"
            logger.error("\(reason)")
            counters.withLock { $0.lastFailure = reason }
            sink.closed(reason)
        }
    }

    public func stop() {
        guard control.requestStop() else { return }
        if !control.awaitFinished(within: timing.stopTimeout) {
            logger.warning("\(name): the reader is still busy (in a connect?); it ends when that returns")
        }
    }

    // MARK: - The reader thread

    private enum SessionEnd {
        case stopped
        case dropped(String)
    }

    private var endpoint: String { "\(host):\(port)" }

    private func readerMain(_ sink: GPSEventSink) {
        Self.blockSIGPIPE()
        let data = UnsafeMutablePointer<gps_data_t>.allocate(capacity: 1)
        data.initialize(to: gps_data_t())
        defer {
            data.deinitialize(count: 1)
            data.deallocate()
            control.markFinished()
        }
        sink.watchSilence(timeout: timing.silence, detail: "no report from gpsd at \(endpoint) for \(timing.silence)")
        defer { sink.stopWatchingSilence() }
        let portText = String(port)
        var filter = CycleAssembler<GPSDCycle>()
        var retry = timing.firstRetry
        var inOutage = false

        while !control.isStopRequested {
            data.pointee = gps_data_t()
            counters.withLock { $0.connectAttempts += 1 }
            var failure: String?
            if let problem = LibGPS.problem {
                failure = problem.description
            } else if LibGPS.functions.open(host, portText, data) != 0 {
                // gps_open leaves a netlib code (negative) in errno; gps_errstr knows both kinds.
                let code = errno
                failure = "cannot connect to gpsd at \(endpoint): \(LibGPS.functions.errstr(code).map { String(cString: $0) } ?? "error \(code)")"
            } else if LibGPS.functions.stream(data, WATCH_ENABLE | WATCH_JSON) != 0 {
                let code = errno
                failure = "gpsd at \(endpoint) did not take the watch request: \(Self.errorText(code))"
                _ = LibGPS.functions.close(data)
            }
            if let failure {
                counters.withLock { $0.lastFailure = failure }
                if inOutage {
                    logger.debug("\(failure); retrying in \(retry)")
                } else {
                    logger.warning("\(failure); retrying with backoff")
                    inOutage = true
                }
                sink.closed(failure)
                if control.pause(for: retry) { return }
                retry = min(retry * 2, timing.maxRetry)
                continue
            }

            inOutage = false
            Self.setNonBlocking(pacer_gps_fd(data))
            counters.withLock {
                $0.connections += 1
                $0.isConnected = true
            }
            logger.info("\(name): connected")
            sink.opened("gpsd at \(endpoint)")

            let end = session(data, sink, &filter, &retry)
            counters.withLock { $0.isConnected = false }
            switch end {
            case .stopped:
                _ = LibGPS.functions.stream(data, WATCH_DISABLE)
                _ = LibGPS.functions.close(data)
                return
            case .dropped(let reason):
                _ = LibGPS.functions.close(data)
                counters.withLock { $0.lastFailure = reason }
                logger.warning("\(reason); reconnecting in \(retry)")
                inOutage = true
                sink.closed(reason)
                if control.pause(for: retry) { return }
                retry = min(retry * 2, timing.maxRetry)
            }
        }
    }

    /// Reads one connection until it drops or the source stops.
    private func session(
        _ data: UnsafeMutablePointer<gps_data_t>, _ sink: GPSEventSink,
        _ filter: inout CycleAssembler<GPSDCycle>, _ retry: inout Duration
    ) -> SessionEnd {
        let fd = pacer_gps_fd(data)
        var lines = GPSDLineBuffer()
        defer { lines.deallocate() }
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: control.wake, events: Int16(POLLIN), revents: 0)]

        let deliver = { [self] (report: GPSDReport) in
            switch report {
            case .fix(let fix):
                counters.withLock { $0.fixes += 1 }
                sink.fix(fix)
            case .noFix:
                sink.noFix()
            }
        }

        while true {
            // Every whole line received so far, a stop looked at between lines.
            while true {
                if control.isStopRequested {
                    filter.discard()
                    return .stopped
                }
                guard let line = lines.nextLine() else { break }
                if Self.hasClass(line, "TPV") {
                    _ = LibGPS.functions.unpack(line, data)
                    sink.heard()
                    retry = timing.firstRetry
                    counters.withLock { $0.reports += 1 }
                    if let report = Self.report(from: data.pointee) {
                        filter.offer(report, deliver: deliver)
                    }
                } else if Self.hasClass(line, "ERROR") {
                    let text = String(cString: line)
                    _ = LibGPS.functions.unpack(line, data)
                    logger.warning("\(name): gpsd says \(text)")
                } else {
                    _ = LibGPS.functions.unpack(line, data)
                }
            }
            // Until gpsd writes or `stop()` does; at most the settle time while a fix
            // is held, so the last cycle of a burst is delivered when gpsd goes quiet.
            fds[0].revents = 0
            fds[1].revents = 0
            let timeout = filter.isHolding ? Int32(clamping: timing.settle.nanoseconds / 1_000_000) : -1
            let ready = poll(&fds, 2, timeout)
            if ready < 0 {
                let code = errno
                if code == EINTR { continue }
                filter.flush(deliver: deliver)
                return .dropped("lost the connection to gpsd at \(endpoint): \(Self.errorText(code))")
            }
            if ready == 0 {
                filter.flush(deliver: deliver)
                continue
            }
            if fds[1].revents != 0 { continue }  // stop(): seen at the top
            if fds[0].revents == 0 { continue }
            switch lines.receive(from: fd) {
            case .received, .again:
                continue
            case .closed:
                filter.flush(deliver: deliver)
                return .dropped("gpsd at \(endpoint) closed the connection")
            case .failed(let code):
                filter.flush(deliver: deliver)
                return .dropped("lost the connection to gpsd at \(endpoint): \(Self.errorText(code))")
            }
        }
    }

    // MARK: - TPV to Fix

    /// The report a TPV makes, or nil when it cannot make one (a position without a time).
    static func report(from data: gps_data_t) -> GPSDReport? {
        let f = data.fix
        var time: UTCTimestamp?
        if data.set & TIME_SET != 0, f.time.tv_sec != 0 || f.time.tv_nsec != 0 {
            let nanoseconds = Int64(f.time.tv_sec) * 1_000_000_000 + Int64(f.time.tv_nsec)
            time = UTCTimestamp(millisecondsSince1970: (nanoseconds + 500_000) / 1_000_000)
        }
        guard f.mode >= MODE_2D else { return .noFix(time) }
        guard let time, data.set & LATLON_SET != 0,
              f.latitude.isFinite, f.longitude.isFinite,
              abs(f.latitude) <= 90, abs(f.longitude) <= 180
        else { return nil }

        let altitude = f.altMSL.isFinite ? f.altMSL : (f.altitude.isFinite ? f.altitude : nil)
        let hdop = data.dop.hdop
        return .fix(Fix(
            time: time,
            position: GeoPoint(latitude: f.latitude, longitude: f.longitude),
            altitude: altitude,
            speed: f.speed.isFinite ? f.speed : nil,
            course: f.track.isFinite ? f.track : nil,
            mode: f.mode >= MODE_3D ? .threeD : .twoD,
            quality: quality(f.status),
            hdop: hdop.isFinite && hdop > 0 ? hdop : nil,
            satellitesUsed: data.satellites_used > 0 ? Int(data.satellites_used) : nil,
            satellitesInView: data.satellites_visible > 0 ? Int(data.satellites_visible) : nil))
    }

    /// gpsd's `fix.status` (gps.h `STATUS_*`) as a quality; plain GPS when unknown.
    static func quality(_ status: Int32) -> FixQuality {
        switch status {
        case Int32(PACER_GPS_STATUS_DGPS): .dgps
        case STATUS_RTK_FIX: .rtk
        case STATUS_RTK_FLT: .floatRTK
        case STATUS_DR, STATUS_GNSSDR: .estimated
        case STATUS_TIME: .manual
        case STATUS_SIM: .simulated
        case STATUS_PPS_FIX: .pps
        default: .gps
        }
    }

    // MARK: - Socket helpers (reader thread only)

    /// gpsd puts `class` first in every report: `{"class":"TPV",…`.
    static func hasClass(_ line: UnsafeMutablePointer<CChar>, _ name: StaticString) -> Bool {
        let prefix = "{\"class\":\"\(name)\""
        return prefix.withCString { strncmp(line, $0, strlen($0)) == 0 }
    }

    /// Reads must never block the reader past its timeouts (a line cut short by a hung gpsd).
    static func setNonBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }

    static func blockSIGPIPE() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    private static func errorText(_ code: Int32) -> String {
        code == 0 ? "no error code" : String(cString: strerror(code))
    }
}

/// The closure a reader thread runs, handed through `pthread_create`'s context pointer.
private final class ThreadEntry: Sendable {
    let body: @Sendable () -> Void

    init(_ body: @escaping @Sendable () -> Void) {
        self.body = body
    }
}

/// The reader's lifecycle and stop flag, the condition variable `stop()` waits on, and the
/// wake-up pipe the reader's waits `poll`.
///
/// `@unchecked Sendable`: every stored `var` is read and written only with `condition`'s lock
/// held; the condition is a `MonotonicCondition`, so a wait lasts its length whatever happens
/// to the wall clock. The pipe is written only by `requestStop` (never read: once readable
/// it stays so, and the reader ends) and closed when the control is freed, after the reader
/// (which holds the source, which holds the control) has ended, so no write or `poll` ever
/// meets a closed or reused descriptor.
private final class ReaderControl: @unchecked Sendable {
    private enum Phase {
        case idle, running, finished
    }

    // Guarded by `condition`'s lock.
    private var phase = Phase.idle
    private var stopRequested = false
    /// The wake-up pipe's read and write ends, -1 until `openWake`.
    private var wakeEnds: (read: Int32, write: Int32) = (-1, -1)

    private let condition = MonotonicCondition()

    deinit {
        if wakeEnds.read >= 0 {
            close(wakeEnds.read)
            close(wakeEnds.write)
        }
    }

    /// Creates the wake-up pipe; nil, or the `errno` of the failure.
    func openWake() -> Int32? {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return errno }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        condition.withLock { wakeEnds = (ends[0], ends[1]) }
        return nil
    }

    /// The pipe end that becomes readable when a stop is requested.
    var wake: Int32 {
        condition.withLock { wakeEnds.read }
    }

    /// Moves from idle to running; false if the source was started or stopped before.
    func claimStart() -> Bool {
        condition.withLock {
            guard phase == .idle, !stopRequested else { return false }
            phase = .running
            return true
        }
    }

    var isStopRequested: Bool {
        condition.withLock { stopRequested }
    }

    /// Sets the stop flag and wakes the reader. Returns whether a reader is (still) running.
    func requestStop() -> Bool {
        condition.withLock {
            stopRequested = true
            if wakeEnds.write >= 0 {
                var byte: UInt8 = 1
                _ = write(wakeEnds.write, &byte, 1)
            }
            condition.broadcast()
            return phase == .running
        }
    }

    /// Waits `duration` unless a stop is requested first: a `poll` of the wake-up pipe
    /// with the time left as its timeout. Returns true if stopping.
    func pause(for duration: Duration) -> Bool {
        let deadline = Self.deadline(after: duration)
        var entry = pollfd(fd: wake, events: Int16(POLLIN), revents: 0)
        while !isStopRequested {
            let left = deadline - MonotonicCondition.now
            if left <= .zero { break }
            entry.revents = 0
            // A signal cutting the wait short only goes round again.
            _ = poll(&entry, 1, Int32(clamping: (left.nanoseconds + 999_999) / 1_000_000))
        }
        return isStopRequested
    }

    func markFinished() {
        condition.withLock {
            phase = .finished
            condition.broadcast()
        }
    }

    /// Waits until the reader has finished, at most `duration`. Returns whether it has.
    func awaitFinished(within duration: Duration) -> Bool {
        let deadline = Self.deadline(after: duration)
        return condition.withLock {
            while phase == .running {
                if condition.wait(until: deadline) { break }
            }
            return phase != .running
        }
    }

    private static func deadline(after duration: Duration) -> Instant {
        MonotonicCondition.now + max(duration, .zero)
    }
}
