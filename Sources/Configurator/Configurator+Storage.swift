import Coaching
import Foundation
import HAL
import LinuxHardware
import Logging
import NMEA
import PacerCore
import Runtime
import Simulation
import Storage

/// The activity store in a data folder, with the folder's owner and mode named when this
/// user may not use it.
extension Configurator {
    /// The device's activity store in the settings' data folder, for writing (SQLite, created
    /// when missing), under the folder's lock. A folder this user may not use is reported as
    /// such, with the fix; one another device holds, with its PID.
    public static func makeActivityStore(_ settings: Settings) throws(ConfigurationError) -> PacerStore {
        try openActivityStore(directory: settings.dataDirectory, access: .write)
    }

    /// The activity store in `dir`, for reading (it must exist) or for writing (under the
    /// folder's lock); a folder this user may not use is reported as such.
    public static func openActivityStore(
        directory dir: String, access mode: PacerDatabase.Access
    ) throws(ConfigurationError) -> PacerStore {
        if FileManager.default.fileExists(atPath: dir), access(dir, R_OK | W_OK | X_OK) != 0, errno == EACCES {
            var owner = ""
            if let a = try? FileManager.default.attributesOfItem(atPath: dir),
               let user = a[.ownerAccountName] as? String, let group = a[.groupOwnerAccountName] as? String,
               let mode = a[.posixPermissions] as? Int {
                owner = " (owned by \(user):\(group), mode \(String(mode, radix: 8)))"
            }
            throw ConfigurationError(
                "\(dir): permission denied\(owner): the device's data folder is for the pacer user and group. "
                    + "Add your user to the group (sudo usermod -aG pacer $USER, then log in again), or run as the pacer user")
        }
        do {
            return try PacerStore(directory: dir, access: mode)
        } catch {
            throw ConfigurationError("\(error)", cause: error)
        }
    }
}
