#if canImport(Glibc)
import Glibc
#endif

/// The bytes received from gpsd and not yet handed on, cut into lines; one reader's alone
/// (the gpsd source's thread, or the gpsd check's). gpsd's longest report is 4 KB
/// (`GPS_JSON_RESPONSE_MAX`), libgps's buffer twice that; a line that would not fit 16 KB is
/// dropped whole.
struct GPSDLineBuffer {
    enum Received: Equatable {
        /// Bytes were added.
        case received
        /// Nothing to read after all (`EAGAIN`, `EINTR`).
        case again
        /// gpsd closed the connection.
        case closed
        /// The socket failed with this `errno`.
        case failed(Int32)
    }

    static let capacity = 16384

    /// One byte more than `capacity`, so a line can always be ended with a NUL.
    private let storage = UnsafeMutablePointer<CChar>.allocate(capacity: Self.capacity + 1)
    /// The unread bytes are `storage[start..<end]`.
    private var start = 0
    private var end = 0
    /// How far from `start` there is certainly no newline.
    private var scanned = 0
    /// The bytes up to the next newline belong to a line that was too long.
    private var skipping = false

    func deallocate() {
        storage.deallocate()
    }

    /// The next whole line, its newline replaced by a NUL; valid until the next call.
    mutating func nextLine() -> UnsafeMutablePointer<CChar>? {
        while true {
            let from = start + scanned
            guard let hit = memchr(storage + from, 0x0A, end - from) else {
                scanned = end - start
                return nil
            }
            let newline = hit.assumingMemoryBound(to: CChar.self) - storage
            storage[newline] = 0
            let line = storage + start
            start = newline + 1
            scanned = 0
            if skipping {
                skipping = false
                continue
            }
            return line
        }
    }

    /// One `recv` into the free space (after moving the unread bytes to the front).
    mutating func receive(from fd: Int32) -> Received {
        if start > 0 {
            if end > start { memmove(storage, storage + start, end - start) }
            end -= start
            start = 0
        }
        if end == Self.capacity {
            // No newline in 16 KB: not a gpsd report. Drop it and what follows up to the
            // next newline.
            end = 0
            scanned = 0
            skipping = true
        }
        let n = recv(fd, storage + end, Self.capacity - end, 0)
        if n > 0 {
            end += n
            return .received
        }
        if n == 0 { return .closed }
        let code = errno
        return code == EAGAIN || code == EWOULDBLOCK || code == EINTR ? .again : .failed(code)
    }
}
