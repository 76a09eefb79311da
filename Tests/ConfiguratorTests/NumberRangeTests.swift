import Configurator
import Foundation
import TestSupport
import Testing

/// Every number in every data file is checked against its range before anything converts it:
/// a huge value, a huge integer, NaN or infinity (as YAML writes them, `.nan`, `.inf`, and as
/// Swift reads them, `nan`, `inf`) is refused with the file, the line, the key, the value and
/// the allowed range, so that `alert_interval_s: 1e20` in a profile or `on_ms: 1e20` in the
/// cue book is an error message, never a trap in a conversion to Int64 (SIGILL).
@Suite("Numbers in data files")
struct NumberRangeTests {
    /// Values no number in any data file takes.
    static let extremes = ["1e20", "-1e20", "99999999999999999999999", ".nan", ".inf", "-.inf", "nan", "inf"]

    /// One number of a bundled file: the loader, the file, the key as written (its first
    /// occurrence outside comments is replaced), the key path errors name, and the range the
    /// refusal of a finite value states.
    struct Case: CustomTestStringConvertible, Sendable {
        var kind: Kind
        var file: String
        var key: String
        var path: String
        var range: String
        var testDescription: String { "\(file): \(path)" }
    }

    enum Kind: Sendable { case plan, profile, cues, settings, board, gps, buzzer, battery, recipe }

    static let cases: [Case] = [
        .init(kind: .plan, file: "Hardware/plans/intervals.yaml", key: "minutes", path: "workouts[0].phases[0].minutes",
              range: "above 0 and at most 1440 minutes"),
        .init(kind: .plan, file: "Hardware/plans/intervals.yaml", key: "repeat", path: "workouts[0].phases[1].repeat",
              range: "from 1 to 100 times"),
        .init(kind: .profile, file: "Hardware/profiles/high.yaml", key: "position_interval_s", path: "position_interval_s",
              range: "from 0.1 to 3600 s"),
        .init(kind: .profile, file: "Hardware/profiles/high.yaml", key: "alert_interval_s", path: "alert_interval_s",
              range: "from 0.1 to 3600 s"),
        .init(kind: .profile, file: "Hardware/profiles/high.yaml", key: "smoothing_window_s", path: "smoothing_window_s",
              range: "from 0.1 to 3600 s"),
        .init(kind: .profile, file: "Hardware/profiles/high.yaml", key: "track_flush_interval_s",
              path: "track_flush_interval_s", range: "from 0.1 to 3600 s"),
        .init(kind: .profile, file: "Hardware/profiles/high.yaml", key: "at_percent", path: "step_down.at_percent",
              range: "between 0 and 100"),
        .init(kind: .profile, file: "Hardware/profiles/high.yaml", key: "below_kmh", path: "auto_pause.below_kmh",
              range: "above 0 and at most 6 km/h"),
        .init(kind: .profile, file: "Hardware/profiles/high.yaml", key: "after_s", path: "auto_pause.after_s",
              range: "0 to 60 s"),
        .init(kind: .profile, file: "Hardware/profiles/high.yaml", key: "resume_above_kmh",
              path: "auto_pause.resume_above_kmh", range: "and at most 8 km/h"),
        .init(kind: .profile, file: "Hardware/profiles/high.yaml", key: "split_cue_km", path: "split_cue_km",
              range: "0.1 to 50 km"),
        .init(kind: .cues, file: "Hardware/cues.yaml", key: "hz", path: "speed-up.beeps[0].hz", range: "from 20 to 10000 Hz"),
        .init(kind: .cues, file: "Hardware/cues.yaml", key: "on_ms", path: "speed-up.beeps[0].on_ms",
              range: "above 0 and at most 10000 ms"),
        .init(kind: .cues, file: "Hardware/cues.yaml", key: "off_ms", path: "speed-up.beeps[0].off_ms",
              range: "from 0 to 10000 ms"),
        .init(kind: .settings, file: "Hardware/config/simulated.yaml", key: "long_ms", path: "button_timing.long_ms",
              range: "300 to 10000 ms"),
        .init(kind: .board, file: "Hardware/parts/boards/raspberry-pi-zero-2w.yaml", key: "supply_v", path: "supply_v",
              range: "above 0 and at most 24 V"),
        .init(kind: .board, file: "Hardware/parts/boards/raspberry-pi-zero-2w.yaml", key: "idle_ma", path: "idle_ma",
              range: "from 0 to 5000 mA"),
        .init(kind: .board, file: "Hardware/parts/boards/raspberry-pi-zero-2w.yaml", key: "busy_ma", path: "busy_ma",
              range: "from 0 to 5000 mA"),
        .init(kind: .board, file: "Hardware/parts/boards/raspberry-pi-zero-2w.yaml", key: "busy_per_wakeup_ms",
              path: "busy_per_wakeup_ms", range: "above 0 and at most 60000 ms"),
        .init(kind: .gps, file: "Hardware/parts/gps/ublox-neo-m8n.yaml", key: "hot_start_s", path: "hot_start_s",
              range: "above 0 and at most 600 s"),
        .init(kind: .gps, file: "Hardware/parts/gps/ublox-neo-m8n.yaml", key: "acquiring", path: "current_ma.acquiring",
              range: "from 0 to 5000 mA"),
        .init(kind: .buzzer, file: "Hardware/parts/buzzers/piezo.yaml", key: "sounding_ma", path: "sounding_ma",
              range: "from 0 to 5000 mA"),
        .init(kind: .battery, file: "Hardware/parts/batteries/lipo-2000mah.yaml", key: "capacity_mah", path: "capacity_mah",
              range: "above 0 and at most 100000 mAh"),
        .init(kind: .battery, file: "Hardware/parts/batteries/lipo-2000mah.yaml", key: "volts", path: "volts",
              range: "above 0 and at most 24 V"),
        .init(kind: .battery, file: "Hardware/parts/batteries/lipo-2000mah.yaml", key: "converter_efficiency",
              path: "converter_efficiency", range: "above 0 and at most 1"),
        .init(kind: .recipe, file: "Scenarios/intervals/run.synth.yaml", key: "rate_hz", path: "rate_hz",
              range: "between one a minute (0.016667) and 20 Hz"),
        .init(kind: .recipe, file: "Scenarios/intervals/run.synth.yaml", key: "seed", path: "seed",
              range: "a whole number from 0 to 18446744073709551615"),
        .init(kind: .recipe, file: "Scenarios/intervals/run.synth.yaml", key: "noise_m", path: "noise_m",
              range: "from 0 to 100 m"),
        .init(kind: .recipe, file: "Scenarios/intervals/run.synth.yaml", key: "sky_every_s", path: "sky_every_s",
              range: "above 0 and at most 3600 s"),
        .init(kind: .recipe, file: "Scenarios/intervals/run.synth.yaml", key: "kmh", path: "speeds[0].kmh",
              range: "from 0 to 100 km/h"),
    ]

