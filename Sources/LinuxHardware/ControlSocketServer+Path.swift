#if canImport(Glibc)
import Glibc
#endif
import Logging

/// Where the socket lives (the default paths) and how a server claims it.
extension ControlSocketServer {
    /// Where the service keeps its socket: systemd's `RuntimeDirectory=pacer`.
    public static let serviceDirectory = "/run/pacer"

    /// The service's socket when this process is the service (`$RUNTIME_DIRECTORY`, set by
    /// systemd's `RuntimeDirectory=`), or when the service is running (its socket is in
    /// `/run/pacer`): so `pacer ctl` finds the device without options. Otherwise
    /// `$XDG_RUNTIME_DIR/pacer/control.sock`, else `/tmp/pacer-<uid>/control.sock`.
    public static func defaultPath() -> String {
        let env = { (name: String) in getenv(name).map { String(cString: $0) } }
        return defaultPath(serviceRuntimeDirectory: env("RUNTIME_DIRECTORY"), runtimeDirectory: env("XDG_RUNTIME_DIR"),
                           uid: getuid(), serviceSocketExists: serviceSocket() == .present)
    }

    /// The service's socket: `/run/pacer/control.sock`.
    public static var serviceSocketPath: String { "\(serviceDirectory)/control.sock" }

    /// What a look at the service's socket finds.
    public enum ServiceSocket: Hashable, Sendable {
        /// A socket file is there.
        case present
        /// Nothing (or not a socket) is there: no service runs.
        case absent
        /// Its folder is there but this user may not look into it (`/run/pacer` is 0750
        /// pacer:pacer): the service may well run, for group pacer only.
        case forbidden
    }

    /// Looks at `path` (the service's socket) with lstat.
    public static func serviceSocket(at path: String = serviceSocketPath) -> ServiceSocket {
        var info = stat()
        if lstat(path, &info) == 0 { return info.st_mode & S_IFMT == S_IFSOCK ? .present : .absent }
        return serviceSocket(lstatError: errno)
    }

    /// What lstat's error says of the service's socket: EACCES, a folder on the way that this
    /// user may not search, is `forbidden`; anything else (ENOENT) `absent`.
    public static func serviceSocket(lstatError code: Int32) -> ServiceSocket {
        code == EACCES ? .forbidden : .absent
    }

    /// The default path for a given environment: `serviceRuntimeDirectory` is
    /// `$RUNTIME_DIRECTORY` (the first of its folders), `runtimeDirectory` `$XDG_RUNTIME_DIR`.
    public static func defaultPath(serviceRuntimeDirectory: String?, runtimeDirectory: String?, uid: uid_t,
                                   serviceSocketExists: Bool) -> String {
        if let service = serviceRuntimeDirectory?.split(separator: ":").first, service.hasPrefix("/") {
            return service + "/control.sock"
        }
        if serviceSocketExists { return "\(serviceDirectory)/control.sock" }
        return defaultPath(runtimeDirectory: runtimeDirectory, uid: uid)
    }

    /// The default path for a given `XDG_RUNTIME_DIR` (ignored unless absolute) and user.
    public static func defaultPath(runtimeDirectory: String?, uid: uid_t) -> String {
        defaultDirectory(runtimeDirectory: runtimeDirectory, uid: uid) + "/control.sock"
    }

    static func defaultDirectory(runtimeDirectory: String?, uid: uid_t) -> String {
        if let dir = runtimeDirectory, dir.hasPrefix("/") {
            return (dir.hasSuffix("/") ? String(dir.dropLast()) : dir) + "/pacer"
        }
        return "/tmp/pacer-\(uid)"
    }

    /// Claims `path` for a server: checks its directory (creating the default one), removes a
    /// stale socket file, refuses a live server's or any other file, and binds and listens
    /// (see the type's documentation). Returns the listening socket and the file as bound.
    static func claim(
        _ path: String, logger: Logger?
    ) throws(ControlSocketError) -> (listener: Int32, boundFile: (dev: UInt64, ino: UInt64)?) {
        func failure(_ reason: String) -> ControlSocketError { ControlSocketError(path: path, reason: reason) }

        guard ControlIO.address(path) != nil else {
            throw failure("path too long for a UNIX socket (at most \(ControlIO.maximumPathLength) bytes)")
        }
        let directory = ControlIO.directory(of: path)
        let uid = getuid()
        let isDefault = directory == Self.defaultDirectory(
            runtimeDirectory: getenv("XDG_RUNTIME_DIR").map { String(cString: $0) }, uid: uid)
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            throw failure("cannot create the directory \(directory): \(ControlIO.describe(errno))")
        }
        var info = stat()
        guard lstat(directory, &info) == 0 else {
            throw failure("cannot examine \(directory): \(ControlIO.describe(errno))")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw failure("\(directory) is not a directory") }
        if isDefault, info.st_uid != uid || info.st_mode & 0o077 != 0 {
            throw failure("\(directory) belongs to another user or is open to others; remove it or use another path")
        }

        // A file already there: a live server (refuse), a stale socket (remove), or something else (refuse).
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK else {
                throw failure("a file that is not a socket is in the way; not removing it")
            }
            switch ControlIO.probe(path) {
            case .live:
                throw failure("another Pacer is already running and listening on it (stop it, or use another socket path)")
            case .stale:
                guard unlink(path) == 0 || errno == ENOENT else {
                    throw failure("cannot remove the stale socket file: \(ControlIO.describe(errno))")
                }
                logger?.info("\(path): removed a stale control socket")
            case .error(let reason):
                throw failure("cannot check the socket file already there: \(reason)")
            }
        }

        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw failure("cannot create a socket: \(ControlIO.describe(errno))") }
        var address = ControlIO.address(path)!
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw failure(code == EADDRINUSE
                ? "another Pacer took it while this one was starting"
                : "cannot bind: \(ControlIO.describe(code))")
        }
        // In the service's runtime directory (group pacer) the group may connect: an
        // administrator in group pacer runs `pacer ctl`. Elsewhere only its user.
        let inServiceDirectory = getenv("RUNTIME_DIRECTORY").map { String(cString: $0) }
            .map { $0.split(separator: ":").contains { String($0) == directory } } ?? false
        _ = chmod(path, inServiceDirectory ? 0o660 : 0o600)
        guard listen(fd, 16) == 0 else {
            let code = errno
            close(fd)
            unlink(path)
            throw failure("cannot listen: \(ControlIO.describe(code))")
        }
        let boundFile: (dev: UInt64, ino: UInt64)? = lstat(path, &info) == 0 ? (UInt64(info.st_dev), UInt64(info.st_ino)) : nil
        return (fd, boundFile)
    }
}
