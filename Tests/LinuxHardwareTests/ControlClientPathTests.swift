#if canImport(Glibc)
import Glibc
#endif
@testable import LinuxHardware
import TestSupport
import Testing

/// Where `pacer ctl` looks without `--socket` (issue 42, item 3): a service socket this user
/// may not reach is a permission problem, not "no Pacer running" on the user's own path.
/// The tests run as root, who may search any folder, so the EACCES of a user outside group
/// pacer is given as lstat's errno; the socket files looked at are real.
@Suite("The control client's default path")
struct ControlClientPathTests {
    func path(service: ControlSocketServer.ServiceSocket, runtime: String? = nil, own: Bool = false) throws(ControlClientError) -> String {
        try ControlClient.defaultPath(serviceRuntimeDirectory: runtime, runtimeDirectory: "/run/user/1000", uid: 1000,
                                      service: service, ownSocketPresent: own)
    }

    @Test func aServiceSocketThisUserMayNotReachIsAPermissionError() throws {
        #expect(throws: ControlClientError.permissionDenied(path: "/run/pacer/control.sock")) { try path(service: .forbidden) }
        // As before: the service's socket when it is there, else the user's own.
        #expect(try path(service: .present) == "/run/pacer/control.sock")
        #expect(try path(service: .absent) == "/run/user/1000/pacer/control.sock")
        // The service itself, and a user's own run beside a service they may not reach.
        #expect(try path(service: .forbidden, runtime: "/run/pacer") == "/run/pacer/control.sock")
        #expect(try path(service: .forbidden, own: true) == "/run/user/1000/pacer/control.sock")
    }

    /// lstat's EACCES (a folder on the way this user may not search) is `forbidden`; a
    /// missing socket is `absent`.
    @Test func lstatsErrorsSayWhatIsThere() {
        #expect(ControlSocketServer.serviceSocket(lstatError: EACCES) == .forbidden)
        #expect(ControlSocketServer.serviceSocket(lstatError: ENOENT) == .absent)
        #expect(ControlSocketServer.serviceSocket(lstatError: ENOTDIR) == .absent)
    }

    /// A real socket is `present`; a plain file of that name, or nothing, is `absent`.
    @Test func aRealSocketIsPresent() throws {
        let directory = TemporaryDirectory()
        #expect(ControlSocketServer.serviceSocket(at: directory.socketPath) == .absent)
        let server = try ControlSocketServer(path: directory.socketPath)
        #expect(ControlSocketServer.serviceSocket(at: directory.socketPath) == .present)
        server.stop()
        let file = TemporaryDirectory()
        _ = try write("", to: "control.sock", in: file.path)
        #expect(ControlSocketServer.serviceSocket(at: file.socketPath) == .absent)
    }

    /// The message names the socket, its group and the fix.
    @Test func theMessageNamesTheSocketTheGroupAndTheFix() {
        let error = ControlClientError.permissionDenied(path: "/run/pacer/control.sock")
        #expect(error.description == "cannot reach Pacer on /run/pacer/control.sock: permission denied. The service's socket "
            + "(and its folder /run/pacer) is for group pacer: sudo usermod -aG pacer $USER, then log in again (or run as the pacer user)")
    }
}
