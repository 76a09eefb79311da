import Coaching
import Foundation
import GRDB
import PacerCore

/// GPX files in: a file imported as a route or as a past activity (`ImportKind`), its
/// points read by `GPXReader`, judged by `TrackPlausibility` and stored through
/// `TrackImport`, the path FIT imports take too.
extension GPXExchange {
    /// Imports a GPX file as a route or as a past activity, streamed: points go into the
    /// database as they are read and judged (`TrackPlausibility`), within one transaction, so
    /// memory holds a few points, not the file, and a file refused anywhere (not GPX, broken,
    /// or not a run: `GPXError`, with the line and the reason) stores nothing.
    /// `again`: an activity the store has already (the same start and distance) is imported
    /// anyway; else it is refused (`StorageError.alreadyImported`).
    public func importGPX(file path: String, as kind: ImportKind, name: String? = nil,
                          rules: TrackPlausibility = .standard, again: Bool = false) throws -> ImportResult {
        let fallback = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        switch kind {
        case .route: return try write { db in try Self.importRoute(path, name: name, fallback: fallback, rules: rules, db) }
        case .activity:
            return try write { db in
                try Self.importActivity(path, name: name, fallback: fallback, rules: rules, again: again, db)
            }
        }
    }

    /// An activity: every non-empty track segment, in order; every point needs a time.
    static func importActivity(_ path: String, name: String?, fallback: String, rules: TrackPlausibility,
                               again: Bool = false, _ db: Database) throws -> ImportResult {
        let (id, filter) = try TrackImport.beginActivity(name: fallback, path: path, rules: rules, db)
        var place: GPXPlace?
        let document = try GPXReader.read(path: path) { point, at in
            guard case .track = at else { return }
            if at != place {
                place = at
                try filter.beginSegment()
            }
            try filter.add(point, tag: "trkpt")
        }
        guard document.trackPointCount > 0 else {
            let reason = document.routePointCount > 0
                ? "no track (<trk>) points: the file holds a route; import it as a route"
                : "no track (<trk>) points to import as an activity"
            throw GPXError(file: path, line: document.line, reason: reason)
        }
        try filter.finish()

        var notes = filter.pointNotes + filter.elevationNotes
        let waypoints = try timedWaypoints(document.waypoints, activity: id, file: path, rules: rules, notes: &notes, db)
        var batch = ActivityLogStore.Pending()
        batch.waypoints = waypoints.enumerated().map { (id, $0, $1) }
        try ActivityLogStore.insert(batch, db)
        let activityName = name ?? document.name ?? document.tracks.first(where: { $0.name != nil })?.name ?? fallback
        try db.execute(sql: "UPDATE activities SET name = ? WHERE id = ?", arguments: [activityName, id])
        let distance = try TrackImport.finishActivity(id, path: path, again: again, db)
        var result = ImportResult(kind: .activity, id: id, name: activityName, pointCount: filter.keptCount,
                                     waypointCount: waypoints.count, distance: distance, pointsRead: filter.count,
                                     droppedPoints: filter.droppedPoints, droppedElevations: filter.droppedElevations,
                                     notes: notes, notesLeftOut: filter.notesLeftOut)
        // The rates read are kept with their points (those of points dropped as glitches go
        // with them, and are said as dropped points).
        result.heartRatesNotKept = document.heartRateCount - document.heartRatesRead
        result.cadencesNotKept = document.cadenceCount
        return result
    }

