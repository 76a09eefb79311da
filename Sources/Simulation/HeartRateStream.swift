import HAL
import PacerCore
import Synchronization

/// A recorded heart-rate stream, what `sim:` heart-rate sources replay: rows at seconds from
/// the recording's start. As a text file (`.csv`):
///
/// ```
/// # seconds,bpm[,RR intervals in ms, space-separated]
/// 0,92
/// 1,93,645 650
/// 61,lost          # the strap went away (out of range, taken off): silence until the next row
/// 75,battery,80    # the strap's battery, per cent
/// ```
///
/// Blank lines and `#` comments are skipped. Seconds rise (equal is allowed); a gap between two
/// rows is the strap saying nothing, which the device hears as a loss after its silence.
public struct HeartRateStream: Hashable, Sendable {
    public enum Row: Hashable, Sendable {
        case measurement(HeartRateMeasurement)
        case lost
        case battery(Int)
    }

    public var rows: [(seconds: Double, row: Row)]

    public init(rows: [(seconds: Double, row: Row)] = []) {
        self.rows = rows
    }

    public static func == (a: HeartRateStream, b: HeartRateStream) -> Bool {
        a.rows.count == b.rows.count && zip(a.rows, b.rows).allSatisfy { $0.seconds == $1.seconds && $0.row == $1.row }
    }

    public func hash(into hasher: inout Hasher) {
        for r in rows {
            hasher.combine(r.seconds)
            hasher.combine(r.row)
        }
    }

    /// The measurements' count.
    public var measurements: Int {
        rows.reduce(0) { n, r in if case .measurement = r.row { n + 1 } else { n } }
    }

    /// Reads a stream's text; `file` names it in errors (`hr.csv:12: …`).
    public static func parse(_ text: String, file: String) throws(HeartRateStreamError) -> HeartRateStream {
        var rows: [(Double, Row)] = []
        var last = -Double.infinity
        var lineNumber = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            var line = Substring(raw)
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            line = Substring(String(line).trimmingWhitespace())
            if line.isEmpty { continue }
            func fail(_ reason: String) -> HeartRateStreamError {
                HeartRateStreamError(file: file, line: lineNumber, reason: reason)
            }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
                .map { String($0).trimmingWhitespace() }
            guard let seconds = Double(fields[0]), seconds.isFinite, seconds >= 0, seconds <= 7 * 86_400 else {
                throw fail("'\(fields[0])' is not a time in seconds from the start (0 to a week)")
            }
            guard seconds >= last else {
                throw fail("\(fields[0]) s comes before the row above it (\(last) s): rows go in time order")
            }
            last = seconds
            guard fields.count >= 2 else { throw fail("expected seconds,bpm (or seconds,lost; seconds,battery,PERCENT)") }
            switch fields[1] {
            case "lost":
                guard fields.count == 2 else { throw fail("a lost row has nothing after 'lost'") }
                rows.append((seconds, .lost))
            case "battery":
                guard fields.count == 3, let level = Int(fields[2]), (0...100).contains(level) else {
                    throw fail("expected seconds,battery,PERCENT with a whole per cent from 0 to 100")
                }
                rows.append((seconds, .battery(level)))
            default:
                guard fields.count <= 3 else { throw fail("expected seconds,bpm[,RR ms …]: \(fields.count) fields") }
                guard let bpm = Int(fields[1]), HeartRateStream.bpmRange.contains(bpm) else {
                    throw fail("'\(fields[1])' is not a heart rate (a whole number of beats per minute, 0 to 300)")
                }
                var rr: [Double] = []
                if fields.count == 3 {
                    for item in fields[2].split(separator: " ", omittingEmptySubsequences: true) {
                        guard let ms = Int(item), (200...3000).contains(ms) else {
                            throw fail("'\(item)' is not an RR interval (whole milliseconds, 200 to 3000)")
                        }
                        guard rr.count < 16 else { throw fail("more than 16 RR intervals in one row") }
                        rr.append(Double(ms) / 1000)
                    }
                }
                rows.append((seconds, .measurement(HeartRateMeasurement(bpm: bpm, contact: .detected, rrIntervals: rr))))
            }
        }
        return HeartRateStream(rows: rows)
    }

    /// Beats per minute a row may give (0: the strap sends no rate, as one off the chest does).
    public static let bpmRange = 0...300

    /// The stream as its text.
    public var text: String {
        var out = "# seconds,bpm[,RR intervals in ms]\n"
        for (seconds, row) in rows {
            let t = seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
            switch row {
            case .lost: out += "\(t),lost\n"
            case .battery(let level): out += "\(t),battery,\(level)\n"
            case .measurement(let m):
                out += "\(t),\(m.bpm)"
                if !m.rrIntervals.isEmpty {
                    out += "," + m.rrIntervals.map { String(Int(($0 * 1000).rounded())) }.joined(separator: " ")
                }
                out += "\n"
            }
        }
        return out
    }
}

/// A heart-rate stream that could not be read: the file, the line and why.
public struct HeartRateStreamError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var reason: String

    public init(file: String, line: Int, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    public var description: String { "\(file):\(line): \(reason)" }
}

/// A strap in the simulator: replays a `HeartRateStream` on the device's clock, each row at its
/// seconds from the source's start (less `skip`: a device booted again mid-run hears the rest).
/// Says `searching`, then `connected` at once, as a strap in range does.
public final class RecordedHeartRateSource: HeartRateSource {
    public let name: String
    private let stream: HeartRateStream
    private let clock: any PacerClock
    private let skip: Duration
    private let task = Mutex<ScheduledTask?>(nil)

    public init(stream: HeartRateStream, name: String, clock: any PacerClock, skip: Duration = .zero) {
        self.stream = stream
        self.name = name
        self.clock = clock
        self.skip = skip
    }

    public func start(_ sink: HeartRateEventSink) {
        let origin = clock.now
        sink.report(.status(.searching, detail: nil))
        sink.report(.status(.connected, detail: nil))
        let first = stream.rows.firstIndex { Duration.seconds($0.seconds) >= skip } ?? stream.rows.count
        schedule(first, origin: origin, sink: sink)
    }

    /// Row `i` at its time; each row schedules the next (one task pending at a time).
    private func schedule(_ i: Int, origin: Instant, sink: HeartRateEventSink) {
        guard i < stream.rows.count else { return }
        let at = origin + .milliseconds(Int64((stream.rows[i].seconds * 1000).rounded())) - skip
        let next = clock.schedule(at: max(at, clock.now)) { [self] in
            switch stream.rows[i].row {
            case .measurement(let m): sink.report(.measurement(m))
            case .lost: sink.report(.status(.lost, detail: "the strap went out of range"))
            case .battery(let level): sink.report(.battery(level))
            }
            schedule(i + 1, origin: origin, sink: sink)
        }
        task.withLock { $0 = next }
    }

    public func stop() {
        task.withLock { t in
            t?.cancel()
            t = nil
        }
    }
}
