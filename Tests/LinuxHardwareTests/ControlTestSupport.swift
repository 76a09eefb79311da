#if canImport(Glibc)
import Glibc
#endif
import HAL
import LinuxHardware
import Synchronization
import TestSupport

// Helpers for the control tests: a recording command handler, a raw socket client for
// misbehaving clients, stale sockets, and where a test's socket goes in its TestSupport
// TemporaryDirectory (short, to fit `sun_path`).

enum ControlTest {
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// A stream socket connected to the Unix socket at `path` (close-on-exec); nil when
    /// nothing accepts there.
    static func connect(to path: String) -> Int32? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Leaves a socket file at `path` that nothing listens on, as a crashed Pacer would.
    static func makeStaleSocket(_ path: String) {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        precondition(fd >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        precondition(bound == 0, "bind failed")
        close(fd)
    }
}

extension TemporaryDirectory {
    /// Where a test's control socket goes.
    var socketPath: String { "\(path)/control.sock" }
}

/// Records the commands a control input hands over, and answers them.
final class ControlRecorder: Sendable {
    private let received = Mutex<[ControlCommand]>([])
    private let replies = Mutex<[String]>([])
    /// The answer to a command; nil: never answer.
    let answer: @Sendable (ControlCommand) -> String?

    init(answer: @escaping @Sendable (ControlCommand) -> String? = { "ok \($0.line)" }) {
        self.answer = answer
    }

    var commands: [ControlCommand] { received.withLock { $0 } }
    var printed: [String] { replies.withLock { $0 } }

    var handler: @Sendable (ControlCommand, @escaping @Sendable (String) -> Void) -> Void {
        { [self] command, reply in
            received.withLock { $0.append(command) }
            if let text = answer(command) { reply(text) }
        }
    }

    /// An output that keeps what is printed.
    var output: @Sendable (String) -> Void {
        { [self] line in replies.withLock { $0.append(line) } }
    }
}

/// A client that does what `ControlClient` would not: sends nothing, sends too much, or
/// sends raw bytes.
final class RawControlClient {
    let fd: Int32

    init?(path: String) {
        guard let fd = ControlTest.connect(to: path) else { return nil }
        self.fd = fd
    }

    deinit {
        close(fd)
    }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    /// Everything until the server closes (or a reset), waiting at most `timeout`; nil when
    /// the server did not close in time.
    func readToEnd(timeout: Duration = .seconds(10)) -> String? {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            let left = deadline - clock.now
            guard left > .zero else { return nil }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ms = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            guard poll(&p, 1, ms) > 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                bytes.append(contentsOf: buffer[0..<n])
            } else {
                return String(decoding: bytes, as: UTF8.self)
            }
        }
    }
}
