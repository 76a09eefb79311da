#if canImport(Glibc)
import Glibc
#endif
import HAL

/// Why `pacer ctl` got no answer.
public enum ControlClientError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Nothing listens on the path (no socket file, or a stale one).
    case noServer(path: String)
    case permissionDenied(path: String)
    /// The device did not answer (or take the command) within the timeout.
    case timedOut(path: String, timeout: Duration)
    /// The command cannot be sent as one protocol line.
    case invalidCommand(String)
    case failed(path: String, reason: String)

    public var description: String {
        switch self {
        case .noServer(let path): "no Pacer running: nothing listens on \(path)"
        case .permissionDenied(let path) where path.hasPrefix(ControlSocketServer.serviceDirectory + "/"):
            "cannot reach Pacer on \(path): permission denied. The service's socket (and its folder "
                + "\(ControlSocketServer.serviceDirectory)) is for group pacer: sudo usermod -aG pacer $USER, "
                + "then log in again (or run as the pacer user)"
        case .permissionDenied(let path):
            "cannot reach Pacer on \(path): permission denied: the socket is its owner's (and its group's); "
                + "run pacer ctl as that user, or join the group"
        case .timedOut(let path, let timeout): "Pacer on \(path) did not answer within \(ControlIO.text(timeout))"
        case .invalidCommand(let reason): reason
        case .failed(let path, let reason): "Pacer on \(path): \(reason)"
        }
    }
}

/// The client side of the control socket, for `pacer ctl`.
public enum ControlClient {
    /// The most of a reply read.
    static let maximumReply = 64 * 1024

    /// The socket `pacer ctl` talks to without `--socket`: the server's default
    /// (`ControlSocketServer.defaultPath()`), except that a service socket this user may not
    /// reach is an error (issue 42: outside group pacer, the lstat of
    /// `/run/pacer/control.sock` failed with EACCES and `pacer ctl` looked in the user's own
    /// folder, saying no Pacer ran while the service did).
    public static func defaultPath() throws(ControlClientError) -> String {
        let env = { (name: String) in getenv(name).map { String(cString: $0) } }
        let own = ControlSocketServer.defaultPath(runtimeDirectory: env("XDG_RUNTIME_DIR"), uid: getuid())
        return try defaultPath(serviceRuntimeDirectory: env("RUNTIME_DIRECTORY"), runtimeDirectory: env("XDG_RUNTIME_DIR"),
                               uid: getuid(), service: ControlSocketServer.serviceSocket(),
                               ownSocketPresent: ControlSocketServer.serviceSocket(at: own) == .present)
    }

    /// The client's default path for a given environment and look at the service's socket;
    /// `ownSocketPresent`: a socket is at this user's own default path (a `pacer run` of
    /// theirs, which a forbidden service socket does not hide).
    public static func defaultPath(
        serviceRuntimeDirectory: String?, runtimeDirectory: String?, uid: uid_t, service: ControlSocketServer.ServiceSocket,
        ownSocketPresent: Bool = false
    ) throws(ControlClientError) -> String {
        let path = ControlSocketServer.defaultPath(serviceRuntimeDirectory: serviceRuntimeDirectory, runtimeDirectory: runtimeDirectory,
                                                   uid: uid, serviceSocketExists: service == .present)
        // The service itself (its $RUNTIME_DIRECTORY) talks to its own socket.
        let isService = serviceRuntimeDirectory?.split(separator: ":").first?.hasPrefix("/") ?? false
        if service == .forbidden && !isService && !ownSocketPresent {
            throw .permissionDenied(path: ControlSocketServer.serviceSocketPath)
        }
        return path
    }

