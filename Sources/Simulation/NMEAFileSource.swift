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
/// Offsets: every cycle has an offset in the recording, its UTC time minus the first timed
/// cycle's. Cycles without a time (`.noFix(nil)`: a receiver still searching sends
/// `$GPRMC,,V,…`) take the offset of the cycle before them (zero before any timed cycle). A
/// cycle whose time jumps (backwards: two recordings joined end to end, a receiver's week
/// rollover; or more than an hour ahead) comes one cycle after the one before it, and later
/// offsets are measured from it, so the replay goes on as the receiver would, rather than
/// stalling or waiting a day: offsets never decrease and the order is always the file's.
///
/// Timing (`Pace.clock`): a cycle is released when the clock reaches the start instant plus
/// its offset divided by `speed` (with `skip`, plus its offset minus the first replayed
/// cycle's). `Pace.asFastAsPossible` releases every cycle at the start instant.
///
/// Events: `opened(name)` at `start`, then one `epoch` per cycle, then `closed("end of
/// recording")` right after the last one (or a reason naming the file and the error, should
/// reading fail midway). `stop()` cancels what is scheduled; nothing is reported after it.
///
/// Faults (`Faults`, from the URI's `outage`, `invalid`, `unplug` and `skip`) change what
/// the receiver says, by recording offset: withheld cycles, cycles without a fix, an unplug
/// (`closed("unplugged")` at its start, `opened(name)` at its end, at their own instants),
/// a later start. A withheld cycle still passes on the clock at its instant (it is just not
/// delivered), so the recording ends when it would have.
///
/// Silence: when no cycle has been delivered for `silenceTimeout` (5 s) of clock time while
/// the receiver is plugged in (an outage, or a gap in the recording itself), the sink's
/// watchdog reports `silent`, once, as it does for a quiet serial port or gpsd, so a fix is
/// lost the same way whichever source is silent.
///
/// A file that cannot be opened (missing, unreadable, a directory) makes the initializer
/// throw `RecordingError`, naming the path and the system's reason, so a command given
/// `--source file:///missing.nmea` fails before it starts anything.
public final class NMEAFileSource: GPSSource {
    public enum Pace: Hashable, Sendable {
        /// Each cycle is released when the clock reaches start + its offset / speed.
        case clock
        /// Every cycle, in order, at the instant of `start`, each in a task of its own on the
        /// clock's loop (other tasks due then are not held up behind the whole recording).
        case asFastAsPossible
    }

    public let path: String
    /// `file:///path.nmea`, with `?pace=fast`, `speed=N` and the faults when they apply
    /// (`file:run.nmea?outage=60-90&skip=30`).
    public let name: String
    public let pace: Pace
    /// N× real time: offsets are divided by `speed`.
    public let speed: Double
    /// The scripted receiver faults; none by default.
    public let faults: Faults
    /// How long the plugged-in receiver may send no cycle before the sink hears `silent`.
    public let silenceTimeout: Duration
    /// Time without a fix after a wake from backup.
    public let hotStart: Duration
    /// In power-save the receiver sends one cycle per this period (the profile's position
    /// interval, as the firmware sets a real receiver's update period).
    public let powerSavePeriod: Duration

    /// The reason an unplug fault gives the sink.
    public static let unpluggedReason = "unplugged"

    private let clock: any PacerClock
    /// Everything mutable. `start`, `stop` and the statistics may be called from any thread;
    /// the replay itself runs in tasks on the clock's loop.
    private let state: Mutex<Replay>

    static let chunkSize = 16 * 1024

