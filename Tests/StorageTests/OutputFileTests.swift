import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Storage
import Synchronization
import TestSupport
import Testing

/// Writes that cannot collide, cannot be turned aside, and leave nothing behind.
@Suite("output files")
struct OutputFileTests {
    /// Seven writes of one path at once, in one process (the page's handlers): each has a
    /// temporary file of its own, so every one succeeds and the file is one of them, whole.
    @Test func simultaneousWritesOfOnePathAllSucceed() async throws {
        let folder = TemporaryDirectory()
        let path = folder.path + "/device.yaml"
        let failures = Outcomes()
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<7 {
                group.addTask {
                    do {
                        try OutputFile.write(path, text: String(repeating: "line \(i)\n", count: 2000), as: .own(mode: 0o644))
                    } catch {
                        failures.add("\(error)")
                    }
                }
            }
        }
        #expect(failures.all.isEmpty)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let lines = Set(text.split(separator: "\n"))
        #expect(lines.count == 1 && text.count == 2000 * 7, "one write's text, whole")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["device.yaml"])
    }

    /// Six new files of one name at once (six uploads of one plan name): one is written,
    /// the others hear that it is there, and nothing is written over it.
    @Test func aNewFileIsWrittenOnceWhenSixRaceForIt() async throws {
        let folder = TemporaryDirectory()
        let path = folder.path + "/plan.yaml"
        let outcomes = Outcomes()
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<6 {
                group.addTask {
                    do {
                        try OutputFile.write(path, text: "plan \(i)\n", as: .new(mode: 0o644))
                        outcomes.add("written \(i)")
                    } catch StorageError.exists {
                        outcomes.add("exists")
                    } catch {
                        outcomes.add("\(error)")
                    }
                }
            }
        }
        let all = outcomes.all
        let written = all.filter { $0.hasPrefix("written") }
        #expect(written.count == 1 && all.filter { $0 == "exists" }.count == 5, "\(all)")
        let winner = try #require(written.first).dropFirst("written ".count)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "plan \(winner)\n")
    }

    /// The device's own file: a link, a folder or a FIFO in its place is refused and left as
    /// it is; the mode asked for is the file's.
    @Test func theDevicesOwnFileRefusesWhatIsInTheWay() throws {
        let folder = TemporaryDirectory()
        let victim = try folder.file("victim", "mine\n")
        let link = folder.path + "/linked.yaml"
        #expect(symlink(victim, link) == 0)
        #expect(throws: StorageError.file(path: link, reason: "a symbolic link is in the way, not a file the device wrote: remove it")) {
            try OutputFile.write(link, text: "x\n", as: .own(mode: 0o644))
        }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "mine\n")
        let fifo = folder.path + "/fifo.yaml"
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(throws: StorageError.self) { try OutputFile.write(fifo, text: "x\n", as: .own(mode: 0o644)) }
        let secret = folder.path + "/secret"
        try OutputFile.write(secret, text: "x\n", as: .own(mode: 0o600))
        var info = stat()
        #expect(lstat(secret, &info) == 0 && info.st_mode & 0o777 == 0o600)
        // A file the runner names (an export) still follows its link, as before.
        try OutputFile.write(link, text: "exported\n")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "exported\n")
    }

    /// What a killed writer left (`kill -9` during an export or a plan upload) is removed:
    /// at the device's start for its folders, and by the next write of the same file. A
    /// live writer's temporary file is left alone.
    @Test func leftoversOfAKilledWriterAreRemoved() throws {
        let folder = TemporaryDirectory()
        let dead = Self.deadPID()
        let old = try folder.file(".k1.yaml.\(dead).tmp", "half a plan")
        let new = try folder.file(".run.tcx.\(dead).3.tmp", "half an export")
        let live = try folder.file(".other.yaml.\(getpid()).9.tmp", "being written")
        let unrelated = try folder.file(".hidden.tmp", "not ours")
        #expect(OutputFile.removeLeftovers(in: folder.path, of: "run.tcx") == [".run.tcx.\(dead).3.tmp"])
        try OutputFile.write(folder.path + "/run.tcx", text: "whole\n")
        #expect(OutputFile.removeLeftovers(in: folder.path) == [".k1.yaml.\(dead).tmp"])
        for path in [old, new] { #expect(!FileManager.default.fileExists(atPath: path)) }
        for path in [live, unrelated] { #expect(FileManager.default.fileExists(atPath: path)) }
    }

    /// A pid no process has.
    static func deadPID() -> Int32 {
        var pid: Int32 = 4_000_000
        while kill(pid, 0) == 0 || errno != ESRCH { pid -= 1 }
        return pid
    }
}

/// What concurrent writes came to.
final class Outcomes: Sendable {
    private let list = Mutex<[String]>([])
    func add(_ outcome: String) { list.withLock { $0.append(outcome) } }
    var all: [String] { list.withLock { $0 } }
}
