import ArgumentParser
import Storage

/// The activity commands' TCX (issue 26), beside their GPX: kept apart so that each format's
/// lines in `ActivitiesCommand` stay few.
enum ActivityFiles {
    /// Writes activity `id` as TCX to `path` (- for standard output, every write checked).
    static func exportTCX(_ store: ActivityStore, _ id: Int64, to path: String, options: GPXExportOptions,
                          version: String) throws {
        if path == "-" {
            var reading = true
            try store.exportTCX(activity: id, options: options, version: version) { bytes in
                if reading { reading = try StandardOutput.write(bytes) }
            }
            try StandardOutput.finish()
        } else {
            try store.exportTCX(activity: id, to: path, options: options, version: version)
            print("Activity #\(id) written to \(path)")
        }
    }

    /// What a TCX or FIT share cannot carry, refused as a usage error before anything is
    /// read: no times (each point needs one), waypoints (no place for them), no track.
    static func checkLapShare(_ choice: ShareChoice, _ format: ShareFormat) throws {
        do { try choice.checkLapShare(format) } catch { throw ValidationError("--\(format.rawValue): \(error)") }
    }
}
