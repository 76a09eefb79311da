/// A melody in RTTTL, the Ring Tone Text Transfer Language of Nokia phones:
/// `fanfare:d=8,o=6,b=180:g,c7,e7,4g7,16p,e7,2g7`.
///
/// Three sections separated by colons:
/// - a name (any text without a colon; may be empty);
/// - settings, each optional, in any order: `d` the default duration (1, 2, 4, 8, 16, 32;
///   default 4), `o` the default octave (4 to 7; default 6), `b` beats (quarter notes) per
///   minute (1 to 900; default 63);
/// - notes separated by commas: `[duration]note[#][.][octave][.]`, where note is `c d e f g a b`,
///   or `p` for a pause (which takes a duration and a dot but no octave). A dot makes the note
///   half as long again. Letters may be upper or lower case; spaces around items are ignored.
///
/// Pitches are equal-tempered with `a` in octave 4 at 440 Hz (scientific pitch notation:
/// `c6` is 1046.5 Hz, `a7` 3520 Hz). A whole note lasts four beats.
///
/// Errors say where (the 1-based column in the text) and why: a data file that holds a melody
/// reports both its own line and this column.
public struct RTTTL: Hashable, Sendable {
    public var name: String
    /// The default duration as a fraction of a whole note (4 = a quarter note).
    public var defaultDuration: Int
    public var defaultOctave: Int
    public var beatsPerMinute: Int
    public var tones: [Tone]

    public static let durations = [1, 2, 4, 8, 16, 32]
    public static let octaves = 4...7
    public static let tempos = 1...900

    /// Frequencies of c, c#, d, … b in octave 4, with a4 = 440 Hz. Other octaves are these times
    /// a power of two, so every pitch is exact to the last bit of a `Double`.
    static let octave4: [Double] = [
        261.62556530059862, 277.18263097687208, 293.66476791740757, 311.12698372208091,
        329.62755691286992, 349.22823143300388, 369.99442271163440, 391.99543598174927,
        415.30469757994513, 440.0, 466.16376151808993, 493.88330125612413,
    ]

    /// The frequency of a note: `semitone` 0 (c) to 11 (b) in `octave`. A semitone of 12
    /// (`b#`) is the next octave's c.
    public static func frequency(semitone: Int, octave: Int) -> Double {
        let octave = octave + semitone / 12
        let base = octave4[semitone % 12]
        let shift = octave - 4
        return shift >= 0 ? base * Double(1 << shift) : base / Double(1 << -shift)
    }

    /// A note's length: a `1/division` note at `beatsPerMinute`, half as long again when
    /// dotted, rounded to the nanosecond.
    public static func duration(division: Int, dotted: Bool, beatsPerMinute: Int) -> Duration {
        // A whole note is four beats: 240 s / bpm.
        let numerator: Int64 = 240_000_000_000 * (dotted ? 3 : 2)
        let denominator = Int64(beatsPerMinute) * Int64(division) * 2
        return .nanoseconds((numerator + denominator / 2) / denominator)
    }

    public init(name: String, defaultDuration: Int, defaultOctave: Int, beatsPerMinute: Int, tones: [Tone]) {
        self.name = name
        self.defaultDuration = defaultDuration
        self.defaultOctave = defaultOctave
        self.beatsPerMinute = beatsPerMinute
        self.tones = tones
    }

    public init(parsing text: String) throws(RTTTLError) {
        var p = Parser(text)
        self = try p.parse()
    }

    /// The melody's length.
    public var duration: Duration { tones.reduce(.zero) { $0 + $1.duration } }
}

/// Why an RTTTL string was refused, and where.
public struct RTTTLError: Error, Hashable, Sendable, CustomStringConvertible {
    /// 1-based column of the offending character (one past the end for "missing" errors).
    public var position: Int
    public var reason: String

    public init(position: Int, reason: String) {
        self.position = position
        self.reason = reason
    }

    public var description: String { "column \(position): \(reason)" }
}

/// A hand-written scanner over the characters: each step knows what it expects, so each error
/// names the column and what was wrong there.
private struct Parser {
    let chars: [Character]
    var i = 0

    init(_ text: String) { chars = Array(text) }

    func fail(_ reason: String, at index: Int? = nil) -> RTTTLError {
        RTTTLError(position: (index ?? i) + 1, reason: reason)
    }

    var atEnd: Bool { i >= chars.count }
    var current: Character? { i < chars.count ? chars[i] : nil }

    mutating func skipSpaces() {
        while let c = current, c == " " || c == "\t" || c == "\n" || c == "\r" { i += 1 }
    }

    /// Digits at the current position (nil if none), with the index where they began.
    mutating func number() -> (value: Int, start: Int)? {
        let start = i
        var value = 0
        while let c = current, let d = c.wholeNumberValue, c.isASCII {
            value = min(value * 10 + d, 1_000_000)  // saturate: any larger is out of range anyway
            i += 1
        }
        return i > start ? (value, start) : nil
    }

