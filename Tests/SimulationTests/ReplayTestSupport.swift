import HAL
import NMEA
import PacerCore
import Simulation
import Synchronization
import TestSupport

// Helpers for the replay tests: recordings written to unique temporary files, receiver
// cycles (their sentences built by TestSupport), and an event log that notes the clock's
// time of every event.

enum ReplayFixture {
    /// A cycle with a fix: GGA, RMC (with `date`, ddmmyy) and GSA; position moves with `k`.
    static func fixCycle(centiseconds: Int, date: String, k: Int) -> String {
        let time = nmeaTime(centiseconds: centiseconds)
        let lat = "5130." + padded(k % 100_000, 5)
        let lon = "00007." + padded((k * 3) % 100_000, 5)
        return nmeaLine("GPGGA,\(time),\(lat),N,\(lon),W,1,09,0.8,35.0,M,47.0,M,,")
            + nmeaLine("GPRMC,\(time),A,\(lat),N,\(lon),W,5.\(k % 10),270.0,\(date),,,A")
            + nmeaLine("GPGSA,A,3,02,05,09,12,15,18,21,25,29,,,,1.6,0.8,1.4")
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
        let time = nmeaTime(centiseconds: centiseconds)
        return nmeaLine("GPGGA,\(time),,,,,0,00,99.9,,M,,M,,")
            + nmeaLine("GPRMC,\(time),V,,,,,,,\(date),,,N")
    }

    /// A report with neither time nor position, as a receiver sends while still searching.
    static let timelessNoFix = nmeaLine("GPRMC,,V,,,,,,,,,,N")

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

/// A recording on disk, removed (with its folder) when released.
final class ReplayFile {
    private let folder: TemporaryDirectory
    let path: String

    var directory: String { folder.path }

    init(text: String, name: String) {
        folder = TemporaryDirectory("replay")
        path = try! folder.file(name, text)
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
