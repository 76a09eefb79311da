#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HAL
import NMEA
import PacerCore
import Synchronization

/// A recorded NMEA stream replayed as a GPS (`file:///run.nmea`), paced by a `PacerClock`:
/// with the `VirtualClock` a replay runs in virtual time, deterministically, as fast as the
/// machine goes; with the board's `MonotonicClock` it plays in real time.
///
/// The recording is decoded by the NMEA engine as the replay goes, one chunk at a time, and
/// only the next cycle is scheduled on the clock (each delivery schedules the one after), so
/// a four-hour 10 Hz recording takes no more memory or timers than a short one.
///
/// Timing (`Pace.clock`): a cycle is released when the clock reaches the start instant plus
/// its UTC time minus the first timed cycle's, divided by `speed`. Cycles without a time
/// (`.noFix(nil)`: a receiver still searching sends `$GPRMC,,V,…`) are released right after
/// the cycle before them, at the same instant; before any timed cycle, at the start. A cycle
/// whose time goes backwards (two recordings joined end to end) is released right after the
/// one before it, and the replay goes on from there rather than stalling: release instants
/// never decrease and the order is always the file's.
///
/// Events: `opened(name)` at `start`, then one `epoch` per cycle, then `closed("end of
/// recording")` right after the last one (or a reason naming the file and the error, should
/// reading fail midway). `stop()` cancels what is scheduled; nothing is reported after it.
///
/// A file that cannot be opened (missing, unreadable, a directory) makes the initializer
/// throw `RecordingError`, naming the path and the system's reason, so a command given
/// `--source file:///missing.nmea` fails before it starts anything.
public final class NMEAFileSource: GPSSource {
    public enum Pace: Hashable, Sendable {
        /// Each cycle is released when the clock reaches start + (its UTC time − the first
        /// cycle's UTC time) / speed.
        case clock
        /// Every cycle, in order, at the instant of `start`, each in a task of its own on the
        /// clock's loop (other tasks due then are not held up behind the whole recording).
        case asFastAsPossible
    }

    public let path: String
    /// `file:///path.nmea`, with `?pace=fast` or `?speed=N` when they apply.
    public let name: String
    public let pace: Pace
    /// N× real time: UTC offsets are divided by `speed`.
    public let speed: Double

    private let clock: any PacerClock
    /// Everything mutable. `start`, `stop` and the statistics may be called from any thread;
    /// the replay itself runs in tasks on the clock's loop.
    private let state: Mutex<Replay>

    static let chunkSize = 16 * 1024

    /// Opens the recording. Throws `RecordingError` when it cannot be opened or is a
    /// directory. `speed` must be positive and finite.
    public init(path: String, clock: any PacerClock, pace: Pace = .clock, speed: Double = 1)
        throws(RecordingError)
    {
        precondition(speed > 0 && speed.isFinite, "replay speed must be positive, not \(speed)")
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw RecordingError(path: path, errno: errno) }
        var info = stat()
        if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            close(fd)
            throw RecordingError(path: path, errno: EISDIR)
        }
        self.path = path
        self.clock = clock
        self.pace = pace
        self.speed = speed
        var name = path.hasPrefix("/") ? "file://\(path)" : "file:\(path)"
        var query: [String] = []
        if pace == .asFastAsPossible { query.append("pace=fast") }
        if speed != 1 {
            query.append(speed == speed.rounded() && speed < 1e9 ? "speed=\(Int(speed))" : "speed=\(speed)")
        }
        if !query.isEmpty { name += "?" + query.joined(separator: "&") }
        self.name = name
        state = Mutex(Replay(fd: fd))
    }

    deinit {
        state.withLock { $0.closeFile() }
    }

    /// What the NMEA engine made of the recording so far.
    public var statistics: NMEAStatistics { state.withLock { $0.decoder.statistics } }

    /// How many cycles have been handed to the sink.
    public var delivered: Int { state.withLock { $0.delivered } }

    public func start(_ sink: GPSEventSink) {
        let go: Bool = state.withLock { r in
            guard !r.started, !r.stopped else { return false }
            r.started = true
            r.sink = sink
            r.origin = clock.now
            return true
        }
        guard go else { return }
        sink.opened(name)
        scheduleNext()
    }

    public func stop() {
        let task: ScheduledTask? = state.withLock { r in
            r.stopped = true
            r.closeFile()
            r.sink = nil
            return r.task
        }
        task?.cancel()
    }

    // MARK: - The replay, on the clock's loop

    private enum Next {
        case at(Instant)
        case end(String)
        case stopped
    }

    /// Decodes ahead to the next cycle and schedules its release, or reports the end.
    private func scheduleNext() {
        let (next, sink): (Next, GPSEventSink?) = state.withLock { r in
            guard !r.stopped, let sink = r.sink else { return (.stopped, nil) }
            let path = self.path
            switch r.peek() {
            case .epoch(let epoch):
                return (.at(r.release(epoch, pace: pace, speed: speed)), sink)
            case .end:
                r.closeFile()
                r.sink = nil
                return (.end("end of recording"), sink)
            case .failed(let code):
                r.closeFile()
                r.sink = nil
                return (.end("\(RecordingError(path: path, errno: code))"), sink)
            }
        }
        switch next {
        case .at(let deadline):
            let task = clock.schedule(at: deadline) { [self] in deliver() }
            state.withLock { $0.task = task }
        case .end(let reason):
            sink?.closed(reason)
        case .stopped:
            break
        }
    }

    private func deliver() {
        let (epoch, sink): (NMEAEpoch?, GPSEventSink?) = state.withLock { r in
            guard !r.stopped, let sink = r.sink, let epoch = r.pop() else { return (nil, nil) }
            r.delivered += 1
            return (epoch, sink)
        }
        guard let epoch, let sink else { return }
        sink.epoch(epoch)
        scheduleNext()
    }
}

