import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import Testing

/// What a command writes is checked to its last byte, and no command
/// replaces a node it did not make: a full device is an error naming it (74), a symbolic
/// link keeps pointing where it did (its target written), a FIFO's reader gets the page.
@Suite("Writes checked, nodes kept")
struct OutputFileEndToEndTests {
    /// A data folder with one recorded activity (#1).
    static func recorded() throws -> TemporaryDirectory {
        let dir = TemporaryDirectory()
        let run = try Pacer.run(["scenario", "run", "Scenarios/steady", "--out", dir.path + "/out", "--quiet",
                                 "--data-dir", dir.path + "/data"])
        try #require(run.status == 0, "\(run.stderr)")
        return dir
    }

    static func kind(_ path: String) -> mode_t {
        var info = stat()
        guard lstat(path, &info) == 0 else { return 0 }
        return info.st_mode & S_IFMT
    }

    @Test func aFullDeviceIsAnErrorAndStaysADevice() throws {
        let dir = try Self.recorded()
        let data = dir.path + "/data"
        #expect(Self.kind("/dev/full") == S_IFCHR)
        for arguments in [["activities", "report", "1", "--out", "/dev/full"],
                          ["activities", "export", "1", "--gpx", "/dev/full"]] {
            let result = try Pacer.run(arguments + ["--data-dir", data])
            #expect(result.status == 74, "\(arguments): \(result.status) \(result.stdout)\(result.stderr)")
            #expect(result.stderr.contains("/dev/full: cannot write it: No space left on device"), "\(result.stderr)")
            #expect(!result.stdout.contains("written"), "no success is claimed: \(result.stdout)")
            #expect(Self.kind("/dev/full") == S_IFCHR, "the device node is still a device")
        }
        // To standard output redirected to the full device: an error too (it exited 0).
        let piped = try Program.run("/bin/bash", ["-c", "'\(Pacer.executable)' activities export 1 --gpx - --data-dir '\(data)' > /dev/full"])
        #expect(piped.status == 74, "\(piped.status): \(piped.stderr)")
        #expect(piped.stderr.contains("standard output: cannot write it: No space left on device"), "\(piped.stderr)")
        // A reader that stops early (| head) is no failure.
        let head = try Program.run("/bin/bash", ["-o", "pipefail", "-c",
                                                 "'\(Pacer.executable)' activities export 1 --gpx - --data-dir '\(data)' | head -c 100 > /dev/null"])
        #expect(head.status == 0, "\(head.status): \(head.stderr)")
    }

    @Test func aSymbolicLinkStaysALinkAndItsTargetIsWritten() throws {
        let dir = try Self.recorded()
        let target = dir.path + "/target.html"
        try "old".write(toFile: target, atomically: true, encoding: .utf8)
        let link = dir.path + "/report.html"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let result = try Pacer.run(["activities", "report", "1", "--out", link, "--data-dir", dir.path + "/data"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.kind(link) == S_IFLNK, "the link is still a link")
        #expect(try String(contentsOfFile: target, encoding: .utf8).hasPrefix("<!DOCTYPE html>"))
    }

    @Test func aFIFOsReaderGetsThePageAndTheFIFOStays() throws {
        let dir = try Self.recorded()
        let fifo = dir.path + "/page.fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = try Program.start("/bin/cat", [fifo])
        let result = try Pacer.run(["activities", "report", "1", "--out", fifo, "--data-dir", dir.path + "/data"])
        let read = reader.finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(read.stdout.hasPrefix("<!DOCTYPE html>") && read.stdout.contains("</html>"), "\(read.stdout.prefix(80))")
        #expect(Self.kind(fifo) == S_IFIFO)
    }
}
