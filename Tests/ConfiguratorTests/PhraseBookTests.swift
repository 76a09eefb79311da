import Foundation
import Coaching
import Configurator
import PacerCore
import TestSupport
import Testing

@Suite("Phrase books and spoken figures")
struct PhraseBookTests {
    func formatter(_ language: String, _ units: SpeechSettings.Units = .metric,
                   _ style: SpeechSettings.PaceStyle = .pace) throws -> SpeechFormatter {
        SpeechFormatter(book: try PhraseBookLoader.load(language: language, hardwareDir: hardwareDirectory),
                        units: units, paceStyle: style)
    }

    @Test func englishFiguresReadNaturally() throws {
        let f = try formatter("en")
        #expect(f.duration(.seconds(180)) == "3 minutes")
        #expect(f.duration(.seconds(3900)) == "1 hour 5 minutes")
        #expect(f.duration(.seconds(3600)) == "1 hour")
        #expect(f.duration(.seconds(7260)) == "2 hours 1 minute")
        #expect(f.duration(.seconds(341)) == "5 minutes 41 seconds")
        #expect(f.duration(.seconds(45)) == "45 seconds")
        #expect(f.duration(.seconds(1)) == "1 second")
        #expect(f.distance(2500) == "2.5 kilometres")
        #expect(f.distance(1000) == "1 kilometre")
        #expect(f.pace(1000.0 / 341) == "5 41 per kilometre")
        #expect(f.pace(1000.0 / 305) == "5 05 per kilometre")
        #expect(f.pace(nil) == nil)
        #expect(f.pace(0) == nil)
        #expect(try formatter("en", .metric, .speed).pace(3) == "10.8 kilometres per hour")
        let miles = try formatter("en", .imperial)
        #expect(miles.distance(1609.344 * 3) == "3 miles")
        #expect(miles.distance(1609.344) == "1 mile")
        #expect(miles.pace(1609.344 / 540) == "9 00 per mile")
        #expect(try formatter("en", .imperial, .speed).pace(1609.344 / 360) == "10 miles per hour")
    }

