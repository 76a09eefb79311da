import ArgumentParser
import Configurator
import Foundation

/// `--config`: the settings file (R27), for every command that reads the settings.
struct SettingsOption: ParsableArguments {
    @Option(name: .long, help: "Settings file (default: $PACER_CONFIG, /etc/pacer/pacer.yaml, or the simulated setup beside the binary).")
    var config: String?

    func settings(_ overrides: Settings.Overrides = .init()) throws -> Settings {
        do {
            return try Settings.load(path: config ?? Settings.defaultPath(), overrides: overrides)
        } catch {
            throw CommandFailure.config(error)
        }
    }

    /// The settings when there are some to read: nil when no file is named (no --config, no
    /// $PACER_CONFIG, no /etc/pacer/pacer.yaml) and the simulated setup is not beside the
    /// binary either. A file that is there but broken is an error, never skipped.
    func settingsIfAny() throws -> Settings? {
        if config == nil, Settings.installedPath() == nil,
           !FileManager.default.fileExists(atPath: Settings.defaultPath()) {
            return nil
        }
        return try settings()
    }
}

/// The options every command that builds the device shares: the settings file and the
/// flags that override its parts (R27). Commands that only read the store take
/// `SettingsOption` alone: a buzzer or a profile means nothing to them.
struct DeviceOptions: ParsableArguments {
    @OptionGroup var settingsFile: SettingsOption

    @Option(name: .long, help: "Power profile (low, medium, high, or any in Hardware/profiles).")
    var profile: String?

    @Option(name: .long, help: "Buzzer: alsa:DEVICE, wav:PATH or null.")
    var buzzer: String?

    func settings(gps: String? = nil) throws -> Settings {
        try settingsFile.settings(Settings.Overrides(gps: gps, buzzer: buzzer, profile: profile))
    }
}
