import Coaching
import HAL
import Logging
import Simulation

/// The settings' `speech:` block (issue 25), also a scenario's: what the device says and how.
///
/// ```yaml
/// speaker: record              # or null (the default); espeak:… and wav:… on the board
/// speech:
///   enabled: yes               # no by default: the device beeps only
///   language: en               # Hardware/speech/<language>.yaml
///   units: metric              # or imperial
///   pace: pace                 # "5 41 per kilometre", or speed: "10.6 kilometres per hour"
///   split_m: 1000              # metres between splits; 0: none; default a km or a mile
///   phases: yes                # each phase's name, length and target at its start
///   finish: yes                # time, distance and average pace at the end
///   pace_cues: beep            # or words ("faster", "ease off", "on pace, 5 30") or both
///   max_share: 0.1             # announcements take at most this share of the run
///   words_per_minute: 160      # the simulated speaker's rate
/// ```
public enum SpeechSettingsLoader {
    public static let shareRange = AllowedRange(above: 0, atMost: 1, unit: "")
    public static let splitRange = AllowedRange(0...100_000, unit: "m")
    public static let rateRange = AllowedRange(60...400, unit: "words a minute")

    /// The block's settings over `base`; nil block: `base`.
    public static func speech(_ given: YAMLMapping?, base: SpeechSettings = SpeechSettings()) throws(DataFileError) -> SpeechSettings {
        var s = base
        guard var map = given else { return s }
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
        if let v = try map.optionalNumber("split_m", in: splitRange) { s.splitEvery = v }
        if let v = try flag("phases") { s.phases = v }
        if let v = try flag("finish") { s.finish = v }
        if map.has("pace_cues") { s.paceCues = try map.choice("pace_cues", SpeechSettings.PaceCues.self) }
        if let v = try map.optionalNumber("max_share", in: shareRange) { s.maximumShare = v }
        if let v = try map.optionalNumber("words_per_minute", in: rateRange) { s.wordsPerMinute = v }
        try map.finish()
        return s
    }
}
