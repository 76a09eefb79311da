import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A file a scenario run writes (timeline.txt, events.jsonl, track.gpx, summary.json, a
/// recording made from its recipe): created, or emptied when it is there, and written; a
/// failure names the file and the system's reason (issue 42: `cannot create
/// /tmp/steady/timeline.txt` said no more, for a folder of another user's).
enum ScenarioOutputFile {
    /// Opens `path` for writing, created (mode 0666 less the umask, as any new file) or emptied.
    static func create(_ path: String) throws(ScenarioError) -> FileHandle {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw ScenarioError("cannot create \(path): \(reason(errno))") }
        return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    /// Writes `bytes` as the whole of `path`.
    static func write(_ bytes: [UInt8], to path: String) throws(ScenarioError) {
        let handle = try create(path)
        let fd = handle.fileDescriptor
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ScenarioError("cannot write \(path): \(reason(errno))")
            }
            done += n
        }
    }

    /// The system's text for an errno: `Permission denied`.
    static func reason(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
