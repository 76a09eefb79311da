import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP listener on a free loopback port that plays gpsd: on connect it sends `banner`
/// (unless nil), and when the client sends `?WATCH` it answers with `onWatch`. Runs on a
/// thread of its own; gives up after ten seconds whatever happens.
public final class FakeGPSD: @unchecked Sendable {
    public let port: Int
    private let listener: Int32

    public init(banner: String?, onWatch: [String] = []) throws {
        let (fd, port) = try boundLoopbackSocket(listening: 4)
        listener = fd
        self.port = port
        let thread = Thread {
            FakeGPSD.serve(listener: fd, banner: banner, onWatch: onWatch)
        }
        thread.start()
    }

    private static func serve(listener: Int32, banner: String?, onWatch: [String]) {
        let clock = ContinuousClock()
        let giveUp = clock.now + .seconds(10)
        var p = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, 10_000) > 0 else {
            close(listener)
            return
        }
        let client = accept(listener, nil, nil)
        close(listener)
        guard client >= 0 else { return }
        defer { close(client) }
        func send(_ text: String) {
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        if let banner { send(banner + "\r\n") }
        var received = ""
        var answered = false
        var buffer = [UInt8](repeating: 0, count: 1024)
        var c = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
        while clock.now < giveUp {
            guard poll(&c, 1, 100) >= 0 else { return }
            if c.revents == 0 { continue }
            let n = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return }  // the probe is done and closed
            received += String(decoding: buffer[0..<n], as: UTF8.self)
            if !answered, received.contains("?WATCH=") {
                answered = true
                for line in onWatch { send(line + "\r\n") }
            }
        }
    }
}
