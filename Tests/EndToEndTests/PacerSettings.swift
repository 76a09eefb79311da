import TestSupport

extension Pacer {
    /// The bundled recording that test runs replay.
    static let trackLoop = hardwareDirectory + "/recordings/track-loop.nmea"

    /// Writes the settings of a test run to `<dir>/pacer.yaml` and returns its path: `gps`
    /// (none by default), no buzzer, a simulated battery, `profile`, the data in `data`
    /// (`<dir>/data` by default), the hardware files in `hardware` (the repository's by
    /// default), then the `extra` lines (`privacy_zones:`).
    static func settings(
        in dir: String, gps: String = "none", profile: String = "medium", data: String? = nil,
        hardware: String = hardwareDirectory, extra: String = ""
    ) throws -> String {
        var text = """
            gps: \(gps)
            buzzer: "null"
            battery: sim
            profile: \(profile)
            data_dir: \(data ?? dir + "/data")
            hardware_dir: \(hardware)
            """
        if !extra.isEmpty { text += "\n" + extra }
        return try write(text, to: "pacer.yaml", in: dir)
    }
}
