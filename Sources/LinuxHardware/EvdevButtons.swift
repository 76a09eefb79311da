#if canImport(Glibc)
import Glibc
#endif
import CLinuxInput
import HAL
import Logging
import PacerCore
import Synchronization

/// Buttons as Linux input events (evdev): the Raspberry Pi's `gpio-key` device-tree overlay,
/// a USB keypad and a Bluetooth remote all appear as `/dev/input/event*`.
///
/// A thread reads the kernel's `struct input_event` records (24 bytes on 64-bit boards, 16
/// on 32-bit ones with 64-bit time: `CLinuxInput` reads both layouts), keeps the key events
/// (`EV_KEY`) of the chosen keys, and hands each press (value 1) and release (value 0) to
/// the sink; the kernel's key repeats (value 2) are dropped, since a hold is measured, not
/// repeated. Each edge carries the kernel's timestamp, mapped onto the clock from the first
/// event after each (re)open, so a hold's length is the kernel's measure, not the reading
/// thread's latency; mapped instants never go backwards. Contact chatter is the sink's
/// business (its debounce).
///
/// A device that vanishes (unplugged: `ENODEV`; a FIFO whose writers closed: end of file)
/// is reported once as gone, and opened again every `retryInterval` until it is back, then
/// reported connected; a button held at that moment is released without a pattern. A
/// device that cannot be opened at the start is reported gone the same way.
public final class EvdevButtons: ButtonSource {
    public let path: String
    public let name: String
    /// The key codes that count (`KEY_*`, e.g. 28 for Enter, 256 `BTN_0`); nil: every key.
    public let keys: Set<UInt16>?
    public let retryInterval: Duration
    private let clock: any PacerClock
    private let logger: Logger?
    private let thread = Mutex<ControlThread?>(nil)

    /// The kernel's event types and values this adapter reads.
    static let eventKey: UInt16 = 0x01
    static let released: Int32 = 0, pressed: Int32 = 1, repeated: Int32 = 2

    public init(path: String, keys: Set<UInt16>? = nil, clock: any PacerClock, retryInterval: Duration = .seconds(1),
                logger: Logger? = nil) {
        self.path = path
        self.name = "evdev:\(path)"
        self.keys = keys
        self.clock = clock
        self.retryInterval = retryInterval
        self.logger = logger
    }

    /// The size of one `struct input_event` on this machine.
    public static var eventSize: Int { Int(pacer_input_event_size()) }

    public func start(_ sink: ButtonSink) {
        let wake: WakePipe
        do {
            wake = try WakePipe()
        } catch {
            logger?.warning("\(name): cannot create the wake-up pipe: \(ControlIO.describe(error.code)); no buttons")
            sink.gone("\(path): cannot start: \(ControlIO.describe(error.code))")
            return
        }
        switch ControlThread.start(wake: wake, body: { [self] in run(sink, wake: wake) }) {
        case .success(let t): thread.withLock { $0 = t }
        case .failure(let error):
            wake.close()
            sink.gone("\(path): cannot start a thread: \(ControlIO.describe(error.code))")
        }
    }

    public func stop() {
        let t = thread.withLock { t -> ControlThread? in
            defer { t = nil }
            return t
        }
        t?.stop()
    }

    /// Opens, reads until the device goes away or `stop`, and again, until `stop`.
    private func run(_ sink: ButtonSink, wake: WakePipe) {
        var reportedGone = false
        while true {
            let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            if fd < 0 {
                let reason = "\(path): \(ControlIO.describe(errno))"
                if !reportedGone {
                    logger?.warning("buttons: \(reason)")
                    sink.gone(reason)
                    reportedGone = true
                }
                if waitForWake(wake, timeout: retryInterval) { return }
                continue
            }
            reportedGone = false
            sink.connected(path)
            let outcome = read(fd, sink: sink, wake: wake)
            close(fd)
            switch outcome {
            case .stopped:
                return
            case .gone(let reason):
                logger?.warning("buttons: \(reason)")
                sink.gone(reason)
                reportedGone = true
                if waitForWake(wake, timeout: retryInterval) { return }
            }
        }
    }

    private enum Outcome {
        case stopped
        case gone(String)
    }

    private func read(_ fd: Int32, sink: ButtonSink, wake: WakePipe) -> Outcome {
        let size = Self.eventSize
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: size * 64)
        var mapper = KernelTimeMapper()
        while true {
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return .gone("\(path): poll: \(ControlIO.describe(errno))")
            }
            if fds[1].revents != 0 { return .stopped }
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return .gone("\(path): \(ControlIO.describe(errno))")
            }
            if n == 0 { return .gone("\(path): closed") }
            pending += chunk[0..<n]
            var offset = 0
            while pending.count - offset >= size {
                pending.withUnsafeBytes { raw in
                    let base = raw.baseAddress!.advanced(by: offset)
                    var event = input_event()
                    withUnsafeMutableBytes(of: &event) { $0.copyMemory(from: UnsafeRawBufferPointer(start: base, count: size)) }
                    handle(event, sink: sink, mapper: &mapper)
                }
                offset += size
            }
            pending.removeFirst(offset)
        }
    }

    private func handle(_ event: input_event, sink: ButtonSink, mapper: inout KernelTimeMapper) {
        guard event.type == Self.eventKey, event.value == Self.pressed || event.value == Self.released else { return }
        if let keys, !keys.contains(event.code) { return }
        var e = event
        let micros = pacer_input_event_sec(&e) * 1_000_000 + pacer_input_event_usec(&e)
        let at = mapper.instant(kernelMicroseconds: micros, now: clock.now)
        sink.edge(event.code, down: event.value == Self.pressed, at: at)
    }

    /// Waits for `timeout` or a wake; true when woken (stop).
    private func waitForWake(_ wake: WakePipe, timeout: Duration) -> Bool {
        var fds = [pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)]
        let ms = Int32(clamping: timeout.nanoseconds / 1_000_000)
        while true {
            let ready = poll(&fds, 1, ms)
            if ready < 0, errno == EINTR { continue }
            return ready > 0
        }
    }
}

/// Maps the kernel's event timestamps onto the clock: the first event's time is the clock's
/// `now` when it was read, later ones keep their distances from it; never backwards.
struct KernelTimeMapper {
    private var anchor: (kernel: Int64, clock: Instant)?
    private var last: Instant?

    mutating func instant(kernelMicroseconds micros: Int64, now: Instant) -> Instant {
        let anchor = self.anchor ?? (micros, now)
        self.anchor = anchor
        var at = anchor.clock + .microseconds(micros - anchor.kernel)
        if let last, at < last { at = last }
        last = at
        return at
    }
}
