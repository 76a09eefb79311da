import Foundation
import Configurator
import HAL
import PacerCore
import Simulation
import TestSupport
import Testing

@Suite("Settings")
struct SettingsTests {
    let environment = ["HOME": "/home/runner", "XDG_DATA_HOME": ""]

    /// The three setups of R27 load, each with the parts it is for.
    @Test(arguments: [
        ("simulated", "file", "null", "sim"),
        ("desktop", "gpsd", "alsa", "sim"),
        ("board", "gpsd", "alsa", "sysfs"),
    ])
    func bundledSetupsLoad(name: String, gps: String, buzzer: String, battery: String) throws {
        let s = try Settings.load(path: "\(hardwareDirectory)/config/\(name).yaml", environment: environment)
        #expect(s.gps.scheme == gps)
        #expect(s.buzzer.scheme == buzzer)
        #expect(s.battery.scheme == battery)
        let profiles = try PowerProfileLoader.available(hardwareDir: hardwareDirectory)
        #expect(profiles.contains(s.profile))
    }

    @Test func dataDirectoryFollowsXDG() throws {
        let path = "\(hardwareDirectory)/config/simulated.yaml"
        #expect(try Settings.load(path: path, environment: environment).dataDirectory == "/home/runner/.local/share/pacer")
        let custom = ["HOME": "/home/runner", "XDG_DATA_HOME": "/data"]
        #expect(try Settings.load(path: path, environment: custom).dataDirectory == "/data/pacer")
    }

    /// Environment variables in paths are expanded; one that is not set is an error naming
    /// it, with the file's line and key, never a folder literally named `$NOPE_UNSET`.
    @Test func variablesInPathsAreExpandedAndAnUnsetOneIsRefused() throws {
        let dir = try makeTemporaryDirectory()
        let base = "gps: none\nbuzzer: \"null\"\nbattery: sim\nprofile: medium\nhardware_dir: /h\n"
        let env = ["HOME": "/home/runner", "PACER_DATA": "/srv/pacer", "SITE": "club"]
        for (line, expected) in [("data_dir: $PACER_DATA/runs", "/srv/pacer/runs"), ("data_dir: ${PACER_DATA}-$SITE", "/srv/pacer-club"),
                                 ("data_dir: ~/runs", "/home/runner/runs"), ("data_dir: /cost/$5", "/cost/$5")] {
            try (base + line + "\n").write(toFile: "\(dir)/s.yaml", atomically: true, encoding: .utf8)
            #expect(try Settings.load(path: "\(dir)/s.yaml", environment: env).dataDirectory == expected, "\(line)")
        }
        try (base + "data_dir: $NOPE_UNSET/pacer\n").write(toFile: "\(dir)/s.yaml", atomically: true, encoding: .utf8)
        let error = #expect(throws: DataFileError.self) { try Settings.load(path: "\(dir)/s.yaml", environment: env) }
        #expect(error?.line == 6 && error?.key == "data_dir", "\(String(describing: error))")
        #expect(error?.description.contains("$NOPE_UNSET is not set") == true, "\(String(describing: error))")
    }

    /// Relative paths in a settings file are the file's folder's, whatever the working
    /// directory; flags stay the working directory's.
    @Test func relativePathsInTheFileAreTheFilesFolders() throws {
        let s = try Settings.load(path: "\(hardwareDirectory)/config/simulated.yaml", environment: environment)
        let hardware = (hardwareDirectory as NSString).standardizingPath
        #expect(s.hardwareDirectory == hardware)
        #expect(s.gps.path == "\(hardware)/recordings/easy-run.nmea")
        #expect(s.gps.query["pace"] == "clock")
        let dir = try makeTemporaryDirectory()
        try """
            gps: file:runs/today.nmea?pace=fast
            buzzer: wav:cues.wav
            battery: sim
            profile: medium
            data_dir: data
            hardware_dir: /opt/pacer
            """.write(toFile: "\(dir)/pacer.yaml", atomically: true, encoding: .utf8)
        let mine = try Settings.load(path: "\(dir)/pacer.yaml", environment: environment)
        let folder = (dir as NSString).standardizingPath
        #expect(mine.gps.path == "\(folder)/runs/today.nmea" && mine.gps.query["pace"] == "fast")
        #expect(mine.buzzer.path == "\(folder)/cues.wav")
        #expect(mine.dataDirectory == "\(folder)/data")
        #expect(mine.hardwareDirectory == "/opt/pacer")
        let flagged = try Settings.load(
            path: "\(dir)/pacer.yaml", overrides: .init(gps: "file:other.nmea", dataDirectory: "here"), environment: environment)
        #expect(flagged.gps.path == "other.nmea")
        #expect(flagged.dataDirectory == "here")
    }

