import Foundation
import TestSupport
import Testing

/// `pacer scenario run|test` as a person runs them, on the bundled scenarios.
@Suite("Scenarios end to end", .serialized)
struct ScenarioEndToEndTests {
    static let files = ["timeline.txt", "events.jsonl", "track.gpx", "summary.json"]

    func contents(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    @Test func aBundledScenarioReproducesItsGoldensWithSchemaValidGPXAndCueAudio() throws {
        let out = try makeTemporaryDirectory()
        let result = try Pacer.run(["scenario", "run", "Scenarios/steady", "--out", out, "--buzzer", "wav:\(out)/cues.wav"])
        #expect(result.status == 0, "\(result.stderr)")
        // It prints the timeline.
        #expect(result.stdout.contains("00:02:00  phase 2/3 steady  "))
        #expect(result.stdout.contains("8/8 expectations hold"))
        for f in Self.files {
            #expect(contents("\(out)/\(f)") == contents("\(repositoryRoot)/Scenarios/steady/golden/\(f)"), "\(f)")
        }
        let schema = repositoryRoot + "/../shared/schemas/gpx-1.1.xsd"
        let lint = try Program.run("/usr/bin/xmllint", ["--noout", "--schema", schema, "\(out)/track.gpx"])
        #expect(lint.status == 0, "xmllint: \(lint.stderr)")
        // The cues went to the WAV file too: a RIFF header and sound after it.
        let wav = try #require(contents("\(out)/cues.wav"))
        #expect(wav.prefix(4) == Data("RIFF".utf8))
        #expect(wav.count > 44 + 8000)
    }

    /// `--buzzer wav:FILE?timed=yes`: each cue where it fell on the run's clock, silence
    /// between, so a person listens along the timeline (issue 39, item 15: the plain file is a
    /// 12-minute run's cues back to back, 4.6 s).
    @Test func aTimedWAVHoldsEachCueWhereItFell() throws {
        let out = try makeTemporaryDirectory()
        let result = try Pacer.run(["scenario", "run", "Scenarios/steady", "--out", out, "--quiet",
                                    "--buzzer", "wav:\(out)/run.wav?timed=yes"])
        #expect(result.status == 0, "\(result.stderr)")
        let wav = try #require(contents("\(out)/run.wav"))
        let rate = wav[24..<28].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        let samples: [Int16] = stride(from: 44, to: wav.count - 1, by: 2).map {
            Int16(bitPattern: UInt16(wav[$0]) | UInt16(wav[$0 + 1]) << 8)
        }
        func loud(_ from: Double, _ to: Double) -> Bool {
            let a = max(0, Int(from * Double(rate))), b = min(samples.count, Int(to * Double(rate)))
            return a < b && samples[a..<b].contains { abs(Int($0)) > 100 }
        }
        let cues = try String(contentsOfFile: "\(out)/events.jsonl", encoding: .utf8).split(separator: "\n").compactMap { line -> Double? in
            guard line.contains("\"event\":\"cue\""), let t = line.split(separator: ",").first?.split(separator: ":").last else { return nil }
            return Double(t)
        }
        try #require(cues.count > 20)
        for t in cues { #expect(loud(t, t + 0.3), "no sound at \(t) s") }
        // Silence between: the second before each cue that follows a quiet stretch of 5 s.
        for (before, t) in zip(cues, cues.dropFirst()) where t - before > 5 {
            #expect(!loud(t - 1.5, t - 0.5), "sound before the cue at \(t) s")
        }
        // The file runs to the last cue (the completion at 12:00), not 4.6 s.
        #expect(Double(samples.count) / Double(rate) > 720)
    }

    /// `--buzzer wav:FILE` on a speaking scenario: espeak-ng says the words into the file
    /// between the cues, in the scenario's language, and the results stay the goldens (the
    /// recording speaker's estimates time the run, not the engine).
    @Test func aSpeakingScenarioRendersItsWordsIntoTheWAVFileToo() throws {
        let out = try makeTemporaryDirectory()
        let result = try Pacer.run(["scenario", "run", "Scenarios/speech-status", "--out", out, "--quiet",
                                    "--buzzer", "wav:\(out)/run.wav"])
        #expect(result.status == 0, "\(result.stderr)")
        for f in Self.files {
            #expect(contents("\(out)/\(f)") == contents("\(repositoryRoot)/Scenarios/speech-status/golden/\(f)"), "\(f)")
        }
        // The file's length (16-bit mono at the buzzer's rate) against the cues' tones alone.
        let wav = try #require(contents("\(out)/run.wav"))
        let rate = wav.subdata(in: 24..<28).withUnsafeBytes { Double(UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self))) }
        let seconds = Double(wav.count - 44) / 2 / rate
        let summaryData = try #require(contents("\(out)/summary.json"))
        let summary = String(decoding: summaryData, as: UTF8.self)
        let tones = try #require(summary.firstMatch(of: /"buzzer_s": ([0-9.]+)/).flatMap { Double($0.1) })
        let eventsData = try #require(contents("\(out)/events.jsonl"))
        let events = String(decoding: eventsData, as: UTF8.self)
        let said = events.matches(of: /"event":"say".*"duration_s":([0-9.]+)/).compactMap { Double($0.1) }.reduce(0, +)
        #expect(said > 10)
        // The words are there, about as long as the estimates (espeak-ng's own rate differs).
        #expect(seconds > tones + 0.6 * said && seconds < tones + 1.6 * said, "\(seconds) s: tones \(tones) s, words \(said) s")
    }