    mutating func parse() throws(RTTTLError) -> RTTTL {
        guard chars.contains(where: { !$0.isWhitespace }) else {
            throw fail("empty: expected name:settings:notes, e.g. beep:d=8,o=6,b=120:c,e,g")
        }
        // Name.
        guard let firstColon = chars.firstIndex(of: ":") else {
            throw fail("missing ':' after the name (expected name:settings:notes)", at: chars.count)
        }
        let name = String(chars[0..<firstColon]).trimmingSpaces
        i = firstColon + 1
        guard let secondColon = chars[i...].firstIndex(of: ":") else {
            throw fail("missing ':' after the settings (expected name:settings:notes)", at: chars.count)
        }
        // Settings.
        var settings: [Character: Int] = [:]
        let settingsEnd = secondColon
        skipSpaces()
        if i < settingsEnd {
            while true {
                skipSpaces()
                guard i < settingsEnd, let key = current?.lowercased().first else {
                    throw fail("empty setting (expected d=, o= or b=)")
                }
                guard key == "d" || key == "o" || key == "b" else {
                    throw fail("unknown setting '\(chars[i])' (expected d=, o= or b=)")
                }
                guard settings[key] == nil else { throw fail("setting '\(key)' given twice") }
                i += 1
                skipSpaces()
                guard current == "=" else { throw fail("expected '=' after '\(key)'") }
                i += 1
                skipSpaces()
                guard let (value, start) = number() else {
                    throw fail("expected a number for '\(key)'")
                }
                try check(setting: key, value: value, at: start)
                settings[key] = value
                skipSpaces()
                if i == settingsEnd { break }
                guard current == "," else {
                    throw fail("unexpected '\(chars[i])' in the settings (expected ',' or ':')")
                }
                i += 1
            }
        }
        let division = settings["d"] ?? 4
        let octave = settings["o"] ?? 6
        let bpm = settings["b"] ?? 63
        i = secondColon + 1

        // Notes.
        var tones: [Tone] = []
        skipSpaces()
        guard !atEnd else { throw fail("no notes after the settings") }
        while true {
            skipSpaces()
            tones.append(try note(division: division, octave: octave, bpm: bpm))
            skipSpaces()
            if atEnd { break }
            guard current == "," else {
                throw fail("unexpected '\(chars[i])' after the note (expected ',' before the next note)")
            }
            i += 1
        }
        return RTTTL(name: name, defaultDuration: division, defaultOctave: octave, beatsPerMinute: bpm, tones: tones)
    }

    func check(setting key: Character, value: Int, at start: Int) throws(RTTTLError) {
        switch key {
        case "d":
            guard RTTTL.durations.contains(value) else {
                throw fail("d=\(value): duration must be one of 1, 2, 4, 8, 16, 32", at: start)
            }
        case "o":
            guard RTTTL.octaves.contains(value) else {
                throw fail("o=\(value): octave must be from 4 to 7", at: start)
            }
        default:
            guard RTTTL.tempos.contains(value) else {
                throw fail("b=\(value): beats per minute must be from 1 to 900", at: start)
            }
        }
    }

    /// `[duration]note[#][.][octave][.]`
    mutating func note(division defaultDivision: Int, octave defaultOctave: Int, bpm: Int) throws(RTTTLError) -> Tone {
        var division = defaultDivision
        if let (value, start) = number() {
            guard RTTTL.durations.contains(value) else {
                throw fail("duration \(value) is not one of 1, 2, 4, 8, 16, 32", at: start)
            }
            division = value
        }
        guard let letter = current?.lowercased().first, current != "," else {
            throw fail(atEnd ? "missing note at the end (expected a-g or p)" : "empty note (expected a-g or p)")
        }
        let semitones: [Character: Int] = ["c": 0, "d": 2, "e": 4, "f": 5, "g": 7, "a": 9, "b": 11]
        let isPause = letter == "p"
        guard isPause || semitones[letter] != nil else {
            throw fail("unknown note '\(chars[i])' (expected c, d, e, f, g, a, b, or p for a pause)")
        }
        i += 1
        var semitone = semitones[letter] ?? 0
        if current == "#" {
            guard !isPause else { throw fail("a pause cannot be sharp") }
            semitone += 1
            i += 1
        }
        var dotted = false
        if current == "." {
            dotted = true
            i += 1
        }
        var octave = defaultOctave
        if let (value, start) = number() {
            guard !isPause else { throw fail("a pause has no octave", at: start) }
            guard RTTTL.octaves.contains(value) else {
                throw fail("octave \(value) is not from 4 to 7", at: start)
            }
            octave = value
        }
        if current == "." {
            guard !dotted else { throw fail("a note can be dotted only once") }
            dotted = true
            i += 1
        }
        let duration = RTTTL.duration(division: division, dotted: dotted, beatsPerMinute: bpm)
        return isPause ? .rest(duration) : Tone(frequency: RTTTL.frequency(semitone: semitone, octave: octave), duration: duration)
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var s = Substring(self)
        while s.first?.isWhitespace == true { s = s.dropFirst() }
        while s.last?.isWhitespace == true { s = s.dropLast() }
        return String(s)
    }
}