    /// Opens the recording. Throws `RecordingError` when it cannot be opened or is a
    /// directory. `speed` and `silenceTimeout` must be positive, and `speed` finite.
    ///
    /// `hotStart`: after the firmware wakes the replayed receiver from backup
    /// (`setPower(.tracking)`), its cycles carry no fix for this long, as a real receiver's
    /// after a hot start (the GPS module's figure from the hardware model).
    /// `powerSavePeriod`: in power-save it sends one cycle per period, as a real receiver.
    /// `label`: the file the recording was made from, named instead of `path` (a track
    /// replayed through a temporary recording, `file:run.gpx`).
    public init(
        path: String, clock: any PacerClock, pace: Pace = .clock, speed: Double = 1,
        faults: Faults = Faults(), silenceTimeout: Duration = .seconds(5), hotStart: Duration = .seconds(1),
        powerSavePeriod: Duration = .seconds(10), label: String? = nil
    ) throws(RecordingError) {
        precondition(speed > 0 && speed.isFinite, "replay speed must be positive, not \(speed)")
        precondition(silenceTimeout > .zero, "the silence timeout must be positive")
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
        self.faults = faults
        self.silenceTimeout = silenceTimeout
        self.hotStart = hotStart
        self.powerSavePeriod = powerSavePeriod
        let shown = label ?? path
        var name = shown.hasPrefix("/") ? "file://\(shown)" : "file:\(shown)"
        var query: [String] = []
        if pace == .asFastAsPossible { query.append("pace=fast") }
        if speed != 1 {
            query.append(speed == speed.rounded() && speed < 1e9 ? "speed=\(Int(speed))" : "speed=\(speed)")
        }
        query += faults.queryItems
        if !query.isEmpty { name += "?" + query.joined(separator: "&") }
        self.name = name
        state = Mutex(Replay(fd: fd))
    }

    deinit {
        state.withLock { $0.closeFile() }
    }

    /// What the NMEA engine made of the recording so far.
    public var statistics: NMEAStatistics { state.withLock { $0.decoder.statistics } }

    /// How many cycles have been handed to the sink (those made invalid by a fault included).
    public var delivered: Int { state.withLock { $0.delivered } }

    /// How many cycles an outage or an unplug withheld.
    public var withheld: Int { state.withLock { $0.withheld } }

    /// Cycles the receiver did not send because the firmware had put it in backup, or in
    /// power-save between its updates.
    public var asleep: Int { state.withLock { $0.asleep } }

    /// How many cycles `skip` dropped before the start.
    public var skipped: Int { state.withLock { $0.skipped } }

    public func start(_ sink: GPSEventSink) {
        let plugged: Bool? = state.withLock { r in
            guard !r.started, !r.stopped else { return nil }
            r.started = true
            r.sink = sink
            r.origin = clock.now
            r.begin(faults: faults)
            return !r.unplugged
        }
        guard let plugged else { return }
        sink.watchSilence(timeout: silenceTimeout, detail: "no data from \(path) for \(silenceTimeout)")
        if plugged {
            sink.opened(name)
        } else {
            sink.closed(Self.unpluggedReason)
        }
        scheduleNext()
    }

    public func stop() {
        let (task, sink): (ScheduledTask?, GPSEventSink?) = state.withLock { r in
            r.stopped = true
            r.closeFile()
            defer { r.sink = nil }
            return (r.task, r.sink)
        }
        task?.cancel()
        sink?.stopWatchingSilence()
    }

    // MARK: - The replay, on the clock's loop

    private enum Next {
        /// The next cycle, released at this instant.
        case cycle(Instant)
        /// The next unplug fault's start or end, at this instant.
        case plug(Instant)
        case end(String)
        case stopped

        var instant: Instant? {
            switch self {
            case .cycle(let at), .plug(let at): at
            case .end, .stopped: nil
            }
        }
    }

    /// Decodes ahead to the next cycle and schedules its release (or the unplug fault's start
    /// or end that comes first), or reports the end.
    private func scheduleNext() {
        let (next, sink): (Next, GPSEventSink?) = state.withLock { r in
            guard !r.stopped, let sink = r.sink else { return (.stopped, nil) }
            let path = self.path
            let next: Next
            switch r.peek() {
            case .epoch(_, let offset):
                // At the same offset the plug changes first: a cycle at an unplug's start is
                // lost, one at its end is the first heard again.
                if let change = r.plugChanges.first, change.offset <= offset {
                    next = .plug(r.release(change.offset, pace: pace, speed: speed))
                } else {
                    next = .cycle(r.release(offset, pace: pace, speed: speed))
                }
            case .end:
                r.closeFile()
                r.sink = nil
                return (.end("end of recording"), sink)
            case .failed(let code):
                r.closeFile()
                r.sink = nil
                return (.end("\(RecordingError(path: path, errno: code))"), sink)
            }
            return (next, sink)
        }
        switch next {
        case .cycle(let deadline):
            let task = clock.schedule(at: deadline) { [self] in deliver() }
            state.withLock { $0.task = task }
        case .plug(let deadline):
            let task = clock.schedule(at: deadline) { [self] in changePlug() }
            state.withLock { $0.task = task }
        case .end(let reason):
            sink?.closed(reason)
        case .stopped:
            break
        }
    }

