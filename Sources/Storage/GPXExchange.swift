import Coaching
import Foundation
import GRDB
import PacerCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What an exported GPX file carries (R18: the runner chooses what leaves the device).
public struct GPXExportOptions: Hashable, Sendable {
    public var times: Bool
    public var speeds: Bool
    public var elevations: Bool
    public var waypoints: Bool
    /// The track points' positions; false: no `<trk>` at all.
    public var track: Bool
    /// The activity's name, in the metadata and the track.
    public var name: Bool
    /// The distance the device measured, stated in the track (`GPXWriter.beginTrack`): an
    /// export's; a share writes only what the runner chose.
    public var distance: Bool
    /// The points' heart rates (and, in FIT, their RR intervals): an export's; a share
    /// leaves them out (health data, which no share item chooses yet).
    public var heartRates: Bool
    /// Metres around the track's first and last stored points in which no point and no
    /// waypoint is written; nil: none hidden.
    public var hideWithin: Double?
    /// Places in which no point and no waypoint is written.
    public var privacyZones: [PrivacyZone]
    /// The secret the hidden circles are moved by (`PrivacyCircle`); nil: the device's, read
    /// from the database. Tests give one to know the circles.
    public var secret: ShareSecret?

    public init(times: Bool = true, speeds: Bool = true, elevations: Bool = true, waypoints: Bool = true,
                track: Bool = true, name: Bool = true, distance: Bool = true, heartRates: Bool = true,
                hideWithin: Double? = nil, privacyZones: [PrivacyZone] = [], secret: ShareSecret? = nil) {
        self.times = times
        self.speeds = speeds
        self.elevations = elevations
        self.waypoints = waypoints
        self.track = track
        self.name = name
        self.distance = distance
        self.heartRates = heartRates
        self.hideWithin = hideWithin
        self.privacyZones = privacyZones
        self.secret = secret
    }

    public static let all = GPXExportOptions()
}

/// GPX in and out of the store (R18, R19, R22): an activity or a route exported, a file
/// imported as either, an activity shared (`GPXShare.swift`). A format, not a table: it reads
/// and writes the activities' and routes' tables in the shared database.
public final class GPXExchange: DatabasePart {
    let database: PacerDatabase

    init(database: PacerDatabase) {
        self.database = database
    }
}

extension GPXExchange {
    /// `<type>` of a waypoint taken at the last known position (no fix at the press).
    static let lastKnownPositionType = "last-known-position"

    // MARK: - Export

    /// The activity as a GPX 1.1 document: metadata (name, start time), waypoints, and one
    /// track with a segment per recorded segment.
    public func gpx(activity id: Int64, options: GPXExportOptions = .all) throws -> [UInt8] {
        var out: [UInt8] = []
        try exportGPX(activity: id, options: options) { out.append(contentsOf: $0) }
        return out
    }

    /// Writes the activity as GPX 1.1 to `path`, through a temporary file renamed into place:
    /// the file is never seen half-written. Returns what went into the file.
    @discardableResult
    public func exportGPX(activity id: Int64, to path: String, options: GPXExportOptions = .all) throws -> GPXExportReport {
        try read { db in
            try Self.activityExists(id, db)
            var report = GPXExportReport()
            try Self.writeAtomically(path) { write in
                report = try Self.writeGPX(activity: id, options: options, db, to: write)
            }
            return report
        }
    }

    /// Writes the activity as GPX 1.1 to `write`, 64 KiB at a time.
    @discardableResult
    public func exportGPX(activity id: Int64, options: GPXExportOptions = .all,
                          to write: ([UInt8]) throws -> Void) throws -> GPXExportReport {
        try read { db in
            try Self.activityExists(id, db)
            return try Self.writeGPX(activity: id, options: options, db, to: write)
        }
    }

    static func activityExists(_ id: Int64, _ db: Database) throws {
        guard try Bool.fetchOne(db, sql: "SELECT 1 FROM activities WHERE id = ?", arguments: [id]) == true else {
            throw StorageError.unknownActivity(id)
        }
    }

