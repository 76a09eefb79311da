import GRDB
import PacerCore

// TCX out of the store: an activity exported or shared as Garmin's Training Center
// Database v2, with its laps (`ActivityLaps`), for Strava, Garmin Connect, intervals.icu and
// Runalyze, which read its laps, timer and odometer distance.

/// The file a share writes. A lap-based format takes its laps from `GPXExchange.sharedLaps`
/// (the privacy rules applied there, once) and only writes them.
public enum ShareFormat: String, CaseIterable, Hashable, Sendable {
    /// GPX 1.1: positions, and times, speeds, elevations, waypoints and a name as chosen.
    case gpx
    /// TCX: laps as well; every point needs its time (the schema requires one).
    case tcx
    /// FIT: laps as well, as Garmin Connect and Strava read a watch's; every record needs its time.
    case fit

    /// How the format is named in messages: `TCX`, `FIT`.
    public var label: String { rawValue.uppercased() }

    /// The file's media type, for a download.
    public var mediaType: String {
        switch self {
        case .gpx: "application/gpx+xml"
        case .tcx: "application/vnd.garmin.tcx+xml"
        case .fit: "application/vnd.ant.fit"
        }
    }
}

/// Why a lap-based file (TCX, FIT) is not written.
public enum LapFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Times left out: TCX requires a time at every point, and a FIT record without one is
    /// read by no one.
    case needsTimes(share: Bool, format: ShareFormat)
    /// Waypoints chosen for a share: neither format has a place for them in an activity.
    case noWaypoints(format: ShareFormat)
    /// Only waypoints chosen for a share: these formats are a track.
    case needsTrack(format: ShareFormat)

    public var description: String {
        switch self {
        case .needsTimes(let share, let format):
            share ? "a \(format.label) share needs times: \(format.label) requires each point's time; include times "
                + "(--include track,times) or share as GPX (--out FILE)"
                : "\(format.label) needs times: \(format.label) requires each point's time; leave out --no-times, "
                + "or export as GPX (--gpx FILE)"
        case .noWaypoints(let format):
            "\(format.label) has no place for waypoints: leave waypoints out of --include, or share as GPX (--out FILE)"
        case .needsTrack(let format):
            "a \(format.label) share is a track: include track (and times), or share waypoints as GPX (--out FILE)"
        }
    }
}

extension ShareChoice {
    /// What a lap-based share (TCX, FIT) cannot carry, refused before anything is read.
    public func checkLapShare(_ format: ShareFormat) throws(LapFileError) {
        guard items.contains(.track) else { throw .needsTrack(format: format) }
        guard items.contains(.times) else { throw .needsTimes(share: true, format: format) }
        guard !items.contains(.waypoints) else { throw .noWaypoints(format: format) }
    }
}

/// TCX out of the store: an activity exported as a TCX document, from its laps as the
/// exports have them (`GPXExchange.laps`).
public final class TCXExchange: DatabasePart {
    let database: PacerDatabase

    init(database: PacerDatabase) {
        self.database = database
    }

    /// The activity as a TCX document (`writeTCX`).
    public func tcx(activity id: Int64, options: GPXExportOptions = .all, version: String) throws -> [UInt8] {
        var out: [UInt8] = []
        try exportTCX(activity: id, options: options, version: version) { out.append(contentsOf: $0) }
        return out
    }

    /// Writes the activity as TCX to `path` through `OutputFile` (never seen half-written).
    /// `version`: Pacer's, for the file's creator.
    @discardableResult
    public func exportTCX(activity id: Int64, to path: String, options: GPXExportOptions = .all,
                          version: String) throws -> GPXExportReport {
        guard options.times else { throw LapFileError.needsTimes(share: false, format: .tcx) }
        return try read { db in
            try GPXExchange.activityExists(id, db)
            let export = try GPXExchange.laps(activity: id, options: options, db)
            try GPXExchange.writeAtomically(path) { write in try Self.writeTCX(export, version: version, to: write) }
            return export.report
        }
    }

    /// Writes the activity as TCX to `write`, 64 KiB at a time.
    @discardableResult
    public func exportTCX(activity id: Int64, options: GPXExportOptions = .all, version: String,
                          to write: ([UInt8]) throws -> Void) throws -> GPXExportReport {
        guard options.times else { throw LapFileError.needsTimes(share: false, format: .tcx) }
        return try read { db in
            try GPXExchange.activityExists(id, db)
            let export = try GPXExchange.laps(activity: id, options: options, db)
            try Self.writeTCX(export, version: version, to: write)
            return export.report
        }
    }

    /// An activity's laps as TCX: a `<Lap>` per lap, a `<Track>` per track in it. Speeds
    /// are written (with the extension's namespace) when any point carries one.
    public static func writeTCX(_ export: LapExport, version: String, to write: ([UInt8]) throws -> Void) throws {
        let speeds = export.laps.contains { $0.tracks.contains { $0.contains { $0.speed != nil } } }
        var writer = TCXWriter(id: export.start, speeds: speeds)
        for lap in export.laps {
            writer.beginLap(start: lap.start, totalTime: lap.totalTime, distance: lap.distance,
                            maximumSpeed: lap.maximumSpeed, resting: lap.resting, trigger: lap.trigger, notes: lap.notes,
                            heartRate: HeartRateRecords.averageAndMaximum(lap.tracks.joined().lazy.map(\.heartRate)))
            for track in lap.tracks where !track.isEmpty {
                writer.beginTrack()
                for p in track {
                    writer.trackpoint(time: p.time, position: p.position, altitude: p.altitude, distance: p.distance,
                                      speed: p.speed, heartRate: p.heartRate)
                    if writer.bytes.count >= 1 << 16 { try write(writer.takeBytes()) }
                }
            }
        }
        try write(writer.finish(notes: export.name, version: version))
    }
}