/// The replay's state: the open file, the decoder, the cycles decoded but not yet released,
/// and the timing anchor.
private struct Replay {
    var fd: Int32
    var decoder = NMEADecoder()
    /// Cycles decoded ahead (at most one chunk's worth); `head` is the next one to release.
    var ready: [NMEAEpoch] = []
    var head = 0
    var atEnd = false
    var readError: Int32?

    var started = false
    var stopped = false
    var sink: GPSEventSink?
    var task: ScheduledTask?
    var delivered = 0

    /// The clock's `now` at `start`.
    var origin = Instant.zero
    /// A timed cycle and the instant it was released at: later cycles are placed from it.
    var anchor: (time: UTCTimestamp, instant: Instant)?
    /// The last timed cycle's time, to notice time going backwards.
    var lastTime: UTCTimestamp?
    /// The last release instant.
    var lastRelease: Instant?

    init(fd: Int32) {
        self.fd = fd
    }

    enum Peek {
        case epoch(NMEAEpoch)
        case end
        case failed(Int32)
    }

    /// The next cycle, decoding more of the file when none is ready.
    mutating func peek() -> Peek {
        while head == ready.count {
            if let readError { return .failed(readError) }
            if atEnd { return .end }
            readChunk()
        }
        return .epoch(ready[head])
    }

    mutating func pop() -> NMEAEpoch? {
        guard head < ready.count else { return nil }
        let epoch = ready[head]
        head += 1
        if head == ready.count {
            ready.removeAll(keepingCapacity: true)
            head = 0
        }
        return epoch
    }

    private mutating func readChunk() {
        guard fd >= 0 else {
            atEnd = true
            return
        }
        var decoded: [NMEAEpoch] = []
        let n = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: NMEAFileSource.chunkSize) { buffer in
            let n = read(fd, buffer.baseAddress, buffer.count)
            if n > 0 {
                decoder.feed(UnsafeBufferPointer(rebasing: buffer[0..<n]), onEpoch: { decoded.append($0) })
            }
            return n
        }
        if n == 0 {
            decoder.finish(onEpoch: { decoded.append($0) })
            atEnd = true
            closeFile()
        } else if n < 0 {
            let code = errno
            if code != EINTR { readError = code }
        }
        ready.append(contentsOf: decoded)
    }

    mutating func closeFile() {
        if fd >= 0 { close(fd) }
        fd = -1
    }

    /// The instant `epoch` is released at, and the anchor moved on.
    mutating func release(_ epoch: NMEAEpoch, pace: NMEAFileSource.Pace, speed: Double) -> Instant {
        let floor = lastRelease ?? origin
        var at = floor
        if pace == .clock, let time = epoch.time {
            if let anchor, let lastTime, time >= lastTime {
                let ms = time.millisecondsSince1970 - anchor.time.millisecondsSince1970
                let ns = speed == 1 ? ms * 1_000_000 : Int64((Double(ms) * 1e6 / speed).rounded())
                at = max(floor, anchor.instant + .nanoseconds(ns))
            } else {
                // The first timed cycle, or time went backwards: place it right after the
                // previous cycle and measure from here.
                anchor = (time, floor)
            }
            lastTime = time
        }
        lastRelease = at
        return at
    }
}

extension NMEAEpoch {
    /// The cycle's UTC time, when known.
    fileprivate var time: UTCTimestamp? {
        switch self {
        case .fix(let fix): fix.time
        case .noFix(let time): time
        }
    }
}
