import Charts
import Coaching
import Foundation
import PacerCore
import Storage
import TestSupport
import Testing

/// Each track point's timer reading and odometer distance, stored with it (migration v5), as
/// the report's splits and timer read them.
@Suite("Timer and odometer per point")
struct PointTimerTests {
    static let speed = 3.0  // m/s

    /// A run at 3 m/s along the equator, paused twice by hand: 58 s after 400 s, resumed 2 s
    /// before the next fix; 113 s after 900 s, resumed 7 s before the next fix (running the
    /// points do not show). The receiver's positions wander 4 m north and south, so the stored
    /// track is longer than the odometer's distance. It ends 20 s after its last point.
    struct TwoPauses {
        var start = ActivityStart(name: "Two pauses", startedAt: t0, plan: nil, workout: nil, profile: "medium")
        var points: [TrackPoint] = []
        var cues: [CueRecord] = []
        /// Wall seconds paused before each segment, and the segments' wall spans.
        static let segments: [(paused: Double, from: Double, to: Double)] = [(0, 0, 400), (58, 460, 900), (113, 1020, 1500)]
        static let end = (wall: 1520.0, timer: 1520.0 - 58 - 113)

        init() {
            var pausedBefore = 0.0
            for (segment, s) in Self.segments.enumerated() {
                pausedBefore += s.paused
                if segment > 0 {
                    let stoppedAt = Self.segments[segment - 1].to - (pausedBefore - s.paused)
                    cues.append(CueRecord(elapsed: .seconds(stoppedAt), cue: Cue.paused.rawValue, phase: nil))
                    cues.append(CueRecord(elapsed: .seconds(stoppedAt), cue: Cue.resumed.rawValue, phase: nil))
                }
                for wall in stride(from: s.from, through: s.to, by: 5) {
                    let timer = wall - pausedBefore
                    let distance = timer * PointTimerTests.speed
                    let wander = (Int(wall) / 5).isMultiple(of: 2) ? 4.0 : -4.0
                    points.append(TrackPoint(
                        segment: segment, time: time(wall),
                        position: GeoPoint(latitude: wander / metresPerDegree, longitude: distance / metresPerDegree),
                        altitude: nil, speed: PointTimerTests.speed, timer: .seconds(timer), distance: distance))
                }
            }
        }

        var totals: ActivityTotals {
            ActivityTotals(startedAt: t0, elapsed: .seconds(Self.end.wall), timer: .seconds(Self.end.timer),
                           moving: .seconds(Self.end.timer), distance: Self.end.timer * PointTimerTests.speed,
                           maximumSpeed: PointTimerTests.speed)
        }

        /// Records it in `store` as the runtime does, and closes it.
        func record(in store: PacerStore) throws -> Int64 {
            let id = try store.activities.begin(start)
            for p in points { try store.activities.append(p, to: id) }
            for c in cues { try store.activities.add(c, to: id) }
            try store.activities.update(totals, for: id)
            try store.activities.finish(id, end: .stopped, endedAt: time(Self.end.wall), activeTime: .seconds(Self.end.timer))
            return id
        }
    }

    /// The report's input, as `pacer activities report` makes it.
    static func reportInput(_ d: ActivityDetail) -> ActivityReportInput {
        let a = d.summary
        return ActivityReportInput(
            id: a.id, name: a.name, state: a.state.rawValue, startedAt: a.startedAt, endedAt: a.endedAt, plan: a.plan,
            workout: a.workout, profile: a.profile, source: a.source, distance: a.distance, timer: a.activeTime,
            elapsedTime: a.elapsedTime, movingTime: a.movingTime, averageSpeed: a.averageSpeed,
            maximumSpeed: a.maximumSpeed, points: d.points, waypoints: d.waypoints, cues: d.cues, phases: d.phaseResults,
            statistics: d.statistics)
    }

    @Test func splitsAddUpToTheActivitysDistanceAndTheTimerLeavesBothPausesOut() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = TwoPauses()
        let id = try run.record(in: try PacerStore(directory: dir))

        let detail = try PacerStore(directory: dir, access: .read).activities.activity(id)
        #expect(detail.points == run.points, "each point comes back with its timer and distance")
        let header = detail.summary
        #expect(header.activeTime == .seconds(1349), "1520 s less the 58 s and 113 s paused")
        #expect(header.distance == 1349 * Self.speed)
        // The track the receiver drew is longer than what the odometer counted.
        #expect(detail.statistics.distance > header.distance + 100)

        let analysis = RunAnalysis(Self.reportInput(detail))
        #expect(analysis.onTimer && analysis.onOdometer)
        // Every point at its timer reading: each pause left out exactly, the running between
        // each resume and the next fix (2 s, then 7 s) kept.
        #expect(analysis.seconds == run.points.map { $0.timer!.inSeconds })
        let firstAfterPauses = run.points.indices.filter { $0 > 0 && run.points[$0 - 1].segment != run.points[$0].segment }
        #expect(firstAfterPauses.map { analysis.seconds[$0] } == [402, 849])