    /// Where an activity's points are hidden by `options`: the circles (`PrivacyCircle`)
    /// round its first and last stored points (`hideWithin`) and round the `privacyZones`,
    /// moved by the secret; nil when nothing is hidden.
    static func privacyMask(activity id: Int64, options: GPXExportOptions, _ db: Database) throws -> PrivacyMask? {
        guard options.hideWithin != nil || !options.privacyZones.isEmpty else { return nil }
        let secret = try options.secret ?? shareSecret(db)
        var circles: [PrivacyCircle] = []
        if let radius = options.hideWithin, radius > 0 {
            let anchors = try endAnchors(activity: id, db)
            let near = PrivacyCircle.anchorDistance(radius)
            for order in ["ASC", "DESC"] {
                guard let row = try Row.fetchOne(
                    db, sql: "SELECT lat, lon FROM track_points WHERE activity_id = ? ORDER BY seq \(order) LIMIT 1",
                    arguments: [id]) else { continue }
                let end = GeoPoint(latitude: row[0], longitude: row[1])
                // The first recorded start or end near it (its own, when there is none before).
                let anchor = anchors.first { Geodesy.distance($0, end) <= near } ?? end
                let circle = PrivacyCircle.hiding(within: radius, of: anchor, secret: secret)
                if !circles.contains(circle) { circles.append(circle) }
            }
        }
        for (index, zone) in options.privacyZones.enumerated() {
            circles.append(PrivacyCircle.hiding(zone, place: index + 1, secret: secret))
        }
        return PrivacyMask(circles: circles)
    }

    /// Every activity's first and last stored points, the oldest activity's first: where
    /// runs have started and ended on this device, the anchors of `--hide-within`'s circles.
    /// An activity still recording counts only when it is the one shared (it may yet be
    /// cancelled, and its anchor with it).
    static func endAnchors(activity id: Int64, _ db: Database) throws -> [GeoPoint] {
        let rows = try Row.fetchAll(db, sql: """
            SELECT f.lat, f.lon, l.lat, l.lon FROM activities a
            JOIN track_points f ON f.activity_id = a.id
                AND f.seq = (SELECT MIN(seq) FROM track_points WHERE activity_id = a.id)
            JOIN track_points l ON l.activity_id = a.id
                AND l.seq = (SELECT MAX(seq) FROM track_points WHERE activity_id = a.id)
            WHERE a.state != 'recording' OR a.id = ?
            ORDER BY a.id
            """, arguments: [id])
        return rows.flatMap { row in
            [GeoPoint(latitude: row[0], longitude: row[1]), GeoPoint(latitude: row[2], longitude: row[3])]
        }
    }

    /// The device's share secret (migration v6 makes it); refused when it is not there.
    static func shareSecret(_ db: Database) throws -> ShareSecret {
        guard let text = try String.fetchOne(db, sql: "SELECT value FROM device_state WHERE key = 'share_secret'"),
              let secret = ShareSecret(hex: text) else {
            throw StorageError.database("the device's share secret is missing or damaged (device_state.share_secret): "
                                        + "nothing is shared without it")
        }
        return secret
    }

    /// The circles a share of activity `id` with `options` hides, for checks.
    public func privacyCircles(activity id: Int64, options: GPXExportOptions) throws -> [PrivacyCircle] {
        try read { db in try Self.privacyMask(activity: id, options: options, db)?.circles ?? [] }
    }

    /// The circles a share of activity `id` with `choice` hides (`PrivacyCircle`), for checks.
    public func privacyCircles(activity id: Int64, choice: ShareChoice, secret: ShareSecret? = nil) throws -> [PrivacyCircle] {
        var options = choice.options
        options.secret = secret
        return try privacyCircles(activity: id, options: options)
    }

    /// The device's share secret.
    public func shareSecret() throws -> ShareSecret {
        try read { db in try Self.shareSecret(db) }
    }

