#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Writing a file the runner asked for (an export, a share, a report, a chart, a plan) so
/// that a failure is never taken for success and nothing is replaced that Pacer did not make.
///
/// - A regular file, or a path where nothing is yet, is written to a temporary file beside
///   it, flushed to the disk (`fsync`), and renamed over the path at the end: a reader never
///   sees half a file, and a failed write leaves the old file as it was. An existing file's
///   permissions are kept.
/// - A symbolic link is followed: its target is written as above, the link stays.
/// - Anything else (a device, a FIFO, `/dev/stdout`) is written in place, never replaced.
///
/// Every write is checked to its last byte, and the flush and the close too: a full disk, a
/// short write or an I/O error is `StorageError.writeFailed`, naming the path and the reason.
public enum OutputFile {
    /// Writes `text` to `path` (see the type).
    public static func write(_ path: String, text: String) throws(StorageError) {
        do {
            try write(path) { write in try write(Array(text.utf8)) }
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError.writeFailed(path: path, reason: "\(error)")
        }
    }

    /// Writes to `path` what `body` hands to the writer it is given, in pieces (see the type).
    /// An error `body` throws is rethrown as it is, and a file being replaced is left as it was.
    public static func write(_ path: String, _ body: (([UInt8]) throws -> Void) throws -> Void) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            // Nothing there (or no way there: creating it says why).
            return try replace(path, mode: nil, body)
        }
        switch info.st_mode & S_IFMT {
        case S_IFLNK:
            guard let resolved = realpath(path, nil) else {
                throw StorageError.file(path: path, reason: "a symbolic link to nothing (\(reason(errno)))")
            }
            defer { free(resolved) }
            let target = String(cString: resolved)
            var targetInfo = stat()
            guard stat(target, &targetInfo) == 0 else { throw StorageError.file(path: path, reason: reason(errno)) }
            if targetInfo.st_mode & S_IFMT == S_IFREG {
                return try replace(target, mode: targetInfo.st_mode & 0o7777, body, named: path)
            }
            return try inPlace(target, body, named: path)
        case S_IFREG:
            return try replace(path, mode: info.st_mode & 0o7777, body)
        case S_IFDIR:
            throw StorageError.file(path: path, reason: "is a folder: give a file name")
        default:
            return try inPlace(path, body, named: path)
        }
    }

    /// Through a temporary file renamed over `path`.
    private static func replace(
        _ path: String, mode: mode_t?, _ body: (([UInt8]) throws -> Void) throws -> Void, named shown: String? = nil
    ) throws {
        let shown = shown ?? path
        let directory = (path as NSString).deletingLastPathComponent
        let temporary = (directory.isEmpty ? "." : directory) + "/.\((path as NSString).lastPathComponent).\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode ?? 0o644)
        guard fd >= 0 else {
            throw StorageError.file(path: shown, reason: "cannot create the file: \(reason(errno)) (does the folder exist? permission?)")
        }
        var closed = false
        do {
            if let mode { _ = fchmod(fd, mode) }
            try body { bytes in try writeAll(bytes, to: fd, path: shown) }
            guard fsync(fd) == 0 else { throw StorageError.writeFailed(path: shown, reason: reason(errno)) }
            closed = true
            guard close(fd) == 0 else { throw StorageError.writeFailed(path: shown, reason: reason(errno)) }
            guard rename(temporary, path) == 0 else { throw StorageError.writeFailed(path: shown, reason: reason(errno)) }
        } catch {
            if !closed { close(fd) }
            unlink(temporary)
            throw error
        }
    }

    /// Into the node as it is (a device, a FIFO): opened for writing, not created, not truncated.
    private static func inPlace(_ path: String, _ body: (([UInt8]) throws -> Void) throws -> Void, named shown: String) throws {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StorageError.file(path: shown, reason: "cannot open it for writing: \(reason(errno))") }
        do {
            try body { bytes in try writeAll(bytes, to: fd, path: shown) }
        } catch {
            close(fd)
            throw error
        }
        guard close(fd) == 0 else { throw StorageError.writeFailed(path: shown, reason: reason(errno)) }
    }

    /// All of `bytes` to `fd`, retrying short writes and EINTR; any other failure is thrown.
    static func writeAll(_ bytes: [UInt8], to fd: Int32, path: String) throws(StorageError) {
        let failure = bytes.withUnsafeBytes { writeAll($0, to: fd) }
        if let failure { throw StorageError.writeFailed(path: path, reason: reason(failure)) }
    }

    /// All of `bytes` to `fd`, retrying short writes and EINTR: nil when every byte is
    /// written, else the `errno` of the failure that stopped it.
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += n
        }
        return nil
    }

    static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}

/// Standard output or standard error: the one way the command line writes to them.
///
/// `write` checks every write, for an export or a report written to `-`: a reader that closed
/// the pipe (`… | head`) ends the output quietly, as a pipe's end should; any other failure
/// (`> file` on a full disk) is an error, and `finish` flushes output redirected to a file to
/// the disk and checks it. `writeQuietly` is for messages and streams that have nowhere to
/// report a failure: a failure ends that write quietly.
public struct StandardStream: Sendable {
    public let descriptor: Int32
    /// The name a failure gives.
    public let name: String

    public static let output = StandardStream(descriptor: STDOUT_FILENO, name: "standard output")
    public static let error = StandardStream(descriptor: STDERR_FILENO, name: "standard error")

    public init(descriptor: Int32, name: String? = nil) {
        self.descriptor = descriptor
        self.name = name ?? "file descriptor \(descriptor)"
    }

    /// Writes `bytes`; false when the reader has gone (stop writing), throws on a failure.
    @discardableResult
    public func write(_ bytes: [UInt8]) throws(StorageError) -> Bool {
        let failure = bytes.withUnsafeBytes { OutputFile.writeAll($0, to: descriptor) }
        switch failure {
        case nil: return true
        case EPIPE: return false
        case let code?: throw StorageError.writeFailed(path: name, reason: OutputFile.reason(code))
        }
    }

    /// Writes what it can of `bytes`: any failure ends the write quietly.
    public func writeQuietly(_ bytes: UnsafeRawBufferPointer) {
        _ = OutputFile.writeAll(bytes, to: descriptor)
    }

    /// Writes what it can of `bytes`: any failure ends the write quietly.
    public func writeQuietly(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { writeQuietly($0) }
    }

    /// Writes what it can of `text` (UTF-8): any failure ends the write quietly.
    public func writeQuietly(_ text: String) {
        writeQuietly(Array(text.utf8))
    }

    /// The end of the output: when it goes to a file, it is flushed to the disk and checked.
    public func finish() throws(StorageError) {
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return }
        if fsync(descriptor) != 0 && errno != EINVAL {
            throw StorageError.writeFailed(path: name, reason: OutputFile.reason(errno))
        }
    }
}
