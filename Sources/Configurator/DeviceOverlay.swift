import Coaching
import Foundation
import HAL
import LinuxHardware
import PacerCore
import Storage

/// The device's own changes to its settings, made from the companion page or with
/// `pacer settings set`: `<data_dir>/device.yaml`, read right after the settings file and
/// over it. It holds only what a runner may change without a shell:
///
/// ```yaml
/// profile: low                   # the power profile (Hardware/profiles/<name>.yaml)
/// speech:                        # the announcements, over the settings' speech: block
///   enabled: 'yes'
///   language: 'de'               # a phrase book of Hardware/speech
///   split_m: '1000'
///   pace_cues: 'words'
///   alerts: 'both'
/// heart_rate: 'bluez:C4:7C:8D:6A:3E:11'   # the strap `pacer hr pair` chose (bluez, bluez:ADDRESS, none)
/// ```
///
/// Precedence, last wins: the settings file (`/etc/pacer/pacer.yaml`), then this file, then a
/// command line's own flag (`--profile`). Its speech keys apply under every power profile
/// (over a profile's block in the settings' `speech.profiles`). The file is written whole
/// (to a temporary file renamed over it), after the merged result has been read back by the
/// same loaders as the settings file: a value they refuse is refused with their message and
/// nothing is written. The device reads its settings when it starts (`pacer device`).
public struct DeviceOverlay: Hashable, Sendable {
    public static let fileName = "device.yaml"
    /// When a change holds (`DeviceStorage.workoutSettings` reads the file at each start).
    public static let takesEffect = "It holds from the next workout; a new speech language from the next start of the "
        + "device (sudo systemctl restart pacer), which makes its voice."

    /// What to tell whoever switched speech on in `settings` when they name no speaker: the
    /// device would stay silent and nothing would say why (issue 39). Nil when it will speak,
    /// or is not asked to.
    public static func silentSpeech(_ settings: Settings) -> String? {
        guard settings.speech.speaksAnywhere, settings.speaker == nil || settings.speaker?.scheme == "null" else { return nil }
        return "Speech is on, but the settings (\(settings.source)) name no speaker: the device will only beep. "
            + "Set one there (speaker: espeak:default, the buzzer's sound card) and restart it."
    }

    /// The speech keys the overlay may set, in the order they are written.
    public static let speechKeys = ["enabled", "language", "split_m", "phases", "finish", "pace_cues", "alerts"]

    public var profile: String?
    /// Speech keys to their values as written (checked by `SpeechSettingsLoader` when applied).
    public var speech: [String: String] = [:]
    /// The heart-rate strap (`heart_rate:`), over the settings' own: `bluez:ADDRESS` (paired
    /// with `pacer hr pair`), `bluez` (the first strap found) or `none` (`pacer hr unpair`).
    public var heartRate: String?

    public init(profile: String? = nil, speech: [String: String] = [:], heartRate: String? = nil) {
        self.profile = profile
        self.speech = speech
        self.heartRate = heartRate
    }

    public var isEmpty: Bool { profile == nil && speech.isEmpty && heartRate == nil }

    /// The overlay's path in a data folder.
    public static func path(dataDirectory: String) -> String {
        "\(dataDirectory)/\(fileName)"
    }

    /// The overlay in `dataDirectory`; an empty one when there is no file.
    public static func load(dataDirectory: String) throws(DataFileError) -> DeviceOverlay {
        let path = path(dataDirectory: dataDirectory)
        guard FileManager.default.fileExists(atPath: path) else { return DeviceOverlay() }
        return try parse(YAMLMapping.load(path: path))
    }

    /// The overlay `text` is, as the file `file`.
    public static func parse(file: String, text: String) throws(DataFileError) -> DeviceOverlay {
        try parse(YAMLMapping.load(file: file, text: text))
    }

    static func parse(_ top: YAMLMapping) throws(DataFileError) -> DeviceOverlay {
        var map = top
        var overlay = DeviceOverlay()
        overlay.profile = try map.optionalString("profile")
        if var speech = try map.optionalMapping("speech") {
            for key in speechKeys {
                if let value = try speech.optionalString(key) { overlay.speech[key] = value }
            }
            try speech.finish()
        }
        overlay.heartRate = try map.optionalString("heart_rate")
        try map.finish()
        return overlay
    }

