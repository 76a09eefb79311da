#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// One writer per data folder: an exclusive `flock` on `pacer.lock` beside the database,
/// held for the writer's life. A second device, or a command that writes while a device
/// records, is refused before it touches anything (above all before the recovery of
/// unfinished activities, which would close the live one of the device that holds it), and
/// told who holds the folder. Readers never take it.
///
/// The lock is the kernel's: it goes with the process, however it ends (a SIGKILL, a power
/// cut), so a stale lock file never blocks the next start. The file keeps the holder's PID
/// and command for the message; its contents are not the lock.
public final class DataFolderLock: Sendable {
    public static let fileName = "pacer.lock"

    public let path: String
    private let key: String
    private let directory: String
    private let holder: String

    /// The folders this process holds, by real path: a process may open several stores on
    /// its own folder (a scenario reads back what its device wrote; a restart in a test); the
    /// lock is against other processes. The descriptor is closed, and the lock released,
    /// when the last holder goes.
    private static let held = Mutex<[String: (fd: Int32, count: Int)]>([:])

    /// Takes the folder's lock for `holder` (`pacer device`), without waiting.
    public init(directory: String, holder: String) throws {
        path = (directory as NSString).appendingPathComponent(Self.fileName)
        key = URL(fileURLWithPath: directory).resolvingSymlinksInPath().standardizedFileURL.path
        self.directory = directory
        self.holder = holder
        try Self.held.withLock { [path] held throws in
            if let entry = held[key] {
                held[key] = (entry.fd, entry.count + 1)
                return
            }
            held[key] = (try Self.take(path, directory: directory, holder: holder), 1)
        }
    }

    /// Takes the lock again when its file is gone (the data folder was removed and made
    /// again): the old descriptor locks an unlinked file, which keeps nobody out.
    func retake() throws {
        try Self.held.withLock { [path, directory, holder] held throws in
            guard let entry = held[key] else { return }
            var info = stat()
            guard fstat(entry.fd, &info) != 0 || info.st_nlink == 0 else { return }
            let fd = try Self.take(path, directory: directory, holder: holder)
            close(entry.fd)
            held[key] = (fd, entry.count)
        }
    }

    /// Opens the lock file at `path`, locks it and writes the holder in; the descriptor.
    private static func take(_ path: String, directory: String, holder: String) throws -> Int32 {
        // Never through a symbolic link (a link planted in the folder would have the
        // device truncate its target), never anything but a regular file (a FIFO would
        // block the open, a device would be written to).
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o660)
        guard fd >= 0 else {
            if errno == ELOOP {
                throw StorageError.cannotOpen(
                    path: path, reason: "it is a symbolic link, which Pacer does not follow: remove it (rm \(path))")
            }
            if errno == EROFS {
                throw StorageError.cannotOpen(
                    path: directory, reason: "the data folder is on a read-only file system: nothing could be stored. "
                        + "Remount it read-write, or check the card (Linux remounts a damaged file system read-only)")
            }
            throw StorageError.cannotOpen(path: path, reason: "cannot open the lock file (\(String(cString: strerror(errno))))")
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw StorageError.cannotOpen(
                path: path, reason: "it is not a regular file: remove it (rm \(path)), Pacer makes it again")
        }
        // A lock this process just released can still be held for a moment by a child
        // being spawned (it holds a copy of every descriptor until its exec closes the
        // close-on-exec ones): when the holder written in is this process, wait for it.
        var tries = 0
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EWOULDBLOCK, tries < 100, Self.holder(fd)?.hasPrefix("\(getpid()) ") == true {
                tries += 1
                usleep(10_000)
                continue
            }
            let who = Self.holder(fd)
            close(fd)
            if code == EWOULDBLOCK {
                throw StorageError.busy(directory: directory, holder: who)
            }
            throw StorageError.cannotOpen(path: path, reason: "cannot lock it (\(String(cString: strerror(code))))")
        }
        let text = "\(getpid()) \(holder)\n"
        _ = ftruncate(fd, 0)
        _ = text.withCString { pwrite(fd, $0, strlen($0), 0) }
        return fd
    }

    deinit {
        // Closing the descriptor releases the lock; the file stays (removing it would race
        // with a writer that just opened it).
        Self.held.withLock { held in
            guard let entry = held[key] else { return }
            if entry.count > 1 {
                held[key] = (entry.fd, entry.count - 1)
            } else {
                close(entry.fd)
                held[key] = nil
            }
        }
    }

    /// What the holder wrote: `PID COMMAND`.
    private static func holder(_ fd: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = pread(fd, &buffer, buffer.count, 0)
        guard n > 0 else { return nil }
        let text = String(decoding: buffer.prefix(n), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }
}
