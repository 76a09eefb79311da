import Coaching
import Foundation
import GRDB
import PacerCore

/// FIT in and out of the store. In: a watch's activity (or Pacer's own export) imported as a
/// past activity or as a route, as a GPX file is (`GPXExchange.importGPX`): its records with
/// a position and a time, judged by the same rules (`TrackPlausibility`), in one transaction, so
/// a file refused anywhere stores nothing. In the notes and errors a point's "line" is its
/// record's number in the file, from 1. Out: an activity as a FIT activity file (`FITWriter`).
public final class FITExchange: DatabasePart {
    let database: PacerDatabase

    init(database: PacerDatabase) {
        self.database = database
    }

    /// The activity as a FIT activity file (`FITWriter.activity(_:utcOffset:)`): its laps
    /// (the phases), its timer's pauses and the device's distance on every record.
    public func fit(activity id: Int64, utcOffset: Int64 = 0) throws -> [UInt8] {
        FITWriter.activity(try read { db in try ActivityLogStore.detail(id, db) }, utcOffset: utcOffset)
    }

    /// Writes the activity as FIT to `path` through `OutputFile` (replaced only once complete).
    /// Returns the file's size in bytes.
    @discardableResult
    public func exportFIT(activity id: Int64, to path: String, utcOffset: Int64 = 0) throws -> Int {
        let bytes = try fit(activity: id, utcOffset: utcOffset)
        try OutputFile.write(path) { write in try write(bytes) }
        return bytes.count
    }

    /// Imports the FIT file at `path`, read as a stream (`FITReader.read(path:point:)`): its
    /// records go into the store one by one, in one transaction, so that neither the file nor
    /// its points are ever held whole, and a file refused anywhere (a damaged record, a ride)
    /// stores nothing.
    /// `again`: as `GPXExchange.importGPX`'s.
    public func importFIT(file path: String, as kind: ImportKind, name: String? = nil,
                          rules: TrackPlausibility = .standard, again: Bool = false) throws -> ImportResult {
        let fallback = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        switch kind {
        case .activity:
            return try write { db in try Self.importFITActivity(path, name: name ?? fallback, rules: rules, again: again, db) }
        case .route:
            return try write { db in try Self.importFITRoute(path, name: name ?? fallback, rules: rules, db) }
        }
    }

    /// Refuses a file that gave no point to import.
    static func requirePoints(_ fit: FITActivityData, _ path: String) throws {
        guard fit.pointCount > 0 else {
            throw FITError(file: path, offset: nil, reason: "no record with a position and a time "
                           + "(\(fit.records) record(s) read): nothing to import")
        }
    }

    static func importedPoint(_ p: FITActivityData.Point) -> ImportedPoint {
        ImportedPoint(position: p.position, altitude: p.altitude, time: p.time, speed: p.speed, heartRate: p.heartRate,
                      rrIntervals: p.rrIntervals, line: p.record)
    }

    static func importFITActivity(_ path: String, name: String, rules: TrackPlausibility, again: Bool = false,
                                  _ db: Database) throws -> ImportResult {
        let (id, filter) = try TrackImport.beginActivity(name: name, path: path, rules: rules, db)
        var first = true
        let fit = try FITReader.read(path: path) { p in
            // A segment per stretch between the timer's stops (the pauses).
            if first || p.afterStop { try filter.beginSegment() }
            first = false
            try filter.add(importedPoint(p), tag: "record")
        }
        try requirePoints(fit, path)
        // A ride or a swim is not a run: its speeds would be taken for a runner's. (Its
        // sport is in its session, at the end: what was taken is rolled back.)
        if let sport = fit.sport, !FITActivityData.onFootSports.contains(sport) {
            throw FITError(file: path, offset: nil, reason: "a \(FITActivityData.sportName(sport)) activity, not a run: "
                + "Pacer keeps runs (import its line as a route to follow instead)")
        }
        try filter.finish()
        try keepSessionTotals(fit, activity: id, rules: rules, db)
        let distance = try TrackImport.finishActivity(id, path: path, again: again, db)
        try importLaps(fit.laps, activity: id, db)
        return ImportResult(kind: .activity, id: id, name: name, pointCount: filter.keptCount, waypointCount: 0,
                               distance: distance, pointsRead: filter.count, droppedPoints: filter.droppedPoints,
                               droppedElevations: filter.droppedElevations,
                               notes: filter.pointNotes + filter.elevationNotes, notesLeftOut: filter.notesLeftOut)
    }

