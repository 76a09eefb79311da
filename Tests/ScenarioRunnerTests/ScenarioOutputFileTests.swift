import Foundation
@testable import ScenarioRunner
import TestSupport
import Testing

/// A scenario's output file that cannot be made says why (issue 42: `pacer scenario run DIR
/// --out /tmp/steady` said "cannot create /tmp/steady/timeline.txt" and no more, for a folder
/// of another user's). As root every folder is writable, so a folder in the file's place
/// stands in for the reason: the system's text, whatever it is, follows the path.
@Suite("A scenario's output files")
struct ScenarioOutputFileTests {
    /// A run of the plain scenario into `out`, whose error is returned.
    func failure(out: String) throws -> ScenarioError? {
        let runner = ScenarioRunnerTests()
        let scenario = try runner.scenario("")
        var failure: ScenarioError?
        do {
            _ = try ScenarioRunner.run(scenario, out: out, options: try runner.options)
        } catch let error as ScenarioError {
            failure = error
        }
        return failure
    }

    @Test("timeline.txt: the reason after the path", arguments: ["timeline.txt", "events.jsonl"])
    func theTimelineThatCannotBeCreatedSaysWhy(file: String) throws {
        let out = try makeTemporaryDirectory("out")
        try FileManager.default.createDirectory(atPath: "\(out)/\(file)", withIntermediateDirectories: false)
        let error = try #require(try failure(out: out), "the run went on without its \(file)")
        #expect(error.description == "cannot create \(out)/\(file): Is a directory", "\(error)")
    }

    /// The results written after the run (they were Foundation's errors, with no path of ours).
    @Test("summary.json and track.gpx: the reason after the path", arguments: ["summary.json", "track.gpx"])
    func aResultThatCannotBeCreatedSaysWhy(file: String) throws {
        let out = try makeTemporaryDirectory("out")
        try FileManager.default.createDirectory(atPath: "\(out)/\(file)", withIntermediateDirectories: false)
        let error = try #require(try failure(out: out), "the run went on without its \(file)")
        #expect(error.description == "cannot create \(out)/\(file): Is a directory", "\(error)")
    }

    /// The reason is errno's own text, so a folder of another user's says `Permission denied`.
    @Test func theReasonIsTheSystemsText() {
        #expect(ScenarioOutputFile.reason(EACCES) == "Permission denied")
        #expect(ScenarioOutputFile.reason(ENOSPC) == "No space left on device")
    }

    /// An existing file is emptied and written whole.
    @Test func aFileThereIsReplaced() throws {
        let dir = try makeTemporaryDirectory()
        let path = "\(dir)/summary.json"
        try "an older and longer summary\n".write(toFile: path, atomically: false, encoding: .utf8)
        try ScenarioOutputFile.write(Array("{}\n".utf8), to: path)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{}\n")
    }
}
