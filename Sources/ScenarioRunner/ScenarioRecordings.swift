import Configurator
import Foundation
import NMEA
import PacerCore
import Simulation

/// The recording a scenario replays: the committed file, or one made from its `nmea synth`
/// recipe into the output folder when only the recipe is committed (a marathon at 1 Hz is
/// too large to keep in the repository; its recipe is a few lines).
enum ScenarioRecordings {
    static func recording(for scenario: Scenario, scratch: String) throws -> String {
        if let recording = scenario.recording { return recording }
        guard let recipe = scenario.recipe else {
            throw ScenarioError("\(scenario.file): names no recording")
        }
        let path = "\(scratch)/recording.nmea"
        try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        try synthesize(recipe: recipe, to: path)
        return path
    }

    /// The heart-rate stream the scenario's strap replays: its file, or one made from the
    /// synthesized run's true speeds into the output folder (`recording.hr.csv`); nil: none.
    static func heartRate(for scenario: Scenario, scratch: String) throws -> String? {
        switch scenario.heartRate {
        case nil: return nil
        case .file(let path): return path
        case .synth(let model):
            guard let recipe = scenario.recipe else { throw ScenarioError("\(scenario.file): heart_rate: synth needs `synth: RECIPE.yaml`") }
            var synthesizer = try synthesizer(recipe: recipe)
            var speeds: [Double] = []
            var bytes: [UInt8] = []
            // One speed a second, from the run's truth (a faster recipe's epochs are sampled).
            while let epoch = synthesizer.next(appendingTo: &bytes) {
                bytes.removeAll(keepingCapacity: true)
                let second = Int(epoch.elapsed.rounded(.down))
                while speeds.count <= second { speeds.append(epoch.trueSpeed) }
            }
            let path = "\(scratch)/recording.hr.csv"
            try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
            try ScenarioOutputFile.write(Array(model.stream(speeds: speeds).text.utf8), to: path)
            return path
        }
    }

    /// The synthesizer of the recipe file at `recipe`; a recipe that cannot be made is refused
    /// with its file, line and reason.
    static func synthesizer(recipe: String) throws -> NMEASynthesizer {
        do {
            return try NMEASynthesizer(SynthRecipeLoader.load(path: recipe))
        } catch let error as DataFileError {
            throw ScenarioError(error.description)
        } catch {
            throw ScenarioError("\(recipe): \(error)")
        }
    }

    /// Makes the recording `recipe` describes, as `pacer nmea synth RECIPE --out PATH` does.
    static func synthesize(recipe: String, to path: String) throws {
        var synthesizer = try synthesizer(recipe: recipe)
        let handle = try ScenarioOutputFile.create(path)
        defer { try? handle.close() }
        do {
            _ = try synthesizer.write(to: { (bytes: [UInt8]) throws(ScenarioError) in
                do { try handle.write(contentsOf: bytes) } catch { throw ScenarioError("\(path): \(error.localizedDescription)") }
            })
        }
    }

    /// The UTC date of the first dated cycle in the recording (the device's "today").
    static func firstDate(of path: String) throws -> CivilDate {
        try firstTime(of: path).date
    }

    /// The UTC time of the first dated cycle in the recording (a past run's first point, or
    /// its start: a GPX, TCX or FIT file is replayed from there).
    static func firstTime(of path: String) throws -> UTCTimestamp {
        if TrackReplayLoader.format(of: path) != nil {
            do {
                let timeline = try TrackReplayLoader.load(path: path)
                return timeline.start ?? timeline.first!.time
            } catch {
                throw ScenarioError(error.description)
            }
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ScenarioError("\(path): cannot be read")
        }
        defer { try? handle.close() }
        var decoder = NMEADecoder()
        var date: UTCTimestamp?
        while date == nil, let chunk = try handle.read(upToCount: 64 * 1024), !chunk.isEmpty {
            chunk.withUnsafeBytes { raw in
                decoder.feed(raw.bindMemory(to: UInt8.self)) { epoch in
                    if date == nil, case .fix(let fix) = epoch { date = fix.time }
                }
            }
        }
        guard let date else { throw ScenarioError("\(path): no dated fix in the recording; give the scenario a `date:`") }
        return date
    }
}

/// A committed recording with its recipe must still be what the recipe makes: otherwise the
/// recipe does not document the recording (or the synthesiser changed).
public enum ScenarioRecordingCheck {
    public static func check(_ scenario: Scenario, scratch: String) throws -> [String] {
        guard let recording = scenario.recording, let recipe = scenario.recipe else { return [] }
        let made = "\(scratch)/from-recipe.nmea"
        try ScenarioRecordings.synthesize(recipe: recipe, to: made)
        let fm = FileManager.default
        return fm.contents(atPath: made) == fm.contents(atPath: recording)
            ? [] : ["\(recording) is not what \(recipe) makes: remake it with `pacer nmea synth \(recipe) --out \(recording)`"]
    }
}