    @Test(arguments: cases)
    func outOfRangeNumbersAreRefusedWithTheirRange(_ c: Case) throws {
        var original = try String(contentsOfFile: "\(repositoryRoot)/\(c.file)", encoding: .utf8)
        if c.kind == .settings { original += "button_timing: {long_ms: 1000}\n" }
        for value in Self.extremes {
            let (text, line) = try #require(Self.replacing(c.key, in: original, with: value), "\(c.key) in \(c.file)")
            let error = #expect(throws: DataFileError.self, "\(c.path): \(value)") {
                try Self.load(c.kind, file: "\(repositoryRoot)/\(c.file)", text: text)
            }
            guard let error else { continue }
            #expect(error.file == "\(repositoryRoot)/\(c.file)", "\(error)")
            #expect(error.line == line, "\(error)")
            #expect(error.key == c.path, "\(error)")
            let number = Double(value)
            if let number, number.isFinite {
                // The value, as written or as a number is written (1e+20), and the range.
                #expect(error.reason.contains(value) || error.reason.contains(YAMLMapping.format(number)), "\(error)")
                #expect(error.reason.contains(c.range), "\(error)")
            } else {
                #expect(error.reason.contains("'\(value)'") || error.reason.contains(value), "\(error)")
            }
        }
    }

    static func load(_ kind: Kind, file: String, text: String) throws(DataFileError) {
        switch kind {
        case .plan: _ = try PlanLoader.load(file: file, text: text)
        case .profile: _ = try PowerProfileLoader.load(file: file, text: text)
        case .cues: _ = try CueBookLoader.load(file: file, text: text)
        case .settings: _ = try Settings.load(file: file, text: text)
        case .board: _ = try HardwareModelLoader.loadBoard(file: file, text: text)
        case .gps: _ = try HardwareModelLoader.loadGPS(file: file, text: text)
        case .buzzer: _ = try HardwareModelLoader.loadBuzzer(file: file, text: text)
        case .battery: _ = try HardwareModelLoader.loadBattery(file: file, text: text)
        case .recipe:
            _ = try SynthRecipeLoader.load(file: file, text: text, folder: (file as NSString).deletingLastPathComponent)
        }
    }

    /// `text` with the value of the first `key:` outside comments replaced by `value`, and
    /// that line's number.
    static func replacing(_ key: String, in text: String, with value: String) -> (String, Int)? {
        var lines = text.components(separatedBy: "\n")
        for (i, line) in lines.enumerated() where !line.trimmingCharacters(in: .whitespaces).hasPrefix("#") {
            guard let found = line.range(of: "\(key): ") else { continue }
            if found.lowerBound > line.startIndex {
                let before = line[line.index(before: found.lowerBound)]
                guard before == " " || before == "{" || before == "," else { continue }
            }
            let rest = line[found.upperBound...]
            let end = rest.firstIndex(where: { $0 == "," || $0 == "}" || $0 == " " }) ?? rest.endIndex
            lines[i] = String(line[..<found.upperBound]) + value + String(rest[end...])
            return (lines.joined(separator: "\n"), i + 1)
        }
        return nil
    }
}
