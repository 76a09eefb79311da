#if canImport(Glibc)
import Glibc
#endif
import HAL
import LinuxHardware
import NMEA
import PacerCore
import Synchronization
import TestSupport

// Helpers for the serial source tests: NMEA cycles (their sentences built by TestSupport),
// what a test does with the pseudo-terminal standing in for a USB GPS, the board's clock
// running its loop on a thread, and an event log. The pseudo-terminal and the folder for the
// device symlink come from TestSupport.

enum SerialTest {
    /// One receiver cycle (GGA, RMC, GSA) at `second` seconds after 12:00:00 on 15 June
    /// 2024, at a position and speed that differ from cycle to cycle.
    static func cycle(_ second: Int) -> String {
        let t = 12 * 3600 + second
        let time = nmeaTime(secondOfDay: t)
        let lat = "48" + padded(7 + second / 1000, 2) + "." + padded(second % 1000, 3)
        let lon = "011" + padded(31 + second / 1000, 2) + "." + padded((second * 7) % 1000, 3)
        let speed = "\(second % 20).\(second % 10)"
        return nmeaLine("GPGGA,\(time),\(lat),N,\(lon),E,1,08,0.9,545.4,M,46.9,M,,")
            + nmeaLine("GPRMC,\(time),A,\(lat),N,\(lon),E,\(speed),084.4,150624,003.1,W,A")
            + nmeaLine("GPGSA,A,3,04,05,09,12,24,,,,,,,,2.5,1.3,2.1")
    }

    /// Cycles for the given seconds, as bytes.
    static func cycles(_ seconds: some Sequence<Int>) -> [UInt8] {
        Array(seconds.map(cycle).joined().utf8)
    }

    /// What a fresh `NMEADecoder` makes of `bytes` as a whole stream (finished at the end,
    /// as the source finishes a stream when the device goes away).
    static func decode(_ bytes: [UInt8]) -> (fixes: [Fix], statistics: NMEAStatistics) {
        var decoder = NMEADecoder()
        var fixes: [Fix] = []
        let collect = { (epoch: NMEAEpoch) in
            if case .fix(let fix) = epoch { fixes.append(fix) }
        }
        decoder.feed(bytes, onEpoch: collect)
        decoder.finish(onEpoch: collect)
        return (fixes, decoder.statistics)
    }

    static func sum(_ a: NMEAStatistics, _ b: NMEAStatistics) -> NMEAStatistics {
        var s = a
        s.bytes += b.bytes
        s.sentences += b.sentences
        s.skipped += b.skipped
        s.badChecksum += b.badChecksum
        s.missingChecksum += b.missingChecksum
        s.malformed += b.malformed
        s.overlong += b.overlong
        s.binaryPackets += b.binaryPackets
        s.garbageBytes += b.garbageBytes
        s.fixes += b.fixes
        return s
    }