    /// Releases the next cycle: to the sink as it is, as a cycle without a fix, or not at all,
    /// as the faults say for its offset.
    private func deliver() {
        let (epoch, sink): (NMEAEpoch?, GPSEventSink?) = state.withLock { r in
            guard !r.stopped, let sink = r.sink, let (epoch, offset) = r.pop() else { return (nil, nil) }
            if r.unplugged || faults.isSilent(at: offset) {
                r.withheld += 1
                return (nil, sink)
            }
            // A receiver in backup says nothing; one hot-starting says it has no fix yet.
            if r.power == .backup {
                r.asleep += 1
                return (nil, sink)
            }
            // One in power-save says something once per update period.
            if r.power == .powerSave {
                if let next = r.powerSaveNext, clock.now < next {
                    r.asleep += 1
                    return (nil, sink)
                }
                r.powerSaveNext = clock.now + powerSavePeriod
            }
            let hotStarting = r.wokeAt.map { clock.now - $0 < hotStart } ?? false
            r.delivered += 1
            return (faults.isInvalid(at: offset) || hotStarting ? .noFix(epoch.time) : epoch, sink)
        }
        guard let sink else { return }
        if let epoch { sink.epoch(epoch) }
        scheduleNext()
    }

    /// An unplug fault's start (the device goes away) or end (it is back).
    private func changePlug() {
        let (change, sink): (PlugChange.Kind?, GPSEventSink?) = state.withLock { r in
            guard !r.stopped, let sink = r.sink, !r.plugChanges.isEmpty else { return (nil, nil) }
            let change = r.plugChanges.removeFirst()
            r.unplugged = change.kind == .unplug
            return (change.kind, sink)
        }
        guard let change, let sink else { return }
        switch change {
        case .unplug: sink.closed(Self.unpluggedReason)
        case .replug: sink.opened(name)
        }
        scheduleNext()
    }
}

/// An unplug fault's start or end, at a recording offset.
private struct PlugChange {
    enum Kind { case unplug, replug }
    var offset: Duration
    var kind: Kind
}

/// The replay's state: the open file, the decoder, the cycles decoded but not yet released,
/// the offsets and the timing anchor, and where the faults stand.
private struct Replay {
    var fd: Int32
    var decoder = NMEADecoder()
    /// Cycles decoded ahead (at most one chunk's worth) with their offsets; `head` is the
    /// next one to release.
    var ready: [(epoch: NMEAEpoch, offset: Duration)] = []
    var head = 0
    var atEnd = false
    var readError: Int32?

    var started = false
    var stopped = false
    var sink: GPSEventSink?
    var task: ScheduledTask?
    var delivered = 0
    var withheld = 0
    var skipped = 0
    /// What the firmware asked of the receiver, and when it last woke it from backup.
    var power = GPSPowerState.tracking
    var wokeAt: Instant?
    /// Cycles not sent because the receiver was in backup, or in power-save between updates.
    var asleep = 0
    /// In power-save: the next cycle is sent at or after this.
    var powerSaveNext: Instant?

    // Offsets, measured as the file is decoded.
    /// A timed cycle and its offset: later cycles are measured from it.
    var base: (time: UTCTimestamp, offset: Duration)?
    /// The last timed cycle's time, to notice time going backwards.
    var lastTime: UTCTimestamp?
    /// The last cycle's offset.
    var lastOffset = Duration.zero
    /// The receiver's last cycle length (1 s until known): how far a cycle after a time jump
    /// comes after the one before it.
    var cycle = Duration.seconds(1)

    // Release instants.
    /// The clock's `now` at `start`.
    var origin = Instant.zero
    /// The offset released at `origin`: the first cycle replayed (zero without `skip`).
    var startOffset = Duration.zero
    /// The last release instant.
    var lastRelease: Instant?

