import Coaching
import Foundation
import HAL
import PacerCore
import Storage

/// The device's settings (R27): which GPS, buzzer and battery to use, the power profile,
/// where data lives. Read from a YAML file (`Hardware/config/*.yaml` are the three setups:
/// simulated, desktop, board), then overridden by command-line flags.
public struct Settings: Hashable, Sendable {
    public var gps: DeviceURI
    public var buzzer: DeviceURI
    public var battery: DeviceURI
    public var profile: String
    public var dataDirectory: String {
        // The companion page's password lives in the data folder, wherever it is moved to.
        didSet { companion.passwordFile = Self.companionPasswordFile(in: dataDirectory) }
    }
    public var hardwareDirectory: String
    /// The device build (`Hardware/builds/NAME.yaml`): the board, GPS module, buzzer and
    /// battery whose currents the energy model charges. Nil: no energy model.
    public var hardware: String?
    /// The file the settings came from, for messages.
    public var source: String
    /// The buttons (`evdev:/dev/input/event0?keys=28`), nil for none (`buttons:` absent or `none`).
    public var buttons: DeviceURI?
    /// How presses are told apart (`button_timing:`).
    public var buttonTiming = ButtonTiming()
    /// Which press does what (`button_actions:`).
    public var buttonActions = ButtonActions.defaults
    /// Places whose points and waypoints `pacer activities share` never writes (`privacy_zones:`).
    public var privacyZones: [PrivacyZone] = []
    /// The system clock the receiver's time is checked against (`system_clock:`): `system`
    /// (the board's), `sim?at=TIME&synchronized=yes` or `sim` (scripted: set, or not set),
    /// `none`. Nil: the default for the GPS source (`Configurator.makeSystemTime`).
    public var systemClock: DeviceURI?
    /// The voice (`speaker:`): `null` when absent (the device beeps only), `record` in
    /// scenarios; the engine's adapters on the board.
    public var speaker: DeviceURI?
    /// The Wi-Fi radio a profile's `wifi_off_during_workout` switches (`radio:`): `sysfs`
    /// (the first wlan rfkill switch), `sysfs:/sys/class/rfkill/rfkillN`, `sim[?blocked=yes&hard=yes]`.
    /// Nil: none (`radio:` absent or `none`): nothing is switched.
    public var radio: DeviceURI?
    /// The heart-rate strap (`heart_rate:`): `bluez` (the first strap found), `bluez:ADDRESS`
    /// (the one paired with `pacer hr pair`), `sim:FILE` (a recorded stream, in scenarios).
    /// Nil: none (`heart_rate:` absent or `none`): no strap, the Bluetooth radio left off.
    public var heartRate: DeviceURI?
    /// The athlete's heart-rate figures the zones are made from, over the stored athlete
    /// profile's (not in the settings file: a scenario's `athlete:` sets them).
    public var heartRateFigures: HeartRateFigures?
    /// The profile was given on the command line (`--profile`): it wins over `device.yaml`,
    /// at power-on and at each workout's start.
    public var profileFromCommandLine = false
    /// What the device says and how (`speech:`); off unless enabled.
    public var speech = SpeechSettings()
    /// The speaker the energy model charges when the build has none (not in the settings
    /// file: `pacer battery compare --speech --speaker NAME` sets it). A build's own
    /// `speaker:` wins.
    public var assumedSpeaker: HardwareModel.SpeakerPart?
    /// What sounds before a phase ends, over every profile's own `to_go` (not in the settings
    /// file: a scenario's `to_go:` and `pacer battery compare --to-go` set it).
    public var anticipation: PowerProfile.Anticipation?
    /// The companion page (`companion:`): where it listens, and whether it stays on during a
    /// workout. No `listen`: no page.
    public var companion = CompanionSettings()