    /// A route: the file's `<rte>` points when it has any, else its track points as one line.
    static func importRoute(_ path: String, name: String?, fallback: String, rules: TrackPlausibility,
                            _ db: Database) throws -> ImportResult {
        let (id, insert) = try TrackImport.beginRoute(name: fallback, path: path, db)
        var seq = 0
        func makeFilter() -> TrackPointFilter {
            TrackPointFilter(rules: rules, file: path, timed: false) { p, _ in
                try insert.execute(arguments: [id, seq, p.position.latitude, p.position.longitude, p.altitude,
                                               p.time?.millisecondsSince1970])
                seq += 1
            }
        }
        var filter = makeFilter()
        var fromRoutes = false
        var place: GPXPlace?
        let document = try GPXReader.read(path: path) { point, at in
            switch at {
            case .route:
                if !fromRoutes {
                    // Route points win over track points, wherever they are in the file.
                    fromRoutes = true
                    if seq > 0 || filter.count > 0 {
                        try db.execute(sql: "DELETE FROM route_points WHERE route_id = ?", arguments: [id])
                        seq = 0
                        filter = makeFilter()
                    }
                }
            case .track:
                if fromRoutes { return }
            }
            if at != place {
                place = at
                try filter.beginSegment()
            }
            try filter.add(point, tag: fromRoutes ? "rtept" : "trkpt")
        }
        guard document.routePointCount + document.trackPointCount > 0 else {
            throw GPXError(file: path, line: document.line, reason: "no route (<rte>) or track (<trk>) points to import")
        }
        try filter.finish()
        // A route is a line to follow: one point is none (`run --route` could not use it).
        guard filter.keptCount >= 2 else {
            throw GPXError(file: path, line: document.line,
                           reason: "\(filter.keptCount) usable point(s): a route needs two or more")
        }
        var notes = filter.pointNotes + filter.elevationNotes
        if filter.timesUnusable {
            try TrackImport.clearRouteTimes(id, db)
            notes.append(ImportNote(
                file: path, line: document.line,
                reason: "the points' times \(filter.timesGoBack ? "go back" : "are all the same"): left out, "
                    + "the route is its points in order"))
        }

        let points = try Row.fetchCursor(
            db, sql: "SELECT lat, lon, alt, time FROM route_points WHERE route_id = ? ORDER BY seq", arguments: [id])
        var line = [PathPoint]()
        line.reserveCapacity(filter.keptCount)
        while let row = try points.next() {
            line.append(PathPoint(position: GeoPoint(latitude: row[0], longitude: row[1]), altitude: row[2],
                                  time: (row[3] as Int64?).map(UTCTimestamp.init(millisecondsSince1970:))))
        }
        var waypoints = document.waypoints
        checkElevations(&waypoints, rules: rules, notes: &notes, file: path)
        let title = document.routes.first(where: { $0.name != nil })?.name
            ?? (fromRoutes ? nil : document.tracks.first(where: { $0.name != nil })?.name)
        let routeName = name ?? document.name ?? title ?? fallback
        let stats = try TrackImport.finishRoute(id, name: routeName, line: line, waypoints: waypoints, db)
        var result = ImportResult(kind: .route, id: id, name: routeName, pointCount: line.count,
                                     waypointCount: waypoints.count, distance: stats.distance, pointsRead: filter.count,
                                     droppedPoints: filter.droppedPoints, droppedElevations: filter.droppedElevations,
                                     timesLeftOut: filter.timesUnusable, notes: notes, notesLeftOut: filter.notesLeftOut)
        result.heartRatesNotKept = document.heartRateCount
        result.cadencesNotKept = document.cadenceCount
        return result
    }

    /// Waypoints' elevations outside `rules.elevations` are left out (and said), as a point's are.
    static func checkElevations(_ waypoints: inout [ImportedPoint], rules: TrackPlausibility, notes: inout [ImportNote],
                                file: String) {
        for i in waypoints.indices {
            if let altitude = waypoints[i].altitude, !rules.elevations.contains(altitude) {
                waypoints[i].altitude = nil
                notes.append(ImportNote(file: file, line: waypoints[i].line, reason: "<ele> \(altitude) m left out "
                    + "(the waypoint is kept): outside the elevations a runner meets "
                    + "(\(Int(rules.elevations.lowerBound)) to \(Int(rules.elevations.upperBound)) m)"))
            }
        }
    }

    /// An activity's waypoints, each with a time: its own, or that of the track point nearest
    /// to it (found in one pass over the stored points, not by holding them).
    static func timedWaypoints(_ read: [ImportedPoint], activity: Int64, file: String, rules: TrackPlausibility,
                               notes: inout [ImportNote], _ db: Database) throws -> [Waypoint] {
        var waypoints = read
        checkElevations(&waypoints, rules: rules, notes: &notes, file: file)
        var nearest = [(distance: Double, time: Int64)](repeating: (.infinity, 0), count: waypoints.count)
        if waypoints.contains(where: { $0.time == nil }) {
            let points = try Row.fetchCursor(
                db, sql: "SELECT time, lat, lon FROM track_points WHERE activity_id = ? ORDER BY seq", arguments: [activity])
            var first = true
            while let row = try points.next() {
                let position = GeoPoint(latitude: row[1], longitude: row[2])
                for (i, w) in waypoints.enumerated() where w.time == nil {
                    let d = Geodesy.distance(w.position, position)
                    if d < nearest[i].distance || first { nearest[i] = (d, row[0]) }
                }
                first = false
            }
        }
        return waypoints.enumerated().map { index, w in
            Waypoint(name: w.name ?? "Waypoint \(index + 1)",
                     time: w.time ?? UTCTimestamp(millisecondsSince1970: nearest[index].time),
                     position: w.position, altitude: w.altitude,
                     atLastKnownPosition: w.type == Self.lastKnownPositionType)
        }
    }
}
