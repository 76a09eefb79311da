#if canImport(Glibc)
import Glibc
#endif
import HAL
import Logging
import NMEA
import PacerCore
import Synchronization

/// A GPS receiver on a serial port (`serial:///dev/ttyACM0?baud=9600`): a USB GPS, or a UART
/// receiver on the board's pins, talking NMEA 0183.
///
/// `start` spawns a reader thread of its own. The thread opens the tty, puts it in raw 8N1
/// mode at the configured speed (`SerialPort.configure`), and feeds what it reads to an
/// `NMEADecoder`; each receiver cycle goes to the sink. When the device vanishes (a USB GPS
/// unplugged: read returns 0 or EIO/ENXIO, or poll reports a hang-up or an error) it reports
/// `closed`, then tries to open the same path again, 250 ms after, doubling to 4 s between
/// attempts, until the device comes back; a device that cannot be opened from the start is
/// retried the same way. When a stream ends, the cycle in progress is complete as far as it
/// goes and is delivered before `closed`. Each connection gets a fresh decoder, so a line cut
/// off by the unplug never glues onto the first line of the new stream; `statistics` sums
/// them all. While the device is away, `lastError` says why (the sink's status is already
/// `disconnected`, so a device missing from the start reaches the runtime only as that, and
/// as a warning in the log).
///
/// If the port is open and no byte arrives for `silenceTimeout` (5 s), the sink hears
/// `silent` (a fix, if there was one, is lost); the port stays open. The silence is measured
/// on the injected clock; the waits between attempts to open are real time (the thread
/// blocks in `poll`).
///
/// An unsupported baud rate is a configuration mistake, not a runtime condition: the
/// initializer throws (`SerialPortError`, naming the rate and the supported ones), so
/// `pacer gps watch --source serial:///dev/ttyACM0?baud=1234` fails before anything starts.
///
/// Rejected lines are logged at debug level, with their line number and reason.
///
/// Threading: `state` (a `Mutex`) guards every mutable field: the started/stopping flags,
/// the thread handle and wake-up pipe, the counters and the statistics. The decoder and the
/// read buffer belong to the reader thread alone. `stop()` sets `stopping`, writes a byte to
/// the wake-up pipe (which the reader polls next to the tty, also while it waits between
/// attempts), and joins the thread; the thread closes the tty before it ends. The thread
/// holds the source until then: a started source must be stopped. No `@unchecked Sendable`
/// is needed: everything shared is immutable or inside the `Mutex`.
public final class SerialNMEASource: GPSSource {
    public let path: String
    public let baud: Int
    /// `serial://<path>?baud=<baud>`.
    public let name: String
    /// How long the open port may stay quiet before the sink hears `silent`.
    public let silenceTimeout: Duration
    /// The wait before the first attempt to reopen; it doubles after each failed attempt.
    public let initialRetryDelay: Duration
    /// The longest wait between attempts to open the device.
    public let maximumRetryDelay: Duration

    private let speed: speed_t
    private let clock: any PacerClock
    private let logger: Logger?
    private let state = Mutex(State())

    /// Bytes read at a time: about 4 s of NMEA at 9600 baud, 0.4 s at 115200.
    static let readSize = 4096

    private struct State {
        var started = false
        var stopping = false
        var thread: pthread_t?
        /// Read end, write end.
        var wake: (Int32, Int32)?
        var isOpen = false
        var openAttempts = 0
        var connections = 0
        var lastError: String?
        /// The statistics of connections that have ended, summed.
        var endedStatistics = NMEAStatistics()
        /// The statistics of the open connection, as of its last read.
        var currentStatistics = NMEAStatistics()
    }

    /// Throws `SerialPortError` for a baud rate that is not in `SerialPort.supportedBaudRates`.
    public init(
        path: String, baud: Int = 9600, clock: any PacerClock, logger: Logger? = nil,
        silenceTimeout: Duration = .seconds(5),
        initialRetryDelay: Duration = .milliseconds(250), maximumRetryDelay: Duration = .seconds(4)
    ) throws(SerialPortError) {
        guard let speed = SerialPort.speed(forBaud: baud) else {
            throw SerialPort.unsupported(baud: baud, path: path)
        }
        precondition(initialRetryDelay > .zero && maximumRetryDelay >= initialRetryDelay, "bad retry delays")
        self.path = path
        self.baud = baud
        self.speed = speed
        self.clock = clock
        self.logger = logger
        self.silenceTimeout = silenceTimeout
        self.initialRetryDelay = initialRetryDelay
        self.maximumRetryDelay = maximumRetryDelay
        name = "serial://\(path)?baud=\(baud)"
    }