    /// `system_clock:`, optional: the system clock the receiver's time is checked against
    /// (a week-rollover fault); absent, the default for the GPS source (nil here).
    @Test func theSystemClock() throws {
        let plain = try Settings.load(path: "\(hardwareDirectory)/config/simulated.yaml", environment: environment)
        #expect(plain.systemClock == nil)
        let dir = try makeTemporaryDirectory()
        let base = "gps: none\nbuzzer: \"null\"\nbattery: sim\nprofile: medium\ndata_dir: d\nhardware_dir: h\n"
        try (base + "system_clock: sim?at=2026-05-02T07:00:00Z\n").write(toFile: "\(dir)/c.yaml", atomically: true, encoding: .utf8)
        let s = try Settings.load(path: "\(dir)/c.yaml", environment: environment)
        #expect(s.systemClock?.scheme == "sim" && s.systemClock?.query["at"] == "2026-05-02T07:00:00Z")
        try (base + "system_clock: \"\"\n").write(toFile: "\(dir)/e.yaml", atomically: true, encoding: .utf8)
        #expect(throws: DataFileError.self) { try Settings.load(path: "\(dir)/e.yaml", environment: environment) }
    }

    /// The Wi-Fi radio: none unless named (the simulated and desktop setups), sysfs on the
    /// board; an unknown kind is refused with the line and the kinds known.
    @Test func theRadio() throws {
        for name in ["simulated", "desktop"] {
            #expect(try Settings.load(path: "\(hardwareDirectory)/config/\(name).yaml", environment: environment).radio == nil)
        }
        #expect(try Settings.load(path: "\(hardwareDirectory)/config/board.yaml", environment: environment).radio?.text == "sysfs")
        let dir = try makeTemporaryDirectory()
        let base = "gps: none\nbuzzer: \"null\"\nbattery: sim\nprofile: medium\ndata_dir: d\nhardware_dir: h\n"
        for (value, expected) in [("sysfs", "sysfs"), ("sysfs:/sys/class/rfkill/rfkill0", "sysfs:/sys/class/rfkill/rfkill0"),
                                  ("sim", "sim"), ("none", nil)] as [(String, String?)] {
            try (base + "radio: \(value)\n").write(toFile: "\(dir)/c.yaml", atomically: true, encoding: .utf8)
            let s = try Settings.load(path: "\(dir)/c.yaml", environment: environment)
            #expect(s.radio?.text == expected, "\(value)")
        }
        let path = try Settings.load(path: "\(dir)/c.yaml", environment: environment)
        #expect(path.radio == nil)
        try (base + "radio: bluetooth:hci0\n").write(toFile: "\(dir)/e.yaml", atomically: true, encoding: .utf8)
        let error = #expect(throws: DataFileError.self) { try Settings.load(path: "\(dir)/e.yaml", environment: environment) }
        #expect(error?.key == "radio" && error?.line == 7, "\(String(describing: error))")
        #expect(error?.reason.contains("known: sysfs, sysfs:/sys/class/rfkill/rfkillN, sim, none") == true)
    }

    /// Buttons: none unless named; their timing and actions from the file, checked.
    @Test func buttonsTheirTimingAndActions() throws {
        let plain = try Settings.load(path: "\(hardwareDirectory)/config/simulated.yaml", environment: environment)
        #expect(plain.buttons == nil)
        #expect(plain.buttonActions == .defaults)
        let dir = try makeTemporaryDirectory()
        let base = "gps: none\nbuzzer: \"null\"\nbattery: sim\nprofile: medium\ndata_dir: d\nhardware_dir: h\n"
        try (base + """
            buttons: evdev:/dev/input/event0?keys=28
            button_timing: {long_ms: 800, very_long_ms: 2500}
            button_actions: {running: {double: stop, very-long: none}, waiting: {double: none, long: next-workout}}
            """).write(toFile: "\(dir)/b.yaml", atomically: true, encoding: .utf8)
        let s = try Settings.load(path: "\(dir)/b.yaml", environment: environment)
        #expect(s.buttons?.path == "/dev/input/event0")
        #expect(s.buttonTiming.long == .milliseconds(800) && s.buttonTiming.veryLong == .milliseconds(2500))
        #expect(s.buttonTiming.debounce == .milliseconds(30))
        #expect(s.buttonActions.running[.double] == .stop && s.buttonActions.running[.veryLong] == ButtonAction.none)
        #expect(s.buttonActions.running[.short] == .waypoint)
        #expect(s.buttonActions.waiting[.double] == WaitingAction.none && s.buttonActions.waiting[.long] == .nextWorkout)
        #expect(s.buttonActions.waiting[.short] == .start && s.buttonActions.waiting[.veryLong] == .announce)
    }

