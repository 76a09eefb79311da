import Foundation
import TestSupport
import Testing

/// Issue 24, a new user's first hour: what a command says it does, it does.
@Suite("A new user's first hour (issue 24), end to end", .serialized)
struct FirstHourEndToEndTests {
    /// `routes export ID --gpx -`: the help says "- for standard output", so it writes there,
    /// the same document the file gets; an unknown route is still 66.
    @Test func aRouteIsExportedToStandardOutput() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let data = "\(dir)/data"
        let imported = try Pacer.run(["routes", "import", "Scenarios/routes/canal-path.gpx", "--data-dir", data])
        #expect(imported.status == 0, "\(imported.stderr)")

        let out = try Pacer.run(["routes", "export", "1", "--gpx", "-", "--data-dir", data])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.stderr.isEmpty, "\(out.stderr)")
        #expect(out.stdout.hasPrefix("<?xml") && out.stdout.contains("<rte>") && out.stdout.contains("<rtept"), "\(out.stdout.prefix(300))")
        let file = try Pacer.run(["routes", "export", "1", "--gpx", "\(dir)/route.gpx", "--data-dir", data])
        #expect(file.status == 0 && file.stdout == "Route #1 written to \(dir)/route.gpx\n", "\(file.stdout) \(file.stderr)")
        #expect(try String(contentsOfFile: "\(dir)/route.gpx", encoding: .utf8) == out.stdout)

        let none = try Pacer.run(["routes", "export", "7", "--gpx", "-", "--data-dir", data])
        #expect(none.status == 66 && none.stderr.contains("there is no route #7") && none.stdout.isEmpty, "\(none.stderr)")
        #expect(!none.stderr.contains("USAGE"), "\(none.stderr)")
    }
}
