import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import Storage
import TestSupport
import Testing

@Suite("One writer per data folder")
struct DataFolderLockTests {
    /// Another process holding the folder's lock (as a second Pacer would hold it): a writer
    /// is refused with the holder's PID and command, a reader is not; once the holder is
    /// gone (killed, as a power cut ends a device), the writer gets it.
    @Test func anotherProcessHoldingTheFolderRefusesWritersNotReaders() throws {
        let dir = try makeTemporaryDirectory()
        try Self.makeDatabase(in: dir)
        // A process that takes the lock as a Pacer does, writes itself in, and waits.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        holder.arguments = ["-c", """
            import fcntl, os, sys, time
            f = open(sys.argv[1], "r+")
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            f.truncate(0); f.write(f"{os.getpid()} pacer device\\n"); f.flush()
            time.sleep(30)  # the stimulus: it holds the lock meanwhile
            """, "\(dir)/\(DataFolderLock.fileName)"]
        try holder.run()
        defer { if holder.isRunning { kill(holder.processIdentifier, SIGKILL) } }
        // Once the holder has written itself in, it holds the lock (it locks, then writes).
        let holding = eventuallyBlocking(within: .seconds(5), every: .milliseconds(20)) {
            (try? String(contentsOfFile: "\(dir)/\(DataFolderLock.fileName)", encoding: .utf8))?.contains("pacer device") ?? false
        }
        try #require(holding, "the holder never wrote itself in")
        var refused: StorageError?
        do {
            try Self.makeDatabase(in: dir)
        } catch let error as StorageError {
            refused = error
        }
        let error = try #require(refused, "a second writer was let in")
        guard case .busy(_, let who) = error else { Issue.record("\(error)"); return }
        #expect(who == "\(holder.processIdentifier) pacer device", "\(String(describing: who))")
        #expect(error.description.contains("is in use by another Pacer (PID "), "\(error)")
        // What really stops a device: not `pacer ctl stop`.
        #expect(error.description.contains("Stop it first (sudo systemctl stop pacer when it runs as the service, else kill \(holder.processIdentifier))"),
                "\(error)")
        #expect(!error.description.contains("pacer ctl stop"), "\(error)")
        #expect(try PacerStore(directory: dir, access: .read).activities.activities().isEmpty)
        kill(holder.processIdentifier, SIGKILL)  // as a power cut or a kill ends a device
        holder.waitUntilExit()
        #expect(throws: Never.self) { _ = try PacerStore(directory: dir, access: .write(holder: "pacer run")) }
    }

    /// A database in `dir`, its store (and its lock) gone again when this returns.
    static func makeDatabase(in dir: String) throws {
        let store = try PacerStore(directory: dir)
        try store.database.close()
    }

    /// In one process, a second store on the folder shares the lock (a scenario reads back
    /// what its device wrote); the lock goes with the last of them.
    @Test func storesOfOneProcessShareTheLock() throws {
        let dir = try makeTemporaryDirectory()
        var first: PacerStore? = try PacerStore(directory: dir)
        var second: PacerStore? = try PacerStore(directory: dir)
        #expect(first != nil && second != nil)
        first = nil
        let probe = try Process.run(URL(fileURLWithPath: "/usr/bin/flock"), arguments: ["-n", "\(dir)/\(DataFolderLock.fileName)", "true"])
        probe.waitUntilExit()
        #expect(probe.terminationStatus != 0, "released while a store still held it")
        second = nil
        let again = try Process.run(URL(fileURLWithPath: "/usr/bin/flock"), arguments: ["-n", "\(dir)/\(DataFolderLock.fileName)", "true"])
        again.waitUntilExit()
        #expect(again.terminationStatus == 0, "still held after the last store went")
    }

    @Test func aReaderFindsNoDatabaseWhereNoneIs() throws {
        let dir = try makeTemporaryDirectory()
        #expect(throws: StorageError.noDatabase(directory: "\(dir)/typo")) {
            _ = try PacerStore(directory: "\(dir)/typo", access: .read)
        }
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/typo"))
    }

    /// A `pacer.lock` planted as a symbolic link is refused, never followed: the file it
    /// points to is not truncated.
    @Test func aLockFileThatIsASymbolicLinkIsRefusedAndItsTargetKept() throws {
        let dir = try makeTemporaryDirectory()
        let target = "\(dir)/precious.txt"
        try "keep me\n".write(toFile: target, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: "\(dir)/\(DataFolderLock.fileName)", withDestinationPath: target)
        let error = #expect(throws: StorageError.self) { try Self.makeDatabase(in: dir) }
        #expect(error?.description.contains("symbolic link") == true, "\(String(describing: error))")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep me\n")
    }

    /// A FIFO where the lock file goes is refused at once (an open without O_NONBLOCK would
    /// wait for a writer for ever).
    @Test func aLockFileThatIsAFIFOIsRefusedAtOnce() throws {
        let dir = try makeTemporaryDirectory()
        #expect(mkfifo("\(dir)/\(DataFolderLock.fileName)", 0o600) == 0)
        let error = #expect(throws: StorageError.self) { try Self.makeDatabase(in: dir) }
        #expect(error?.description.contains("not a regular file") == true, "\(String(describing: error))")
    }
}