    @Test(arguments: [
        ("button_timing: {long_ms: 4000}", "button_timing.very_long_ms", "must be longer than long_ms"),
        ("button_timing: {long_ms: 1e20}", "button_timing.long_ms", "is not within 300 to 10000 ms"),
        ("button_actions: {running: {triple: stop}}", "button_actions.running.triple", "not a press"),
        ("button_actions: {running: {short: jump}}", "button_actions.running.short", "'jump' is not one of waypoint, pause, stop, lap, status, none"),
        ("button_actions: {waiting: {short: jump}}", "button_actions.waiting.short",
         "'jump' is not one of start, next-workout, previous-workout, announce, none"),
        ("button_actions: {idle: {short: start}}", "button_actions.idle", "unknown key"),
        ("buttons: evdev", "", ""),
    ] as [(String, String, String)])
    func badButtonSettingsAreRefused(line: String, key: String, reason: String) throws {
        let dir = try makeTemporaryDirectory()
        let base = "gps: none\nbuzzer: \"null\"\nbattery: sim\nprofile: medium\ndata_dir: d\nhardware_dir: h\n"
        try (base + line + "\n").write(toFile: "\(dir)/b.yaml", atomically: true, encoding: .utf8)
        if key.isEmpty {
            // A URI without a path loads; the configurator refuses it (below).
            let s = try Settings.load(path: "\(dir)/b.yaml", environment: environment)
            let error = #expect(throws: ConfigurationError.self) {
                try Configurator.makeButtonSource(try #require(s.buttons), clock: VirtualClock())
            }
            #expect(error?.description.contains("names no device") == true)
            return
        }
        let error = #expect(throws: DataFileError.self) { try Settings.load(path: "\(dir)/b.yaml", environment: environment) }
        #expect(error?.key == key, "\(String(describing: error))")
        #expect(error?.line == 7)
        #expect(error?.reason.contains(reason) == true, "\(String(describing: error))")
    }