    /// Streams a stored activity from the database to GPX: its points are read with a cursor
    /// and written as they come, so neither the points nor the text are ever in memory whole
    /// (an export of a 24-hour track holds what a short run's does). The same document
    /// `writeGPX(_:name:time:options:to:)` writes from `ActivityDetail`s.
    ///
    /// What `options` leaves out is never written: no `<time>` anywhere without times, no
    /// speed (nor the speed extension's namespace) without speeds, no `<ele>` without
    /// elevations, no `<wpt>` without waypoints, no `<trk>` without the track, no name without
    /// the name. A point or a waypoint inside a hidden place (`PrivacyMask`) is not written,
    /// and the track goes on in a new `<trkseg>` after it: no line is drawn across the place.
    /// With places hidden, the metadata's time is that of the first point shown, not the
    /// start (which would tell when the runner left the place).
    static func writeGPX(activity id: Int64, options: GPXExportOptions, _ db: Database,
                         to write: ([UInt8]) throws -> Void) throws -> GPXExportReport {
        let row = try Row.fetchOne(
            db, sql: "SELECT name, started_at, source, COALESCE(distance_m, live_distance_m) FROM activities WHERE id = ?",
            arguments: [id])
        let name: String? = options.name ? row?["name"] : nil
        var startedAt = (row?["started_at"] as Int64?).map(UTCTimestamp.init(millisecondsSince1970:))
        if startedAt == nil {
            startedAt = try Int64.fetchOne(
                db, sql: "SELECT time FROM track_points WHERE activity_id = ? ORDER BY seq LIMIT 1", arguments: [id]
            ).map(UTCTimestamp.init(millisecondsSince1970:))
        }
        let mask = try privacyMask(activity: id, options: options, db)
        if let mask, options.times {
            // The start would tell when the runner left the hidden place: the file starts
            // with its first point shown.
            startedAt = nil
            let points = try Row.fetchCursor(
                db, sql: "SELECT time, lat, lon FROM track_points WHERE activity_id = ? ORDER BY seq", arguments: [id])
            while let p = try points.next() {
                guard mask.place(of: GeoPoint(latitude: p[1], longitude: p[2])) == nil else { continue }
                startedAt = UTCTimestamp(millisecondsSince1970: p[0])
                break
            }
        }
        var report = GPXExportReport(zones: options.privacyZones)
        // Heart rates only when a point has one: a run without a strap is written as before.
        report.heartRatesStored = try options.track && (Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM track_points WHERE activity_id = ? AND heart_rate > 0)",
            arguments: [id]) ?? false)
        let heartRates = options.heartRates && report.heartRatesStored
        var writer = GPXWriter(name: name, time: options.times ? startedAt : nil, speeds: options.speeds && options.track,
                               heartRates: heartRates)
        if options.waypoints {
            let waypoints = try Row.fetchCursor(
                db, sql: "SELECT name, time, lat, lon, alt, at_last_known FROM waypoints WHERE activity_id = ? ORDER BY seq",
                arguments: [id])
            while let w = try waypoints.next() {
                let position = GeoPoint(latitude: w[2], longitude: w[3])
                report.storedWaypoints += 1
                if let place = mask?.place(of: position) {
                    report.hiddenWaypoints[place] += 1
                    continue
                }
                report.writtenWaypoints += 1
                let atLastKnown: Bool = w[5]
                writer.waypoint(position, altitude: options.elevations ? w[4] : nil,
                                time: options.times ? UTCTimestamp(millisecondsSince1970: w[1]) : nil, name: w[0],
                                type: atLastKnown ? lastKnownPositionType : nil)
            }
        }
        if options.track {
            // The device's distance, for an activity recorded here (an import's is its points'),
            // in an export (a share holds only what was chosen), with no place hidden.
            let recorded = row.map { ($0[2] as String?) == nil } ?? false
            let distance: Double? = recorded && options.distance && mask == nil ? row?[3] : nil
            writer.beginTrack(name: name, type: "running", distance: distance)
            let points = try Row.fetchCursor(
                db, sql: """
                    SELECT segment, time, lat, lon, alt, speed, heart_rate FROM track_points
                    WHERE activity_id = ? ORDER BY seq
                    """,
                arguments: [id])
            var segment: Int?
            var cut = false
            var previous: GeoPoint?
            while let p = try points.next() {
                let position = GeoPoint(latitude: p[2], longitude: p[3])
                report.storedPoints += 1
                if let place = mask?.place(of: position) {
                    report.hiddenPoints[place] += 1
                    cut = true
                    continue
                }
                // No line across a hidden place, even between two points outside it.
                if let previous, let mask, mask.crosses(from: previous, to: position) { cut = true }
                previous = position
                let number: Int = p[0]
                if number != segment || cut {
                    writer.beginSegment()
                    report.segments += 1
                    segment = number
                    cut = false
                }
                report.writtenPoints += 1
                writer.trackPoint(position, altitude: options.elevations ? p[4] : nil,
                                  time: options.times ? UTCTimestamp(millisecondsSince1970: p[1]) : nil,
                                  speed: options.speeds ? p[5] : nil, heartRate: p[6])
                if writer.bytes.count >= 1 << 16 { try write(writer.takeBytes()) }
            }
        }
        try write(writer.finish())
        return report
    }

    /// Writes the route as GPX 1.1 (`<wpt>`s and one `<rte>`) to `path`, its points read with
    /// a cursor and written as they come.
    public func exportGPX(route id: Int64, to path: String, options: GPXExportOptions = .all) throws {
        try read { db in
            let name = try Self.routeName(id, db)
            try Self.writeAtomically(path) { write in
                try Self.writeGPX(route: id, name: name, options: options, db, to: write)
            }
        }
    }

    /// Writes the route as GPX 1.1 to `write`, 64 KiB at a time (`routes export ID --gpx -`).
    public func exportGPX(route id: Int64, options: GPXExportOptions = .all, to write: ([UInt8]) throws -> Void) throws {
        try read { db in
            try Self.writeGPX(route: id, name: try Self.routeName(id, db), options: options, db, to: write)
        }
    }

    static func routeName(_ id: Int64, _ db: Database) throws -> String {
        guard let name = try String.fetchOne(db, sql: "SELECT name FROM routes WHERE id = ?", arguments: [id]) else {
            throw StorageError.unknownRoute(id)
        }
        return name
    }

    static func writeGPX(route id: Int64, name: String, options: GPXExportOptions, _ db: Database,
                         to write: ([UInt8]) throws -> Void) throws {
        var writer = GPXWriter(name: name)
        if options.waypoints {
            let waypoints = try Row.fetchCursor(
                db, sql: """
                    SELECT name, description, lat, lon, alt, time FROM route_waypoints WHERE route_id = ? ORDER BY seq
                    """, arguments: [id])
            while let w = try waypoints.next() {
                writer.waypoint(GeoPoint(latitude: w[2], longitude: w[3]), altitude: options.elevations ? w[4] : nil,
                                time: options.times ? (w[5] as Int64?).map(UTCTimestamp.init(millisecondsSince1970:)) : nil,
                                name: w[0], description: w[1])
            }
        }
        writer.beginRoute(name: name)
        let points = try Row.fetchCursor(
            db, sql: "SELECT lat, lon, alt, time FROM route_points WHERE route_id = ? ORDER BY seq", arguments: [id])
        while let p = try points.next() {
            writer.routePoint(GeoPoint(latitude: p[0], longitude: p[1]), altitude: options.elevations ? p[2] : nil,
                              time: options.times ? (p[3] as Int64?).map(UTCTimestamp.init(millisecondsSince1970:)) : nil)
            if writer.bytes.count >= 1 << 16 { try write(writer.takeBytes()) }
        }
        try write(writer.finish())
    }

    /// Several activities in one document (a scenario's run, a power cut and the run after
    /// it): every activity's waypoints first, as the schema orders them, then one track per
    /// activity with a segment per recorded segment.
    public static func writeGPX(_ details: [ActivityDetail], name: String?, time: UTCTimestamp?,
                                options: GPXExportOptions = .all, to write: ([UInt8]) throws -> Void) throws {
        var writer = GPXWriter(name: name, time: options.times ? time : nil, heartRates: options.heartRates)
        if options.waypoints {
            for w in details.flatMap(\.waypoints) {
                writer.waypoint(w.position, altitude: options.elevations ? w.altitude : nil,
                                time: options.times ? w.time : nil, name: w.name,
                                type: w.atLastKnownPosition ? lastKnownPositionType : nil)
            }
        }
        for detail in details {
            writer.beginTrack(name: detail.summary.name, type: "running",
                              distance: detail.summary.source == nil && options.distance ? detail.summary.distance : nil)
            for segment in detail.segments {
                writer.beginSegment()
                for p in segment {
                    writer.trackPoint(p.position, altitude: options.elevations ? p.altitude : nil,
                                      time: options.times ? p.time : nil, speed: options.speeds ? p.speed : nil,
                                      heartRate: p.heartRate)
                    if writer.bytes.count >= 1 << 16 { try write(writer.takeBytes()) }
                }
            }
        }
        try write(writer.finish())
    }

    /// Writes `path` through `OutputFile` (checked to the last byte; a regular file replaced
    /// only once complete; a device or FIFO written in place, never replaced).
    static func writeAtomically(_ path: String, _ body: (([UInt8]) throws -> Void) throws -> Void) throws {
        try PacerDatabase.passingPacersOwn({ try OutputFile.write(path, body) }) {
            StorageError.writeFailed(path: path, reason: PacerDatabase.reason($0))
        }
    }
}
