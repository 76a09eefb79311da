import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain HTTP/1.1 client on a TCP socket, for the companion page's tests: the request goes
/// out byte for byte as written (no path tidied, no redirect followed, no cookie kept), on a
/// thread of its own (`offThePool`) so that a test waiting on the server never holds a thread
/// the server's handlers need.
public struct RawHTTPResponse: Sendable {
    public var status: Int
    /// Header names lowercased, in order.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    public var text: String { String(decoding: body, as: UTF8.self) }

    public func header(_ name: String) -> String? {
        headers.first { $0.name == name.lowercased() }?.value
    }

    public func headers(_ name: String) -> [String] {
        headers.filter { $0.name == name.lowercased() }.map(\.value)
    }
}

public struct ConnectionRefused: Error, CustomStringConvertible {
    public var description: String
}

public enum RawHTTP {
    /// Sends `request` (the whole of it: request line, headers, body) to 127.0.0.1:`port`
    /// and reads the answer until the server closes (send `Connection: close`).
    /// `from`: the loopback address it connects from (127.0.0.1 to 127.0.0.254 all reach the
    /// server on Linux), to be another client to the server.
    public static func exchange(port: Int, _ request: [UInt8], timeout: Double = 60,
                                from source: String = "127.0.0.1") async throws -> RawHTTPResponse {
        try await offThePool { try exchangeNow(port: port, request, timeout: timeout, from: source) }
    }

    /// A request made of its parts, with `Host`, `Connection: close` and `Content-Length`.
    public static func send(
        port: Int, _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = [],
        from source: String = "127.0.0.1"
    ) async throws -> RawHTTPResponse {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { text += "Content-Length: \(body.count)\r\n" }
        text += "\r\n"
        return try await exchange(port: port, Array(text.utf8) + body, from: source)
    }

    /// A TCP socket to 127.0.0.1:`port` from `source`, with receive and send timeouts.
    public static func connected(port: Int, timeout: Double, from source: String = "127.0.0.1") throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemCallError("socket") }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        if source != "127.0.0.1" {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                close(fd)
                throw SystemCallError("bind to \(source)")
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            // A blocking connect that outlives SO_SNDTIMEO fails with EINPROGRESS ("Operation
            // now in progress"): say what that means, a server that did not take the connection.
            let reason = errno == EINPROGRESS
                ? "not accepted within the \(timeout) s timeout (EINPROGRESS)" : String(cString: strerror(errno))
            close(fd)
            throw ConnectionRefused(description: "connect to 127.0.0.1:\(port) from \(source): \(reason)")
        }
        return fd
    }

    static func exchangeNow(port: Int, _ request: [UInt8], timeout: Double, from source: String = "127.0.0.1") throws -> RawHTTPResponse {
        let fd = try connected(port: port, timeout: timeout, from: source)
        defer { close(fd) }
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            // The server may answer (413) and close before the whole body is sent.
            if n <= 0 { break }
            sent += n
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            answer += buffer[0..<n]
        }
        return try parse(answer)
    }

    struct Malformed: Error, CustomStringConvertible { var description: String }

    static func parse(_ bytes: [UInt8]) throws -> RawHTTPResponse {
        guard let end = (0..<max(0, bytes.count - 3)).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10 }) else {
            throw Malformed(description: "no end of headers in \(bytes.count) bytes: \(String(decoding: bytes.prefix(200), as: UTF8.self))")
        }
        let head = String(decoding: bytes[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw Malformed(description: "status line \(head[0])") }
        var headers: [(String, String)] = []
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var body = Array(bytes[(end + 4)...])
        if headers.contains(where: { $0.0 == "transfer-encoding" && $0.1.lowercased().contains("chunked") }) {
            body = dechunk(body)
        }
        return RawHTTPResponse(status: status, headers: headers, body: body)
    }

    static func dechunk(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            guard let lineEnd = (i..<max(i, bytes.count - 1)).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 }) else { break }
            let sizeText = String(decoding: bytes[i..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size > 0 else { break }
            let start = lineEnd + 2
            guard start + size <= bytes.count else { break }
            out += bytes[start..<(start + size)]
            i = start + size + 2
        }
        return out
    }
}