    /// The file's text: each value quoted, so what a form gave stays one value.
    public var text: String {
        func quoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "''") + "'" }
        var lines = ["# Pacer: the device's own settings (the companion page, `pacer settings set`), read after",
                     "# the settings file and over it; see docs/companion.md, \"Plans, profile and settings\"."]
        if let profile { lines.append("profile: \(quoted(profile))") }
        if !speech.isEmpty {
            lines.append("speech:")
            for key in Self.speechKeys { if let v = speech[key] { lines.append("  \(key): \(quoted(v))") } }
        }
        if let heartRate { lines.append("heart_rate: \(quoted(heartRate))") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `settings` with this overlay over it; `file` names the overlay in errors. The profile
    /// must be one of the hardware_dir's and load; the speech keys go through the settings'
    /// own loader, and a language needs its phrase book. `keepProfile`: a command line's
    /// `--profile` was given, and wins.
    public func applied(to settings: Settings, file: String, keepProfile: Bool = false) throws(DataFileError) -> Settings {
        var result = settings
        var map = try YAMLMapping.load(file: file, text: text)
        if let profile, !keepProfile {
            let known = (try? PowerProfileLoader.available(hardwareDir: settings.hardwareDirectory)) ?? []
            guard known.contains(profile) else {
                throw map.error("profile", "no such power profile '\(profile)' (profiles: \(known.isEmpty ? "none found" : known.joined(separator: ", ")))")
            }
            do {
                _ = try PowerProfileLoader.load(name: profile, hardwareDir: settings.hardwareDirectory)
            } catch {
                throw map.error("profile", "'\(profile)' cannot be used: \(error)")
            }
            result.profile = profile
        }
        _ = map.optionalNode("profile")
        if let block = try map.optionalMapping("speech") {
            if let language = speech["language"] {
                let books = Self.languages(hardwareDir: settings.hardwareDirectory)
                guard books.contains(language) else {
                    throw block.error("language", "no phrase book for '\(language)' (languages: \(books.isEmpty ? "none found" : books.joined(separator: ", ")))")
                }
            }
            var speechSettings = try SpeechSettingsLoader.speech(block, base: settings.speech)
            // Over a profile's own block too: what the runner chose holds under every profile.
            var perProfile: [String: SpeechSettings] = [:]
            for (name, base) in settings.speech.perProfile {
                var one = try SpeechSettingsLoader.speech(block, base: base)
                one.perProfile = [:]
                perProfile[name] = one
            }
            speechSettings.perProfile = perProfile
            result.speech = speechSettings
        }
        if let heartRate {
            result.heartRate = try Self.heartRate(heartRate, map)
        }
        _ = map.optionalNode("heart_rate")
        try map.finish()
        return result
    }

    /// The strap setting `text` as the settings' `heart_rate:` holds it (nil for `none`), its
    /// address in BlueZ's form; refused, naming the forms there are, when it is none of them.
    static func heartRate(_ text: String, _ map: YAMLMapping) throws(DataFileError) -> DeviceURI? {
        let known = "bluez, bluez:ADDRESS (pacer hr pair), none"
        guard let uri = try? DeviceURI(parsing: text), ["bluez", "none"].contains(uri.scheme), uri.query.isEmpty else {
            throw map.error("heart_rate", "unknown heart-rate strap '\(text)' (known: \(known))")
        }
        if uri.scheme == "none" { return nil }
        if uri.path.isEmpty { return uri }
        guard let address = BlueZ.normalizedAddress(uri.path), let normalized = try? DeviceURI(parsing: "bluez:" + address) else {
            throw map.error("heart_rate", BlueZError.invalidAddress(uri.path).description)
        }
        return normalized
    }

    /// The languages with a phrase book in `hardwareDir/speech`, sorted.
    public static func languages(hardwareDir: String) -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: "\(hardwareDir)/speech")) ?? []
        return files.filter { $0.hasSuffix(".yaml") }.map { String($0.dropLast(5)) }.sorted()
    }

    /// Sets `changes` (`profile`, or `speech.KEY`) in the overlay of `settings`' data folder:
    /// the merged overlay is checked over `settings` by the same loaders, then written whole;
    /// the settings it makes. An unknown key is refused naming the keys there are.
    @discardableResult
    public static func set(_ changes: [(key: String, value: String)], over settings: Settings) throws(DataFileError) -> Settings {
        let path = path(dataDirectory: settings.dataDirectory)
        do {
            try FileManager.default.createDirectory(atPath: settings.dataDirectory, withIntermediateDirectories: true)
        } catch {
            throw DataFileError(file: path, reason: "cannot be written (\(error))")
        }
        // One change at a time, from this process or another (the page and `pacer settings
        // set`): each reads the overlay the one before wrote, so no change is lost.
        let folder = open(settings.dataDirectory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else {
            throw DataFileError(file: path, reason: "cannot be written (\(String(cString: strerror(errno))))")
        }
        defer { close(folder) }
        while flock(folder, LOCK_EX) != 0 && errno == EINTR {}
        defer { flock(folder, LOCK_UN) }
        var overlay = try load(dataDirectory: settings.dataDirectory)
        for (key, value) in changes {
            if key == "profile" {
                overlay.profile = value
            } else if key == "heart_rate" {
                overlay.heartRate = value
            } else if key.hasPrefix("speech."), speechKeys.contains(String(key.dropFirst(7))) {
                overlay.speech[String(key.dropFirst(7))] = value
            } else {
                throw DataFileError(file: path, key: key, reason: "cannot be set here (settings: \(settableKeys.joined(separator: ", ")))")
            }
        }
        let result: Settings
        do {
            result = try overlay.applied(to: settings, file: path)
        } catch {
            // Every change that is wrong, not the first alone: each tried by itself over what
            // the file holds (a form of several fields gets them all said at once).
            let before = try load(dataDirectory: settings.dataDirectory)
            var wrong: [String] = []
            for (key, value) in changes {
                var alone = before
                if key == "profile" {
                    alone.profile = value
                } else if key == "heart_rate" {
                    alone.heartRate = value
                } else {
                    alone.speech[String(key.dropFirst(7))] = value
                }
                do {
                    _ = try alone.applied(to: settings, file: path)
                } catch let refusal {
                    wrong.append((refusal.key.map { "\($0): " } ?? "") + refusal.reason)
                }
            }
            guard wrong.count > 1 else { throw error }
            throw DataFileError(file: path, reason: wrong.joined(separator: "; "))
        }
        do {
            try OutputFile.write(path, text: overlay.text, as: .own(mode: 0o644))
        } catch {
            throw DataFileError(file: path, reason: "cannot be written (\(error))")
        }
        return result
    }

    /// What `set` takes: `profile`, `speech.KEY` and `heart_rate`.
    public static var settableKeys: [String] { ["profile"] + speechKeys.map { "speech.\($0)" } + ["heart_rate"] }
}
