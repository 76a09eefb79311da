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
/// `silent` (a fix, if there was one, is lost); the port stays open. The sink's watchdog
/// measures it on the injected clock (the reader only tells it of every read); the waits
/// between attempts to open are real time (the thread blocks in `poll`).
///
/// An unsupported baud rate is a configuration mistake, not a runtime condition: the
/// initializer throws (`SerialPortError`, naming the rate and the supported ones), so
/// `pacer gps watch --source serial:///dev/ttyACM0?baud=1234` fails before anything starts.
///
/// Rejected lines are logged at debug level, with their line number and reason.
///
/// Receiver power (`GPSSource.setPower`): with a command set (`receiver: .ubx` or `.pmtk`, the
/// URI's `receiver=`), `setPower` sends the receiver the commands `ReceiverCommands` encodes
/// for the state (`.tracking` and `.acquiring`: continuous; `.powerSave`: the receiver's power
/// save mode, one position every `powerSavePeriod`; `.backup`: backup or standby, until the
/// next command or for `backupWakeAfter`; `.off`: nothing, a serial line cannot cut power).
/// The tty is then opened for reading and writing. The reader thread does the writing: it
/// polls the tty for output space next to input, writes what the port takes (a short write
/// leaves the rest for the next round, EINTR is retried), and never waits for the receiver,
/// so reading goes on whatever the port accepts. Requests are sent in the order they were
/// made; if the port takes nothing, requests that have not started are dropped beyond the
/// last `maximumQueuedRequests`. The last state asked for is remembered: asked while the
/// device is away, it is sent as soon as it is open, and it is sent again on every reopen,
/// since a replugged receiver starts in its default mode. Without a command set (`.none`)
/// nothing is written and the tty is opened read-only.
///
/// Threading: `state` (a `Mutex`) guards every mutable field: the started/stopping flags,
/// the thread handle and wake-up pipe, the counters and the statistics, the power state
/// asked for and the requests not yet taken by the reader. The decoder, the read buffer and
/// the queue of bytes to write belong to the reader thread alone. `stop()` sets `stopping`,
/// writes a byte to the wake-up pipe (which the reader polls next to the tty, also while it
/// waits between attempts), and joins the thread; the thread closes the tty before it ends.
/// `setPower` writes a byte to the same pipe (under the lock, so never to a pipe `stop` has
/// closed); the reader tells the two apart by `stopping`. The thread holds the source until
/// then: a started source must be stopped. No `@unchecked Sendable` is needed: everything
/// shared is immutable or inside the `Mutex`.
public final class SerialNMEASource: GPSSource {
    public let path: String
    public let baud: Int
    /// `serial://<path>?baud=<baud>`, and `&receiver=<commands>` with a command set.
    public let name: String
    /// The commands `setPower` sends (`.none`: nothing).
    public let receiver: ReceiverCommandSet
    /// The position interval the receiver's power-save mode is set to.
    public let powerSavePeriod: Duration
    /// How long a receiver put in backup sleeps before it wakes itself (UBX only); nil: until
    /// the next command.
    public let backupWakeAfter: Duration?
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

