import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The raw client the page's tests connect with: when a server never takes the connection,
/// its error says so, not the bare "Operation now in progress" Linux gives a blocking connect
/// that outlives its SO_SNDTIMEO (the message of a CI failure that could not be read).
@Suite("raw HTTP client's connect")
struct RawHTTPConnectTests {
    @Test func aConnectionTheServerNeverTakesIsReportedAsNotAccepted() throws {
        // A listening socket with a backlog of none that never accepts: the kernel completes
        // one or two handshakes into its queue, then drops the next ones' SYNs.
        let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(server >= 0)
        defer { close(server) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(server, $0, length) == 0 && getsockname(server, $0, &length) == 0 }
        }
        try #require(bound && listen(server, 0) == 0)
        let port = Int(UInt16(bigEndian: address.sin_port))

        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        var failure: String?
        for _ in 0..<8 where failure == nil {
            do { held.append(try RawHTTP.connected(port: port, timeout: 0.5)) } catch { failure = "\(error)" }
        }
        let message = try #require(failure, "every connection was taken: \(held.count)")
        #expect(message.contains("not accepted within the 0.5 s timeout"), "\(message)")
    }
}
