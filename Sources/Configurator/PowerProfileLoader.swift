import PacerCore
import Foundation
import HAL

/// Reads power profiles from `<hardware_dir>/profiles/NAME.yaml`.
public enum PowerProfileLoader {
    /// Loads one profile file. The profile's `name` must match the file's name.
    public static func load(path: String) throws(DataFileError) -> PowerProfile {
        var map = try YAMLMapping.load(path: path)
        let expected = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        let name = try map.string("name")
        guard name == expected else {
            throw map.error("name", "is '\(name)' but the file is \(expected).yaml; they must match")
        }
        let summary = try map.string("summary")
        let position = try map.positiveSeconds("position_interval_s")
        let alert = try map.positiveSeconds("alert_interval_s")
        let style = try map.choice("cue_style", CueStyle.self)
        var overrides: [Cue: CueStyle] = [:]
        if var o = try map.optionalMapping("cue_style_overrides") {
            for key in o.keys {
                guard let cue = Cue(rawValue: key) else {
                    throw o.error(key, "unknown cue (cues: \(Cue.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                overrides[cue] = try o.choice(key, CueStyle.self)
            }
            try o.finish()
        }
        let window = try map.positiveSeconds("smoothing_window_s")
        guard window >= position else {
            throw map.error(
                "smoothing_window_s",
                "is shorter than position_interval_s (\(position.inSeconds) s): the window would hold a single position")
        }
        let flush = try map.positiveSeconds("track_flush_interval_s")
        var gpsMode = GPSPowerMode.tracking
        if map.has("gps_mode") { gpsMode = try map.choice("gps_mode", GPSPowerMode.self) }
        var suspend = false
        if let text = try map.optionalString("board_suspend") {
            guard let value = ["true": true, "false": false, "yes": true, "no": false][text] else {
                throw map.error("board_suspend", "expected true or false, got '\(text)'")
            }
            suspend = value
        }
        var stepDown: PowerProfile.StepDown?
        if var step = try map.optionalMapping("step_down") {
            let percent = try step.number("at_percent")
            guard percent > 0, percent < 100 else {
                throw step.error("at_percent", "must be between 0 and 100 (a battery level), got \(YAMLMapping.format(percent))")
            }
            let to = try step.string("to")
            guard to != name else { throw step.error("to", "steps down to itself") }
            try step.finish()
            stepDown = .init(percent: percent, to: to)
        }
        try map.finish()
        return PowerProfile(
            name: name, summary: summary, positionInterval: position, alertInterval: alert, cueStyle: style,
            cueStyleOverrides: overrides, smoothingWindow: window, trackFlushInterval: flush, gpsMode: gpsMode,
            boardSuspend: suspend, stepDown: stepDown)
    }

    /// The profile called `name` in `hardwareDir/profiles`.
    public static func load(name: String, hardwareDir: String) throws(DataFileError) -> PowerProfile {
        let path = "\(hardwareDir)/profiles/\(name).yaml"
        guard FileManager.default.fileExists(atPath: path) else {
            let known = (try? available(hardwareDir: hardwareDir))?.joined(separator: ", ") ?? "none found"
            throw DataFileError(file: path, reason: "no profile '\(name)' (profiles: \(known))")
        }
        return try load(path: path)
    }

    /// The profiles `profile` steps down to, one after another, by name: a step-down to a
    /// profile that does not exist, or back into the chain, is refused.
    public static func stepDownChain(
        from profile: PowerProfile, hardwareDir: String
    ) throws(DataFileError) -> [String: PowerProfile] {
        var chain: [String: PowerProfile] = [:]
        var current = profile
        var seen: Set<String> = [profile.name]
        while let step = current.stepDown {
            let path = "\(hardwareDir)/profiles/\(current.name).yaml"
            guard !seen.contains(step.to) else {
                throw DataFileError(file: path, key: "step_down.to", reason: "'\(step.to)' steps back into the chain (\(seen.sorted().joined(separator: ", ")))")
            }
            guard FileManager.default.fileExists(atPath: "\(hardwareDir)/profiles/\(step.to).yaml") else {
                let known = (try? available(hardwareDir: hardwareDir))?.joined(separator: ", ") ?? "none found"
                throw DataFileError(file: path, key: "step_down.to", reason: "no profile '\(step.to)' (profiles: \(known))")
            }
            let next = try load(name: step.to, hardwareDir: hardwareDir)
            chain[next.name] = next
            seen.insert(next.name)
            current = next
        }
        return chain
    }

    /// Names of the profiles in `hardwareDir/profiles`, sorted.
    public static func available(hardwareDir: String) throws(DataFileError) -> [String] {
        let dir = "\(hardwareDir)/profiles"
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: dir) else {
            throw DataFileError(file: dir, reason: "cannot be read: is hardware_dir right?")
        }
        return files.filter { $0.hasSuffix(".yaml") }.map { String($0.dropLast(5)) }.sorted()
    }
}
