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

    public init(times: Bool = true, speeds: Bool = true, elevations: Bool = true, waypoints: Bool = true) {
        self.times = times
        self.speeds = speeds
        self.elevations = elevations
        self.waypoints = waypoints
    }

    public static let all = GPXExportOptions()
}

/// What a GPX file becomes when imported.
public enum GPXImportKind: String, Hashable, Sendable, CaseIterable {
    /// A route to follow (R19): its line, waypoints, distance and elevation.
    case route
    /// A past activity (completed), from the file's track and its times.
    case activity
}

/// What an import stored.
public struct GPXImportResult: Hashable, Sendable {
    public var kind: GPXImportKind
    public var id: Int64
    public var name: String
    public var pointCount: Int
    public var waypointCount: Int
    /// Metres.
    public var distance: Double
}

extension ActivityStore {
    /// `<type>` of a waypoint taken at the last known position (no fix at the press).
    static let lastKnownPositionType = "last-known-position"

    // MARK: - Export

    /// The activity as a GPX 1.1 document: metadata (name, start time), waypoints, and one
    /// track with a segment per recorded segment.
    public func gpx(activity id: Int64, options: GPXExportOptions = .all) throws -> [UInt8] {
        var out: [UInt8] = []
        try Self.writeGPX(try activity(id), options: options) { out.append(contentsOf: $0) }
        return out
    }

    /// Writes the activity as GPX 1.1 to `path`, through a temporary file renamed into place:
    /// the file is never seen half-written.
    public func exportGPX(activity id: Int64, to path: String, options: GPXExportOptions = .all) throws {
        let detail = try activity(id)
        try Self.writeAtomically(path) { write in try Self.writeGPX(detail, options: options, to: write) }
    }

    /// Writes the route as GPX 1.1 (`<wpt>`s and one `<rte>`) to `path`.
    public func exportGPX(route id: Int64, to path: String, options: GPXExportOptions = .all) throws {
        let detail = try route(id)
        try Self.writeAtomically(path) { write in
            var writer = GPXWriter(name: detail.summary.name)
            if options.waypoints {
                for w in detail.waypoints {
                    writer.waypoint(w.position, altitude: options.elevations ? w.altitude : nil,
                                    time: options.times ? w.time : nil, name: w.name, description: w.description)
                }
            }
            writer.beginRoute(name: detail.summary.name)
            for p in detail.points {
                writer.routePoint(p.position, altitude: options.elevations ? p.altitude : nil,
                                  time: options.times ? p.time : nil)
                if writer.bytes.count >= 1 << 16 { try write(writer.takeBytes()) }
            }
            try write(writer.finish())
        }
    }

    static func writeGPX(_ detail: ActivityDetail, options: GPXExportOptions,
                         to write: ([UInt8]) throws -> Void) throws {
        try writeGPX([detail], name: detail.summary.name, time: detail.summary.startedAt, options: options, to: write)
    }

    /// Several activities in one document (a scenario's run, a power cut and the run after
    /// it): every activity's waypoints first, as the schema orders them, then one track per
    /// activity with a segment per recorded segment.
    public static func writeGPX(_ details: [ActivityDetail], name: String?, time: UTCTimestamp?,
                                options: GPXExportOptions = .all, to write: ([UInt8]) throws -> Void) throws {
        var writer = GPXWriter(name: name, time: options.times ? time : nil)
        if options.waypoints {
            for w in details.flatMap(\.waypoints) {
                writer.waypoint(w.position, altitude: options.elevations ? w.altitude : nil,
                                time: options.times ? w.time : nil, name: w.name,
                                type: w.atLastKnownPosition ? lastKnownPositionType : nil)
            }
        }
        for detail in details {
            writer.beginTrack(name: detail.summary.name, type: "running")
            for segment in detail.segments {
                writer.beginSegment()
                for p in segment {
                    writer.trackPoint(p.position, altitude: options.elevations ? p.altitude : nil,
                                      time: options.times ? p.time : nil, speed: options.speeds ? p.speed : nil)
                    if writer.bytes.count >= 1 << 16 { try write(writer.takeBytes()) }
                }
            }
        }
        try write(writer.finish())
    }

