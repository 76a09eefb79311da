import Coaching
import Foundation
import PacerCore
import Storage
import TestSupport
import Testing

@Suite("PacerStore")
struct ActivityStoreTests {
    @Test func roundTripGivesBackWhatWasWritten() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sample = SampleActivity()
        let id: Int64
        do {
            let store = try PacerStore(directory: dir)
            id = try sample.record(into: store)
            try store.database.close()
        }
        #expect(FileManager.default.fileExists(atPath: "\(dir)/pacer.sqlite"))
        // A fresh connection: everything comes from the file.
        let store = try PacerStore(directory: dir)
        let detail = try store.activities.activity(id)
        #expect(detail.points == sample.points)
        #expect(detail.segments.map(\.count) == [20, 15])
        #expect(detail.waypoints == sample.waypoints)
        #expect(detail.cues == sample.cues)
        #expect(detail.phaseResults == sample.results)
        let s = detail.summary
        #expect(s.name == sample.start.name)
        #expect(s.plan == "10k in 50")
        #expect(s.workout == "Tempo")
        #expect(s.profile == "medium")
        #expect(s.startedAt == t0)
        #expect(s.endedAt == time(75))
        #expect(s.state == .completed)
        #expect(s.activeTime == .seconds(34))
        #expect(s.source == nil)
        #expect(detail.statistics == ActivityStatistics(points: sample.points))
        // The list carries the statistics cached when the activity closed: the same numbers.
        let listed = try #require(try store.activities.activities().first)
        #expect(listed == s)
        #expect(listed.pointCount == 35)
        #expect(abs(listed.distance - detail.statistics.distance) < 1e-9)
    }

    @Test func journalIsWALAndCommitsAreSynchronousFull() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        _ = try store.activities.begin(SampleActivity().start)
        let durability = try store.database.durability()
        #expect(durability.journalMode == "wal")
        #expect(durability.synchronous == 2)  // FULL: every commit is fsynced before it returns
        #expect(FileManager.default.fileExists(atPath: "\(dir)/pacer.sqlite-wal"))
    }

    /// A writer process killed with SIGKILL in the middle of a transaction: what it committed
    /// is there, what it had not committed is not, and the file opens and recovers. The writer
    /// is the sqlite3 shell on the same file (a Swift test cannot fork itself safely).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"),
                   "needs the sqlite3 shell (apt-get install sqlite3)"))
    func writerKilledMidTransactionLosesOnlyWhatItHadNotCommitted() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sample = SampleActivity()
        let id: Int64
        do {
            let store = try PacerStore(directory: dir)
            id = try store.activities.begin(sample.start)
            for p in sample.points[0..<10] { try store.activities.append(p, to: id) }
            try store.activities.commit()
            try store.database.close()
        }
        func insert(_ seq: Int) -> String {
            let p = sample.points[seq]
            return "INSERT INTO track_points (activity_id, seq, segment, time, lat, lon, alt, speed) VALUES "
                + "(\(id), \(seq), \(p.segment), \(p.time.millisecondsSince1970), \(p.position.latitude), "
                + "\(p.position.longitude), \(p.altitude ?? 0), \(p.speed ?? 0));\n"
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = ["\(dir)/pacer.sqlite"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        var script = "PRAGMA busy_timeout = 5000;\n"
        for seq in 10..<15 { script += insert(seq) }  // committed one by one
        script += "BEGIN;\n"
        for seq in 15..<20 { script += insert(seq) }  // never committed
        script += "SELECT 'ready';\n"
        input.fileHandleForWriting.write(Data(script.utf8))
        var seen = ""
        while !seen.contains("ready") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            seen += String(decoding: data, as: UTF8.self)
        }
        #expect(seen.contains("ready"), "sqlite3 said: \(seen)")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)

        let restarted = try PacerStore(directory: dir)
        #expect(try restarted.activities.activity(id).points.count == 15)
        #expect(try restarted.activities.recoverUnfinished() == [id])
        let detail = try restarted.activities.activity(id)
        #expect(detail.summary.state == .recovered)
        #expect(detail.summary.endedAt == sample.points[14].time)
    }

    @Test func uncommittedPointsAreNotVisibleUntilCommit() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let recorder = try PacerStore(directory: dir)
        let reader = try PacerStore(directory: dir)
        let sample = SampleActivity()
        let id = try recorder.activities.begin(sample.start)
        // The activity exists as soon as it begins.
        #expect(try reader.activities.activities().map(\.id) == [id])
        #expect(try reader.activities.activity(id).summary.state == .recording)

        for p in sample.points[0..<10] { try recorder.activities.append(p, to: id) }
        try recorder.activities.add(sample.waypoints[0], to: id)
        #expect(try reader.activities.activity(id).points.isEmpty)
        #expect(try reader.activities.activity(id).waypoints.isEmpty)

        try recorder.activities.commit()
        #expect(try reader.activities.activity(id).points == Array(sample.points[0..<10]))
        #expect(try reader.activities.activity(id).waypoints == [sample.waypoints[0]])

        for p in sample.points[10..<20] { try recorder.activities.append(p, to: id) }
        #expect(try reader.activities.activity(id).points.count == 10)
        try recorder.activities.commit()
        #expect(try reader.activities.activity(id).points == Array(sample.points[0..<20]))
        // A list entry of an activity still recording is measured on its committed points.
        let summary = try #require(try reader.activities.activities().first)
        #expect(summary.state == .recording)
        #expect(summary.pointCount == 20)
        #expect(summary.distance > 0)
    }

    /// R28 at the database level: a recorder has committed some points and holds more in its
    /// buffer when "the power goes"; a second store on the same file (the restarted device)
    /// sees the activity recording with exactly the committed points, and recovers it.
    @Test func restartFindsTheUnfinishedActivityWithEveryCommittedPoint() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sample = SampleActivity()
        let recorder = try PacerStore(directory: dir)
        let id = try recorder.activities.begin(sample.start)
        for p in sample.points[0..<25] { try recorder.activities.append(p, to: id) }
        try recorder.activities.add(sample.waypoints[0], to: id)
        try recorder.activities.add(sample.results[0], to: id)
        try recorder.activities.commit()
        for p in sample.points[25...] { try recorder.activities.append(p, to: id) }  // buffered, never committed
        try recorder.activities.add(sample.waypoints[1], to: id)

        let restarted = try PacerStore(directory: dir)
        let before = try restarted.activities.activity(id)
        #expect(before.summary.state == .recording)
        #expect(before.points == Array(sample.points[0..<25]))
        #expect(before.waypoints == [sample.waypoints[0]])
        #expect(before.phaseResults == [sample.results[0]])

        #expect(try restarted.activities.recoverUnfinished() == [id])
        let after = try restarted.activities.activity(id)
        #expect(after.summary.state == .recovered)
        #expect(after.summary.endedAt == sample.points[24].time)
        #expect(after.points == Array(sample.points[0..<25]))
        // The timer is lost with the power: the segments' spans stand in for it.
        #expect(after.summary.activeTime == .seconds(19 + 4))
        #expect(try restarted.activities.activities().first?.distance == after.statistics.distance)
        // Nothing left to recover.
        #expect(try restarted.activities.recoverUnfinished() == [])
    }

    @Test func recoveryLeavesAStoresOwnRecordingAlone() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        let id = try store.activities.begin(SampleActivity().start)
        #expect(try store.activities.recoverUnfinished() == [])
        #expect(try store.activities.activity(id).summary.state == .recording)
    }

    @Test func recoveredActivityWithoutPointsEndsAtItsStart() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let id = try PacerStore(directory: dir).activities.begin(SampleActivity().start)
        let restarted = try PacerStore(directory: dir)
        #expect(try restarted.activities.recoverUnfinished() == [id])
        let summary = try restarted.activities.activity(id).summary
        #expect(summary.endedAt == t0)
        #expect(summary.activeTime == .zero)
        #expect(summary.distance == 0)
    }

    @Test func finishWithoutAnEndTimeEndsAtTheLastPoint() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        var sample = SampleActivity()
        sample.start.startedAt = nil  // no fix and no clock at the start
        let id = try store.activities.begin(sample.start)
        for p in sample.points { try store.activities.append(p, to: id) }
        try store.activities.finish(id, end: .stopped, endedAt: nil, activeTime: .seconds(30))
        let summary = try store.activities.activity(id).summary
        #expect(summary.state == .stopped)
        #expect(summary.startedAt == sample.points[0].time)
        #expect(summary.endedAt == sample.points.last?.time)
    }

    /// The runtime's running totals (every fix, the device's clock) are what a closed
    /// activity shows, not its sparse points; written with a commit, they survive a power cut.
    @Test func runningTotalsAreTheActivitysFiguresAndSurviveACut() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sample = SampleActivity()
        var start = sample.start
        start.startedAt = nil
        let totals = ActivityTotals(
            startedAt: UTCTimestamp(millisecondsSince1970: sample.points[0].time.millisecondsSince1970 - 2_000),
            elapsed: .seconds(95), timer: .seconds(80), moving: .seconds(78), distance: 1234.5, maximumSpeed: 3.5)
        let id: Int64
        do {
            let store = try PacerStore(directory: dir)
            id = try store.activities.begin(start)
            for p in sample.points[0..<5] { try store.activities.append(p, to: id) }
            try store.activities.update(totals, for: id)
            try store.activities.commit()
            var later = totals
            later.distance = 2000
            try store.activities.update(later, for: id)  // lost with the cut: never committed
            let live = try PacerStore(directory: dir).activities.activities().first
            #expect(live?.state == .recording)
            #expect(live?.distance == 1234.5, "a recording shows its last committed totals")
            try store.database.close()
        }
        let restarted = try PacerStore(directory: dir)
        #expect(try restarted.activities.recoverUnfinished() == [id])
        let summary = try restarted.activities.activity(id).summary
        #expect(summary.state == .recovered)
        #expect(summary.distance == 1234.5)
        #expect(summary.elapsedTime == .seconds(95))
        #expect(summary.activeTime == .seconds(80))
        #expect(summary.movingTime == .seconds(78))
        #expect(summary.maximumSpeed == 3.5)
        #expect(summary.startedAt == totals.startedAt)
        #expect(summary.endedAt == totals.endedAt)
        // One average everywhere: distance over the timer, in the list and in the overall statistics.
        #expect(abs(summary.averageSpeed - 1234.5 / 80) < 1e-9)
        let listed = try #require(try restarted.activities.activities().first)
        #expect(listed.averageSpeed == summary.averageSpeed)
        #expect(abs(try restarted.activities.overallStatistics().averageSpeed - summary.averageSpeed) < 1e-9)
    }

    @Test func recordingGoesOnInAFreshStore() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sample = SampleActivity()
        let id: Int64
        do {
            let first = try PacerStore(directory: dir)
            id = try first.activities.begin(sample.start)
            for p in sample.points[0..<10] { try first.activities.append(p, to: id) }
            try first.activities.commit()
            try first.database.close()
        }
        let second = try PacerStore(directory: dir)
        for p in sample.points[10...] { try second.activities.append(p, to: id) }
        try second.activities.finish(id, end: .completed, endedAt: nil, activeTime: .seconds(33))
        #expect(try second.activities.activity(id).points == sample.points)
    }

    @Test func appendToAnUnknownOrClosedActivityIsRefused() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        let sample = SampleActivity()
        #expect(throws: StorageError.unknownActivity(42)) { try store.activities.append(sample.points[0], to: 42) }
        let id = try sample.record(into: store)
        let other = try PacerStore(directory: dir)
        #expect(throws: StorageError.notRecording(id, .completed)) { try other.activities.append(sample.points[0], to: id) }
        #expect(throws: StorageError.unknownActivity(99)) {
            try store.activities.finish(99, end: .stopped, endedAt: nil, activeTime: .zero)
        }
        #expect(throws: StorageError.unknownActivity(99)) { try store.activities.activity(99) }
        #expect(try store.database.rowCounts()["track_points"] == 35)
    }

    @Test func aPointOffTheEarthIsRefusedAndPoisonsNothing() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        let sample = SampleActivity()
        let id = try store.activities.begin(sample.start)
        try store.activities.append(sample.points[0], to: id)
        var bad = sample.points[1]
        bad.position.latitude = 91
        #expect(throws: StorageError.self) { try store.activities.append(bad, to: id) }
        bad.position.latitude = .nan
        #expect(throws: StorageError.self) { try store.activities.append(bad, to: id) }
        try store.activities.append(sample.points[1], to: id)
        try store.activities.commit()
        #expect(try store.activities.activity(id).points == Array(sample.points[0..<2]))
    }

    @Test func aPhaseResultAddedTwiceIsReplaced() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        let sample = SampleActivity()
        let id = try store.activities.begin(sample.start)
        try store.activities.add(sample.results[0], to: id)
        try store.activities.commit()
        var updated = sample.results[0]
        updated.distance = 70
        try store.activities.add(updated, to: id)
        try store.activities.finish(id, end: .completed, endedAt: nil, activeTime: .zero)
        #expect(try store.activities.activity(id).phaseResults == [updated])
    }

    @Test func discardStoresNothing() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        let sample = SampleActivity()
        let id = try store.activities.begin(sample.start)
        for p in sample.points[0..<10] { try store.activities.append(p, to: id) }
        try store.activities.commit()
        for p in sample.points[10...] { try store.activities.append(p, to: id) }
        try store.activities.add(sample.cues[0], to: id)
        try store.activities.discard(id)
        try store.activities.commit()
        let counts = try store.database.rowCounts()
        #expect(counts.values.allSatisfy { $0 == 0 }, "\(counts)")
    }

    @Test func commitWithNothingBufferedDoesNothing() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        try store.activities.commit()
        #expect(try store.activities.activities().isEmpty)
    }

    @Test func appendsFromManyThreadsAllArrive() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        let id = try store.activities.begin(SampleActivity().start)
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for i in 0..<250 {
                        let p = TrackPoint(segment: 0, time: time(Double(worker * 250 + i)),
                                           position: GeoPoint(latitude: 45, longitude: 6), altitude: nil, speed: nil)
                        try? store.activities.append(p, to: id)
                        if i % 50 == 0 { try? store.activities.commit() }
                    }
                }
            }
        }
        try store.activities.commit()
        #expect(try store.activities.activity(id).points.count == 1000)
    }

    @Test func overallStatisticsCountClosedActivitiesOnly() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        let sample = SampleActivity()
        let first = try sample.record(into: store)
        var fast = SampleActivity()
        fast.start.name = "Sprints"
        fast.start.startedAt = time(86_400)
        fast.points = fast.points.map { p in
            var p = p
            p.time.millisecondsSince1970 += 86_400_000
            p.speed = p.segment == 0 ? 6.5 : 3
            return p
        }
        let second = try fast.record(into: store)
        _ = try store.activities.begin(ActivityStart(name: "Now", startedAt: time(2 * 86_400), plan: nil, workout: nil, profile: "low"))
        let stats = try store.activities.overallStatistics()
        #expect(stats.count == 2)
        #expect(stats.fastest?.id == second)
        #expect(stats.fastest?.maximumSpeed == 6.5)
        let total = try store.activities.activity(first).statistics.distance + store.activities.activity(second).statistics.distance
        #expect(abs(stats.totalDistance - total) < 1e-6)
        #expect(stats.totalTime == .seconds(68))
        let lines = ActivityReport.overall(stats, recording: 1)
        #expect(lines.contains("Highest speed ever: 23.4 km/h, in activity #\(second) \"Sprints\" on 2024-05-02."))
        #expect(lines.last == "(1 activity is still recording and not counted.)")
    }

    /// A waypoint stored at a press and placed again at the next fix: the
    /// new place replaces the old, whether the old was committed already or not, and the
    /// others keep theirs.
    @Test func aRevisedWaypointReplacesTheOneStoredAtThePress() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        let id = try store.activities.begin(ActivityStart(name: "Run", startedAt: time(0), plan: nil, workout: nil, profile: "medium"))
        func w(_ name: String, _ lat: Double) -> Waypoint {
            Waypoint(name: name, time: time(lat), position: GeoPoint(latitude: lat, longitude: 6.2), altitude: nil,
                     atLastKnownPosition: false)
        }
        #expect(try store.activities.add(w("Gate", 45.1), to: id) == 0)
        try store.activities.commit()
        #expect(try store.activities.add(w("Bridge", 45.2), to: id) == 1)
        // Committed before its revision, and revised in the batch it was added in.
        try store.activities.revise(w("Gate", 45.15), number: 0, of: id)
        try store.activities.revise(w("Bridge", 45.25), number: 1, of: id)
        #expect(try store.activities.add(w("Pond", 45.3), to: id) == 2)
        try store.activities.commit()
        #expect(try store.activities.activity(id).waypoints.map(\.position.latitude) == [45.15, 45.25, 45.3])
        // Before any commit: the press's place is what a power cut leaves.
        #expect(try store.activities.add(w("Hill", 45.4), to: id) == 3)
        try store.activities.commit()
        #expect(try store.activities.activity(id).waypoints.map(\.name) == ["Gate", "Bridge", "Pond", "Hill"])
        // Revised through a store opened since, which never saw the add (it was not
        // committed): the revision is the waypoint, and the next add goes after it.
        #expect(try store.activities.add(w("Lake", 45.5), to: id) == 4)
        let again = try PacerStore(directory: dir)
        try again.activities.revise(w("Lake", 45.55), number: 4, of: id)
        #expect(try again.activities.add(w("Mill", 45.6), to: id) == 5)
        try again.activities.commit()
        #expect(try again.activities.activity(id).waypoints.map(\.position.latitude) == [45.15, 45.25, 45.3, 45.4, 45.55, 45.6])
    }

    @Test func anUnwritableFolderIsSaidClearly() throws {
        #expect {
            _ = try PacerStore(directory: "/proc/pacer-cannot-be-here")
        } throws: { error in
            guard case StorageError.cannotOpen(let path, _) = error else { return false }
            return path == "/proc/pacer-cannot-be-here"
        }
    }
}
