import Foundation
import HAL

/// The device's settings (R27): which GPS, buzzer and battery to use, the power profile,
/// where data lives. Read from a YAML file (`Hardware/config/*.yaml` are the three setups:
/// simulated, desktop, board), then overridden by command-line flags.
public struct Settings: Hashable, Sendable {
    public var gps: DeviceURI
    public var buzzer: DeviceURI
    public var battery: DeviceURI
    public var profile: String
    public var dataDirectory: String
    public var hardwareDirectory: String
    /// The device build (`Hardware/builds/NAME.yaml`): the board, GPS module, buzzer and
    /// battery whose currents the energy model charges. Nil: no energy model.
    public var hardware: String?
    /// The file the settings came from, for messages.
    public var source: String

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
    /// `/etc/pacer/pacer.yaml`, then the simulated setup `Hardware/config/simulated.yaml`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let p = installedPath(environment: environment) { return p }
        let hardware = environment["PACER_HARDWARE"].flatMap { $0.isEmpty ? nil : $0 } ?? "Hardware"
        return "\(hardware)/config/simulated.yaml"
    }

    /// The settings file a person has set up (`$PACER_CONFIG` or `/etc/pacer/pacer.yaml`), or
    /// nil when only the simulated fallback would be used.
    public static func installedPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let p = environment["PACER_CONFIG"], !p.isEmpty { return p }
        if FileManager.default.fileExists(atPath: "/etc/pacer/pacer.yaml") { return "/etc/pacer/pacer.yaml" }
        return nil
    }

    /// Reads a settings file and applies the overrides.
    public static func load(
        path: String, overrides: Overrides = Overrides(),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(DataFileError) -> Settings {
        var map = try YAMLMapping.load(path: path)
        func value(_ key: String, _ override: String?) throws(DataFileError) -> String {
            if let override {
                _ = map.optionalNode(key)  // the file's value is replaced, not unknown
                return override
            }
            return try map.string(key)
        }
        func uri(_ key: String, _ override: String?) throws(DataFileError) -> DeviceURI {
            let text = try value(key, override)
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
        let data = try expand(value("data_dir", overrides.dataDirectory), environment)
        let hardware = try expand(map.string("hardware_dir"), environment)
        let build = try map.optionalString("hardware")
        try map.finish()
        return Settings(
            gps: gps, buzzer: buzzer, battery: battery, profile: profile, dataDirectory: data,
            hardwareDirectory: hardware, source: path, hardware: build)
    }

    /// Expands a leading `~` and `$XDG_DATA_HOME` (defaulting to `~/.local/share`, as the XDG
    /// base directory specification says).
    static func expand(_ path: String, _ environment: [String: String]) -> String {
        let home = environment["HOME"] ?? "/root"
        let xdg = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "\(home)/.local/share"
        var p = path.replacingOccurrences(of: "$XDG_DATA_HOME", with: xdg)
        if p == "~" || p.hasPrefix("~/") { p = home + p.dropFirst() }
        return p
    }
}