    public init(
        gps: DeviceURI, buzzer: DeviceURI, battery: DeviceURI, profile: String, dataDirectory: String,
        hardwareDirectory: String, source: String, hardware: String? = nil
    ) {
        self.hardware = hardware
        self.gps = gps
        self.buzzer = buzzer
        self.battery = battery
        self.profile = profile
        self.dataDirectory = dataDirectory
        self.hardwareDirectory = hardwareDirectory
        self.source = source
        self.companion.passwordFile = Self.companionPasswordFile(in: dataDirectory)
    }

    /// `DATA_DIR/companion.passwd`.
    static func companionPasswordFile(in dataDirectory: String) -> String {
        (dataDirectory as NSString).appendingPathComponent("companion.passwd")
    }

    /// Command-line values that replace the file's.
    public struct Overrides: Sendable {
        public var gps: String?
        public var buzzer: String?
        public var battery: String?
        public var profile: String?
        public var dataDirectory: String?

        public init(gps: String? = nil, buzzer: String? = nil, battery: String? = nil, profile: String? = nil,
                    dataDirectory: String? = nil) {
            self.gps = gps
            self.buzzer = buzzer
            self.battery = battery
            self.profile = profile
            self.dataDirectory = dataDirectory
        }
    }

    /// Where settings come from when no file is named: `$PACER_CONFIG`, then
    /// `/etc/pacer/pacer.yaml`, then the simulated setup: `$PACER_HARDWARE/config/simulated.yaml`,
    /// else the one beside the `pacer` binary (`PREFIX/share/pacer` for an installed binary,
    /// the checkout's `Hardware` for one built in it), else `Hardware/config/simulated.yaml`
    /// in the working directory. So `pacer` works from any working directory.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let p = installedPath(environment: environment) { return p }
        if let hardware = environment["PACER_HARDWARE"], !hardware.isEmpty { return "\(hardware)/config/simulated.yaml" }
        return simulatedBesideExecutable() ?? "Hardware/config/simulated.yaml"
    }

    /// The simulated setup that belongs with the running binary, when there is one.
    static func simulatedBesideExecutable() -> String? {
        guard let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        var dir = (exe as NSString).deletingLastPathComponent
        let installed = ((dir as NSString).deletingLastPathComponent as NSString)
            .appendingPathComponent("share/pacer/config/simulated.yaml")
        if FileManager.default.fileExists(atPath: installed) { return installed }
        // A build in a checkout: .build/<triple>/<configuration>/pacer.
        for _ in 0..<5 {
            let candidate = (dir as NSString).appendingPathComponent("Hardware/config/simulated.yaml")
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
            dir = (dir as NSString).deletingLastPathComponent
        }
        return nil
    }

    /// The settings file a person has set up (`$PACER_CONFIG` or `/etc/pacer/pacer.yaml`), or
    /// nil when only the simulated fallback would be used.
    public static func installedPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let p = environment["PACER_CONFIG"], !p.isEmpty { return p }
        if FileManager.default.fileExists(atPath: "/etc/pacer/pacer.yaml") { return "/etc/pacer/pacer.yaml" }
        return nil
    }

    /// Reads a settings file and applies the overrides. Relative paths in the file
    /// (`hardware_dir`, `data_dir`, a `file:` GPS, a `wav:` buzzer) are relative to the file's
    /// folder, so the settings mean the same from any working directory; paths given as flags
    /// are relative to the working directory, as a command line's are.
    public static func load(
        path: String, overrides: Overrides = Overrides(),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(DataFileError) -> Settings {
        try settings(from: YAMLMapping.load(path: path), overrides: overrides, environment: environment)
    }

    /// Parses `text` as the contents of the settings file `file` (named in errors; relative
    /// paths in it are relative to its folder, as with `load(path:)`).
    public static func load(
        file: String, text: String, overrides: Overrides = Overrides(),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(DataFileError) -> Settings {
        try settings(from: YAMLMapping.load(file: file, text: text), overrides: overrides, environment: environment)
    }

    static func settings(
        from top: YAMLMapping, overrides: Overrides, environment: [String: String]
    ) throws(DataFileError) -> Settings {
        var map = top
        let path = map.file
        func value(_ key: String, _ override: String?) throws(DataFileError) -> String {
            if let override {
                _ = map.optionalNode(key)  // the file's value is replaced, not unknown
                return override
            }
            return try map.string(key)
        }
        let folder = Self.folder(of: path)
        func uri(_ key: String, _ override: String?) throws(DataFileError) -> DeviceURI {
            var text = try value(key, override)
            if override == nil { text = Self.resolvingFilePath(in: text, against: folder) }
            do {
                return try DeviceURI(parsing: text)
            } catch {
                if override != nil { throw DataFileError(file: "--\(key)", reason: error.description) }
                throw map.error(key, error.description)
            }
        }
        let gps = try uri("gps", overrides.gps)
        let buzzer = try uri("buzzer", overrides.buzzer)
        let battery = try uri("battery", overrides.battery)
        let profile = try value("profile", overrides.profile)
        func expanded(_ key: String, _ text: String) throws(DataFileError) -> String {
            do {
                return try expand(text, environment)
            } catch {
                throw map.error(key, error.description)
            }
        }
        var data: String
        if let given = overrides.dataDirectory {
            _ = map.optionalNode("data_dir")  // the file's value is replaced, not unknown
            data = given
        } else {
            data = try expanded("data_dir", try map.string("data_dir"))
        }
        if overrides.dataDirectory == nil { data = Self.resolve(data, against: folder) }
        let hardware = Self.resolve(try expanded("hardware_dir", try map.string("hardware_dir")), against: folder)
        let build = try map.optionalString("hardware")
        var buttons: DeviceURI?
        if map.has("buttons") {
            let parsed = try uri("buttons", nil)
            buttons = parsed.scheme == "none" ? nil : parsed
        }
        var systemClock: DeviceURI?
        if map.has("system_clock") { systemClock = try uri("system_clock", nil) }
        let timing = try buttonTiming(map.optionalMapping("button_timing"))
        let actions = try buttonActions(map.optionalMapping("button_actions"))
        let zones = try privacyZones(&map)
        var speaker: DeviceURI?
        if map.has("speaker") { speaker = try uri("speaker", nil) }
        var radio: DeviceURI?
        if map.has("radio") {
            let parsed = try uri("radio", nil)
            guard ["sysfs", "sim", "none"].contains(parsed.scheme) else {
                throw map.error("radio", "unknown radio '\(parsed)' (known: sysfs, sysfs:/sys/class/rfkill/rfkillN, sim, none)")
            }
            radio = parsed.scheme == "none" ? nil : parsed
        }
        var heartRate: DeviceURI?
        if map.has("heart_rate") {
            var parsed = try uri("heart_rate", nil)
            if parsed.scheme == "sim", !parsed.path.isEmpty, !parsed.path.hasPrefix("/") {
                // A recorded stream beside the settings file, as a `file:` recording is.
                parsed = (try? DeviceURI(parsing: "sim:" + Self.resolve(parsed.path, against: folder))) ?? parsed
            }
            guard ["bluez", "sim", "none"].contains(parsed.scheme) else {
                throw map.error("heart_rate", "unknown heart-rate source '\(parsed)' (known: bluez, bluez:ADDRESS, sim:FILE, none)")
            }
            heartRate = parsed.scheme == "none" ? nil : parsed
        }
        let speech = try SpeechSettingsLoader.speech(
            map.optionalMapping("speech"), knownProfiles: try? PowerProfileLoader.available(hardwareDir: hardware))
        let companion = try CompanionSettings.load(map.optionalMapping("companion"))
        try map.finish()
        var settings = Settings(
            gps: gps, buzzer: buzzer, battery: battery, profile: profile, dataDirectory: data,
            hardwareDirectory: hardware, source: path, hardware: build)
        settings.buttons = buttons
        settings.buttonTiming = timing
        settings.buttonActions = actions
        settings.privacyZones = zones
        settings.systemClock = systemClock
        settings.speaker = speaker
        settings.radio = radio
        settings.heartRate = heartRate
        settings.speech = speech
        settings.companion = companion
        settings.companion.passwordFile = Self.companionPasswordFile(in: data)
        settings.profileFromCommandLine = overrides.profile != nil
        // The device's own changes (the companion page, `pacer settings set`) over the file.
        let overlay = DeviceOverlay.path(dataDirectory: data)
        if FileManager.default.fileExists(atPath: overlay) {
            settings = try DeviceOverlay.load(dataDirectory: data)
                .applied(to: settings, file: overlay, keepProfile: overrides.profile != nil)
        }
        return settings
    }

    /// A privacy zone's radius: above 0 and at most 10 km (a town; more hides whole runs).
    public static let privacyRadius = AllowedRange(above: 0, atMost: 10_000, unit: "m")

    /// `privacy_zones: [{name: Home, lat: 45.1, lon: 6.2, radius_m: 300}, …]`, optional: each
    /// a name, a centre and a radius (`privacyRadius`); every key needed, no other taken.
    static func privacyZones(_ map: inout YAMLMapping) throws(DataFileError) -> [PrivacyZone] {
        guard let node = map.optionalNode("privacy_zones") else { return [] }
        guard case .sequence(let items) = node else {
            throw map.error("privacy_zones", "expected a list of places, one per line like "
                            + "`- {name: Home, lat: 45.1, lon: 6.2, radius_m: 300}`, got a \(YAMLMapping.kind(node))")
        }
        var zones: [PrivacyZone] = []
        for (index, item) in items.enumerated() {
            var zone = try YAMLMapping(file: map.file, node: item, path: "privacy_zones[\(index)]")
            let name = try zone.string("name")
            let lat = try zone.number("lat", in: AllowedRange(-90...90, unit: "degrees"))
            let lon = try zone.number("lon", in: AllowedRange(-180...180, unit: "degrees"))
            let radius = try zone.number("radius_m", in: privacyRadius)
            try zone.finish()
            zones.append(PrivacyZone(name: name, center: GeoPoint(latitude: lat, longitude: lon), radius: radius))
        }
        return zones
    }

    /// `button_timing: {debounce_ms: 30, double_ms: 400, long_ms: 1000, very_long_ms: 3000}`,
    /// each optional; a long press shorter than a very long one, a debounce shorter than the
    /// double-press window.
    static func buttonTiming(_ given: YAMLMapping?) throws(DataFileError) -> ButtonTiming {
        var timing = ButtonTiming()
        guard var map = given else { return timing }
        func ms(_ key: String, _ range: ClosedRange<Double>, _ current: Duration) throws(DataFileError) -> Duration {
            guard let v = try map.optionalNumber(key) else { return current }
            guard range.contains(v) else {
                throw map.error(key, "\(YAMLMapping.format(v)) ms is not within \(Int(range.lowerBound)) to \(Int(range.upperBound)) ms")
            }
            return .milliseconds(Int64(v.rounded()))
        }
        timing.debounce = try ms("debounce_ms", 0...200, timing.debounce)
        timing.doubleWindow = try ms("double_ms", 100...2000, timing.doubleWindow)
        timing.long = try ms("long_ms", 300...10_000, timing.long)
        timing.veryLong = try ms("very_long_ms", 500...30_000, timing.veryLong)
        guard timing.long < timing.veryLong else {
            throw map.error("very_long_ms", "must be longer than long_ms")
        }
        guard timing.debounce < timing.doubleWindow else {
            throw map.error("debounce_ms", "must be shorter than double_ms")
        }
        try map.finish()
        return timing
    }

    /// `button_actions: {running: {short: waypoint, long: pause, very-long: stop}, waiting:
    /// {short: start, double: next-workout, long: previous-workout, very-long: announce}}`:
    /// the patterns given replace the defaults'.
    public static func buttonActions(_ given: YAMLMapping?) throws(DataFileError) -> ButtonActions {
        var actions = ButtonActions.defaults
        guard var map = given else { return actions }
        if var running = try map.optionalMapping("running") {
            for key in running.keys {
                guard let pattern = PressPattern(rawValue: key) else {
                    throw running.error(key, "not a press (\(PressPattern.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                actions.running[pattern] = try running.choice(key, ButtonAction.self)
            }
            try running.finish()
        }
        if var waiting = try map.optionalMapping("waiting") {
            for key in waiting.keys {
                guard let pattern = PressPattern(rawValue: key) else {
                    throw waiting.error(key, "not a press (\(PressPattern.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                actions.waiting[pattern] = try waiting.choice(key, WaitingAction.self)
            }
            try waiting.finish()
        }
        try map.finish()
        return actions
    }

    /// The absolute folder a file is in (the working directory's, for a relative path).
    static func folder(of path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return (absolute as NSString).deletingLastPathComponent
    }

    /// `path` against `folder` when relative, tidied (`a/config/../plans` is `a/plans`).
    static func resolve(_ path: String, against folder: String) -> String {
        guard !path.isEmpty, !path.hasPrefix("/") else { return path }
        return ((folder as NSString).appendingPathComponent(path) as NSString).standardizingPath
    }

    /// A `file:` or `wav:` device string with its relative path resolved against `folder`.
    static func resolvingFilePath(in text: String, against folder: String) -> String {
        for scheme in ["file:", "wav:"] where text.lowercased().hasPrefix(scheme) {
            let rest = text.dropFirst(scheme.count)
            guard !rest.hasPrefix("/"), !rest.isEmpty else { return text }
            let query = rest.firstIndex(of: "?").map { String(rest[$0...]) } ?? ""
            let path = rest.firstIndex(of: "?").map { String(rest[..<$0]) } ?? String(rest)
            return String(text.prefix(scheme.count)) + resolve(path, against: folder) + query
        }
        return text
    }

    /// An environment variable a path names that is not set.
    struct UnsetVariable: Error, CustomStringConvertible {
        var name: String
        var description: String {
            "$\(name) is not set (set it, or write the path out: a folder named '$\(name)' is never what was meant)"
        }
    }

    /// Expands a leading `~`, `$XDG_DATA_HOME` (defaulting to `~/.local/share`, as the XDG
    /// base directory specification says) and any other `$NAME` or `${NAME}` from the
    /// environment. A variable that is not set is an error, not a literal folder name.
    static func expand(_ path: String, _ environment: [String: String]) throws(UnsetVariable) -> String {
        let home = environment["HOME"] ?? "/root"
        let xdg = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "\(home)/.local/share"
        var out = ""
        var rest = Substring(path)
        while let dollar = rest.firstIndex(of: "$") {
            out += rest[..<dollar]
            var after = rest[rest.index(after: dollar)...]
            let braced = after.first == "{"
            if braced { after = after.dropFirst() }
            let name = after.prefix { $0 == "_" || $0.isASCII && ($0.isLetter || $0.isNumber) }
            // A name as the shell has them: a letter or `_` first.
            if name.isEmpty || name.first!.isNumber || (braced && after.dropFirst(name.count).first != "}") {
                out += "$"  // not a variable: kept as written
                rest = rest[rest.index(after: dollar)...]
                continue
            }
            let value: String? = name == "XDG_DATA_HOME" ? xdg : environment[String(name)]
            guard let value else { throw UnsetVariable(name: String(name)) }
            out += value
            rest = after.dropFirst(name.count + (braced ? 1 : 0))
        }
        out += rest
        if out == "~" || out.hasPrefix("~/") { out = home + out.dropFirst() }
        return out
    }
}