    /// `privacy_zones:`: the places `activities share` always hides (R18).
    @Test func privacyZonesAreRead() throws {
        let dir = try makeTemporaryDirectory()
        let base = "gps: none\nbuzzer: \"null\"\nbattery: sim\nprofile: medium\ndata_dir: d\nhardware_dir: h\n"
        try (base + """
            privacy_zones:
              - {name: Home, lat: 45.1, lon: 6.2, radius_m: 300}
              - name: Work
                lat: -33.8568
                lon: 151.2153
                radius_m: 150.5

            """).write(toFile: "\(dir)/z.yaml", atomically: true, encoding: .utf8)
        let s = try Settings.load(path: "\(dir)/z.yaml", environment: environment)
        #expect(s.privacyZones.map(\.name) == ["Home", "Work"])
        #expect(s.privacyZones.map(\.center) == [GeoPoint(latitude: 45.1, longitude: 6.2),
                                                  GeoPoint(latitude: -33.8568, longitude: 151.2153)])
        #expect(s.privacyZones.map(\.radius) == [300, 150.5])
        try (base + "privacy_zones: []\n").write(toFile: "\(dir)/z.yaml", atomically: true, encoding: .utf8)
        #expect(try Settings.load(path: "\(dir)/z.yaml", environment: environment).privacyZones.isEmpty)
        #expect(try Settings.load(path: "\(hardwareDirectory)/config/simulated.yaml", environment: environment)
            .privacyZones.isEmpty)
    }

    /// Each mistake named with the file, the line, the key, the value and the range.
    @Test(arguments: [
        ("privacy_zones: [{name: Home, lat: 45.1, lon: 6.2, radius_m: 20000}]", "privacy_zones[0].radius_m",
         "must be above 0 and at most 10000 m, got 20000"),
        ("privacy_zones: [{name: Home, lat: 45.1, lon: 6.2, radius_m: 0}]", "privacy_zones[0].radius_m",
         "must be above 0 and at most 10000 m, got 0"),
        ("privacy_zones: [{name: Home, lat: 95, lon: 6.2, radius_m: 300}]", "privacy_zones[0].lat",
         "must be from -90 to 90 degrees, got 95"),
        ("privacy_zones: [{name: Home, lat: 45, lon: 181, radius_m: 300}]", "privacy_zones[0].lon",
         "must be from -180 to 180 degrees, got 181"),
        ("privacy_zones: [{name: Home, lat: 45, lon: 6, radius: 300}]", "privacy_zones[0]", "missing key 'privacy_zones[0].radius_m'"),
        ("privacy_zones: [{name: Home, lat: 45, lon: 6, radius_m: 300, note: x}]", "privacy_zones[0].note", "unknown key"),
        ("privacy_zones: [{name: Home, lat: north, lon: 6, radius_m: 300}]", "privacy_zones[0].lat", "expected a number, got 'north'"),
        ("privacy_zones: {name: Home}", "privacy_zones", "expected a list of places"),
    ] as [(String, String, String)])
    func badPrivacyZonesAreRefused(line: String, key: String, reason: String) throws {
        let dir = try makeTemporaryDirectory()
        let base = "gps: none\nbuzzer: \"null\"\nbattery: sim\nprofile: medium\ndata_dir: d\nhardware_dir: h\n"
        try (base + line + "\n").write(toFile: "\(dir)/b.yaml", atomically: true, encoding: .utf8)
        let error = #expect(throws: DataFileError.self) { try Settings.load(path: "\(dir)/b.yaml", environment: environment) }
        #expect(error?.file == "\(dir)/b.yaml")
        #expect(error?.line == 7)
        #expect(error?.key == (key == "privacy_zones[0]" ? nil : key), "\(String(describing: error))")
        #expect(error?.reason.contains(reason) == true, "\(String(describing: error))")
    }

    @Test func flagsOverrideTheFile() throws {
        let s = try Settings.load(
            path: "\(hardwareDirectory)/config/simulated.yaml",
            overrides: .init(gps: "gpsd://10.0.0.2:3000", buzzer: "wav:/tmp/x.wav", profile: "low"),
            environment: environment)
        #expect(s.gps.authority == "10.0.0.2:3000")
        #expect(s.buzzer.path == "/tmp/x.wav")
        #expect(s.profile == "low")
    }

    @Test func aBadFlagNamesTheFlag() {
        let error = #expect(throws: DataFileError.self) {
            try Settings.load(
                path: "\(hardwareDirectory)/config/simulated.yaml", overrides: .init(gps: "://nowhere"),
                environment: environment)
        }
        #expect(error?.file == "--gps")
    }

    @Test(arguments: [
        ("gps: gpsd://localhost:2947\n", "", "gps", "missing key"),
        ("gps: gpsd://localhost:2947", "gps: gpsd://localhost:99999", "gps", "not a number from 1 to 65535"),
        ("profile: medium", "profile: medium\nvolume: 11", "volume", "unknown key"),
        ("buzzer: alsa:default", "buzzer: serial:///x?baud", "buzzer", "malformed query item"),
    ] as [(String, String, String, String)])
    func brokenSettingsAreRefused(replace: String, with replacement: String, key: String, reason: String) throws {
        let valid = """
            gps: gpsd://localhost:2947
            buzzer: alsa:default
            battery: sim
            profile: medium
            data_dir: /tmp/pacer
            hardware_dir: Hardware
            """
        let dir = try makeTemporaryDirectory()
        let path = try write(valid.replacingOccurrences(of: replace, with: replacement), to: "pacer.yaml", in: dir)
        do {
            let s = try Settings.load(path: path, environment: environment)
            // A port out of range is only found when the configurator asks for host and port.
            _ = try s.gps.hostAndPort(defaultHost: "localhost", defaultPort: 2947)
            Issue.record("accepted: \(s)")
        } catch let error as DataFileError {
            #expect(error.file == path)
            #expect(error.reason.contains(reason) || error.key == key, "\(error)")
        } catch let error as DeviceURIError {
            #expect(error.reason.contains(reason), "\(error)")
        }
    }
}
