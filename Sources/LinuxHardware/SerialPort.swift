#if canImport(Glibc)
import Glibc
#endif

/// A serial port setting the device cannot have, or a port that cannot be opened.
public struct SerialPortError: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}

/// The raw termios side of a serial GPS: the baud rates a receiver speaks, opening a tty,
/// and putting it in raw 8N1 mode. No state; `SerialNMEASource` owns the file descriptor.
public enum SerialPort {
    /// The rates NMEA receivers use: 4800 is the NMEA 0183 standard, 9600 the u-blox and
    /// MediaTek default, the rest what receivers are configured to for 5–10 Hz output.
    public static let supportedBaudRates = [4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800]

    /// The termios `Bxxxx` constant for a baud rate, or nil when it is not one we support.
    public static func speed(forBaud baud: Int) -> speed_t? {
        switch baud {
        case 4800: speed_t(B4800)
        case 9600: speed_t(B9600)
        case 19200: speed_t(B19200)
        case 38400: speed_t(B38400)
        case 57600: speed_t(B57600)
        case 115200: speed_t(B115200)
        case 230400: speed_t(B230400)
        case 460800: speed_t(B460800)
        default: nil
        }
    }

    /// The error for a rate `speed(forBaud:)` does not know.
    static func unsupported(baud: Int, path: String) -> SerialPortError {
        let list = supportedBaudRates.map(String.init).joined(separator: ", ")
        return SerialPortError(path: path, reason: "unsupported baud rate \(baud) (supported: \(list))")
    }

    /// The text of an errno value.
    static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// Opens `path` for reading (and writing, when `writable`: commands to the receiver) and
    /// configures it; returns the file descriptor, which stays non-blocking (the reader polls
    /// before every read and write, so neither waits and `stop` is never held up by a silent
    /// device).
    static func open(path: String, speed: speed_t, writable: Bool = false) -> Result<Int32, SerialPortError> {
        let fd = openDescriptor(path: path, writable: writable)
        guard fd >= 0 else {
            let code = errno
            return .failure(SerialPortError(path: path, reason: "cannot open: \(describe(code))"))
        }
        if let error = configure(fd: fd, path: path, speed: speed) {
            close(fd)
            return .failure(error)
        }
        return .success(fd)
    }

    /// Opens `path` for reading (or reading and writing), unconfigured: the file descriptor,
    /// or -1 with `errno` set.
    ///
    /// `O_NOCTTY`: a GPS must not become the process's controlling terminal. `O_NONBLOCK` at
    /// open: a port without CLOCAL would otherwise wait for carrier detect before opening.
    static func openDescriptor(path: String, writable: Bool = false) -> Int32 {
        Glibc.open(path, (writable ? O_RDWR : O_RDONLY) | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
    }

    /// Raw mode (`cfmakeraw`: no line editing, no echo, no CR/LF translation, no signals),
    /// 8 data bits, no parity, one stop bit, CLOCAL (ignore modem lines) and CREAD, no
    /// hardware (RTS/CTS) or software (XON/XOFF) flow control. VMIN 1 / VTIME 0: a blocking
    /// read would return as soon as one byte is there (the descriptor is non-blocking and
    /// polled, so they matter only to whoever clears O_NONBLOCK). Input received before the
    /// port was configured (at the wrong speed, or line noise) is discarded.
    static func configure(fd: Int32, path: String, speed: speed_t) -> SerialPortError? {
        var t = termios()
        guard tcgetattr(fd, &t) == 0 else {
            let code = errno
            let what = code == ENOTTY ? "not a serial device" : "cannot read terminal settings"
            return SerialPortError(path: path, reason: "\(what): \(describe(code))")
        }
        cfmakeraw(&t)
        t.c_cflag &= ~tcflag_t(CSIZE | PARENB | CSTOPB)
        t.c_cflag &= ~tcflag_t(CRTSCTS)
        t.c_cflag |= tcflag_t(CS8 | CLOCAL | CREAD)
        t.c_iflag &= ~tcflag_t(IXON | IXOFF | IXANY)
        withUnsafeMutableBytes(of: &t.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard cfsetispeed(&t, speed) == 0, cfsetospeed(&t, speed) == 0 else {
            let code = errno
            return SerialPortError(path: path, reason: "cannot set the speed: \(describe(code))")
        }
        guard tcsetattr(fd, TCSANOW, &t) == 0 else {
            let code = errno
            return SerialPortError(path: path, reason: "cannot apply terminal settings: \(describe(code))")
        }
        // tcsetattr succeeds when any of the changes took; check the one that matters most.
        var applied = termios()
        guard tcgetattr(fd, &applied) == 0, cfgetispeed(&applied) == speed else {
            return SerialPortError(path: path, reason: "the device refused the baud rate")
        }
        tcflush(fd, TCIFLUSH)
        return nil
    }
}