    /// Writes through a temporary file renamed into place; a path that is not a regular file
    /// (a device, a FIFO, a link: `/dev/stdout`) is written through, never replaced.
    static func writeAtomically(_ path: String, _ body: (([UInt8]) throws -> Void) throws -> Void) throws {
        var info = stat()
        if lstat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            guard let handle = FileHandle(forWritingAtPath: path) else {
                throw StorageError.file(path: path, reason: "cannot open it for writing: \(String(cString: strerror(errno)))")
            }
            defer { try? handle.close() }
            do {
                try body { bytes in try handle.write(contentsOf: Data(bytes)) }
            } catch {
                if let error = error as? StorageError { throw error }
                throw StorageError.file(path: path, reason: "cannot write: \(reason(error))")
            }
            return
        }
        let directory = (path as NSString).deletingLastPathComponent
        let temporary = (directory.isEmpty ? "." : directory) + "/.\((path as NSString).lastPathComponent).\(getpid()).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: nil),
              let handle = FileHandle(forWritingAtPath: temporary)
        else {
            throw StorageError.file(path: path, reason: "cannot create the file (does the folder exist? permission?)")
        }
        do {
            try body { bytes in try handle.write(contentsOf: Data(bytes)) }
            try handle.close()
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(atPath: temporary)
            if let error = error as? StorageError { throw error }
            throw StorageError.file(path: path, reason: "cannot write: \(reason(error))")
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: temporary)
            throw StorageError.file(path: path, reason: "cannot write: \(reason)")
        }
    }

    // MARK: - Import

    /// Imports a GPX file as a route or as a past activity. A file that is not GPX, or is
    /// broken anywhere, is refused with the line and the reason (`GPXError`) and nothing is
    /// stored: the whole file is read and checked before one transaction writes it.
    public func importGPX(file path: String, as kind: GPXImportKind, name: String? = nil) throws -> GPXImportResult {
        let document = try GPXReader.read(path: path)
        return try importGPX(document, file: path, as: kind, name: name)
    }

    public func importGPX(_ document: GPXDocument, file: String, as kind: GPXImportKind,
                          name: String? = nil) throws -> GPXImportResult {
        let fallback = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
        switch kind {
        case .route:
            let (points, title) = try Self.routePoints(document, file: file)
            let routeName = name ?? document.name ?? title ?? fallback
            return try storeRoute(document, points: points, name: routeName, file: file)
        case .activity:
            let segments = try Self.activitySegments(document, file: file)
            let activityName = name ?? document.name ?? document.tracks.first(where: { $0.name != nil })?.name ?? fallback
            return try storeActivity(document, segments: segments, name: activityName, file: file)
        }
    }

    /// A route's points: its `<rte>`s' points when it has any, else its tracks' points as one line.
    static func routePoints(_ document: GPXDocument, file: String) throws(GPXError) -> ([GPXPoint], String?) {
        if document.routePointCount > 0 {
            return (document.routes.flatMap(\.points), document.routes.first(where: { $0.name != nil })?.name)
        }
        if document.trackPointCount > 0 {
            return (document.tracks.flatMap { $0.segments.flatMap { $0 } },
                    document.tracks.first(where: { $0.name != nil })?.name)
        }
        throw GPXError(file: file, line: document.line, reason: "no route (<rte>) or track (<trk>) points to import")
    }

    /// An activity's segments: every non-empty track segment, each point with a time, times
    /// never going backwards within a segment.
    static func activitySegments(_ document: GPXDocument, file: String) throws(GPXError) -> [[GPXPoint]] {
        let segments = document.tracks.flatMap(\.segments).filter { !$0.isEmpty }
        guard !segments.isEmpty else {
            let reason = document.routePointCount > 0
                ? "no track (<trk>) points: the file holds a route; import it as a route"
                : "no track (<trk>) points to import as an activity"
            throw GPXError(file: file, line: document.line, reason: reason)
        }
        for segment in segments {
            var previous: UTCTimestamp?
            for point in segment {
                guard let time = point.time else {
                    throw GPXError(file: file, line: point.line,
                                   reason: "<trkpt> without <time>: an activity needs a time at every point (import the file as a route)")
                }
                if let previous, time < previous {
                    throw GPXError(file: file, line: point.line,
                                   reason: "<trkpt> time \(time) is before the previous point's \(previous)")
                }
                previous = time
            }
        }
        return segments
    }

    func storeRoute(_ document: GPXDocument, points: [GPXPoint], name: String, file: String) throws -> GPXImportResult {
        let stats = PathStatistics(segments: [points.map { PathPoint(position: $0.position, altitude: $0.altitude, time: $0.time) }])
        var duration: Int64?
        if let first = points.first?.time, let last = points.last?.time, last >= first {
            duration = last.millisecondsSince1970 - first.millisecondsSince1970
        }
        let id = try write { db in
            try db.execute(
                sql: """
                    INSERT INTO routes (name, source, distance_m, duration_ms, elevation_gain, elevation_loss,
                                        min_elevation, max_elevation, point_count, waypoint_count, start_lat, start_lon)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [name, file, stats.distance, duration, stats.elevationGain, stats.elevationLoss,
                            stats.minimumElevation, stats.maximumElevation, points.count, document.waypoints.count,
                            stats.start?.latitude, stats.start?.longitude])
            let id = db.lastInsertedRowID
            let point = try db.cachedStatement(
                sql: "INSERT INTO route_points (route_id, seq, lat, lon, alt, time) VALUES (?, ?, ?, ?, ?, ?)")
            for (seq, p) in points.enumerated() {
                try point.execute(arguments: [id, seq, p.position.latitude, p.position.longitude, p.altitude,
                                              p.time?.millisecondsSince1970])
            }
            let waypoint = try db.cachedStatement(sql: """
                INSERT INTO route_waypoints (route_id, seq, name, description, lat, lon, alt, time)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for (seq, w) in document.waypoints.enumerated() {
                try waypoint.execute(arguments: [id, seq, w.name, w.description, w.position.latitude,
                                                 w.position.longitude, w.altitude, w.time?.millisecondsSince1970])
            }
            return id
        }
        return GPXImportResult(kind: .route, id: id, name: name, pointCount: points.count,
                               waypointCount: document.waypoints.count, distance: stats.distance)
    }

    func storeActivity(_ document: GPXDocument, segments: [[GPXPoint]], name: String,
                       file: String) throws -> GPXImportResult {
        var points: [TrackPoint] = []
        for (index, segment) in segments.enumerated() {
            for p in segment {
                // activitySegments checked that every point has a time.
                points.append(TrackPoint(segment: index, time: p.time ?? UTCTimestamp(millisecondsSince1970: 0),
                                         position: p.position, altitude: p.altitude, speed: p.speed))
            }
        }
        let waypoints = document.waypoints.enumerated().map { index, w in
            Waypoint(name: w.name ?? "Waypoint \(index + 1)", time: w.time ?? Self.nearestTime(w.position, points),
                     position: w.position, altitude: w.altitude,
                     atLastKnownPosition: w.type == Self.lastKnownPositionType)
        }
        var batch = Pending()
        let stats = ActivityStatistics(points: points)
        let id = try write { db in
            try db.execute(
                sql: "INSERT INTO activities (name, profile, started_at, state, source) VALUES (?, NULL, ?, 'completed', ?)",
                arguments: [name, points.first?.time.millisecondsSince1970, file])
            let id = db.lastInsertedRowID
            batch.points = points.enumerated().map { (id, $0, $1) }
            batch.waypoints = waypoints.enumerated().map { (id, $0, $1) }
            try Self.insert(batch, db)
            try Self.close(id, state: .completed, endedAt: nil, activeTime: nil, db)
            return id
        }
        return GPXImportResult(kind: .activity, id: id, name: name, pointCount: points.count,
                               waypointCount: waypoints.count, distance: stats.distance)
    }

    /// The time of the track point nearest to a waypoint that has none.
    static func nearestTime(_ position: GeoPoint, _ points: [TrackPoint]) -> UTCTimestamp {
        var best = points.first?.time ?? UTCTimestamp(millisecondsSince1970: 0)
        var bestDistance = Double.infinity
        for p in points {
            let d = Geodesy.distance(position, p.position)
            if d < bestDistance {
                bestDistance = d
                best = p.time
            }
        }
        return best
    }
}
