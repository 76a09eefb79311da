import Foundation
import HAL
import Testing

/// Equal-tempered pitch with a4 = 440 Hz, computed independently of the parser's table.
private func pitch(_ name: String, _ octave: Int) -> Double {
    let semitones: [String: Int] = [
        "c": 0, "c#": 1, "d": 2, "d#": 3, "e": 4, "f": 5, "f#": 6, "g": 7, "g#": 8, "a": 9, "a#": 10, "b": 11,
    ]
    let midi = (octave + 1) * 12 + semitones[name]!
    return 440 * pow(2, Double(midi - 69) / 12)
}

private func note(_ name: String, _ octave: Int, ms: Double) -> Tone {
    Tone(frequency: pitch(name, octave), duration: .nanoseconds(Int64((ms * 1_000_000).rounded())))
}

private func rest(ms: Double) -> Tone {
    .rest(.nanoseconds(Int64((ms * 1_000_000).rounded())))
}

struct RTTTLCase: Sendable, CustomTestStringConvertible {
    let text: String
    let tones: [Tone]
    var testDescription: String { text }
}

@Suite("RTTTL")
struct RTTTLTests {
    static let valid: [RTTTLCase] = [
        // The brief's example: 8th notes at 120 bpm are 250 ms, a quarter 500 ms.
        RTTTLCase(
            text: "beep:d=4,o=5,b=120:8c6,8e6,g6,p",
            tones: [note("c", 6, ms: 250), note("e", 6, ms: 250), note("g", 6, ms: 500), rest(ms: 500)]),
        // Defaults d=4, o=6, b=63: a quarter is 60/63 s.
        RTTTLCase(text: "defaults::c,d", tones: [note("c", 6, ms: 952.380952), note("d", 6, ms: 952.380952)]),
        RTTTLCase(text: ":b=60:a", tones: [note("a", 6, ms: 1000)]),
        // Octaves 4 to 7, default and explicit; a4 is 440 Hz.
        RTTTLCase(
            text: "octaves:d=4,o=4,b=60:a,a5,a6,a7,c,c7,b7",
            tones: [
                note("a", 4, ms: 1000), note("a", 5, ms: 1000), note("a", 6, ms: 1000), note("a", 7, ms: 1000),
                note("c", 4, ms: 1000), note("c", 7, ms: 1000), note("b", 7, ms: 1000),
            ]),
        // Sharps, including b# (the next octave's c).
        RTTTLCase(
            text: "sharps:d=8,o=4,b=100:c#,f#5,a#6,g#7,d#,b#",
            tones: [
                note("c#", 4, ms: 300), note("f#", 5, ms: 300), note("a#", 6, ms: 300), note("g#", 7, ms: 300),
                note("d#", 4, ms: 300), note("c", 5, ms: 300),
            ]),
        // Dotted: half as long again, the dot before or after the octave; dotted pauses.
        RTTTLCase(
            text: "dots:d=4,o=7,b=60:c.,8e.,16g6.,8c#.6,2p.,16p",
            tones: [
                note("c", 7, ms: 1500), note("e", 7, ms: 750), note("g", 6, ms: 375), note("c#", 6, ms: 750),
                rest(ms: 3000), rest(ms: 250),
            ]),
        // Every duration from a whole note to a 32nd.
        RTTTLCase(
            text: "lengths:o=6,b=240:1c,2c,4c,8c,16c,32c",
            tones: [1000, 500, 250, 125, 62.5, 31.25].map { note("c", 6, ms: $0) }),
        // Settings in any order, upper case, spaces around items.
        RTTTLCase(
            text: " Tune : B=120 , O=7, D=16 : C , 8E6 , P ",
            tones: [note("c", 7, ms: 125), note("e", 6, ms: 250), rest(ms: 125)]),
        // Fast tempo and short notes, as in the cue melodies.
        RTTTLCase(
            text: "fast:d=32,o=7,b=240:g,p,g",
            tones: [note("g", 7, ms: 31.25), rest(ms: 31.25), note("g", 7, ms: 31.25)]),
    ]