    /// The file's own totals, when it has one session with a distance and a timer time that a
    /// runner could have run: its odometer and timer are the watch's (a record every few
    /// seconds, measured again along the points, reads short: Pacer's own 5.90 km, 45:00 run
    /// came back as 5.81 km, 41:00), so the activity closes on them, as a recorded one closes
    /// on its live totals. Elapsed time and start too, when given.
    static func keepSessionTotals(_ fit: FITActivityData, activity id: Int64, rules: TrackPlausibility,
                                  _ db: Database) throws {
        guard fit.sessions == 1, let distance = fit.sessionDistance, let timer = fit.sessionTimer,
              distance.isFinite, distance >= 0, timer.isFinite, timer > 0,
              distance <= rules.maximumSpeed * timer + rules.gpsError else { return }
        let elapsed = fit.sessionElapsed.flatMap { $0.isFinite && $0 >= timer ? $0 : nil }
        try db.execute(sql: """
            UPDATE activities SET live_started_at = ?, live_elapsed_ms = ?, live_timer_ms = ?, live_distance_m = ?
            WHERE id = ?
            """, arguments: [fit.sessionStart?.millisecondsSince1970, elapsed.map { Int64(($0 * 1000).rounded()) },
                             Int64((timer * 1000).rounded()), distance, id])
    }

    /// The watch's laps, as the activity's phase results ("Lap 1", …: their timer time,
    /// distance and fastest speed; no band, so no time in it), when every lap has a timer
    /// and a distance: what its report and its detail show, as a recorded run's phases.
    static func importLaps(_ laps: [FITActivityData.Lap], activity id: Int64, _ db: Database) throws {
        guard !laps.isEmpty, laps.allSatisfy({ $0.timer != nil && $0.distance != nil }) else { return }
        let insert = try db.cachedStatement(sql: """
            INSERT INTO phase_results (activity_id, phase_index, name, duration_ms, time_in_band_ms, distance_m,
                                       min_speed, max_speed)
            VALUES (?, ?, ?, ?, 0, ?, 0, ?)
            """)
        for (i, lap) in laps.enumerated() {
            let timer = lap.timer ?? 0, distance = lap.distance ?? 0
            guard timer.isFinite, timer >= 0, distance.isFinite, distance >= 0 else { continue }
            try insert.execute(arguments: [id, i, "Lap \(i + 1)", Int64((timer * 1000).rounded()), distance,
                                           lap.maximumSpeed.flatMap { $0.isFinite ? $0 : nil } ?? 0])
        }
    }

    static func importFITRoute(_ path: String, name: String, rules: TrackPlausibility,
                               _ db: Database) throws -> ImportResult {
        let (id, insert) = try TrackImport.beginRoute(name: name, path: path, db)
        var line: [PathPoint] = []
        let filter = TrackPointFilter(rules: rules, file: path, timed: false) { p, _ in
            try insert.execute(arguments: [id, line.count, p.position.latitude, p.position.longitude, p.altitude,
                                           p.time?.millisecondsSince1970])
            line.append(PathPoint(position: p.position, altitude: p.altitude, time: p.time))
        }
        try filter.beginSegment()
        var lastRecord = 0
        let fit = try FITReader.read(path: path) { p in
            lastRecord = p.record
            try filter.add(importedPoint(p), tag: "record")
        }
        try requirePoints(fit, path)
        try filter.finish()
        guard filter.keptCount >= 2 else {
            throw FITError(file: path, offset: nil, reason: "\(filter.keptCount) usable point(s): a route needs two or more")
        }
        var notes = filter.pointNotes + filter.elevationNotes
        if filter.timesUnusable {
            // As for a GPX route: times that go back or never change are left out.
            try TrackImport.clearRouteTimes(id, db)
            for i in line.indices { line[i].time = nil }
            notes.append(ImportNote(file: path, line: lastRecord, reason: "the records' times "
                + "\(filter.timesGoBack ? "go back" : "are all the same"): left out, the route is its points in order"))
        }
        let stats = try TrackImport.finishRoute(id, name: name, line: line, waypoints: [], db)
        var result = ImportResult(kind: .route, id: id, name: name, pointCount: line.count, waypointCount: 0,
                                  distance: stats.distance, pointsRead: filter.count, droppedPoints: filter.droppedPoints,
                                  droppedElevations: filter.droppedElevations, timesLeftOut: filter.timesUnusable,
                                  notes: notes, notesLeftOut: filter.notesLeftOut)
        // A route is a line to follow: the records' heart rates are not kept, and said.
        result.heartRatesNotKept = fit.heartRateCount
        return result
    }
}