        let splits = analysis.splits
        #expect(splits.map(\.number) == [1, 2, 3, 4, 5])
        #expect(abs(splits.map(\.distance).reduce(0, +) - header.distance) < 1e-9)
        // The fourth kilometre and the 47 m left are run after the last point (3987 m), before the end.
        #expect(abs((splits.last?.distance ?? 0) - 47) < 1e-9)
        // At 3 m/s on the timer every split takes its distance over 3 m/s, whatever the pauses.
        for split in splits { #expect(abs(split.seconds - split.distance / Self.speed) < 1e-6, "\(split)") }
        #expect(splits.last?.cumulative == header.activeTime?.inSeconds)
    }

    /// The `<pacer:distance>` a GPX export gives its track, in metres.
    static func exportedDistance(_ gpx: [UInt8]) -> Double? {
        let text = String(decoding: gpx, as: UTF8.self)
        guard let open = text.range(of: "<pacer:distance>"),
              let close = text.range(of: "</pacer:distance>", range: open.upperBound..<text.endIndex) else { return nil }
        return Double(text[open.upperBound..<close.lowerBound])
    }

    /// One run, one distance: `Scenarios/battery-compare` on the medium
    /// profile (a point kept every 30 s, so the stored track's straight lines are 4 % short of
    /// the odometer) recorded by the binary into a real data folder; the header, the phases
    /// (laps), the report's splits, the text report's elevation axis and the GPX export's
    /// stated distance all agree to 0.1 %.
    @Test func aRunsHeaderPhasesSplitsProfileAndExportShareOneDistance() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = try await Pacer.runOffThePool(["scenario", "run", "Scenarios/battery-compare", "--quiet",
                                                 "--out", "\(dir)/out", "--data-dir", "\(dir)/data"])
        try #require(run.status == 0, "\(run.stderr)")
        let store = try PacerStore(directory: "\(dir)/data", access: .read)
        let detail = try store.activities.activity(1)
        let header = detail.summary.distance
        func agrees(_ figure: Double, _ what: String) {
            #expect(abs(figure - header) <= header * 0.001, "\(what): \(figure) m, the header \(header) m")
        }
        #expect(detail.statistics.distance < header * 0.98, "the stored points' straight lines alone are short")
        agrees(detail.phaseResults.map(\.distance).reduce(0, +), "the phases")
        agrees(RunAnalysis(Self.reportInput(detail)).splits.map(\.distance).reduce(0, +), "the splits")
        agrees(try #require(Self.exportedDistance(try store.gpx.gpx(activity: 1))), "the GPX export")
        let axis = try #require(ActivityReport.detail(detail).last)
        #expect(axis.hasSuffix(" \(ActivityFormat.kilometres(header)) km"), "the elevation profile's axis: \(axis)")
        // Hidden places: the track shown is not what was measured, so it states no distance.
        let hidden = try store.gpx.gpx(activity: 1, options: GPXExportOptions(hideWithin: 200))
        #expect(Self.exportedDistance(hidden) == nil, "an export with hidden places states no distance")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"),
                   "needs the sqlite3 shell (apt-get install sqlite3)"))
    func aDataFolderFromBeforeOpensAndItsPointsAreReportedAsBefore() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var run = TwoPauses()
        for i in run.points.indices {
            run.points[i].timer = nil
            run.points[i].distance = nil
        }
        let id = try run.record(in: try PacerStore(directory: dir))
        // Back to the schema of version 4: no timer or distance column, v5 not run (nor v9,
        // which adds to the same table after it).
        let downgrade = try PacerTestShell.sqlite3("\(dir)/pacer.sqlite", PacerTestShell.undoV9 + """
            ALTER TABLE track_points DROP COLUMN timer_ms;
            ALTER TABLE track_points DROP COLUMN distance_m;
            DELETE FROM grdb_migrations WHERE identifier = 'v5';
            SELECT COUNT(*) FROM pragma_table_info('track_points');
            """)
        #expect(downgrade == "8\n", "the table as version 4 had it")

        let store = try PacerStore(directory: dir)
        let detail = try store.activities.activity(id)
        #expect(detail.points == run.points, "older points have no timer and no distance")
        #expect(try PacerTestShell.sqlite3("\(dir)/pacer.sqlite", "SELECT COUNT(*) FROM track_points WHERE timer_ms IS NULL;")
            == "\(run.points.count)\n")
        let analysis = RunAnalysis(Self.reportInput(detail))
        #expect(analysis.onTimer && !analysis.onOdometer)
        // The old way: the track's own length, and the running after the resumes shared out
        // between the pauses (2 s and 7 s become 3.5 s each: exact for one pause only).
        #expect(abs((analysis.splits.map(\.distance).reduce(0, +)) - detail.statistics.distance) < 1e-6)
        let firstAfterPauses = run.points.indices.filter { $0 > 0 && run.points[$0 - 1].segment != run.points[$0].segment }
        let placed = firstAfterPauses.map { analysis.seconds[$0] }
        #expect(placed.count == 2 && abs(placed[0] - 403.5) < 1e-9 && abs(placed[1] - 849) < 1e-9, "\(placed)")
    }
}

