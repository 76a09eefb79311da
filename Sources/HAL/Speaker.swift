import PacerCore

/// Words said to the runner: the figures a beep cannot carry (a split's time, the
/// next phase's pace, where the runner stands), composed from the phrase book.
public struct Utterance: Hashable, Sendable {
    /// What gives way to what: a pace or safety cue never waits behind an announcement.
    public enum Priority: Int, Comparable, Hashable, Sendable, CaseIterable {
        /// A split, a phase's start, the end's summary, the status said on demand.
        case announcement = 0
        /// Faster, ease off, on pace.
        case pace = 1
        /// GPS lost, low battery, a storage fault, off the route.
        case safety = 2

        public static func < (a: Priority, b: Priority) -> Bool { a.rawValue < b.rawValue }
    }

    /// What is said, as the engine reads it.
    public var text: String
    /// The phrase book's key it was made from (`split`, `phase-start`, `status`, …).
    public var key: String
    public var priority: Priority

    /// `announcement`, `pace`, `safety`: as events name it.
    public var priorityName: String {
        switch priority {
        case .announcement: "announcement"
        case .pace: "pace"
        case .safety: "safety"
        }
    }

    public init(text: String, key: String, priority: Priority) {
        self.text = Utterance.capped(text)
        self.key = key
        self.priority = priority
    }

    /// The most characters one utterance says: an announcement is a sentence or two. Longer
    /// text (a name of 100 kB in a route) is cut at the last space before it, so a runner
    /// hears a sentence, and the engine never renders minutes of speech into memory.
    public static let maximumCharacters = 400

    /// `text` at most `maximumCharacters` long, cut at a space where there is one.
    public static func capped(_ text: String) -> String {
        guard text.count > maximumCharacters else { return text }
        let head = text.prefix(maximumCharacters)
        guard let space = head.lastIndex(where: \.isWhitespace), space > head.startIndex else { return String(head) }
        return String(head[..<space])
    }

    /// `text`'s sentences, each with its end mark (`.`, `!`, `?`, `;` or `:` before a space),
    /// in order: what an engine renders one at a time, so that it holds one sentence's sound
    /// at once and the first is heard while the next renders. A decimal point (`5.2`) is no
    /// end; text without one is one sentence.
    public static func sentences(of text: String) -> [String] {
        var sentences: [String] = []
        var current = ""
        var previous: Character?
        for character in text {
            if character.isWhitespace, let previous, ".!?;:".contains(previous) {
                let sentence = current.trimmingWhitespace()
                if !sentence.isEmpty { sentences.append(sentence) }
                current = ""
            } else {
                current.append(character)
            }
            previous = character
        }
        let last = current.trimmingWhitespace()
        if !last.isEmpty { sentences.append(last) }
        return sentences
    }
}

/// A voice: text to speech on the device's sound output, beside the buzzer. `say` returns at
/// once (the runtime loop never waits for audio); what is said queues behind what plays, on
/// the same output as the cues' tones, so a word and a beep never sound together.
public protocol Speaker: AnyObject, Sendable {
    /// The speaker's URI (`espeak:default?voice=en`, `record`, `null`).
    var name: String { get }
    /// Queues `utterance`.
    func say(_ utterance: Utterance)
    /// How long `text` takes to say: the engine's own rendering where there is one, else an
    /// estimate at the speaker's rate. The runtime schedules sounds and charges the energy
    /// model by it.
    func duration(of text: String) -> Duration
    /// Stops the announcement being said and drops those waiting (a pace or safety cue cuts
    /// in); utterances of higher priority are kept.
    func cutAnnouncements()
    /// Waits until everything queued has been said (for a command that exits afterwards).
    func drain()
    /// Why the speaker cannot speak (no engine, no voice, no output), or nil while it works.
    /// Utterances still "play", silently: the device runs on, with its beeps.
    var unavailableReason: String? { get }
}

extension Speaker {
    public var unavailableReason: String? { nil }
}

/// No voice: the device beeps only. Says why, for `hw check` and the journal.
public final class NullSpeaker: Speaker {
    public let reason: String

    public init(reason: String = "no speaker in the settings (speaker: null)") {
        self.reason = reason
    }

    public var name: String { "null" }
    public func say(_ utterance: Utterance) {}
    public func duration(of text: String) -> Duration { .zero }
    public func cutAnnouncements() {}
    public func drain() {}
    public var unavailableReason: String? { reason }
}

/// A voice that also speaks through others: a scenario's recording speaker (whose estimates
/// time the run, so it stays deterministic) and the engine rendering the same words into the
/// scenario's WAV file. The first speaker is the one the device goes by: its name, its
/// durations, whether it works.
public final class TeeSpeaker: Speaker {
    public let speakers: [any Speaker]

    /// `speakers` must not be empty: the first one leads.
    public init(_ first: any Speaker, also others: [any Speaker]) {
        speakers = [first] + others
    }

    public var name: String { speakers.map(\.name).joined(separator: "+") }
    public func say(_ utterance: Utterance) { for s in speakers { s.say(utterance) } }
    public func duration(of text: String) -> Duration { speakers[0].duration(of: text) }
    public func cutAnnouncements() { for s in speakers { s.cutAnnouncements() } }
    public func drain() { for s in speakers { s.drain() } }
    public var unavailableReason: String? { speakers[0].unavailableReason }
}