    // Faults.
    /// The unplug faults' starts and ends still to come, in order.
    var plugChanges: [PlugChange] = []
    var unplugged = false

    init(fd: Int32) {
        self.fd = fd
    }

    enum Peek {
        case epoch(NMEAEpoch, offset: Duration)
        case end
        case failed(Int32)
    }

    /// Drops the cycles `skip` passes over, sets the start offset, and lays out the unplug
    /// faults still to come from there (the device starts unplugged inside one).
    mutating func begin(faults: NMEAFileSource.Faults) {
        startOffset = faults.skip
        while case .epoch(_, let offset) = peek() {
            guard offset < faults.skip else {
                startOffset = offset
                break
            }
            _ = pop()
            skipped += 1
        }
        for window in faults.unplugs where window.to > startOffset {
            if window.from <= startOffset {
                unplugged = true
            } else {
                plugChanges.append(PlugChange(offset: window.from, kind: .unplug))
            }
            plugChanges.append(PlugChange(offset: window.to, kind: .replug))
        }
    }

    /// The next cycle, decoding more of the file when none is ready.
    mutating func peek() -> Peek {
        while head == ready.count {
            if let readError { return .failed(readError) }
            if atEnd { return .end }
            readChunk()
        }
        return .epoch(ready[head].epoch, offset: ready[head].offset)
    }

    mutating func pop() -> (NMEAEpoch, Duration)? {
        guard head < ready.count else { return nil }
        let next = ready[head]
        head += 1
        if head == ready.count {
            ready.removeAll(keepingCapacity: true)
            head = 0
        }
        return next
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
        for epoch in decoded {
            ready.append((epoch, offset(of: epoch)))
        }
    }

    mutating func closeFile() {
        if fd >= 0 { close(fd) }
        fd = -1
    }

    /// The offset of the cycle decoded next (see `NMEAFileSource`), and the base moved on.
    private mutating func offset(of epoch: NMEAEpoch) -> Duration {
        var offset = lastOffset
        if let time = epoch.time {
            let step = lastTime.map { time.millisecondsSince1970 - $0.millisecondsSince1970 } ?? 0
            if let base, lastTime != nil, step >= 0, step <= Self.largestStep {
                let ms = time.millisecondsSince1970 - base.time.millisecondsSince1970
                offset = max(lastOffset, base.offset + .milliseconds(ms))
            } else if base == nil {
                base = (time, lastOffset)
            } else {
                // The receiver's time jumped (back, or further ahead than any pause in a
                // recording: a reset, a week rollover), not the world's: the cycle comes one
                // cycle after the last, and later offsets are measured from it.
                offset = lastOffset + cycle
                base = (time, offset)
            }
            if offset > lastOffset, offset - lastOffset <= .seconds(60) { cycle = offset - lastOffset }
            lastTime = time
        }
        lastOffset = offset
        return offset
    }

    /// The longest forward step between two cycles taken as real time: a recording with a
    /// longer gap (the receiver off for hours) is taken as a time jump.
    static let largestStep: Int64 = 3_600_000

    /// The instant `offset` is released at; never before the last release.
    mutating func release(_ offset: Duration, pace: NMEAFileSource.Pace, speed: Double) -> Instant {
        var at = origin
        if pace == .clock {
            let ns = max(offset - startOffset, .zero).nanoseconds
            at = origin + .nanoseconds(speed == 1 ? ns : Int64((Double(ns) / speed).rounded()))
        }
        at = max(at, lastRelease ?? origin)
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

extension NMEAFileSource {
    /// The replayed receiver follows the firmware's power commands as a real one does: in
    /// backup it sends nothing; woken (`.tracking`) from backup it sends cycles without a fix
    /// for `hotStart`; in power-save it sends one cycle per `powerSavePeriod`, the first a
    /// period after it was told (the fix that set it off was the last one before).
    public func setPower(_ power: GPSPowerState) {
        let now = clock.now
        state.withLock { r in
            if power == .tracking, r.power == .backup { r.wokeAt = now }
            if power == .powerSave, r.power != .powerSave { r.powerSaveNext = now + powerSavePeriod }
            if power != .powerSave { r.powerSaveNext = nil }
            r.power = power
        }
    }
}
