import Foundation
import Synchronization

// Folders for the tests: the repository's own, and temporary ones that are created fresh and
// removed again.

/// The repository root, found from this file's path (`Tests/TestSupport/…`), so that tests
/// read the real `Hardware/`, `Scenarios/` and documentation.
public let repositoryRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
}()

/// The repository's `Hardware/` folder: settings, profiles, plans, cues and recordings.
public let hardwareDirectory = repositoryRoot + "/Hardware"

/// A fresh folder of its own under the system's temporary folder (`mkdtemp`), removed with
/// everything in it when released. Its name is short (`pacer-<label>-XXXXXX`, the label cut
/// to 20 letters) so that a socket inside it still fits `sun_path`.
public final class TemporaryDirectory: Sendable {
    public let path: String

    /// `name` labels the folder (by default the calling test's name). A folder that cannot be
    /// made stops the test run.
    public init(_ name: String = #function) {
        do {
            path = try Self.make(name)
        } catch {
            preconditionFailure("\(error)")
        }
    }

    /// The same, throwing when the folder cannot be made.
    init(creating name: String) throws {
        path = try Self.make(name)
    }

    private static func make(_ name: String) throws -> String {
        let label = String(name.filter(\.isLetter).prefix(20))
        let base = FileManager.default.temporaryDirectory.path
        var template = Array("\(base)/pacer-\(label.isEmpty ? "test" : label)-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else { throw SystemCallError("mkdtemp") }
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Writes `contents` to `<folder>/<name>` (making the folders on the way) and returns its
    /// path. The write is in place, so through a link standing at that name.
    @discardableResult
    public func file(_ name: String, _ contents: String = "") throws -> String {
        try write(contents, to: name, in: path, atomically: false)
    }

    /// `<folder>/<name> -> target`, replacing whatever stood at that name, making the folders
    /// on the way.
    public func link(_ name: String, to target: String) throws {
        let link = path + "/" + name
        try FileManager.default.createDirectory(
            atPath: (link as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        unlink(link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
    }

    /// Removes `<folder>/<name>` if it is there (a file, a link or a socket).
    public func remove(_ name: String) {
        unlink(path + "/" + name)
    }
}

/// The folders `makeTemporaryDirectory` handed out, removed when the test process exits.
private let handedOut = Mutex<[TemporaryDirectory]>([])

private let removeAtExit: Void = {
    atexit { handedOut.withLock { $0.removeAll() } }
}()

/// A fresh temporary folder for one test (named after it), given as a path the test may use
/// to its end; it is removed with everything in it when the test process exits.
public func makeTemporaryDirectory(_ name: String = #function) throws -> String {
    _ = removeAtExit
    let directory = try TemporaryDirectory(creating: name)
    handedOut.withLock { $0.append(directory) }
    return directory.path
}

/// Writes `text` to `<dir>/<name>` (making the folders on the way) and returns the path; by
/// default atomically (a reader sees the old file or the new one, never half of it).
@discardableResult
public func write(_ text: String, to name: String, in dir: String, atomically: Bool = true) throws -> String {
    let path = "\(dir)/\(name)"
    try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try text.write(toFile: path, atomically: atomically, encoding: .utf8)
    return path
}
