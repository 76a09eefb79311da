import PacerCore
import Configurator
import Foundation
import HAL
import TestSupport
import Testing

private func ms(_ value: Double) -> Duration { .nanoseconds(Int64((value * 1_000_000).rounded())) }

@Suite("Cue book loader")
struct CueBookLoaderTests {
    @Test func theBundledCueBookDefinesEveryCueInBothStyles() throws {
        let book = try CueBookLoader.load(hardwareDir: hardwareDirectory)
        for cue in Cue.allCases {
            for style in CueStyle.allCases {
                #expect(!book.tones(for: cue, style: style).isEmpty, "\(cue) \(style)")
            }
        }
        #expect(book.tones(for: .speedUp, style: .beeps) == [
            Tone(frequency: 2400, duration: ms(60)), .rest(ms(40)),
            Tone(frequency: 3000, duration: ms(60)), .rest(ms(40)),
            Tone(frequency: 3600, duration: ms(60)),
        ])
        #expect(book.tones(for: .phaseChange, style: .beeps).count == 7)
    }

    /// The design in the file's header, checked: beeps short and in the piezo's loud range,
    /// melodies under 2 s and playable on a piezo, directions as documented, no silence after
    /// the last beep, every cue different from every other.
    @Test func theBundledCuesFollowTheirDesign() throws {
        let book = try CueBookLoader.load(hardwareDir: hardwareDirectory)
        func seconds(_ tones: [Tone]) -> Double { tones.reduce(0) { $0 + $1.duration.inSeconds } }
        for cue in Cue.allCases {
            let beeps = book.tones(for: cue, style: .beeps)
            let melody = book.tones(for: cue, style: .melody)
            #expect(seconds(beeps) <= 0.8, "\(cue) beeps last \(seconds(beeps)) s")
            #expect(seconds(melody) <= 2.0, "\(cue) melody lasts \(seconds(melody)) s")
            #expect(beeps.filter { !$0.isRest }.allSatisfy { (2000...4000).contains($0.frequency) }, "\(cue)")
            #expect(melody.filter { !$0.isRest }.allSatisfy { (1500...4000).contains($0.frequency) }, "\(cue)")
            #expect(beeps.last?.isRest == false, "\(cue) beeps end in silence")
        }
        // The three pace cues of the low profiles are the shortest.
        let speedUp = book.tones(for: .speedUp, style: .beeps)
        #expect(seconds(speedUp) <= 0.3 && seconds(book.tones(for: .onPace, style: .beeps)) <= 0.1)
        // Speed up rises, slow down falls, in both styles.
        for style in CueStyle.allCases {
            let up = book.tones(for: .speedUp, style: style).filter { !$0.isRest }.map(\.frequency)
            let down = book.tones(for: .slowDown, style: style).filter { !$0.isRest }.map(\.frequency)
            #expect(up == up.sorted() && up.first! < up.last!, "\(style)")
            #expect(down == down.sorted(by: >) && down.first! > down.last!, "\(style)")
        }
        for style in CueStyle.allCases {
            let sounds = Cue.allCases.map { book.tones(for: $0, style: style) }
            #expect(Set(sounds).count == Cue.allCases.count, "two cues sound the same as \(style)")
        }
    }

    /// A valid file with `speedUp` as the speed-up entry (starting at line 1) and the other
    /// cues after it, `omitting` one.
    static func file(speedUp: String, omitting: Cue? = nil) -> String {
        var text = speedUp + "\n"
        for cue in Cue.allCases where cue != .speedUp && cue != omitting {
            text += """
                \(cue.rawValue):
                  beeps: [{hz: 3000, on_ms: 50}]
                  melody: "x:d=8,o=7,b=120:c"

                """
        }
        return text
    }

    struct Broken: Sendable, CustomTestStringConvertible {
        let name: String
        let speedUp: String
        var omitting: Cue? = nil
        let line: Int
        let key: String?
        let reason: String
        var testDescription: String { name }
    }

    static let broken: [Broken] = [
        Broken(
            name: "unknown cue", speedUp: "speed-upp:\n  beeps: [{hz: 3000, on_ms: 50}]\n  melody: \"x::c\"",
            line: 1, key: "speed-upp", reason: "unknown cue (cues: speed-up, slow-down"),
        Broken(
            name: "missing cue", speedUp: "speed-up:\n  beeps: [{hz: 3000, on_ms: 50}]\n  melody: \"x::c\"",
            omitting: .gpsBack, line: 1, key: nil, reason: "missing cue 'gps-back': every cue needs beeps and a melody"),
        Broken(
            name: "missing beeps", speedUp: "speed-up:\n  melody: \"x::c\"",
            line: 2, key: nil, reason: "missing key 'speed-up.beeps'"),
        Broken(
            name: "missing melody", speedUp: "speed-up:\n  beeps: [{hz: 3000, on_ms: 50}]",
            line: 2, key: nil, reason: "missing key 'speed-up.melody'"),
        Broken(
            name: "zero on_ms", speedUp: "speed-up:\n  beeps:\n    - {hz: 3000, on_ms: 50}\n    - {hz: 3000, on_ms: 0}\n  melody: \"x::c\"",
            line: 4, key: "speed-up.beeps[1].on_ms", reason: "must be above 0 and at most 10000 ms, got 0"),
        Broken(
            name: "negative on_ms", speedUp: "speed-up:\n  beeps:\n    - hz: 3000\n      on_ms: -5\n  melody: \"x::c\"",
            line: 4, key: "speed-up.beeps[0].on_ms", reason: "must be above 0 and at most 10000 ms, got -5"),
        Broken(
            name: "negative off_ms", speedUp: "speed-up:\n  beeps: [{hz: 3000, on_ms: 50, off_ms: -1}]\n  melody: \"x::c\"",
            line: 2, key: "speed-up.beeps[0].off_ms", reason: "must be from 0 to 10000 ms, got -1"),
        Broken(
            name: "repeat 0", speedUp: "speed-up:\n  beeps: [{hz: 3000, on_ms: 50, off_ms: 10, repeat: 0}]\n  melody: \"x::c\"",
            line: 2, key: "speed-up.beeps[0].repeat", reason: "must be a whole number from 1 to 100, got 0"),
        Broken(
            name: "fractional repeat", speedUp: "speed-up:\n  beeps: [{hz: 3000, on_ms: 50, off_ms: 10, repeat: 1.5}]\n  melody: \"x::c\"",
            line: 2, key: "speed-up.beeps[0].repeat", reason: "got 1.5"),
        Broken(
            name: "repeat without a gap", speedUp: "speed-up:\n  beeps: [{hz: 3000, on_ms: 50, repeat: 3}]\n  melody: \"x::c\"",
            line: 2, key: "speed-up.beeps[0].repeat", reason: "needs a positive off_ms"),
        Broken(
            name: "zero hz", speedUp: "speed-up:\n  beeps: {hz: 0, on_ms: 50}\n  melody: \"x::c\"",
            line: 2, key: "speed-up.beeps.hz", reason: "must be from 20 to 10000 Hz, got 0"),
        Broken(
            name: "hz not a number", speedUp: "speed-up:\n  beeps: [{hz: high, on_ms: 50}]\n  melody: \"x::c\"",
            line: 2, key: "speed-up.beeps[0].hz", reason: "expected a number, got 'high'"),
        Broken(
            name: "missing hz", speedUp: "speed-up:\n  beeps: [{on_ms: 50}]\n  melody: \"x::c\"",
            line: 2, key: nil, reason: "missing key 'speed-up.beeps[0].hz'"),
        Broken(
            name: "unknown beep key", speedUp: "speed-up:\n  beeps: [{hz: 3000, on_ms: 50, pitch: 3}]\n  melody: \"x::c\"",
            line: 2, key: "speed-up.beeps[0].pitch", reason: "unknown key"),
        Broken(
            name: "no beeps", speedUp: "speed-up:\n  beeps: []\n  melody: \"x::c\"",
            line: 2, key: "speed-up.beeps", reason: "needs at least one beep"),
        Broken(
            name: "beeps not a list", speedUp: "speed-up:\n  beeps: loud\n  melody: \"x::c\"",
            line: 2, key: "speed-up.beeps", reason: "expected a list of beeps"),
        Broken(
            name: "bad RTTTL", speedUp: "speed-up:\n  beeps: [{hz: 3000, on_ms: 50}]\n  melody: \"x:d=4:c,h\"",
            line: 3, key: "speed-up.melody", reason: "not valid RTTTL: column 9: unknown note 'h'"),
        Broken(
            name: "bad RTTTL duration", speedUp: "speed-up:\n  beeps: [{hz: 3000, on_ms: 50}]\n  melody: \"x:d=3:c\"",
            line: 3, key: "speed-up.melody", reason: "not valid RTTTL: column 5: d=3"),
        Broken(
            name: "empty melody", speedUp: "speed-up:\n  beeps: [{hz: 3000, on_ms: 50}]\n  melody: \"\"",
            line: 3, key: "speed-up.melody", reason: "expected text"),
        Broken(
            name: "unknown cue key", speedUp: "speed-up:\n  beeps: [{hz: 3000, on_ms: 50}]\n  melody: \"x::c\"\n  melodie: \"x::d\"",
            line: 4, key: "speed-up.melodie", reason: "unknown key"),
        Broken(
            name: "cue not a mapping", speedUp: "speed-up: 3",
            line: 1, key: "speed-up", reason: "expected a mapping"),
    ]

    @Test(arguments: CueBookLoaderTests.broken)
    func brokenFilesAreRefusedWithFileLineKeyAndReason(_ c: Broken) throws {
        let dir = try makeTemporaryDirectory()
        let path = try write(CueBookLoaderTests.file(speedUp: c.speedUp, omitting: c.omitting), to: "cues.yaml", in: dir)
        #expect {
            _ = try CueBookLoader.load(path: path)
        } throws: { error in
            guard let error = error as? DataFileError else { return false }
            #expect(error.file == path)
            #expect(error.line == c.line, "\(error)")
            #expect(error.key == c.key, "\(error)")
            #expect(error.reason.contains(c.reason), "\(error)")
            return true
        }
    }

    @Test func aValidFileLoads() throws {
        let text = CueBookLoaderTests.file(
            speedUp: "speed-up:\n  beeps:\n    - {hz: 2000, on_ms: 10.5, off_ms: 20, repeat: 2}\n    - {hz: 3000, on_ms: 30}\n  melody: \"x:d=8,o=7,b=120:c,p\"")
        let book = try CueBookLoader.load(file: "cues.yaml", text: text)
        #expect(book.tones(for: .speedUp, style: .beeps) == [
            Tone(frequency: 2000, duration: .microseconds(10_500)), .rest(.milliseconds(20)),
            Tone(frequency: 2000, duration: .microseconds(10_500)), .rest(.milliseconds(20)),
            Tone(frequency: 3000, duration: .milliseconds(30)),
        ])
        #expect(book.tones(for: .speedUp, style: .melody) == [
            Tone(frequency: 2093.004522404789, duration: .milliseconds(250)), .rest(.milliseconds(250)),
        ])
    }

    @Test func aMissingFileIsRefusedWithItsPath() {
        #expect {
            _ = try CueBookLoader.load(hardwareDir: "/nonexistent-xyz")
        } throws: { error in
            (error as? DataFileError)?.description.hasPrefix("/nonexistent-xyz/cues.yaml: no such file") == true
        }
    }
}