/// Migration v7: the activities table made again to allow the no-fix state, nothing lost.
@Suite("The no-fix state (migration v7)")
struct NoFixMigrationTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"),
                   "needs the sqlite3 shell (apt-get install sqlite3)"))
    func aDataFolderOfVersion6KeepsEveryActivityAndTakesNoFix() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = PointTimerTests.TwoPauses()
        let first = try run.record(in: try PacerStore(directory: dir))
        let second = try run.record(in: try PacerStore(directory: dir))
        let db = "\(dir)/pacer.sqlite"
        // Back to version 6: the table as it was made then, the third id used and deleted.
        let original = try PacerTestShell.sqlite3(db, "SELECT sql FROM sqlite_master WHERE name = 'activities';")
        let v6 = original.replacingOccurrences(of: ", 'no-fix'))", with: "))")
        #expect(v6 != original)
        _ = try PacerTestShell.sqlite3(db, """
            PRAGMA foreign_keys = OFF;
            BEGIN;
            CREATE TABLE old \(v6[v6.firstIndex(of: "(")!...].trimmingCharacters(in: .whitespacesAndNewlines));
            INSERT INTO old SELECT * FROM activities;
            DROP TABLE activities;
            ALTER TABLE old RENAME TO activities;
            CREATE INDEX activities_by_state ON activities(state);
            UPDATE sqlite_sequence SET seq = 3 WHERE name = 'activities';
            DELETE FROM grdb_migrations WHERE identifier = 'v7';
            COMMIT;
            """)
        #expect(try PacerTestShell.sqlite3(db, "SELECT sql LIKE '%no-fix%' FROM sqlite_master WHERE name = 'activities';") == "0\n")
        let points = try PacerTestShell.sqlite3(db, "SELECT COUNT(*) FROM track_points;")

        let store = try PacerStore(directory: dir)
        #expect(Set(try store.activities.activities().map(\.id)) == [first, second])
        #expect(try PacerTestShell.sqlite3(db, "SELECT COUNT(*) FROM track_points;") == points, "no point lost")
        #expect(try PacerTestShell.sqlite3(db, "PRAGMA foreign_key_check;") == "", "every point still has its activity")
        #expect(try PacerTestShell.sqlite3(db, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'activities_by_state';") == "1\n")
        // A new activity takes the no-fix state, and an id never used before (4: 3 was).
        let id = try store.activities.begin(ActivityStart(name: "searching", startedAt: nil, plan: nil, workout: nil, profile: "high"))
        #expect(id == 4)
        try store.activities.finish(id, end: .noFix, endedAt: nil, activeTime: .seconds(60))
        #expect(try store.activities.activity(id).summary.state == .noFix)
    }
}

enum PacerTestShell {
    /// Takes a database back to version 8: undoes v11 (the ghost's columns), v10 (the
    /// readings between points) and v9 (the heart-rate columns), newest first, for a test
    /// that makes an older version, so that they run again after the migrations it forgets.
    static let undoV9 = """
        ALTER TABLE track_points DROP COLUMN ghost_m;
        ALTER TABLE activities DROP COLUMN ghost;
        DELETE FROM grdb_migrations WHERE identifier = 'v11';
        ALTER TABLE track_points DROP COLUMN readings;
        DELETE FROM grdb_migrations WHERE identifier = 'v10';
        ALTER TABLE track_points DROP COLUMN heart_rate;
        ALTER TABLE track_points DROP COLUMN rr_intervals;
        ALTER TABLE athlete_profile DROP COLUMN max_hr;
        ALTER TABLE athlete_profile DROP COLUMN resting_hr;
        ALTER TABLE athlete_profile DROP COLUMN threshold_hr;
        ALTER TABLE athlete_profile DROP COLUMN age;
        DELETE FROM grdb_migrations WHERE identifier = 'v9';

        """

    /// Runs `script` through the sqlite3 shell on `path`; returns what it printed.
    static func sqlite3(_ path: String, _ script: String) throws -> String {
        let result = try Program.run("/usr/bin/sqlite3", [path, script])
        #expect(result.status == 0, "sqlite3: \(result.output)")
        return result.stdout
    }
}
