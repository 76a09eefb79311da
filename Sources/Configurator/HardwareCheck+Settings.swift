extension HardwareCheck {
    /// What `pacer hw check` checks: the parts of the settings file at `settingsPath` (nil:
    /// the board's, gpsd://localhost:2947, alsa:default and sysfs), each overridden by the
    /// option given. Throws when the settings file cannot be loaded. The command line and
    /// the companion's health page both build their check here.
    public static func configuration(
        settingsPath: String?, gps: String? = nil, buzzer: String? = nil, battery: String? = nil,
        buttons: String? = nil, speaker: String? = nil, listen: Duration = .seconds(5), pressWithin: Duration? = nil
    ) throws -> Configuration {
        var parts = (gps: "gpsd://localhost:2947", buzzer: "alsa:default", battery: "sysfs", buttons: "none")
        var radio: String?
        var heartRate: String?
        if let settingsPath {
            let settings = try Settings.load(path: settingsPath)
            parts = (settings.gps.text, settings.buzzer.text, settings.battery.text, settings.buttons?.text ?? "none")
            radio = settings.radio?.text
            heartRate = settings.heartRate?.text ?? "none"
        }
        var configuration = Configuration(
            gps: gps ?? parts.gps, buzzer: buzzer ?? parts.buzzer, battery: battery ?? parts.battery,
            listen: listen, buttons: buttons ?? parts.buttons, pressWithin: pressWithin, speaker: speaker)
        configuration.radio = radio
        configuration.heartRate = heartRate
        return configuration
    }
}
