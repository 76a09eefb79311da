import Foundation

/// scripts/check-page.py, run on a page this target wrote, as the report tests end to end run
/// it on the binary's (they have TestSupport's helpers; this target, pure like Charts, has
/// only this one).
enum Browser {
    static let chromium = "/usr/bin/chromium"
    /// The repository root, from this file's path (`Tests/ChartsTests/…`).
    static let repositoryRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()
    /// Kept after the run for a person to look at, beside the end-to-end tests' screenshots.
    static let screenshots = repositoryRoot + "/.build/report-check"

    struct Result: Sendable {
        var status: Int32
        var output: String
    }

    /// `check-page.py PAGE OPTIONS` on a thread of its own, so the wait for Chromium holds
    /// none of the few threads every test's tasks share.
    static func check(_ page: String, _ options: [String]) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Swift.Result {
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
                    process.arguments = [repositoryRoot + "/scripts/check-page.py", page, "--chromium", chromium] + options
                    let pipe = Pipe()
                    process.standardOutput = pipe
                    process.standardError = pipe
                    try process.run()
                    let data = pipe.fileHandleForReading.readDataToEndOfFile()
                    process.waitUntilExit()
                    return Result(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
                })
            }.start()
        }
    }
}
