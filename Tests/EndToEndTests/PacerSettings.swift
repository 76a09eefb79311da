import Foundation
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

    /// Hardware files for a test, in `<dir>/hardware`, and its path: the bundled cues, the
    /// profile `quick` (its YAML lines after the name), `plans` (by file name without
    /// `.yaml`), and the bundled plans too when `bundledPlans`.
    static func testHardware(
        in dir: String, quickProfile: String, plans: [String: String] = [:], bundledPlans: Bool = false
    ) throws -> String {
        let hardware = "\(dir)/hardware"
        try FileManager.default.createDirectory(atPath: "\(hardware)/profiles", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: repositoryRoot + "/Hardware/cues.yaml", toPath: "\(hardware)/cues.yaml")
        if bundledPlans {
            try FileManager.default.copyItem(atPath: repositoryRoot + "/Hardware/plans", toPath: "\(hardware)/plans")
        } else {
            try FileManager.default.createDirectory(atPath: "\(hardware)/plans", withIntermediateDirectories: true)
        }
        try ("name: quick\n" + quickProfile).write(toFile: "\(hardware)/profiles/quick.yaml", atomically: true, encoding: .utf8)
        for (name, text) in plans {
            try text.write(toFile: "\(hardware)/plans/\(name).yaml", atomically: true, encoding: .utf8)
        }
        return hardware
    }

    /// `testHardware` with a profile that samples every 0.2 s and commits every 0.5 s, and a
    /// plan `short` of one workout of about twenty seconds.
    static func quickHardware(in dir: String) throws -> String {
        try testHardware(in: dir, quickProfile: """
            summary: Test profile that samples and commits often.
            position_interval_s: 0.2
            alert_interval_s: 2
            cue_style: beeps
            smoothing_window_s: 1
            track_flush_interval_s: 0.5
            """, plans: ["short": """
            name: Short
            workouts:
              - name: Twenty seconds
                phases:
                  - {name: run, minutes: 0.34, speed_kmh: [8, 14]}
            """])
    }
}