    @Test func germanUsesItsWordsAndItsDecimalComma() throws {
        let f = try formatter("de")
        #expect(f.duration(.seconds(3900)) == "1 Stunde 5 Minuten")
        #expect(f.distance(2500) == "2,5 Kilometer")
        #expect(f.pace(1000.0 / 341) == "5 41 pro Kilometer")
        #expect(f.split(number: 2, time: .seconds(330), length: 1000, distance: 2000, total: .seconds(665))
                == "Abschnitt 2: 5 Minuten 30 Sekunden, Tempo 5 30 pro Kilometer. Gesamt 2 Kilometer in 11 Minuten 5 Sekunden.")
    }

    @Test func announcementsFillTheirTemplates() throws {
        let f = try formatter("en")
        #expect(f.split(number: 1, time: .seconds(341), length: 1000, distance: 1000, total: .seconds(341))
                == "Split 1: 5 minutes 41 seconds, pace 5 41 per kilometre. Total 1 kilometre in 5 minutes 41 seconds.")
        let phase = Phase(name: "Fast", duration: .seconds(180), minimumSpeed: 1000.0 / 280, maximumSpeed: 1000.0 / 260)
        #expect(f.phaseStart(phase).hasPrefix("Fast: 3 minutes, target 4 "))
        #expect(f.finish(time: .seconds(1800), distance: 5000) == "Done: 30 minutes, 5 kilometres, average pace 6 00 per kilometre.")
        #expect(f.paceCue("on-pace", speed: 1000.0 / 330, target: nil) == "On pace, 5 30 per kilometre.")
        #expect(f.paceCue("faster", speed: 2, target: 3) == "Faster.")
    }

    @Test func safetyAndRouteCuesInWords() throws {
        let f = try formatter("en")
        #expect(f.alert("gps-lost", .init()) == "GPS lost.")
        #expect(f.alert("low-battery", .init(battery: 14.6)) == "Battery low, 15 percent.")
        #expect(f.alert("off-route", .init(offRoute: 63)) == "Off the route by 60 metres.")
        #expect(f.alert("off-route", .init(offRoute: 4)) == "Off the route by 10 metres.")
        #expect(f.alert("waypoint-ahead", .init(waypoint: "Old bridge", ahead: 1240)) == "Old bridge in 1.2 kilometres.")
        #expect(f.alert("storage-fault", .init()) == "Storage fault. The run is not being saved.")
        #expect(try formatter("en", .imperial).shortDistance(100) == "110 yards")
        let de = try formatter("de")
        #expect(de.alert("off-route", .init(offRoute: 45)) == "Abseits der Strecke, 50 Meter.")
        #expect(de.alert("low-battery", .init(battery: 20)) == "Akku schwach, 20 Prozent.")
    }

    @Test func everyBundledBookLoads() throws {
        for language in ["en", "de"] {
            let book = try PhraseBookLoader.load(language: language, hardwareDir: hardwareDirectory)
            #expect(book.language == language)
        }
    }

    func refusal(_ text: String) -> String {
        do {
            _ = try PhraseBookLoader.load(file: "xx.yaml", text: text)
            return "loaded"
        } catch {
            return error.description
        }
    }

    static let words = PhraseBook.words.map { "  \($0): w" }.joined(separator: "\n")
    static let templates = PhraseBook.templates.keys.sorted().map { "  \($0): \"t\"" }.joined(separator: "\n")

    @Test func aGoodMinimalBookLoads() {
        #expect(refusal("language: xx\nwords:\n\(Self.words)\ntemplates:\n\(Self.templates)\n") == "loaded")
    }

    /// A template is parsed, not its braces counted: braces that balance but do not make a
    /// placeholder are refused with their column, so the runner never hears "Split }".
    @Test func templatesAreParsedAndABraceOutOfPlaceIsRefusedAtItsColumn() {
        for (template, reason) in [
            ("{{split}}", "column 2 of the template: a '{' inside the placeholder opened at column 1"),
            ("}{ now please", "column 1 of the template: a '}' with no '{' before it"),
            ("Split {split}}", "column 14 of the template: a '}' with no '{' before it"),
            ("Split {}", "column 7 of the template: an empty placeholder '{}'"),
            ("Split {spl it}", "column 11 of the template: ' ' cannot be in a placeholder's name"),
        ] {
            let refused = refusal("language: xx\nwords:\n\(Self.words)\ntemplates:\n"
                + Self.templates.replacingFirst("split: \"t\"", "split: \"\(template)\"") + "\n")
            #expect(refused.contains("templates.split: \(reason)"), "\(template): \(refused)")
        }
        #expect(PhraseBook.parse("Split {split}, {split_time}.") == .success([
            .text("Split "), .placeholder("split"), .text(", "), .placeholder("split_time"), .text(".")]))
        #expect(PhraseBook.placeholders(in: "{a} and {b_2}") == ["a", "b_2"])
        #expect(PhraseBook.placeholders(in: "{{a}}") == [])
        // Issue 38, case 4: a 600 kB template took 209 s and 5 GB before the share cap applied.
        let long = refusal("language: xx\nwords:\n\(Self.words)\ntemplates:\n"
            + Self.templates.replacingFirst("split: \"t\"", "split: \"\(String(repeating: "a", count: 201))\"") + "\n")
        #expect(long.contains("templates.split: 201 characters; a template has at most 200"), "\(long)")
    }

    @Test func errorsNameFileLineAndField() {
        let unknownPlaceholder = refusal(
            "language: xx\nwords:\n\(Self.words)\ntemplates:\n\(Self.templates.replacingFirst("split: \"t\"", "split: \"{pace}\""))\n")
        #expect(unknownPlaceholder.hasPrefix("xx.yaml:"))
        #expect(unknownPlaceholder.contains("templates.split: unknown placeholder {pace}"))
        let line = PhraseBook.templates.keys.sorted().firstIndex(of: "split")! + 3 + PhraseBook.words.count + 1
        #expect(unknownPlaceholder.hasPrefix("xx.yaml:\(line):"), "\(unknownPlaceholder)")
        let missingWord = refusal("language: xx\nwords:\n  hour: h\ntemplates:\n\(Self.templates)\n")
        #expect(missingWord.contains("missing word 'hours'"), "\(missingWord)")
        let unknownWord = refusal("language: xx\nwords:\n\(Self.words)\n  furlong: f\ntemplates:\n\(Self.templates)\n")
        #expect(unknownWord.contains("words.furlong: unknown word"), "\(unknownWord)")
        let missingTemplate = refusal("language: xx\nwords:\n\(Self.words)\ntemplates:\n  split: \"s\"\n")
        #expect(missingTemplate.contains("missing announcement"), "\(missingTemplate)")
        let braces = refusal(
            "language: xx\nwords:\n\(Self.words)\ntemplates:\n\(Self.templates.replacingFirst("finish: \"t\"", "finish: \"{time\""))\n")
        #expect(braces.contains("templates.finish: column 1 of the template: the '{' is not closed"), "\(braces)")
        let decimal = refusal("language: xx\ndecimal: \";\"\nwords:\n\(Self.words)\ntemplates:\n\(Self.templates)\n")
        #expect(decimal.contains("xx.yaml:2: decimal: must be"), "\(decimal)")
        #expect(refusal("language: xx\nwords:\n\(Self.words)\ntemplates:\n\(Self.templates)\nextra: 1\n").contains("extra: unknown key"))
        do {
            _ = try PhraseBookLoader.load(language: "../etc", hardwareDir: hardwareDirectory)
            Issue.record("a path as a language loaded")
        } catch {
            #expect(error.description.contains("not a language code"))
        }
    }
}

private extension String {
    func replacingFirst(_ a: String, _ b: String) -> String {
        guard let r = range(of: a) else { return self }
        return replacingCharacters(in: r, with: b)
    }
}
