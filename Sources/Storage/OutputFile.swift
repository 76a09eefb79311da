#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

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
/// The device's own files (`Kind.own`: its settings, plans and password) are stricter: only a
/// regular file, or nothing, may be at the path; a link or any other node in the way is
/// refused, never followed, and the file gets the mode given (0600 for a secret).
///
/// The temporary file has a name of its own for every write (`.NAME.PID.N.tmp`, created with
/// `O_EXCL | O_NOFOLLOW`), so two writes of one path, in one process or two, never meet in
/// it; the last rename wins. What a killed writer left is removed by `removeLeftovers`.
///
/// Every write is checked to its last byte, and the flush and the close too: a full disk, a
/// short write or an I/O error is `StorageError.writeFailed`, naming the path and the reason.
public enum OutputFile {
    /// Whose file it is.
    public enum Kind: Sendable, Equatable {
        /// A file the runner named (an export, a report): links followed, devices written in place.
        case asked
        /// The device's own file, with its mode: a regular file or nothing may be in the way.
        case own(mode: mode_t)
        /// The device's own file, new: refused (`StorageError.exists`) when one is there already,
        /// even when another writer puts it there at the same moment.
        case new(mode: mode_t)
    }

    /// Writes `text` to `path` (see the type).
    public static func write(_ path: String, text: String, as kind: Kind = .asked) throws(StorageError) {
        do {
            try write(path, as: kind) { write in try write(Array(text.utf8)) }
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError.writeFailed(path: path, reason: "\(error)")
        }
    }

    /// Writes to `path` what `body` hands to the writer it is given, in pieces (see the type).
    /// An error `body` throws is rethrown as it is, and a file being replaced is left as it was.
    public static func write(
        _ path: String, as kind: Kind = .asked, _ body: (([UInt8]) throws -> Void) throws -> Void
    ) throws {
        var info = stat()
        let there = lstat(path, &info) == 0
        switch kind {
        case .asked:
            break
        case .own(let mode), .new(let mode):
            if there, info.st_mode & S_IFMT != S_IFREG {
                throw StorageError.file(path: path, reason: "\(nodeKind(info.st_mode)) is in the way, not a file the device wrote: remove it")
            }
            if case .new = kind, there { throw StorageError.exists(path: path) }
            return try replace(path, mode: mode, body, replacing: kind == .own(mode: mode))
        }
        guard there else {
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

    /// Numbers the temporary files of this process: one name per write.
    private static let writes = Atomic<Int>(0)

    /// Through a temporary file renamed over `path` (`replacing`), or linked to `path` only
    /// when nothing is there.
    private static func replace(
        _ path: String, mode: mode_t?, _ body: (([UInt8]) throws -> Void) throws -> Void, named shown: String? = nil,
        replacing: Bool = true
    ) throws {
        let shown = shown ?? path
        let directory = (path as NSString).deletingLastPathComponent
        let number = writes.add(1, ordering: .relaxed).newValue
        let name = (path as NSString).lastPathComponent
        removeLeftovers(in: directory.isEmpty ? "." : directory, of: name)
        let temporary = (directory.isEmpty ? "." : directory) + "/.\(name).\(getpid()).\(number).tmp"
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
            if replacing {
                guard rename(temporary, path) == 0 else { throw StorageError.writeFailed(path: shown, reason: reason(errno)) }
            } else {
                // A hard link is made only where nothing is: the first writer's stays.
                guard link(temporary, path) == 0 else {
                    let code = errno
                    throw code == EEXIST ? StorageError.exists(path: shown) : StorageError.writeFailed(path: shown, reason: reason(code))
                }
                unlink(temporary)
            }
        } catch {
            if !closed { close(fd) }
            unlink(temporary)
            throw error
        }
    }

    /// Removes the temporary files a killed writer left in `folder` (`.NAME.PID.N.tmp` whose
    /// process is gone; only NAME's when it is given); returns their names. A live writer's
    /// are left alone. The device calls it at start-up for its folders, and every write for
    /// the file it writes.
    @discardableResult
    public static func removeLeftovers(in folder: String, of file: String? = nil) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        var removed: [String] = []
        for name in names where name.hasPrefix(file.map { ".\($0)." } ?? ".") && name.hasSuffix(".tmp") {
            let parts = name.dropLast(4).split(separator: ".", omittingEmptySubsequences: false)
            // "", NAME…, PID, N (or the older "", NAME…, PID)
            let numbers = parts.reversed().prefix { Int32($0) != nil }
            guard parts.count >= 3, !numbers.isEmpty, numbers.count <= 2,
                  let pid = Int32(numbers.last!), pid > 0 else { continue }
            if kill(pid, 0) == 0 || errno == EPERM { continue }
            var info = stat()
            let path = folder + "/" + name
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, unlink(path) == 0 else { continue }
            removed.append(name)
        }
        return removed.sorted()
    }

    /// What a node is, in words.
    static func nodeKind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFLNK: "a symbolic link"
        case S_IFDIR: "a folder"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR, S_IFBLK: "a device"
        default: "something other than a file"
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
