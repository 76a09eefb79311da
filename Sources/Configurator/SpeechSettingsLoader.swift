import Coaching
import HAL
import Logging
import Simulation

/// The settings' `speech:` block, also a scenario's: what the device says and how.
///
/// ```yaml
/// speaker: record              # or null (the default); espeak:… and wav:… on the board
/// speech:
///   enabled: yes               # no by default: the device beeps only
///   language: en               # Hardware/speech/<language>.yaml
///   units: metric              # or imperial
///   pace: pace                 # "5 41 per kilometre", or speed: "10.6 kilometres per hour"
///   split_m: 1000              # metres between splits (100 to 100,000); 0: none; default a km or a mile
///   phases: yes                # each phase's name, length and target at its start
///   finish: yes                # time, distance and average pace at the end
///   pace_cues: beep            # or words ("faster", "ease off", "on pace, 5 30") or both
///   max_share: 0.1             # announcements take at most this share of the run
///   words_per_minute: 160      # the simulated speaker's rate
///   alerts: both               # safety cues (gps-lost, low-battery, …): beep, or both (beep, then words)
///   profiles:                  # what differs under a power profile (the device switches at a step-down)
///     low: {split_m: 0, phases: no}
/// ```
///
/// A profile's block takes the announcement choices only (`enabled`, `split_m`, `phases`,
/// `finish`, `pace_cues`, `alerts`, `max_share`) over the block's own; the language, units,
/// pace style and rate are the device's, the same under every profile.
public enum SpeechSettingsLoader {
    public static let shareRange = AllowedRange(above: 0, atMost: 1, unit: "")
    public static let splitRange = AllowedRange(0...100_000, unit: "m")
    /// The shortest split announced (0 announces none).
    public static let minimumSplit = 100.0
    public static let rateRange = AllowedRange(60...400, unit: "words a minute")

    /// The block's settings over `base`; nil block: `base`.
    /// `knownProfiles`: the power profiles' names, when known; a block for another is refused.
    public static func speech(
        _ given: YAMLMapping?, base: SpeechSettings = SpeechSettings(), knownProfiles: [String]? = nil
    ) throws(DataFileError) -> SpeechSettings {
        try speech(given, base: base, inProfile: false, knownProfiles: knownProfiles)
    }

    /// The keys a profile's block may not change, and why.
    static let deviceWide: Set<String> = ["language", "units", "pace", "words_per_minute", "profiles"]

    private static func speech(
        _ given: YAMLMapping?, base: SpeechSettings, inProfile: Bool, knownProfiles: [String]?
    ) throws(DataFileError) -> SpeechSettings {
        var s = base
        guard var map = given else { return s }
        if inProfile, let key = map.keys.first(where: deviceWide.contains) {
            throw map.error(key, "is the device's, the same under every profile; set it in `speech:` itself")
        }
        func flag(_ key: String) throws(DataFileError) -> Bool? {
            guard map.has(key) else { return nil }
            switch try map.string(key).lowercased() {
            case "yes", "true", "on": return true
            case "no", "false", "off": return false
            case let other: throw map.error(key, "'\(other)' is not yes or no")
            }
        }
        if let v = try flag("enabled") { s.enabled = v }
        if map.has("language") { s.language = try map.string("language") }
        if map.has("units") { s.units = try map.choice("units", SpeechSettings.Units.self) }
        if map.has("pace") { s.paceStyle = try map.choice("pace", SpeechSettings.PaceStyle.self) }
        if let v = try map.optionalNumber("split_m", in: splitRange) {
            // A split is a stretch a runner can feel: one every few metres is a voice that never stops.
            guard v == 0 || v >= minimumSplit else {
                let shown = v == v.rounded() ? String(Int(v)) : String(v)
                throw map.error("split_m", "\(shown) m is too short a split: at least \(Int(minimumSplit)) m, or 0 for none")
            }
            s.splitEvery = v
        }
        if let v = try flag("phases") { s.phases = v }
        if let v = try flag("finish") { s.finish = v }
        if map.has("pace_cues") { s.paceCues = try map.choice("pace_cues", SpeechSettings.PaceCues.self) }
        if let v = try map.optionalNumber("max_share", in: shareRange) { s.maximumShare = v }
        if let v = try map.optionalNumber("words_per_minute", in: rateRange) { s.wordsPerMinute = v }
        if map.has("alerts") { s.alerts = try map.choice("alerts", SpeechSettings.Alerts.self) }
        let profiles = try map.optionalMapping("profiles")
        try map.finish()
        s.perProfile = [:]
        if var profiles {
            for name in profiles.keys {
                if let known = knownProfiles, !known.contains(name) {
                    throw profiles.error(name, "no such power profile (profiles: \(known.joined(separator: ", ")))")
                }
                guard let block = try profiles.optionalMapping(name) else { continue }
                s.perProfile[name] = try speech(block, base: s, inProfile: true, knownProfiles: nil)
            }
            try profiles.finish()
        }
        return s
    }
}
