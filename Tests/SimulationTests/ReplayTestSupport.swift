#if canImport(Glibc)
import Glibc
#endif
import HAL
import NMEA
import PacerCore
import Simulation
import Synchronization

// Helpers for the replay tests: recordings written to unique temporary files, NMEA with
// correct checksums, and an event log that notes the clock's time of every event.

enum ReplayFixture {
    /// `$body*hh` CR LF.
    static func sentence(_ body: String) -> String {
        var sum: UInt8 = 0
        for byte in body.utf8 { sum ^= byte }
        let digits = Array("0123456789ABCDEF")
        return "$\(body)*\(digits[Int(sum >> 4)])\(digits[Int(sum & 0x0F)])\r\n"
    }

    static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// `hhmmss.cc` for a time of day in hundredths of a second (wrapping at midnight).
    static func timeOfDay(centiseconds: Int) -> String {
        let c = centiseconds % (86_400 * 100)
        let s = c / 100
        return padded(s / 3600, 2) + padded(s / 60 % 60, 2) + padded(s % 60, 2) + "." + padded(c % 100, 2)
    }

    /// A cycle with a fix: GGA, RMC (with `date`, ddmmyy) and GSA; position moves with `k`.
    static func fixCycle(centiseconds: Int, date: String, k: Int) -> String {
        let time = timeOfDay(centiseconds: centiseconds)
        let lat = "5130." + padded(k % 100_000, 5)
        let lon = "00007." + padded((k * 3) % 100_000, 5)
        return sentence("GPGGA,\(time),\(lat),N,\(lon),W,1,09,0.8,35.0,M,47.0,M,,")
            + sentence("GPRMC,\(time),A,\(lat),N,\(lon),W,5.\(k % 10),270.0,\(date),,,A")
            + sentence("GPGSA,A,3,02,05,09,12,15,18,21,25,29,,,,1.6,0.8,1.4")
    }

    /// `seconds` cycles with a fix at 1 Hz from 08:00:00 on 1 June 2024: the cycle at offset
    /// k seconds is the k-th, so a fault window reads directly as cycle numbers.
    static func fixes(seconds: Int) -> String {
        var text = "# \(seconds) s at 1 Hz\n"
        for k in 0..<seconds {
            text += fixCycle(centiseconds: (8 * 3600 + k) * 100, date: "010624", k: k)
        }
        return text
    }

    /// A cycle that has a time but no position (receiver lost the sky).
    static func noFixCycle(centiseconds: Int, date: String) -> String {
        let time = timeOfDay(centiseconds: centiseconds)
        return sentence("GPGGA,\(time),,,,,0,00,99.9,,M,,M,,")
            + sentence("GPRMC,\(time),V,,,,,,,\(date),,,N")
    }

    /// A report with neither time nor position, as a receiver sends while still searching.
    static let timelessNoFix = sentence("GPRMC,,V,,,,,,,,,,N")

    /// Writes `text` to a new file in a unique temporary directory.
    static func file(_ text: String, name: String = "run.nmea") -> ReplayFile {
        ReplayFile(text: text, name: name)
    }

    /// What a fresh decoder makes of the file's bytes.
    static func decode(_ text: String) -> (epochs: [NMEAEpoch], statistics: NMEAStatistics) {
        var decoder = NMEADecoder()
        var epochs: [NMEAEpoch] = []
        decoder.feed(Array(text.utf8), onEpoch: { epochs.append($0) })
        decoder.finish(onEpoch: { epochs.append($0) })
        return (epochs, decoder.statistics)
    }
}

/// A recording on disk, removed (with its directory) when released.
final class ReplayFile {
    let directory: String
    let path: String

    init(text: String, name: String) {
        var template = Array("/tmp/pacer-replay-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        directory = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        path = "\(directory)/\(name)"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        precondition(fd >= 0, "cannot create \(path)")
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            precondition(n > 0, "cannot write \(path)")
            offset += n
        }
        close(fd)
    }

    deinit {
        unlink(path)
        rmdir(directory)
    }
}

/// Every event the handler heard, with the clock's `now` when it ran.
final class ReplayLog: Sendable {
    struct Entry: Hashable, Sendable {
        var at: Instant
        var event: GPSEvent
    }

    private let entries = Mutex<[Entry]>([])
    let clock: any PacerClock

    init(clock: any PacerClock) {
        self.clock = clock
    }

    /// A sink that records into this log.
    func sink(samplingInterval: Duration? = nil) -> GPSEventSink {
        GPSEventSink(clock: clock, samplingInterval: samplingInterval) { [self] event in
            let now = clock.now
            entries.withLock { $0.append(Entry(at: now, event: event)) }
        }
    }

    var all: [Entry] { entries.withLock { $0 } }

    var fixes: [(at: Instant, fix: Fix)] {
        all.compactMap { if case .fix(let fix) = $0.event { ($0.at, fix) } else { nil } }
    }

    var statuses: [GPSStatus] {
        all.compactMap { if case .status(let s, _) = $0.event { s } else { nil } }
    }
}
