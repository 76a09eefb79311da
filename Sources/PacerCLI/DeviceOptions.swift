import ArgumentParser
import Configurator

/// The options every command that builds the device shares: the settings file and the
/// flags that override it (R27).
struct DeviceOptions: ParsableArguments {
    @Option(name: .long, help: "Settings file (default: $PACER_CONFIG, /etc/pacer/pacer.yaml, or the simulated setup beside the binary).")
    var config: String?

    @Option(name: .long, help: "Power profile (low, medium, high, or any in Hardware/profiles).")
    var profile: String?

    @Option(name: .long, help: "Buzzer: alsa:DEVICE, wav:PATH or null.")
    var buzzer: String?

    func settings(gps: String? = nil) throws -> Settings {
        do {
            return try Settings.load(
                path: config ?? Settings.defaultPath(),
                overrides: Settings.Overrides(gps: gps, buzzer: buzzer, profile: profile))
        } catch {
            throw ValidationError(error.description)
        }
    }
}
