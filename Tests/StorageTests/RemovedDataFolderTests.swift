import Coaching
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import PacerCore
@testable import Storage
import TestSupport
import Testing

/// A data folder removed under a writer: `rm -r` of the folder while a
/// device records. Before, every later write went into the unlinked file and was lost with
/// the process; now the folder is made again, with everything stored so far, and later
/// writes reach the disk.
@Suite("A data folder removed under a writer")
struct RemovedDataFolderTests {
    static func point(_ i: Int) -> TrackPoint {
        TrackPoint(segment: 0, time: time(Double(i)), position: GeoPoint(latitude: 45 + Double(i) * 1e-5, longitude: 6),
                   altitude: nil, speed: nil)
    }

    /// Points committed before the removal and points added after it are all in the folder
    /// made again, on the disk (a new reader sees them), and the activity closes there.
    @Test func theFolderIsMadeAgainWithEverythingStored() throws {
        let dir = try makeTemporaryDirectory()
        let data = "\(dir)/data"
        let store = try PacerStore(directory: data)
        let id = try store.activities.begin(SampleActivity().start)
        for i in 0..<30 { try store.activities.append(Self.point(i), to: id) }
        try store.activities.commit()
        try FileManager.default.removeItem(atPath: data)
        for i in 30..<50 { try store.activities.append(Self.point(i), to: id) }
        try store.activities.commit()
        #expect(FileManager.default.fileExists(atPath: "\(data)/\(PacerDatabase.fileName)"), "the folder is made again")
        try store.activities.finish(id, end: .completed, endedAt: time(49), activeTime: .seconds(49))
        // A reader opening the folder now reads the disk, not the writer's open file.
        let reader = try PacerStore(directory: data, access: .read)
        let detail = try reader.activities.activity(id)
        #expect(detail.points.count == 50, "every point, before and after the removal")
        #expect(detail.summary.state == .completed)
        // A later activity goes to the same file.
        let next = try store.activities.begin(SampleActivity().start)
        try store.activities.append(Self.point(60), to: next)
        try store.activities.commit()
        #expect(try reader.activities.activities().count == 2)
    }

    /// The folder's lock is taken again in the new folder: another writer is kept out.
    @Test func theLockIsTakenAgain() throws {
        let dir = try makeTemporaryDirectory()
        let data = "\(dir)/data"
        let store = try PacerStore(directory: data)
        _ = try store.activities.begin(SampleActivity().start)
        try FileManager.default.removeItem(atPath: data)
        _ = try store.activities.begin(SampleActivity().start)
        let fd = open("\(data)/\(DataFolderLock.fileName)", O_RDWR)
        try #require(fd >= 0, "the lock file is made again")
        defer { close(fd) }
        #expect(flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK, "the new lock file is held")
    }

    /// A different database put where the store's was is never written over: the write is
    /// refused (the item waits in memory for the next commit).
    @Test func aFilePutInItsPlaceIsLeftAlone() throws {
        let dir = try makeTemporaryDirectory()
        let data = "\(dir)/data"
        let store = try PacerStore(directory: data)
        let id = try store.activities.begin(SampleActivity().start)
        try store.activities.commit()
        let file = "\(data)/\(PacerDatabase.fileName)"
        try FileManager.default.removeItem(atPath: file)
        try Data("somebody else's".utf8).write(to: URL(fileURLWithPath: file))
        try store.activities.append(Self.point(1), to: id)
        #expect(throws: StorageError.self) { try store.activities.commit() }
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "somebody else's")
        #expect(store.activities.uncommitted.waiting == 1, "the point waits")
    }

    /// A folder that cannot be made again (its parent is read-only): an error that says so,
    /// and what waits is written once the folder can be made.
    @Test func aFolderThatCannotBeMadeWaitsAndIsMadeLater() throws {
        let dir = try makeTemporaryDirectory()
        let parent = "\(dir)/parent"
        let data = "\(parent)/data"
        let store = try PacerStore(directory: data)
        let id = try store.activities.begin(SampleActivity().start)
        try store.activities.commit()
        try FileManager.default.removeItem(atPath: parent)
        // A file where the parent folder was: the folder cannot be made under it.
        try Data().write(to: URL(fileURLWithPath: parent))
        try store.activities.append(Self.point(1), to: id)
        var reason = ""
        do { try store.activities.commit() } catch { reason = "\(error)" }
        #expect(reason.contains("cannot be made again"), "\(reason)")
        try FileManager.default.removeItem(atPath: parent)
        try store.activities.append(Self.point(2), to: id)
        try store.activities.commit()
        #expect(try PacerStore(directory: data, access: .read).activities.activity(id).points.count == 2)
    }
}
