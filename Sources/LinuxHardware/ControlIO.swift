#if canImport(Glibc)
import Glibc
#endif

/// Small POSIX helpers for the controls.
enum ControlIO {
    /// `sun_path` holds 108 bytes with the terminating NUL.
    static let maximumPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// `2 s`, `500 ms`.
    static func text(_ d: Duration) -> String {
        let ms = d.nanoseconds / 1_000_000
        return ms % 1000 == 0 ? "\(ms / 1000) s" : "\(ms) ms"
    }

    /// A `poll` timeout: the earlier of `current` (-1: none) and `left`, rounded up to a
    /// millisecond, never negative.
    static func earliest(_ current: Int32, _ left: Duration) -> Int32 {
        let ms = Int32(clamping: max(0, (left.nanoseconds + 999_999) / 1_000_000))
        return current < 0 ? ms : min(current, ms)
    }

    /// The address for `path`, or nil when it does not fit.
    static func address(_ path: String) -> sockaddr_un? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumPathLength, !bytes.contains(0) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        return address
    }

    /// The directory part of a path (`.` for a bare name).
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    enum Probe {
        case live
        case stale
        case error(String)
    }

    /// Whether a server answers on the socket file at `path`.
    static func probe(_ path: String) -> Probe {
        guard var address = address(path) else { return .error("path too long") }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return .error(describe(errno)) }
        defer { close(fd) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if result == 0 { return .live }
        switch errno {
        case ECONNREFUSED: return .stale
        case EAGAIN, EINPROGRESS: return .live  // a live server with a full backlog
        case ENOENT: return .stale  // gone meanwhile
        case let code: return .error(describe(code))
        }
    }

    /// One non-blocking attempt to send a short text; for farewells to clients being dropped.
    static func sendOnce(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
    }

    /// Writes all of `text` to `fd` (a terminal or a pipe), retrying short writes.
    static func writeAll(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                offset += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }
}

/// An errno value, thrown.
struct ErrnoError: Error {
    let code: Int32
}
