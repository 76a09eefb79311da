import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import Testing

/// A user who may not use a data folder or a socket hears that it is a permission problem,
/// with the fix, and exit 77 (issue 42, items 3, 4 and 6): real folders and a real socket,
/// the command run as `nobody` (switching users needs root, as CI and the development
/// machines run).
@Suite("Another user's folders and sockets", .enabled(if: getuid() == 0, "switching to another user needs root"))
struct AnotherUserEndToEndTests {
    /// A copy of the binary nobody may run wherever the checkout is (a clone in /root is not),
    /// in `dir` (made 0755).
    static func binary(in dir: String) throws -> String {
        chmod(dir, 0o755)
        let binary = "\(dir)/pacer"
        try FileManager.default.copyItem(atPath: Pacer.executable, toPath: binary)
        chmod(binary, 0o755)
        return binary
    }

    /// `pacer ARGUMENTS` as nobody, with `PACER_CONFIG` when given (the settings a person
    /// set up, as /etc/pacer/pacer.yaml on the board).
    static func asNobody(_ binary: String, _ arguments: [String], config: String? = nil) throws -> ProcessResult {
        try Program.run("/usr/sbin/runuser", ["-u", "nobody", "--", "/usr/bin/env"]
            + (config.map { ["PACER_CONFIG=\($0)"] } ?? []) + [binary] + arguments)
    }

    /// The device's folder (the settings' data_dir) of mode 0770, as /var/lib/pacer is for group
    /// pacer: every command that reads it says so, with the group's fix; `profile show` no
    /// longer says "No athlete profile yet" (it could not look).
    @Test func theDevicesFolderOutsideItsGroupIsAPermissionProblem() throws {
        let dir = try makeTemporaryDirectory()
        let binary = try Self.binary(in: dir)
        let data = "\(dir)/data"
        let config = try Pacer.settings(in: dir, data: data)
        chmod(config, 0o644)
        // A real database in it, with a profile: what the user outside the group cannot see.
        let set = try Pacer.run(["profile", "set", "--weight", "70", "--height", "175", "--frequency", "3", "--config", config])
        try #require(set.status == 0, "\(set.stderr)")
        chmod(data, 0o770)

        for command in [["profile", "show"], ["activities", "list"], ["plan", "active"]] {
            let run = try Self.asNobody(binary, command, config: config)
            let said = "pacer \(command.joined(separator: " ")): \(run.stderr)"
            #expect(run.status == 77, "\(said)")
            #expect(run.stderr.contains("cannot read \(data): permission denied (owned by root:root, mode 770): "
                + "the device's data folder is for the pacer user and group"), "\(said)")
            #expect(run.stderr.contains("sudo usermod -aG pacer $USER, then log in again"), "\(said)")
            #expect(!run.stderr.contains("No athlete profile yet"), "\(said)")
        }
    }

    /// `pacer run --data-dir` on a folder of root's that is not the device's: its owner and
    /// mode, not the device's group (issue 42 item 6).
    @Test func anotherUsersFolderIsNotCalledTheDevices() throws {
        let dir = try makeTemporaryDirectory()
        let binary = try Self.binary(in: dir)
        let config = try Pacer.settings(in: dir, data: "\(dir)/data")
        chmod(config, 0o644)
        let other = "\(dir)/try"
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: false)
        chmod(other, 0o755)

        let run = try Self.asNobody(binary, ["run", "--plan", "demo", "--fast", "--data-dir", other], config: config)
        #expect(run.status == 77, "\(run.stderr)")
        #expect(run.stderr.contains("cannot write to \(other): permission denied (owned by root:root, mode 755): "
            + "give a data folder of your own (--data-dir)"), "\(run.stderr)")
        #expect(!run.stderr.contains("the device's data folder"), "\(run.stderr)")
        #expect(!run.stderr.contains("usermod"), "\(run.stderr)")
    }

    /// A socket in a folder this user may not search: permission denied, 77 (it was 66, as if
    /// nothing were there).
    @Test func aSocketThisUserMayNotReachIsAPermissionProblem() throws {
        let dir = try makeTemporaryDirectory()
        let binary = try Self.binary(in: dir)
        let folder = "\(dir)/run"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        chmod(folder, 0o750)
        let run = try Self.asNobody(binary, ["ctl", "status", "--socket", "\(folder)/control.sock"])
        #expect(run.status == 77, "\(run.stderr)")
        #expect(run.stderr.contains("cannot reach Pacer on \(folder)/control.sock: permission denied"), "\(run.stderr)")
    }
}
