import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import Testing

/// Hostile and odd inputs, through the binary: each refused cleanly, with its
/// sysexits status and a reason naming the file, instead of followed, hung on, or misread.
@Suite("Hostile input, refused cleanly")
struct HostileInputEndToEndTests {
    /// Case 8: `pacer.lock` planted as a symbolic link: the writing command is refused and the
    /// link's target is not truncated.
    @Test func aLockFileLinkedElsewhereIsNotFollowed() throws {
        let data = TemporaryDirectory()
        let target = data.path + "/precious.txt"
        try "keep me\n".write(toFile: target, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: data.path + "/pacer.lock", withDestinationPath: target)
        let activate = try Pacer.run(["plan", "activate", "easy-run", "--data-dir", data.path])
        #expect(activate.status == 73, "\(activate.status): \(activate.stderr)")
        #expect(activate.stderr.contains("pacer.lock: it is a symbolic link"), "\(activate.stderr)")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep me\n")
    }

    /// Case 12: a route of one point is refused at import (65, the file named), where it was
    /// imported and then failed every use with an I/O error (74).
    @Test func aRouteOfOnePointIsRefusedAtImport() throws {
        let data = TemporaryDirectory()
        let one = data.path + "/one.gpx"
        try """
            <?xml version="1.0"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
              <rte><rtept lat="52.0" lon="4.3"/></rte>
            </gpx>
            """.write(toFile: one, atomically: true, encoding: .utf8)
        let imported = try Pacer.run(["routes", "import", one, "--data-dir", data.path])
        #expect(imported.status == 65, "\(imported.status): \(imported.stdout)\(imported.stderr)")
        #expect(imported.stderr.contains("one.gpx") && imported.stderr.contains("a route needs two or more"), "\(imported.stderr)")
        let list = try Pacer.run(["routes", "list", "--data-dir", data.path])
        #expect(list.stdout.hasPrefix("No routes yet"), "nothing stored: \(list.stdout)")
    }

    /// Case 13: a FIFO given as a route, or as a plan, is refused at once (it hung for ever,
    /// waiting for a writer).
    @Test func aFIFOGivenAsAFileIsRefusedAtOnce() throws {
        let dir = TemporaryDirectory()
        let fifo = dir.path + "/route.gpx"
        #expect(mkfifo(fifo, 0o600) == 0)
        let started = ContinuousClock.now
        let route = try Pacer.run([
            "run", "--plan", "Scenarios/plans/steady.yaml", "--source", "none", "--fast", "--buzzer", "null",
            "--data-dir", dir.path + "/data", "--today", "2026-06-21", "--socket", dir.path + "/control.sock",
            "--route", fifo,
        ])
        #expect(route.status == 66, "\(route.status): \(route.stderr)")
        #expect(route.stderr.contains("not a regular file"), "\(route.stderr)")
        let plan = dir.path + "/plan.yaml"
        #expect(mkfifo(plan, 0o600) == 0)
        let show = try Pacer.run(["plan", "show", plan])
        #expect(show.status == 66, "\(show.status): \(show.stderr)")
        #expect(show.stderr.contains("plan.yaml: cannot be read: not a regular file"), "\(show.stderr)")
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    /// Case 14: one byte that is not UTF-8 in a plan: 65, with the file, the line and the byte
    /// offset (not 66, "cannot be read (The operation could not be completed…)").
    @Test func aByteThatIsNotUTF8IsNamedByLineAndOffset() throws {
        let dir = TemporaryDirectory()
        let plan = dir.path + "/plan.yaml"
        var bytes = Array("name: Broken\nworkouts:\n  - name: Easy \u{e9}".utf8)
        bytes += [0xFF]
        bytes += Array("\n    phases: []\n".utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: plan))
        let show = try Pacer.run(["plan", "show", plan])
        #expect(show.status == 65, "\(show.status): \(show.stderr)")
        // Line 3; "name: Broken\n" is 13 bytes, "workouts:\n" 10, "  - name: Easy é" 17 (é is
        // two): the stray byte is at offset 40.
        #expect(show.stderr.contains("plan.yaml:3: byte offset 40 (0xFF): not UTF-8 text"), "\(show.stderr)")
    }

    /// Case 17: a data file larger than any needs is refused with its size before it is read
    /// (a 200 MB settings file took 435 MB of memory to load).
    @Test func aDataFileTooLargeIsRefusedWithItsSize() throws {
        let dir = TemporaryDirectory()
        let plan = dir.path + "/huge.yaml"
        #expect(FileManager.default.createFile(atPath: plan, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: plan))
        try handle.truncate(atOffset: 3 << 20)  // sparse: 3 MiB of nothing
        try handle.close()
        let show = try Pacer.run(["plan", "show", plan])
        #expect(show.status == 65, "\(show.status): \(show.stderr)")
        #expect(show.stderr.contains("huge.yaml: is 3145728 bytes, more than a data file may be (1048576 bytes)"), "\(show.stderr)")
    }

    /// Case 9: a GPX nested a million elements deep (7 MB) is refused at once, naming the
    /// depth and the line (it ran for minutes, quadratically, holding the write lock); a file
    /// with extensions a few levels deep still imports.
    @Test func aGPXNestedAMillionDeepIsRefusedAtOnce() throws {
        let dir = TemporaryDirectory()
        let deep = dir.path + "/deep.gpx"
        var text = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"t\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n"
        text += "<extensions>" + String(repeating: "<a>", count: 1_000_000) + String(repeating: "</a>", count: 1_000_000)
        text += "</extensions></gpx>\n"
        try text.write(toFile: deep, atomically: true, encoding: .utf8)
        let started = ContinuousClock.now
        let imported = try Pacer.run(["routes", "import", deep, "--data-dir", dir.path + "/data"])
        let took = ContinuousClock.now - started
        #expect(imported.status == 65, "\(imported.status): \(imported.stderr)")
        #expect(imported.stderr.contains("deep.gpx:3: elements nested more than 64 deep"), "\(imported.stderr)")
        #expect(took < .seconds(10), "\(took)")

        let fine = dir.path + "/fine.gpx"
        try """
            <?xml version="1.0"?>
            <gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1" xmlns:x="urn:x">
              <rte><rtept lat="52.0" lon="4.3"><extensions><x:a><x:b><x:c><x:d>1</x:d></x:c></x:b></x:a></extensions></rtept>
              <rtept lat="52.001" lon="4.3"/></rte>
            </gpx>
            """.write(toFile: fine, atomically: true, encoding: .utf8)
        let ok = try Pacer.run(["routes", "import", fine, "--data-dir", dir.path + "/data"])
        #expect(ok.status == 0, "\(ok.stderr)")
    }
}
