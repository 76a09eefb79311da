import Configurator
import Foundation
@testable import ScenarioRunner
import TestSupport
import Testing

/// docs/scenarios.md cannot drift from the scenarios and their loader: the count it gives,
/// the scenarios its table lists, and every key, action and expectation the loader reads are
/// checked against the code.
@Suite("docs/scenarios.md against the scenarios and their loader")
struct ScenarioDocsTests {
    static let page = (try? String(contentsOfFile: repositoryRoot + "/docs/scenarios.md", encoding: .utf8)) ?? ""

    /// The bundled scenarios: every folder of Scenarios/ with a scenario.yaml.
    static let bundled: [String] = {
        let root = repositoryRoot + "/Scenarios"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return names.filter { FileManager.default.fileExists(atPath: "\(root)/\($0)/scenario.yaml") }.sorted()
    }()

    /// The names the loader's refusal lists: `expected one of: a, b` or `is not one of a, b`.
    static func listed(in reason: String) -> [String] {
        guard let range = reason.range(of: "one of:") ?? reason.range(of: "one of") else { return [] }
        return reason[range.upperBound...].trimmingCharacters(in: CharacterSet(charactersIn: " )"))
            .components(separatedBy: ", ").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// What loading `text` as the scenario at `file` is refused with (nil: it loads).
    static func refusal(_ file: String, _ text: String) -> DataFileError? {
        do {
            _ = try ScenarioLoader.load(file: file, text: text, plansDir: hardwareDirectory + "/plans")
            return nil
        } catch {
            return error
        }
    }

    @Test func theCountAndTheTableNameEveryBundledScenario() throws {
        try #require(Self.bundled.count > 30, "the scenarios were found")
        let saysTheCount = Self.page.contains("The \(Self.bundled.count) bundled scenarios")
        #expect(saysTheCount, "docs/scenarios.md must say 'The \(Self.bundled.count) bundled scenarios'")
        let table = Self.page.components(separatedBy: "\n").filter { $0.hasPrefix("| `") }.joined(separator: "\n")
        let missing = Self.bundled.filter { !table.contains("`\($0)`") }
        #expect(missing.isEmpty, "the table of bundled scenarios lacks \(missing)")
    }

    /// Every top-level key any bundled scenario's path through the loader reads: an unknown
    /// key added to each is refused with the list of keys the loader read.
    @Test func everyKeyTheLoaderReadsIsDocumented() throws {
        var keys = Set<String>()
        for name in Self.bundled {
            let file = "\(repositoryRoot)/Scenarios/\(name)/scenario.yaml"
            let text = try String(contentsOfFile: file, encoding: .utf8) + "\nnot_a_key_for_docs: 1\n"
            let error = try #require(Self.refusal(file, text), "\(name): an unknown key was let in")
            #expect(error.key == "not_a_key_for_docs", "\(name): \(error)")
            keys.formUnion(Self.listed(in: error.reason))
        }
        for key in ["mode", "until", "route", "date", "system_clock", "radio", "script", "expect"] {
            #expect(keys.contains(key), "the loader's list lacks '\(key)': \(keys.sorted())")
        }
        let missing = keys.sorted().filter { !Self.page.contains("\($0):") }
        #expect(missing.isEmpty, "docs/scenarios.md does not document the keys \(missing)")
    }

    @Test func everyScriptActionAndExpectationIsDocumented() throws {
        let file = "\(repositoryRoot)/Scenarios/steady/scenario.yaml"
        let base = try String(contentsOfFile: file, encoding: .utf8)
        let verbs = Self.listed(in: try #require(Self.refusal(
            file, base + "\nscript:\n  - {at: 1, do: not-an-action}\n")).reason)
        #expect(verbs.contains("press") && verbs.contains("power-cut"), "\(verbs)")
        let page = Self.page
        let undocumented = verbs.filter { verb in
            !(page.contains("do: \(verb)") || page.contains("`\(verb)`") || page.contains(" \(verb),") || page.contains(" \(verb) ("))
        }
        #expect(undocumented.isEmpty, "docs/scenarios.md does not document the actions \(undocumented)")
        let kinds = Self.listed(in: try #require(Self.refusal(
            file, base.replacingOccurrences(of: "expect:\n", with: "expect:\n  - {not_an_expectation: 1}\n"))).reason)
        #expect(kinds.contains("cue") && kinds.contains("phases"), "\(kinds)")
        let unknown = kinds.filter { kind in
            !(page.contains("\(kind):") || page.contains(" \(kind),") || page.contains(" \(kind) ("))
        }
        #expect(unknown.isEmpty, "docs/scenarios.md does not document the expectations \(unknown)")
    }
}

/// The simulated setup's receiver (Hardware/config/simulated.yaml) is a recording made from a
/// recipe beside it: it must still be what the recipe makes (the first try a new user makes
/// is the bundled plan on this recording).
@Suite("The bundled recordings")
struct BundledRecordingTests {
    @Test func theFirstTrysRecordingIsWhatItsRecipeMakes() throws {
        let recipe = hardwareDirectory + "/recordings/easy-run.synth.yaml"
        let recording = hardwareDirectory + "/recordings/easy-run.nmea"
        let dir = try makeTemporaryDirectory()
        try ScenarioRecordings.synthesize(recipe: recipe, to: "\(dir)/made.nmea")
        let made = try #require(FileManager.default.contents(atPath: "\(dir)/made.nmea"))
        #expect(made == FileManager.default.contents(atPath: recording),
                "remake it: pacer nmea synth \(recipe) --out \(recording)")
        let settings = try String(contentsOfFile: hardwareDirectory + "/config/simulated.yaml", encoding: .utf8)
        #expect(settings.contains("gps: file:../recordings/easy-run.nmea"), "the simulated setup replays it")
    }
}