    @Test(arguments: RTTTLTests.valid)
    func validMelodies(_ c: RTTTLCase) throws {
        let melody = try RTTTL(parsing: c.text)
        #expect(melody.tones.count == c.tones.count)
        for (got, want) in zip(melody.tones, c.tones) {
            #expect(abs(got.frequency - want.frequency) <= 1e-9 * max(want.frequency, 1), "\(got) vs \(want)")
            #expect(got.duration == want.duration, "\(got) vs \(want)")
        }
    }

    @Test func nameAndSettingsAreKept() throws {
        let melody = try RTTTL(parsing: "speed-up:d=16,o=6,b=150:g,c7,e7,8g7")
        #expect(melody.name == "speed-up")
        #expect(melody.defaultDuration == 16)
        #expect(melody.defaultOctave == 6)
        #expect(melody.beatsPerMinute == 150)
        #expect(melody.duration == .milliseconds(500))
    }

    @Test func defaultsAreThoseOfTheSpecification() throws {
        let melody = try RTTTL(parsing: "x::c")
        #expect(melody.defaultDuration == 4)
        #expect(melody.defaultOctave == 6)
        #expect(melody.beatsPerMinute == 63)
    }

    struct Invalid: Sendable, CustomTestStringConvertible {
        let text: String
        let position: Int
        let reason: String
        var testDescription: String { "'\(text)'" }
    }

    static let invalid: [Invalid] = [
        Invalid(text: "", position: 1, reason: "empty"),
        Invalid(text: "   ", position: 1, reason: "empty"),
        Invalid(text: "nocolons", position: 9, reason: "missing ':' after the name"),
        Invalid(text: "name:d=4", position: 9, reason: "missing ':' after the settings"),
        Invalid(text: "x:d=4:", position: 7, reason: "no notes"),
        Invalid(text: "x:d=3:c", position: 5, reason: "d=3: duration must be one of 1, 2, 4, 8, 16, 32"),
        Invalid(text: "x:d=4,o=5,b=120:3c", position: 17, reason: "duration 3 is not one of 1, 2, 4, 8, 16, 32"),
        Invalid(text: "x:d=4:64c", position: 7, reason: "duration 64"),
        Invalid(text: "x:d=4:c,h", position: 9, reason: "unknown note 'h'"),
        Invalid(text: "x:o=9:c", position: 5, reason: "o=9: octave must be from 4 to 7"),
        Invalid(text: "x:d=4:c,d9", position: 10, reason: "octave 9 is not from 4 to 7"),
        Invalid(text: "x:d=4:c3", position: 8, reason: "octave 3"),
        Invalid(text: "x:b=0:c", position: 5, reason: "b=0: beats per minute must be from 1 to 900"),
        Invalid(text: "x:b=1000:c", position: 5, reason: "b=1000"),
        Invalid(text: "x:q=4:c", position: 3, reason: "unknown setting 'q'"),
        Invalid(text: "x:d=4,d=8:c", position: 7, reason: "given twice"),
        Invalid(text: "x:d4:c", position: 4, reason: "expected '=' after 'd'"),
        Invalid(text: "x:d=:c", position: 5, reason: "expected a number for 'd'"),
        Invalid(text: "x:d=4,:c", position: 7, reason: "empty setting"),
        Invalid(text: "x:d=4 o=5:c", position: 7, reason: "unexpected 'o' in the settings"),
        Invalid(text: "x:d=4:c,,d", position: 9, reason: "empty note"),
        Invalid(text: "x:d=4:c,d,", position: 11, reason: "missing note at the end"),
        Invalid(text: "x:d=4:cx", position: 8, reason: "unexpected 'x' after the note"),
        Invalid(text: "x:d=4:c..", position: 9, reason: "dotted only once"),
        Invalid(text: "x:d=4:p#", position: 8, reason: "a pause cannot be sharp"),
        Invalid(text: "x:d=4:p6", position: 8, reason: "a pause has no octave"),
        Invalid(text: "x:d=4:c:d", position: 8, reason: "unexpected ':'"),
    ]

    @Test(arguments: RTTTLTests.invalid)
    func invalidMelodiesSayWhereAndWhy(_ c: Invalid) {
        #expect {
            _ = try RTTTL(parsing: c.text)
        } throws: { error in
            guard let error = error as? RTTTLError else { return false }
            #expect(error.position == c.position, "\(error)")
            #expect(error.reason.contains(c.reason), "\(error)")
            #expect(error.description.hasPrefix("column \(c.position): "))
            return true
        }
    }
}
