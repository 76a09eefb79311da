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
    /// folder's lock); a folder this user may not use is reported as such. `deviceFolders`:
    /// the folders that are the service's (`deviceDataFolders()`), whose errors give the
    /// group's fix and the service's commands.
    public static func openActivityStore(
        directory dir: String, access mode: PacerDatabase.Access, deviceFolders: [String] = deviceDataFolders()
    ) throws(ConfigurationError) -> PacerStore {
        let writing = if case .write = mode { true } else { false }
        try checkDataFolderAccess(dir, writing: writing, deviceFolders: deviceFolders)
        do {
            return try PacerStore(directory: dir, access: mode)
        } catch StorageError.busy(let directory, let holder)
                    where isDeviceDataFolder(dir, deviceFolders: deviceFolders) && !heldByRun(holder) {
            // The service holds its own folder (issue 42: `plan activate` while it runs).
            let error = StorageError.busy(directory: directory, holder: holder)
            throw ConfigurationError(
                StorageError.describeBusy(directory: directory, holder: holder, stop: serviceStopSteps(holder)), cause: error)
        } catch {
            throw ConfigurationError("\(error)", cause: error)
        }
    }

    /// Throws `DataFolderAccessError` (in a ConfigurationError) when `dir` is there but this
    /// user may not use it (to read, or to write when `writing`): a missing folder is left to
    /// the caller, which says so in its own words or makes it.
    public static func checkDataFolderAccess(
        _ dir: String, writing: Bool, deviceFolders: [String] = deviceDataFolders()
    ) throws(ConfigurationError) {
        var info = stat()
        guard stat(dir, &info) == 0 else { return }
        // Reading goes through SQLite's WAL, which writes its index beside the database: both
        // need the folder writable.
        guard access(dir, R_OK | W_OK | X_OK) != 0 else { return }
        let code = errno
        guard code == EACCES || code == EPERM else { return }
        let error = DataFolderAccessError(
            directory: dir, code: code, writing: writing,
            owner: DataFolderAccessError.owner(uid: info.st_uid, gid: info.st_gid, mode: info.st_mode),
            isDeviceFolder: isDeviceDataFolder(dir, deviceFolders: deviceFolders))
        throw ConfigurationError(error.description, cause: error)
    }

    /// systemd's state directory for the service (`StateDirectory=pacer`), the board's data_dir.
    public static let serviceDataDirectory = "/var/lib/pacer"

    /// The device's data folders: the service's (`/var/lib/pacer`) and the data_dir of the
    /// settings a person set up (`$PACER_CONFIG`, `/etc/pacer/pacer.yaml`), when they can be read.
    public static func deviceDataFolders() -> [String] {
        var folders = [serviceDataDirectory]
        if let path = Settings.installedPath(), let settings = try? Settings.load(path: path) {
            folders.append(settings.dataDirectory)
        }
        return folders
    }

    /// Whether `dir` is one of `deviceFolders` or inside one (`/var/lib/pacer/` is the folder
    /// too; `/var/lib/pacer-old` is not).
    public static func isDeviceDataFolder(_ dir: String, deviceFolders: [String]) -> Bool {
        let given = standardized(dir)
        return deviceFolders.map(standardized).contains { folder in
            given == folder || given.hasPrefix(folder == "/" ? "/" : folder + "/")
        }
    }

    private static func standardized(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let standard = (absolute as NSString).standardizingPath
        return standard.isEmpty ? "/" : standard
    }

    /// A `pacer run` holder is stopped by `pacer ctl stop`, not by the service's commands.
    private static func heldByRun(_ holder: String?) -> Bool {
        holder?.split(separator: " ", maxSplits: 1).dropFirst().first?.hasPrefix("pacer run") ?? false
    }

    /// What frees the service's folder for one command, and gives it back.
    static func serviceStopSteps(_ holder: String?) -> String {
        let pid = holder?.split(separator: " ", maxSplits: 1).first.map { "; not the service: kill \($0)" } ?? ""
        return "the device's folder is the service's: sudo systemctl stop pacer, run this command again, "
            + "then sudo systemctl start pacer" + pid
    }
}

/// A data folder that is there but that this user may not read or write (issue 42): the
/// folder, its owner and mode, and the fix; for the device's own folder (the service's, group
/// `pacer`), the group and how to join it.
public struct DataFolderAccessError: Error, CustomStringConvertible, Sendable {
    public var directory: String
    /// What access(2) said: EACCES or EPERM.
    public var code: Int32
    public var writing: Bool
    /// `owned by root:root, mode 755`, when the folder could be looked at.
    public var owner: String?
    public var isDeviceFolder: Bool

    public init(directory: String, code: Int32, writing: Bool, owner: String?, isDeviceFolder: Bool) {
        self.directory = directory
        self.code = code
        self.writing = writing
        self.owner = owner
        self.isDeviceFolder = isDeviceFolder
    }

    /// `owned by USER:GROUP, mode 755` (numbers when the names are unknown).
    public static func owner(uid: uid_t, gid: gid_t, mode: mode_t) -> String {
        let user = getpwuid(uid).flatMap { $0.pointee.pw_name.map { String(cString: $0) } } ?? String(uid)
        let group = getgrgid(gid).flatMap { $0.pointee.gr_name.map { String(cString: $0) } } ?? String(gid)
        return "owned by \(user):\(group), mode \(String(mode & 0o7777, radix: 8))"
    }

    public var description: String {
        let reason = String(cString: strerror(code)).lowercased()
        let head = "cannot \(writing ? "write to" : "read") \(directory): \(reason)" + (owner.map { " (\($0))" } ?? "")
        if isDeviceFolder {
            return head + ": the device's data folder is for the pacer user and group. "
                + "Add your user to the group (sudo usermod -aG pacer $USER, then log in again), or run as the pacer user"
        }
        return head + ": give a data folder of your own (--data-dir), or ask the folder's owner for access"
    }
}