    /// Power requests kept waiting when the port takes no more bytes; older ones that have
    /// not started are dropped.
    static let maximumQueuedRequests = 8

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
        /// The power state last asked for; sent on every open.
        var wanted: GPSPowerState?
        /// Asked for while open, not yet taken by the reader.
        var requests: [GPSPowerState] = []
        /// Power requests written out in full.
        var requestsSent = 0
    }

    /// Throws `SerialPortError` for a baud rate that is not in `SerialPort.supportedBaudRates`.
    /// `receiver` is the command set `setPower` uses; `powerSavePeriod` the update period of
    /// the receiver's power-save mode (the profile's position interval); `backupWakeAfter`
    /// how long a u-blox receiver stays in backup by itself (nil: until the next command).
    public init(
        path: String, baud: Int = 9600, clock: any PacerClock, logger: Logger? = nil,
        silenceTimeout: Duration = .seconds(5),
        initialRetryDelay: Duration = .milliseconds(250), maximumRetryDelay: Duration = .seconds(4),
        receiver: ReceiverCommandSet = .none, powerSavePeriod: Duration = .seconds(10),
        backupWakeAfter: Duration? = nil
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
        self.receiver = receiver
        self.powerSavePeriod = powerSavePeriod
        self.backupWakeAfter = backupWakeAfter
        name = "serial://\(path)?baud=\(baud)" + (receiver == .none ? "" : "&receiver=\(receiver.rawValue)")
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

    /// The receiver power state last asked for with `setPower` (nil: never asked).
    public var wantedPower: GPSPowerState? { state.withLock { $0.wanted } }

    /// How many power requests have been written to the receiver in full (a request re-sent
    /// on reopen counts again).
    public var powerRequestsSent: Int { state.withLock { $0.requestsSent } }

    // MARK: - Receiver power

    /// Asks the receiver for `power`; returns at once (from any thread). The reader thread
    /// writes the commands; if the device is not open they are sent when it opens.
    public func setPower(_ power: GPSPowerState) {
        let signal = receiver != .none
        state.withLock { s in
            s.wanted = power
            guard signal, s.isOpen, let wake = s.wake else { return }
            s.requests.append(power)
            // Under the lock: `stop` takes the pipe out under it before closing it. The pipe
            // is non-blocking; when full, the reader has a wake-up pending anyway.
            var byte: UInt8 = 2
            _ = write(wake.1, &byte, 1)
        }
    }

    /// What `setPower(power)` writes to this source's receiver (empty without a command set,
    /// and for `.off`).
    public func commandBytes(for power: GPSPowerState) -> [UInt8] {
        guard let request = Self.request(for: power, period: powerSavePeriod, backupWakeAfter: backupWakeAfter) else {
            return []
        }
        return ReceiverCommands.encode(request, for: receiver)
    }

    /// The receiver request for a power state: `.tracking` and `.acquiring` (a receiver that
    /// is searching is awake) are continuous operation; `.off` has none.
    public static func request(
        for power: GPSPowerState, period: Duration, backupWakeAfter: Duration?
    ) -> ReceiverPowerRequest? {
        switch power {
        case .tracking, .acquiring: .continuous
        case .powerSave: .powerSave(updatePeriod: period)
        case .backup: .backup(wakeAfter: backupWakeAfter)
        case .off: nil
        }
    }

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
        sink.watchSilence(timeout: silenceTimeout, detail: "no data from \(path) for \(silenceTimeout)")
        defer {
            sink.stopWatchingSilence()
            buffer.deallocate()
        }
        var delay = initialRetryDelay
        // The last reason logged at warning level and told to the sink: a device that stays
        // away is logged once, not every four seconds.
        var reported: String?
        while !isStopping {
            state.withLock { $0.openAttempts += 1 }
            switch SerialPort.open(path: path, speed: speed, writable: receiver != .none) {
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
                let wanted: GPSPowerState? = state.withLock { s in
                    s.isOpen = true
                    s.connections += 1
                    s.lastError = nil
                    s.currentStatistics = NMEAStatistics()
                    // A freshly opened receiver is in its default mode: what was asked for
                    // before (while away, or on the last connection) is sent again, once.
                    s.requests.removeAll()
                    return s.wanted
                }
                logger?.info("\(name): opened")
                sink.opened(name)
                let ending = readUntilGone(fd: fd, wake: wake, buffer: buffer, sink: sink, wanted: wanted)
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

    /// Reads one connection, and writes the power requests to it. Returns why the device went
    /// away, or nil when stopped.
    private func readUntilGone(
        fd: Int32, wake: Int32, buffer: UnsafeMutableBufferPointer<UInt8>, sink: GPSEventSink,
        wanted: GPSPowerState?
    ) -> String? {
        var decoder = NMEADecoder()
        let onEpoch: (NMEAEpoch) -> Void = { sink.epoch($0) }
        var onReject: ((NMEARejection) -> Void)?
        if let logger, logger.logLevel <= .debug {
            let name = self.name
            onReject = { rejection in logger.debug("\(name): rejected \(rejection)") }
        }
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        var outbox = Outbox(limit: Self.maximumQueuedRequests)
        func enqueue(_ power: GPSPowerState) {
            let bytes = commandBytes(for: power)
            guard !bytes.isEmpty else { return }
            logger?.debug("\(name): receiver \(receiver.rawValue) → \(power.rawValue) (\(bytes.count) bytes)")
            outbox.append(bytes)
        }
        if let wanted { enqueue(wanted) }

        /// The end of the stream: the cycle in progress is complete as far as it goes.
        func gone(_ why: String) -> String {
            decoder.finish(onEpoch: onEpoch, onReject: onReject)
            let statistics = decoder.statistics
            state.withLock { $0.currentStatistics = statistics }
            return "\(path): device gone: \(why)"
        }

        while true {
            // Until the receiver talks, the port takes output, the device goes or `stop`
            // writes to the wake pipe: the silence is the sink's to watch.
            fds[0].events = Int16(POLLIN) | (outbox.isEmpty ? 0 : Int16(POLLOUT))
            fds[0].revents = 0
            fds[1].revents = 0
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                let code = errno
                if code == EINTR { continue }
                return gone("poll failed: \(SerialPort.describe(code))")
            }
            var requested = false
            if fds[1].revents != 0 {
                Self.drain(wake)
                if isStopping { return nil }
                let requests: [GPSPowerState] = state.withLock { s in
                    defer { s.requests.removeAll() }
                    return s.requests
                }
                requests.forEach(enqueue)
                requested = !requests.isEmpty
            }
            if isStopping { return nil }
            let events = Int32(fds[0].revents)
            if events & POLLNVAL != 0 { return gone("descriptor invalid") }
            if !outbox.isEmpty, requested || events & POLLOUT != 0 {
                let (sent, failure) = outbox.write(to: fd)
                if sent > 0 { state.withLock { $0.requestsSent += sent } }
                if let failure { return gone("write failed: \(SerialPort.describe(failure))") }
            }
            if events & (POLLIN | POLLHUP | POLLERR) == 0 { continue }
            let n = read(fd, buffer.baseAddress, buffer.count)
            if n > 0 {
                decoder.feed(UnsafeBufferPointer(rebasing: buffer[0..<n]), onEpoch: onEpoch, onReject: onReject)
                let statistics = decoder.statistics
                state.withLock { $0.currentStatistics = statistics }
                sink.heard()
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
        let realTime = ContinuousClock()
        let deadline = realTime.now + delay
        while true {
            let left = deadline - realTime.now
            if left <= .zero { return isStopping }
            var fds = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            let ms = Int32(clamping: (left.nanoseconds + 999_999) / 1_000_000)
            // A signal cutting the poll short, or a wake-up that is not `stop` (a power
            // request racing the close), only goes round again.
            if poll(&fds, 1, ms) > 0 { Self.drain(wake) }
            if isStopping { return true }
        }
    }

    /// Empties the (non-blocking) wake-up pipe.
    private static func drain(_ wake: Int32) {
        var bytes = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &bytes, { read(wake, $0.baseAddress, $0.count) }) > 0 {}
    }
}

/// The power requests waiting to be written, in order, each a whole command sequence; the
/// reader thread's alone. The first may be partly written.
private struct Outbox {
    let limit: Int
    private var chunks: [[UInt8]] = []
    /// Bytes of the first chunk already written.
    private var offset = 0

    init(limit: Int) {
        self.limit = limit
    }

    var isEmpty: Bool { chunks.isEmpty }

    /// Queues `bytes`; when more than `limit` requests are waiting, drops the oldest that has
    /// not started (a half-written one is finished, so the receiver never gets a torn frame).
    mutating func append(_ bytes: [UInt8]) {
        chunks.append(bytes)
        while chunks.count > limit {
            chunks.remove(at: offset > 0 ? 1 : 0)
        }
    }

    /// Writes as much as the non-blocking `fd` takes. Returns how many requests were finished,
    /// and the errno that made writing fail for good (nil: the port is merely full).
    mutating func write(to fd: Int32) -> (finished: Int, failure: Int32?) {
        var finished = 0
        while let first = chunks.first {
            let n = first.withUnsafeBytes { raw in
                Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
            }
            if n > 0 {
                offset += n
                if offset == first.count {
                    chunks.removeFirst()
                    offset = 0
                    finished += 1
                }
                continue
            }
            if n == 0 { return (finished, nil) }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return (finished, nil) }
            return (finished, code)
        }
        return (finished, nil)
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