    /// Sends one command line (`waypoint Water`, `status`, …; without its newline) to the
    /// device listening on `socketPath` and returns its reply, without the final newline.
    /// Everything, connecting included, is done within `timeout`.
    public static func send(
        _ command: String, socketPath: String = ControlSocketServer.defaultPath(), timeout: Duration = .seconds(5)
    ) throws(ControlClientError) -> String {
        let path = socketPath
        var line = command
        if line.hasSuffix("\n") { line.removeLast() }
        guard !line.contains("\n") && !line.contains("\r") else {
            throw .invalidCommand("a command is one line")
        }
        guard line.utf8.count <= ControlCommand.maximumLineLength else {
            throw .invalidCommand("command too long (\(line.utf8.count) bytes; at most \(ControlCommand.maximumLineLength))")
        }
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        let fd = try connect(path, deadline: deadline, timeout: timeout)
        defer { close(fd) }

        func wait(_ events: Int32) throws(ControlClientError) {
            try ControlClient.wait(fd, events, path: path, deadline: deadline, timeout: timeout)
        }

        // Send the line.
        try sendLine(line, fd: fd, wait: wait)

        // Read the reply, to the end.
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while reply.count < maximumReply {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                reply.append(contentsOf: buffer[0..<n])
                continue
            }
            if n == 0 { break }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK {
                try wait(POLLIN)
                continue
            }
            if code == ECONNRESET && !reply.isEmpty { break }
            throw .failed(path: path, reason: "cannot read the reply: \(ControlIO.describe(code))")
        }
        while reply.last == UInt8(ascii: "\n") || reply.last == UInt8(ascii: "\r") { reply.removeLast() }
        guard !reply.isEmpty else {
            throw .failed(path: path, reason: "closed the connection without answering")
        }
        return String(decoding: reply, as: UTF8.self)
    }

    /// Watches the device listening on `socketPath` (`pacer ctl watch`): sends `watch` and
    /// hands `onLine` each line the device sends, without its newline, as it arrives, until
    /// the device ends the stream (it stopped: `watch` returns) or `onLine` returns false.
    /// The first line is the device's state now, or `error: …` when it refuses (too many
    /// watchers, or a device that does not know `watch`); `timeout` bounds connecting and
    /// that first line. After it the stream may be quiet for any time.
    public static func watch(
        socketPath: String = ControlSocketServer.defaultPath(), timeout: Duration = .seconds(5),
        _ onLine: (String) -> Bool
    ) throws(ControlClientError) {
        let path = socketPath
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        let fd = try connect(path, deadline: deadline, timeout: timeout)
        defer { close(fd) }
        try sendLine("watch", fd: fd) { (events: Int32) throws(ControlClientError) in
            try ControlClient.wait(fd, events, path: path, deadline: deadline, timeout: timeout)
        }

        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var lines = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                pending.append(contentsOf: buffer[0..<n])
                var start = 0
                while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                    var end = newline
                    if end > start, pending[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                    lines += 1
                    guard onLine(String(decoding: pending[start..<end], as: UTF8.self)) else { return }
                    start = newline + 1
                }
                pending.removeSubrange(0..<start)
                guard pending.count <= maximumReply else {
                    throw .failed(path: path, reason: "sent a line longer than \(maximumReply / 1024) KiB")
                }
                continue
            }
            // The end of the stream; an unfinished last line is not a line.
            if n == 0 { break }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK {
                if lines == 0 {
                    try wait(fd, POLLIN, path: path, deadline: deadline, timeout: timeout)
                } else {
                    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    if poll(&p, 1, -1) < 0 && errno != EINTR {
                        throw .failed(path: path, reason: "poll failed: \(ControlIO.describe(errno))")
                    }
                }
                continue
            }
            if code == ECONNRESET && lines > 0 { break }
            throw .failed(path: path, reason: "cannot read the stream: \(ControlIO.describe(code))")
        }
        guard lines > 0 else {
            throw .failed(path: path, reason: "closed the connection without answering")
        }
    }

    /// A connected non-blocking socket to the server on `path`. A UNIX socket connects at
    /// once or says EAGAIN (the server's backlog is full): then it tries again until `deadline`.
    private static func connect(
        _ path: String, deadline: ContinuousClock.Instant, timeout: Duration
    ) throws(ControlClientError) -> Int32 {
        guard var address = ControlIO.address(path) else {
            throw .failed(path: path, reason: "path too long for a UNIX socket")
        }
        let clock = ContinuousClock()
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .failed(path: path, reason: "cannot create a socket: \(ControlIO.describe(errno))") }
        var connected = false
        defer { if !connected { close(fd) } }
        while true {
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            if result == 0 { break }
            let code = errno
            switch code {
            case EINTR:
                continue
            case EAGAIN, EINPROGRESS:
                guard clock.now < deadline else { throw .timedOut(path: path, timeout: timeout) }
                _ = poll(nil, 0, 10)
            case ENOENT, ECONNREFUSED, ENOTDIR:
                throw .noServer(path: path)
            case EACCES, EPERM:
                throw .permissionDenied(path: path)
            default:
                throw .failed(path: path, reason: "cannot connect: \(ControlIO.describe(code))")
            }
        }
        connected = true
        return fd
    }

    /// Waits until `fd` is ready for `events`, at most until `deadline`.
    private static func wait(
        _ fd: Int32, _ events: Int32, path: String, deadline: ContinuousClock.Instant, timeout: Duration
    ) throws(ControlClientError) {
        let clock = ContinuousClock()
        while true {
            let left = deadline - clock.now
            guard left > .zero else { throw .timedOut(path: path, timeout: timeout) }
            var p = pollfd(fd: fd, events: Int16(events), revents: 0)
            let r = poll(&p, 1, ControlIO.earliest(-1, left))
            if r > 0 { return }
            if r < 0 && errno != EINTR {
                throw .failed(path: path, reason: "poll failed: \(ControlIO.describe(errno))")
            }
        }
    }

    /// Sends `line` and its newline; stops early, quietly, when the server closed (it refused
    /// the command: its reply may be waiting).
    private static func sendLine(
        _ line: String, fd: Int32, wait: (Int32) throws(ControlClientError) -> Void
    ) throws(ControlClientError) {
        let bytes = Array((line + "\n").utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n > 0 {
                sent += n
                continue
            }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK {
                try wait(POLLOUT)
                continue
            }
            break
        }
    }
}