    /// A NUL-terminated C string held in an array.
    static func string(_ chars: some Collection<CChar>) -> String {
        String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// The serial tests' pseudo-terminal (TestSupport's `PseudoTerminal`, in the system's default
/// mode: the source sets it): the master is the GPS side the test writes NMEA into; the slave
/// is the tty the source opens (through a symlink, as udev gives a USB GPS a stable name).
extension PseudoTerminal {
    /// Writes all of `bytes` into the master in chunks of the given sizes (cycling), pausing
    /// briefly between chunks so that the reader sees the splits, mid-sentence.
    func write(_ bytes: [UInt8], chunkSizes: [Int] = [1, 7, 13, 64]) async {
        var start = 0
        var k = 0
        while start < bytes.count {
            let end = min(start + chunkSizes[k % chunkSizes.count], bytes.count)
            var offset = start
            while offset < end {
                let n = bytes[offset..<end].withUnsafeBytes { Glibc.write(master, $0.baseAddress, $0.count) }
                if n > 0 {
                    offset += n
                } else if n < 0, errno != EINTR, errno != EAGAIN {
                    return
                }
            }
            start = end
            k += 1
            if k % 3 == 0 { try? await Task.sleep(for: .microseconds(300)) }  // the stimulus: bytes in bursts
        }
    }

    /// What the source wrote to the receiver: reads the master until `count` bytes came, or
    /// `timeout` passed (then returns what came).
    func read(count: Int, timeout: Duration = .seconds(10)) async -> [UInt8] {
        var bytes: [UInt8] = []
        _ = await eventually(within: timeout) {
            bytes += readAvailable(upTo: count - bytes.count)
            return bytes.count >= count
        }
        return bytes
    }

    /// Whatever reaches the master within `window` (for checking that nothing more came).
    func read(for window: Duration) async -> [UInt8] {
        var bytes: [UInt8] = []
        let clock = ContinuousClock()
        let deadline = clock.now + window
        repeat {
            bytes += readAvailable(upTo: 1 << 20)
            try? await Task.sleep(for: .milliseconds(5))  // the window is the claim: read it whole
        } while clock.now < deadline
        return bytes + readAvailable(upTo: 1 << 20)
    }

    /// What the master can read now, without waiting, at most `limit` bytes.
    private func readAvailable(upTo limit: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < limit, master >= 0 {
            var fds = [pollfd(fd: master, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 1, 0) > 0, fds[0].revents & Int16(POLLIN) != 0 else { break }
            let n = Glibc.read(master, &chunk, min(chunk.count, limit - bytes.count))
            guard n > 0 else { break }
            bytes += chunk[0..<n]
        }
        return bytes
    }

    /// The access modes (`O_RDONLY`, `O_RDWR`…) of this process's descriptors on the slave,
    /// sorted; the test's own slave descriptor (from `openpty`) is `O_RDWR`.
    func accessModesOnSlave() -> [Int32] {
        guard let dir = opendir("/proc/self/fd") else { return [] }
        defer { closedir(dir) }
        var modes: [Int32] = []
        var target = [CChar](repeating: 0, count: 256)
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            guard let fd = Int32(name) else { continue }
            let n = readlink("/proc/self/fd/\(name)", &target, target.count - 1)
            guard n > 0 else { continue }
            target[n] = 0
            guard SerialTest.string(target) == path else { continue }
            let flags = fcntl(fd, F_GETFL)
            if flags >= 0 { modes.append(flags & O_ACCMODE) }
        }
        return modes.sorted()
    }

    /// The slave's terminal settings (shared by every descriptor open on it).
    func attributes() -> termios? {
        var t = termios()
        return tcgetattr(slave, &t) == 0 ? t : nil
    }

    /// How many of this process's descriptors are open on the slave.
    func descriptorsOnSlave() -> Int {
        guard let dir = opendir("/proc/self/fd") else { return -1 }
        defer { closedir(dir) }
        var count = 0
        var target = [CChar](repeating: 0, count: 256)
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            guard name != ".", name != ".." else { continue }
            let n = readlink("/proc/self/fd/\(name)", &target, target.count - 1)
            guard n > 0 else { continue }
            target[n] = 0
            if SerialTest.string(target) == path { count += 1 }
        }
        return count
    }
}

/// The board's clock with its loop running on a thread of its own, as the firmware runs it.
final class SerialClockLoop: Sendable {
    let clock = MonotonicClock()
    private let thread = Mutex<pthread_t?>(nil)

    private final class Body: Sendable {
        let clock: MonotonicClock
        init(_ clock: MonotonicClock) { self.clock = clock }
    }

    init() {
        var handle = pthread_t()
        let context = Unmanaged.passRetained(Body(clock)).toOpaque()
        let created = pthread_create(&handle, nil, { raw in
            Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue().clock.run()
            return nil
        }, context)
        precondition(created == 0, "pthread_create failed")
        thread.withLock { $0 = handle }
    }

    /// Stops the loop (from a task on it, so `run` has certainly begun) and joins the thread.
    func shutdown() {
        guard let handle = thread.withLock({ t -> pthread_t? in defer { t = nil }; return t }) else { return }
        let clock = self.clock
        clock.execute { clock.stop() }
        pthread_join(handle, nil)
    }
}

/// What the handler heard, in order.
final class SerialEventLog: Sendable {
    private let events = Mutex<[GPSEvent]>([])

    func record(_ event: GPSEvent) {
        events.withLock { $0.append(event) }
    }

    var all: [GPSEvent] { events.withLock { $0 } }

    var fixes: [Fix] {
        all.compactMap { if case .fix(let fix) = $0 { fix } else { nil } }
    }

    var statuses: [GPSStatus] {
        all.compactMap { if case .status(let status, _) = $0 { status } else { nil } }
    }

    func details(of status: GPSStatus) -> [String] {
        all.compactMap { if case .status(status, let detail) = $0 { detail ?? "" } else { nil } }
    }

    func count(_ status: GPSStatus) -> Int {
        statuses.filter { $0 == status }.count
    }
}
