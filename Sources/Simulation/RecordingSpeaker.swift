import HAL
import PacerCore
import Synchronization

/// A speaker that remembers what was said when, on the injected clock, and says nothing: for
/// scenarios and tests. Its duration estimate is deterministic (words at a fixed rate, a
/// number's digits counting as words: "5 41" is two numbers of three syllables in all), so
/// scenarios stay byte-identical run to run.
public final class RecordingSpeaker: Speaker {
    /// One `say`, and whether a cue cut it.
    public struct Said: Hashable, Sendable, CustomStringConvertible {
        public var instant: Instant
        public var utterance: Utterance
        public var duration: Duration
        public var cut: Bool

        public var description: String { "\(instant) \(utterance.key)\(cut ? " (cut)" : ""): \(utterance.text)" }
    }

    /// Words a minute the estimate assumes.
    public let wordsPerMinute: Double
    private let clock: any PacerClock
    private let recorded = Mutex<[Said]>([])

    public init(clock: any PacerClock, wordsPerMinute: Double = 160) {
        self.clock = clock
        self.wordsPerMinute = wordsPerMinute
    }

    public var name: String { "record" }

    public func say(_ utterance: Utterance) {
        let said = Said(instant: clock.now, utterance: utterance, duration: duration(of: utterance.text), cut: false)
        recorded.withLock { $0.append(said) }
    }

    /// Words (a run of letters) count one each; a number counts one per two digits, rounded
    /// up; a sentence's end adds a pause of half a word. Whole milliseconds.
    public func duration(of text: String) -> Duration {
        var units = 0.0
        var word = ""
        func close() {
            guard !word.isEmpty else { return }
            let digits = word.filter(\.isNumber).count
            units += digits > 0 ? Double((digits + 1) / 2) : 1
            word = ""
        }
        for ch in text {
            if ch.isLetter || ch.isNumber {
                word.append(ch)
            } else {
                close()
                if ch == "." || ch == ":" || ch == "," { units += ch == "," ? 0.25 : 0.5 }
            }
        }
        close()
        let ms = (units * 60_000 / wordsPerMinute).rounded()
        return .milliseconds(Int64(ms))
    }

    /// Marks the announcement being said as cut (its estimated end not reached yet).
    public func cutAnnouncements() {
        let now = clock.now
        recorded.withLock { all in
            for i in all.indices.reversed() where all[i].utterance.priority == .announcement {
                if all[i].instant + all[i].duration > now { all[i].cut = true }
                break
            }
        }
    }

    public func drain() {}

    /// Everything said so far, oldest first.
    public var said: [Said] { recorded.withLock { $0 } }
}
