import PacerCore
import HAL
import Synchronization

/// A buzzer that remembers which cue sounded when, on the injected clock, and plays nothing:
/// for scenarios and tests ("speed-up at t+130 s, then on-pace at t+190 s").
///
/// Safe to use from any thread; plays are kept in the order they were made.
public final class RecordingBuzzer: Buzzer {
    /// One `play` call.
    public struct Play: Hashable, Sendable, CustomStringConvertible {
        public var instant: Instant
        public var cue: Cue
        public var tones: [Tone]

        public init(instant: Instant, cue: Cue, tones: [Tone]) {
            self.instant = instant
            self.cue = cue
            self.tones = tones
        }

        public var description: String { "\(instant) \(cue.rawValue)" }
    }

    private let clock: any PacerClock
    private let recorded = Mutex<[Play]>([])

    public init(clock: any PacerClock) {
        self.clock = clock
    }

    public var name: String { "recording" }

    public func play(_ cue: Cue, tones: [Tone]) {
        let instant = clock.now
        recorded.withLock { $0.append(Play(instant: instant, cue: cue, tones: tones)) }
    }

    public func drain() {}

    /// Every play so far, oldest first.
    public var plays: [Play] { recorded.withLock { $0 } }

    /// The cues played so far, oldest first.
    public var cues: [Cue] { plays.map(\.cue) }

    /// Returns the plays so far and forgets them (for a test that checks one step at a time).
    public func takePlays() -> [Play] {
        recorded.withLock { plays in
            defer { plays.removeAll() }
            return plays
        }
    }
}
