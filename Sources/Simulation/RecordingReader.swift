#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NMEA
import PacerCore

/// Reads a recorded NMEA byte stream (a file or standard input) in fixed-size chunks and
/// runs it through the NMEA engine. Chunking is deliberate: the engine sees the same
/// arbitrary splits a serial port gives it, and a recording of any length is decoded in
/// constant memory.
public struct RecordingReader {
    public static let chunkSize = 64 * 1024

    public let path: String
    public private(set) var decoder = NMEADecoder()

    /// `path` of `-` reads standard input.
    public init(path: String) {
        self.path = path
    }

    /// Decodes the whole recording, calling `onEpoch` for each receiver cycle in order.
    public mutating func decode(
        onEpoch: (NMEAEpoch) -> Void, onReject: ((NMEARejection) -> Void)? = nil
    ) throws(RecordingError) {
        let fd: Int32 = path == "-" ? 0 : open(path, O_RDONLY)
        guard fd >= 0 else { throw RecordingError(path: path, errno: errno) }
        defer { if fd != 0 { close(fd) } }
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: RecordingReader.chunkSize)
        defer { buffer.deallocate() }
        while true {
            let n = read(fd, buffer.baseAddress, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw RecordingError(path: path, errno: errno)
            }
            if n == 0 { break }
            decoder.feed(UnsafeBufferPointer(rebasing: buffer[0..<n]), onEpoch: onEpoch, onReject: onReject)
        }
        decoder.finish(onEpoch: onEpoch, onReject: onReject)
    }
}

/// A recording that cannot be read, with the file and the system's reason.
public struct RecordingError: Error, CustomStringConvertible {
    public let path: String
    public let errno: Int32

    public var description: String {
        "\(path): \(String(cString: strerror(errno)))"
    }
}
