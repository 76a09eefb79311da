#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Simulation

/// A past run written as a recording (`TrackSynthesizer`) into a temporary file, for the
/// replay to open: a day at 1 Hz is some 30 MB, which goes to the disk a chunk at a time
/// rather than into the memory of a 512 MB board.
enum TrackRecordingFile {
    /// Writes `timeline`'s recording to a new file in the temporary folder (`$TMPDIR`, else
    /// /tmp) and returns its path; the caller removes it.
    static func write(_ timeline: TrackTimeline) throws(ConfigurationError) -> String {
        let folder = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(folder)/pacer-replay-XXXXXX.nmea".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 5) }
        guard fd >= 0 else {
            throw ConfigurationError("\(timeline.source): cannot make the replay's recording in \(folder): \(String(cString: strerror(errno)))")
        }
        let path = String(cString: template)
        defer { close(fd) }
        var synthesizer = TrackSynthesizer(timeline)
        do {
            try synthesizer.write { (bytes: [UInt8]) throws(ConfigurationError) in
                var offset = 0
                while offset < bytes.count {
                    let n = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                    if n < 0, errno == EINTR { continue }
                    guard n > 0 else {
                        throw ConfigurationError("\(timeline.source): cannot write the replay's recording to \(path): \(String(cString: strerror(errno)))")
                    }
                    offset += n
                }
            }
        } catch {
            unlink(path)
            throw error
        }
        return path
    }
}
