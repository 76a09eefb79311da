#if canImport(Glibc)
import Glibc
#endif

// Loopback TCP ports for the tests: a free one, and a listener on a free one.

/// A TCP socket bound to 127.0.0.1 on a port the system picked (port 0), and that port. With
/// `backlog` it also listens; the socket is not inherited by processes a test starts.
public func boundLoopbackSocket(listening backlog: Int32? = nil) throws -> (fd: Int32, port: Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw SystemCallError("socket") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
        }
    }
    guard bound else {
        let error = SystemCallError("bind")
        close(fd)
        throw error
    }
    if let backlog, listen(fd, backlog) != 0 {
        let error = SystemCallError("listen")
        close(fd)
        throw error
    }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}

/// A loopback TCP port nothing listens on right now: bound to port 0, read, released.
public func freeLoopbackPort() throws -> Int {
    let (fd, port) = try boundLoopbackSocket()
    close(fd)
    return port
}
