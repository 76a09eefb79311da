import CCrypt
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Storage
import Synchronization

/// The companion page's password: only its hash is kept, in the data folder
/// (`companion.passwd`, mode 0600), made and checked by the system's crypt (libxcrypt,
/// yescrypt `$y$`). `pacer companion password` sets it; the server reads the file at every
/// login, so a new password works without a restart. The file is written as the device's own
/// (`OutputFile.Kind.own`: a link or other node in its place is refused, never followed), and
/// a file others may read is refused with the command that fixes it.
public struct CompanionPassword: Sendable {
    /// The file's name in the data folder.
    public static let fileName = "companion.passwd"
    /// The shortest password taken (a neighbour on the Wi-Fi may try a few a minute).
    public static let minimumLength = 8
    public static let maximumLength = 256

    public let path: String
    /// The hash last read, with the file's identity then: every request asks whether a
    /// password is set, and a `stat` answers it unless the file changed.
    private let cache = HashCache()

    public init(path: String) { self.path = path }

    public init(dataDirectory: String) {
        self.path = (dataDirectory as NSString).appendingPathComponent(Self.fileName)
    }

    final class HashCache: Sendable {
        struct Identity: Equatable {
            var device: UInt64, inode: UInt64, size: Int64, modified: Int, modifiedNanoseconds: Int
            /// The inode's change time too: a chmod that makes it unreadable is seen.
            var changed: Int, changedNanoseconds: Int
        }
        let last = Mutex<(identity: Identity, hash: String)?>(nil)
    }

    public struct Failure: Error, CustomStringConvertible, Equatable {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// Whether a password is set: the file holds a crypt hash.
    public var isSet: Bool { (try? storedHash()) != nil }

    /// The stored hash; nil when no file; throws when it cannot be read or is not a hash.
    public func storedHash() throws(Failure) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let identity = HashCache.Identity(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modified: Int(info.st_mtim.tv_sec), modifiedNanoseconds: Int(info.st_mtim.tv_nsec),
            changed: Int(info.st_ctim.tv_sec), changedNanoseconds: Int(info.st_ctim.tv_nsec))
        if let last = cache.last.withLock({ $0 }), last.identity == identity { return last.hash }
        let hash = try readHash()
        cache.last.withLock { $0 = (identity, hash) }
        return hash
    }

    /// The file's hash, read now: from a regular file its owner alone may read.
    private func readHash() throws(Failure) -> String {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw Failure("\(path): not a regular file (a link or other node?): remove it and set the password again")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw Failure("\(path): others may read it (mode \(String(info.st_mode & 0o777, radix: 8))): chmod 600 \(path)")
        }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw Failure("\(path): cannot be read")
        }
        let hash = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard hash.hasPrefix("$"), !hash.contains("\n") else { throw Failure("\(path): not a password hash") }
        return hash
    }

    /// Checks a password as `pacer companion password` takes it: `minimumLength` to
    /// `maximumLength` characters, no control characters.
    public static func validate(_ password: String) throws(Failure) {
        guard password.count >= minimumLength else {
            throw Failure("password: \(password.count) characters is too short (at least \(minimumLength))")
        }
        guard password.utf8.count <= maximumLength else {
            throw Failure("password: longer than \(maximumLength) bytes")
        }
        guard !password.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else {
            throw Failure("password: has a control character (a tab or newline inside it?)")
        }
    }

    /// Stores `password`'s hash (validated first), replacing any other, readable by its owner only.
    public func set(_ password: String) throws(Failure) {
        try Self.validate(password)
        try store(hash: try Self.hash(password))
    }

    /// Whether `password` is the one set (false when none is set).
    public func verify(_ password: String) -> Bool {
        guard password.utf8.count <= Self.maximumLength, let stored = try? storedHash(),
              let computed = Self.crypt(password, setting: stored) else { return false }
        return Self.constantTimeEqual(Array(computed.utf8), Array(stored.utf8))
    }

    /// A yescrypt hash of `password` with a fresh random salt.
    public static func hash(_ password: String) throws(Failure) -> String {
        var salt = [CChar](repeating: 0, count: Int(CRYPT_GENSALT_OUTPUT_SIZE))
        guard crypt_gensalt_rn("$y$", 0, nil, 0, &salt, Int32(salt.count)) != nil else {
            throw Failure("crypt_gensalt_rn: \(Self.errorText(errno))")
        }
        let setting = String(decoding: salt.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let hash = crypt(password, setting: setting) else { throw Failure("crypt_r: yescrypt is not available") }
        return hash
    }

    /// `password` hashed with a given crypt setting (`$5$rounds=1000$salt`: a cheap one for
    /// the fuzz target, which logs in thousands of times a second); nil when crypt does not
    /// know the setting.
    public static func hash(_ password: String, setting: String) -> String? { crypt(password, setting: setting) }

    /// Stores a hash (`set`'s, or one made elsewhere with `hash(_:setting:)`): a fresh
    /// temporary file, 0600, flushed and renamed over the file.
    public func store(hash: String) throws(Failure) {
        guard hash.hasPrefix("$"), !hash.contains("\n") else { throw Failure("not a crypt hash") }
        do {
            try OutputFile.write(path, text: hash + "\n", as: .own(mode: 0o600))
        } catch {
            throw Failure("\(error)")
        }
        cache.last.withLock { $0 = nil }
    }

    /// crypt_r(3): nil when the setting is not one it knows (it answers `*…`).
    static func crypt(_ password: String, setting: String) -> String? {
        let data = UnsafeMutablePointer<crypt_data>.allocate(capacity: 1)
        defer { data.deallocate() }
        memset(data, 0, MemoryLayout<crypt_data>.size)
        guard crypt_r(password, setting, data) != nil else { return nil }
        let result = withUnsafeBytes(of: &data.pointee.output) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        memset(data, 0, MemoryLayout<crypt_data>.size)
        return result.hasPrefix("*") ? nil : result
    }

    static func errorText(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in a.indices { difference |= a[i] ^ b[i] }
        return difference == 0
    }

    /// A random password to type on a phone: three groups of four letters and digits without
    /// the ones read alike (`0`/`o`, `1`/`l`), joined by `-`: 12 characters of about 5 bits.
    public static func generate() -> String {
        let alphabet = Array("abcdefghijkmnpqrstuvwxyz23456789")
        var generator = SystemRandomNumberGenerator()
        var groups: [String] = []
        for _ in 0..<3 {
            groups.append(String((0..<4).map { _ in alphabet[Int(generator.next(upperBound: UInt32(alphabet.count)))] }))
        }
        return groups.joined(separator: "-")
    }
}
