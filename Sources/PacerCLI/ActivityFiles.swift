import ArgumentParser
import Companion
import Storage

/// The activity commands' TCX, beside their GPX: kept apart so that each format's
/// lines in `ActivitiesCommand` stay few.
enum ActivityFiles {
    /// Writes activity `id` as TCX to `path` (- for standard output, every write checked).
    static func exportTCX(_ store: PacerStore, _ id: Int64, to path: String, options: GPXExportOptions,
                          version: String) throws {
        if path == "-" {
            var reading = true
            try store.tcx.exportTCX(activity: id, options: options, version: version) { bytes in
                if reading { reading = try StandardStream.output.write(bytes) }
            }
            try StandardStream.output.finish()
        } else {
            try store.tcx.exportTCX(activity: id, to: path, options: options, version: version)
            print("Activity #\(id) written to \(path)")
        }
    }

    /// What a TCX or FIT share cannot carry (`ShareRequest.checkLapShare`), refused as a
    /// usage error before anything is read.
    static func checkLapShare(_ choice: ShareChoice, _ format: ShareFormat) throws {
        do { try ShareRequest.checkLapShare(choice, format) } catch { throw ValidationError(error.description) }
    }
}