    @Test func aPacedRunTakesItsTimeAndWritesTheSameFiles() throws {
        let out = try makeTemporaryDirectory()
        // Six minutes at 360x real time: about a second.
        let started = ContinuousClock.now
        let result = try Pacer.run(["scenario", "run", "Scenarios/stop-early", "--out", out, "--speed", "360", "--quiet"])
        let took = ContinuousClock.now - started
        #expect(result.status == 0, "\(result.stderr)")
        #expect(took > .milliseconds(900), "a paced run cannot finish before its time")
        for f in Self.files {
            #expect(contents("\(out)/\(f)") == contents("\(repositoryRoot)/Scenarios/stop-early/golden/\(f)"), "\(f)")
        }
    }

    @Test func aGoldenThatDiffersFailsWithADiffUntilUpdated() throws {
        let dir = try makeTemporaryDirectory() + "/stop-early"
        try FileManager.default.copyItem(atPath: "\(repositoryRoot)/Scenarios/stop-early", toPath: dir)
        // The scenario's relative paths (../plans, ../steady) must still resolve.
        let parent = (dir as NSString).deletingLastPathComponent
        try FileManager.default.copyItem(atPath: "\(repositoryRoot)/Scenarios/plans", toPath: "\(parent)/plans")
        try FileManager.default.copyItem(atPath: "\(repositoryRoot)/Scenarios/steady", toPath: "\(parent)/steady")
        let golden = "\(dir)/golden/timeline.txt"
        let original = try String(contentsOfFile: golden, encoding: .utf8)
        try original.replacingOccurrences(of: "ON PACE", with: "ON TIME").write(toFile: golden, atomically: true, encoding: .utf8)

        let failing = try Pacer.run(["scenario", "test", dir])
        #expect(failing.status != 0)
        #expect(failing.stdout.contains("FAIL  stop-early"))
        #expect(failing.stdout.contains("--- \(golden)"))
        #expect(failing.stdout.contains("-") && failing.stdout.contains("ON TIME") && failing.stdout.contains("+"))
        #expect(failing.stdout.contains("0/1 scenarios pass"))

        let update = try Pacer.run(["scenario", "test", "--update", dir])
        #expect(update.status == 0, "\(update.stdout)")
        #expect(try String(contentsOfFile: golden, encoding: .utf8) == original)
        #expect(try Pacer.run(["scenario", "test", dir]).status == 0)
    }

    @Test func aBrokenScenarioIsRefusedWithItsLine() throws {
        let dir = try makeTemporaryDirectory()
        try "name: x\nplan: demo\nrecording: none.nmea\n".write(toFile: "\(dir)/scenario.yaml", atomically: true, encoding: .utf8)
        let result = try Pacer.run(["scenario", "run", dir])
        #expect(result.status != 0)
        #expect(result.stderr.contains("\(dir)/scenario.yaml:3: recording: \(dir)/none.nmea does not exist"), "\(result.stderr)")
        let test = try Pacer.run(["scenario", "test", dir])
        #expect(test.status != 0)
        #expect(test.stdout.contains("FAIL") && test.stdout.contains("does not exist"))
    }
}
