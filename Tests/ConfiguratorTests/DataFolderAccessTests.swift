import Configurator
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Storage
import TestSupport
import Testing

/// What a user hears about a data folder they may not use, or that the service holds (issue
/// 42). The other user's side, with real permissions, is in the end-to-end tests
/// (`AnotherUserEndToEndTests`): here the tests run as root, who may use any folder.
@Suite("The data folder's access and lock, as the user hears them")
struct DataFolderAccessTests {
    /// The service's folder, /var/lib/pacer, and the installed settings' data_dir, and what
    /// is inside them; nothing else (a folder whose name only starts the same is not).
    @Test func theDevicesFoldersAreTheServicesAndTheSettings() {
        let device = ["/var/lib/pacer", "/srv/pacer-data/"]
        #expect(Configurator.isDeviceDataFolder("/var/lib/pacer", deviceFolders: device))
        #expect(Configurator.isDeviceDataFolder("/var/lib/pacer/", deviceFolders: device))
        #expect(Configurator.isDeviceDataFolder("/var/lib//pacer/./", deviceFolders: device))
        #expect(Configurator.isDeviceDataFolder("/srv/pacer-data", deviceFolders: device))
        #expect(Configurator.isDeviceDataFolder("/var/lib/pacer/old", deviceFolders: device))
        #expect(!Configurator.isDeviceDataFolder("/var/lib/pacer-old", deviceFolders: device))
        #expect(!Configurator.isDeviceDataFolder("/tmp/try", deviceFolders: device))
        #expect(Configurator.deviceDataFolders().contains("/var/lib/pacer"))
    }

    /// The device's folder: the group, and how to join it; another folder: its owner and mode,
    /// and no word of the device (issue 42 item 6: `/tmp/try` was called the device's).
    @Test func theMessageNamesTheGroupOnlyForTheDevicesFolder() {
        let device = DataFolderAccessError(directory: "/var/lib/pacer", code: EACCES, writing: false,
                                           owner: "owned by pacer:pacer, mode 770", isDeviceFolder: true)
        #expect(device.description == "cannot read /var/lib/pacer: permission denied (owned by pacer:pacer, mode 770): "
            + "the device's data folder is for the pacer user and group. Add your user to the group "
            + "(sudo usermod -aG pacer $USER, then log in again), or run as the pacer user")
        let other = DataFolderAccessError(directory: "/tmp/try", code: EACCES, writing: true,
                                          owner: "owned by root:root, mode 755", isDeviceFolder: false)
        #expect(other.description == "cannot write to /tmp/try: permission denied (owned by root:root, mode 755): "
            + "give a data folder of your own (--data-dir), or ask the folder's owner for access")
        #expect(DataFolderAccessError.owner(uid: 0, gid: 0, mode: 0o40755) == "owned by root:root, mode 755")
    }

    /// A folder this user may use is let through; one that is not there is left to the caller.
    @Test func aFolderThisUserMayUseOrThatIsNotThereIsNoError() throws {
        let dir = try makeTemporaryDirectory()
        #expect(throws: Never.self) { try Configurator.checkDataFolderAccess(dir, writing: true, deviceFolders: []) }
        #expect(throws: Never.self) { try Configurator.checkDataFolderAccess(dir + "/none", writing: false, deviceFolders: []) }
    }

    /// The service holds its own folder (`plan activate` while it runs): the error gives the
    /// service's three commands; another folder keeps the general advice.
    @Test func theServicesFolderInUseSaysStopTheServiceRunThisAgainStartIt() throws {
        let dir = try makeTemporaryDirectory()
        let holder = try Self.holdLock(of: dir, as: "pacer device")
        defer { kill(holder.processIdentifier, SIGKILL); holder.waitUntilExit() }
        let pid = holder.processIdentifier

        let service = try #require(Self.failure { _ = try Configurator.openActivityStore(directory: dir, access: .write, deviceFolders: [dir]) })
        #expect(service.description == "\(dir) is in use by another Pacer (PID \(pid), pacer device): one device or command "
            + "writes to a data folder at a time. Stop it first (the device's folder is the service's: sudo systemctl stop pacer, "
            + "run this command again, then sudo systemctl start pacer; not the service: kill \(pid)), or use another --data-dir",
            "\(service)")
        guard case .busy? = service.cause as? StorageError else {
            Issue.record("the cause is not the busy folder: \(String(describing: service.cause))")
            return
        }

        let other = try #require(Self.failure { _ = try Configurator.openActivityStore(directory: dir, access: .write, deviceFolders: []) })
        #expect(other.description.contains("Stop it first (sudo systemctl stop pacer when it runs as the service, else kill \(pid))"),
                "\(other)")
        #expect(!other.description.contains("run this command again"), "\(other)")
    }

    /// A `pacer run` in the device's folder is ended by `pacer ctl stop`, not by the service's commands.
    @Test func aRunInTheDevicesFolderIsStoppedAsARun() throws {
        let dir = try makeTemporaryDirectory()
        let holder = try Self.holdLock(of: dir, as: "pacer run --plan")
        defer { kill(holder.processIdentifier, SIGKILL); holder.waitUntilExit() }
        let error = try #require(Self.failure { _ = try Configurator.openActivityStore(directory: dir, access: .write, deviceFolders: [dir]) })
        #expect(error.description.contains("Stop it first (pacer ctl stop ends the run, or kill \(holder.processIdentifier))"), "\(error)")
        #expect(!error.description.contains("systemctl"), "\(error)")
    }

    static func failure(_ body: () throws -> Void) -> ConfigurationError? {
        do {
            try body()
        } catch let error as ConfigurationError {
            return error
        } catch {
            Issue.record("not a ConfigurationError: \(error)")
        }
        return nil
    }

    /// Another process that takes the folder's lock as a Pacer does (`PID COMMAND` in the
    /// file), and holds it until killed.
    static func holdLock(of dir: String, as command: String) throws -> Process {
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        holder.arguments = ["-c", """
            import fcntl, os, sys, time
            f = open(sys.argv[1], "a+")
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            f.truncate(0); f.write(f"{os.getpid()} {sys.argv[2]}\\n"); f.flush()
            time.sleep(60)
            """, "\(dir)/\(DataFolderLock.fileName)", command]
        try holder.run()
        let holding = eventuallyBlocking(within: .seconds(5), every: .milliseconds(20)) {
            (try? String(contentsOfFile: "\(dir)/\(DataFolderLock.fileName)", encoding: .utf8))?.contains(command) ?? false
        }
        if !holding { kill(holder.processIdentifier, SIGKILL) }
        try #require(holding, "the holder never wrote itself in")
        return holder
    }
}