    // MARK: - Diagnostics

    /// What the NMEA engine made of every connection so far, summed.
    public var statistics: NMEAStatistics {
        state.withLock { $0.endedStatistics.summed(with: $0.currentStatistics) }
    }

    /// Whether the device is open now.
    public var isOpen: Bool { state.withLock { $0.isOpen } }

    /// How many times the device has been opened, or tried.
    public var openAttempts: Int { state.withLock { $0.openAttempts } }

    /// How many times the device has been opened.
    public var connections: Int { state.withLock { $0.connections } }

    /// Why the device is not open (the last failed open, or why it went away); nil while open.
    public var lastError: String? { state.withLock { $0.lastError } }

    // MARK: - GPSSource

    public func start(_ sink: GPSEventSink) {
        let go: Bool = state.withLock { s in
            guard !s.started, !s.stopping else { return false }
            s.started = true
            return true
        }
        guard go else { return }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            fail(sink, "cannot create the wake-up pipe: \(SerialPort.describe(errno))")
            return
        }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        let pipeEnds = (ends[0], ends[1])
        let wake = pipeEnds.0
        let body = ThreadBody { [self] in
            run(sink: sink, wake: wake)
        }
        let context = Unmanaged.passRetained(body).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { raw in
            Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, context)
        guard created == 0 else {
            Unmanaged<ThreadBody>.fromOpaque(context).release()
            close(pipeEnds.0)
            close(pipeEnds.1)
            fail(sink, "cannot start the reader thread: \(SerialPort.describe(created))")
            return
        }
        state.withLock { s in
            s.thread = thread
            s.wake = pipeEnds
        }
    }

    /// Ends the reader thread (at once: it is woken through its pipe) and closes the device.
    /// After `stop` returns the source reports nothing more (events it reported before may
    /// still be waiting on the clock's loop), and a cycle in progress is dropped.
    public func stop() {
        let (thread, wake): (pthread_t?, (Int32, Int32)?) = state.withLock { s in
            s.stopping = true
            defer {
                s.thread = nil
                s.wake = nil
            }
            return (s.thread, s.wake)
        }
        guard let wake else { return }
        var byte: UInt8 = 1
        _ = write(wake.1, &byte, 1)
        if let thread {
            guard pthread_equal(thread, pthread_self()) == 0 else {
                // Called from the reader thread itself (a log handler?): it ends after this
                // call returns; the two pipe descriptors are left to the process.
                pthread_detach(thread)
                return
            }
            pthread_join(thread, nil)
        }
        close(wake.0)
        close(wake.1)
    }

    // MARK: - The reader thread

    private var isStopping: Bool { state.withLock { $0.stopping } }

    private func fail(_ sink: GPSEventSink, _ reason: String) {
        let text = "\(name): \(reason)"
        state.withLock { $0.lastError = text }
        logger?.error("\(text)")
        sink.closed(text)
    }

    /// Opens, reads until the device goes, waits, opens again, until `stop`.
    private func run(sink: GPSEventSink, wake: Int32) {
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: Self.readSize)
        defer { buffer.deallocate() }
        var delay = initialRetryDelay
        // The last reason logged at warning level and told to the sink: a device that stays
        // away is logged once, not every four seconds.
        var reported: String?
        while !isStopping {
            state.withLock { $0.openAttempts += 1 }
            switch SerialPort.open(path: path, speed: speed) {
            case .failure(let error):
                let reason = error.description
                state.withLock { $0.lastError = reason }
                if reason != reported {
                    logger?.warning("\(name): \(reason); retrying every \(maximumRetryDelay) at most")
                    sink.closed(reason)
                    reported = reason
                } else {
                    logger?.debug("\(name): \(reason)")
                }
                if waitForStop(wake, delay) { return }
                delay = min(delay * 2, maximumRetryDelay)

            case .success(let fd):
                delay = initialRetryDelay
                reported = nil
                state.withLock { s in
                    s.isOpen = true
                    s.connections += 1
                    s.lastError = nil
                    s.currentStatistics = NMEAStatistics()
                }
                logger?.info("\(name): opened")
                sink.opened(name)
                let ending = readUntilGone(fd: fd, wake: wake, buffer: buffer, sink: sink)
                close(fd)
                state.withLock { s in
                    s.isOpen = false
                    s.endedStatistics = s.endedStatistics.summed(with: s.currentStatistics)
                    s.currentStatistics = NMEAStatistics()
                    if let ending { s.lastError = ending }
                }
                guard let ending else { return }  // stopped
                logger?.warning("\(name): \(ending); reopening")
                sink.closed(ending)
                reported = ending
                // A replugged USB device takes a moment to enumerate; try again after the
                // first delay rather than at once.
                if waitForStop(wake, delay) { return }
            }
        }
    }

    /// Reads one connection. Returns why the device went away, or nil when stopped.
    private func readUntilGone(
        fd: Int32, wake: Int32, buffer: UnsafeMutableBufferPointer<UInt8>, sink: GPSEventSink
    ) -> String? {
        var decoder = NMEADecoder()
        let onEpoch: (NMEAEpoch) -> Void = { sink.epoch($0) }
        var onReject: ((NMEARejection) -> Void)?
        if let logger, logger.logLevel <= .debug {
            let name = self.name
            onReject = { rejection in logger.debug("\(name): rejected \(rejection)") }
        }
        var lastHeard = clock.now
        var silenceReported = false
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]

        /// The end of the stream: the cycle in progress is complete as far as it goes.
        func gone(_ why: String) -> String {
            decoder.finish(onEpoch: onEpoch, onReject: onReject)
            let statistics = decoder.statistics
            state.withLock { $0.currentStatistics = statistics }
            return "\(path): device gone: \(why)"
        }

        while true {
            // Wake for the silence deadline, and at least once a second whatever the clock.
            var timeout: Int32 = 1000
            if !silenceReported {
                let left = (lastHeard + silenceTimeout) - clock.now
                timeout = Int32(clamping: min(1000, max(0, (left.nanoseconds + 999_999) / 1_000_000)))
            }
            fds[0].revents = 0
            fds[1].revents = 0
            let ready = poll(&fds, 2, timeout)
            if ready < 0 {
                let code = errno
                if code == EINTR { continue }
                return gone("poll failed: \(SerialPort.describe(code))")
            }
            if fds[1].revents != 0 || isStopping { return nil }
            let events = Int32(fds[0].revents)
            if events == 0 {
                if !silenceReported, clock.now - lastHeard >= silenceTimeout {
                    silenceReported = true
                    logger?.info("\(name): silent for \(silenceTimeout)")
                    sink.silent("no data from \(path) for \(silenceTimeout)")
                }
                continue
            }
            if events & POLLNVAL != 0 { return gone("descriptor invalid") }
            let n = read(fd, buffer.baseAddress, buffer.count)
            if n > 0 {
                decoder.feed(UnsafeBufferPointer(rebasing: buffer[0..<n]), onEpoch: onEpoch, onReject: onReject)
                let statistics = decoder.statistics
                state.withLock { $0.currentStatistics = statistics }
                lastHeard = clock.now
                silenceReported = false
                continue
            }
            if n == 0 { return gone("hang-up (end of file)") }
            let code = errno
            if code == EINTR || code == EAGAIN || code == EWOULDBLOCK {
                // Nothing to read after all; only a hang-up or error makes that final.
                if events & (POLLHUP | POLLERR) == 0 { continue }
                return gone(events & POLLHUP != 0 ? "hang-up" : "error condition on the port")
            }
            return gone(SerialPort.describe(code))
        }
    }

    /// Waits `delay` (real time: this thread blocks in the kernel), or less if `stop` is
    /// called. Returns whether it was.
    private func waitForStop(_ wake: Int32, _ delay: Duration) -> Bool {
        var fds = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        let ms = Int32(clamping: (delay.nanoseconds + 999_999) / 1_000_000)
        // A signal cutting the wait short only makes the next attempt come early.
        return poll(&fds, 1, ms) > 0 || isStopping
    }
}

/// The closure a reader thread runs, boxed to cross `pthread_create`'s context pointer.
private final class ThreadBody: Sendable {
    let run: @Sendable () -> Void

    init(_ run: @escaping @Sendable () -> Void) {
        self.run = run
    }
}

extension NMEAStatistics {
    /// Two streams' counts added together.
    fileprivate func summed(with other: NMEAStatistics) -> NMEAStatistics {
        var s = self
        s.bytes += other.bytes
        s.sentences += other.sentences
        s.skipped += other.skipped
        s.badChecksum += other.badChecksum
        s.missingChecksum += other.missingChecksum
        s.malformed += other.malformed
        s.overlong += other.overlong
        s.binaryPackets += other.binaryPackets
        s.garbageBytes += other.garbageBytes
        s.fixes += other.fixes
        return s
    }
}
