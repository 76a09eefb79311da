import Foundation

/// The repository root, found from this file's path, so tests read the real `Hardware/`.
let repositoryRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
}()

let hardwareDirectory = repositoryRoot + "/Hardware"
let plansDirectory = hardwareDirectory + "/plans"

/// A fresh temporary directory for one test.
func makeTemporaryDirectory(_ name: String = #function) throws -> String {
    let dir = FileManager.default.temporaryDirectory
        .appendingPathComponent("pacer-\(name.filter(\.isLetter))-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}

/// Writes `text` to `dir/name` and returns the path.
@discardableResult
func write(_ text: String, to name: String, in dir: String) throws -> String {
    let path = "\(dir)/\(name)"
    try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}
