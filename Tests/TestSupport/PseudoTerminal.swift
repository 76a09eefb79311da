#if canImport(Glibc)
import Glibc
#endif

/// A pseudo-terminal pair from `openpty`, standing in for a serial GPS or a keyboard: the
/// test writes into the master (the device's side), the code under test opens the slave by
/// `path` (`/dev/pts/N`) or reads its descriptor. Neither end is inherited by processes a test
/// starts; both are closed when released (or earlier, one at a time: closing the master is
/// the device going away, a hang-up on the slave).
public final class PseudoTerminal: @unchecked Sendable {
    public private(set) var master: Int32
    public private(set) var slave: Int32
    public let path: String

    /// With `raw`, the slave starts in raw mode: no echo back into the master, no line
    /// editing, no CR/LF translation; bytes pass as written. Without it, the terminal has the
    /// system's defaults (for tests of code that sets the mode itself).
    public init(raw: Bool) throws {
        var m: Int32 = -1, s: Int32 = -1
        guard openpty(&m, &s, nil, nil, nil) == 0 else {
            throw SystemCallError("openpty")
        }
        master = m
        slave = s
        path = String(cString: ttyname(s))
        _ = fcntl(m, F_SETFD, FD_CLOEXEC)
        _ = fcntl(s, F_SETFD, FD_CLOEXEC)
        if raw {
            var settings = termios()
            tcgetattr(s, &settings)
            cfmakeraw(&settings)
            tcsetattr(s, TCSANOW, &settings)
        }
    }

    deinit {
        close()
    }

    /// The device goes away: the slave sees a hang-up.
    public func closeMaster() {
        if master >= 0 { Glibc.close(master) }
        master = -1
    }

    public func closeSlave() {
        if slave >= 0 { Glibc.close(slave) }
        slave = -1
    }

    /// Closes both ends (those still open).
    public func close() {
        closeMaster()
        closeSlave()
    }
}

/// What a system call refused, with the system's reason (`errno` when it is made).
public struct SystemCallError: Error, CustomStringConvertible {
    public var description: String

    init(_ call: String) {
        description = "\(call): \(String(cString: strerror(errno)))"
    }
}
