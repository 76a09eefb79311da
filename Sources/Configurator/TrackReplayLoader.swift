import Coaching
import Foundation
import PacerCore
import Simulation
import Storage

/// A past run as a replayable recording (`TrackTimeline`): a GPX, TCX or FIT file, or an
/// activity in the store. What `file:RUN.gpx` sources, scenarios' `recording: run.fit`,
/// `pacer nmea synth --track` and `pacer replay` read.
public enum TrackReplayLoader {
    /// The track formats a replay reads, told by a file's first bytes.
    public enum Format: String, Hashable, Sendable {
        case gpx = "GPX"
        case tcx = "TCX"
        case fit = "FIT"
    }

    /// The stored run `text` names (`12`, `activity:12`), when it names one rather than a
    /// file (a file called `12` is the file).
    public static func activityNumber(_ text: String) -> Int64? {
        let id = text.hasPrefix("activity:") ? String(text.dropFirst("activity:".count)) : text
        guard let n = Int64(id), n > 0, !FileManager.default.fileExists(atPath: text) else { return nil }
        return n
    }

    /// The format of the file at `path` by its first bytes; nil when it is none of them (an
    /// NMEA recording, or a file that cannot be read: its reader says why).
    public static func format(of path: String) -> Format? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 1024)) ?? Data())
        if FITReader.startsWithHeader(head) { return .fit }
        let text = String(decoding: head.drop { [0xEF, 0xBB, 0xBF, 0x20, 0x09, 0x0A, 0x0D].contains($0) }, as: UTF8.self)
        guard text.hasPrefix("<") else { return nil }
        if text.contains("<gpx") { return .gpx }
        if text.contains("TrainingCenterDatabase") { return .tcx }
        return nil
    }

    /// Reads the run in the GPX, TCX or FIT file at `path`: every timed track point, in
    /// segments where the file breaks its track (a GPX `trkseg`, a TCX `Track`, a FIT timer
    /// stop). A file that is none of them, broken, or holds no timed track is refused naming
    /// the file, the place and the reason.
    public static func load(path: String) throws(ConfigurationError) -> TrackTimeline {
        guard let format = format(of: path) else {
            throw ConfigurationError("\(path): not a GPX, TCX or FIT file")
        }
        var timeline = TrackTimeline(source: (path as NSString).lastPathComponent)
        do {
            switch format {
            case .gpx: try readGPX(path, into: &timeline)
            case .fit: try readFIT(path, into: &timeline)
            case .tcx: try readTCX(path, into: &timeline)
            }
            timeline.forgetSegmentEndDistances()
            try timeline.finish()
        } catch let error as TrackTimelineError {
            throw refusal("\(path): \(error.reason)", path)
        } catch let error as GPXError {
            throw refusal(error.description, path)
        } catch let error as FITError {
            throw refusal(error.description, path)
        } catch let error as TCXError {
            throw refusal(error.description, path)
        } catch {
            throw refusal("\(path): \(error)", path)
        }
        return timeline
    }

    /// A file that holds no run to replay: a data error (65) naming it.
    static func refusal(_ message: String, _ path: String) -> ConfigurationError {
        let prefix = "\(path): "
        let reason = message.hasPrefix(prefix) ? String(message.dropFirst(prefix.count)) : message
        return ConfigurationError(message, cause: DataFileError(file: path, reason: reason))
    }

    private static func readGPX(_ path: String, into timeline: inout TrackTimeline) throws {
        var place: GPXPlace?
        var timeline2 = timeline
        var untimed = 0
        let document = try GPXReader.read(path: path) { point, where_ in
            guard case .track = where_ else { return }  // a route's points are not a run
            if where_ != place {
                timeline2.breakSegment()
                place = where_
            }
            guard let time = point.time else {
                untimed += 1
                return
            }
            try timeline2.append(
                TrackSample(time: time, position: point.position, altitude: point.altitude, speed: point.speed,
                            heartRate: point.heartRate, rrIntervals: point.rrIntervals),
                place: "line \(point.line)")
        }
        timeline = timeline2
        timeline.name = document.tracks.first?.name ?? document.name
        if timeline.sampleCount == 0, untimed > 0 {
            throw TrackTimelineError(source: path, reason: "its track points have no times: a route to follow (--route), not a run to replay")
        }
    }

    private static func readFIT(_ path: String, into timeline: inout TrackTimeline) throws {
        var timeline2 = timeline
        _ = try FITReader.read(path: path) { point in
            if point.afterStop { timeline2.breakSegment() }
            try timeline2.append(
                TrackSample(time: point.time, position: point.position, altitude: point.altitude, speed: point.speed,
                            distance: point.distance, heartRate: point.heartRate, rrIntervals: point.rrIntervals),
                place: "record \(point.record)")
        }
        timeline = timeline2
    }

    private static func readTCX(_ path: String, into timeline: inout TrackTimeline) throws {
        var timeline2 = timeline
        let document = try TCXReader.read(path: path) { point in
            if point.startsTrack { timeline2.breakSegment() }
            try timeline2.append(
                TrackSample(time: point.time, position: point.position, altitude: point.altitude, speed: point.speed,
                            distance: point.distance, heartRate: point.heartRate),
                place: "line \(point.line)")
        }
        timeline = timeline2
        timeline.name = document.name
    }

    /// Activity `id` of `store` as it was recorded: its points in their segments, each with
    /// the odometer's distance and the receiver's speed, from the activity's start (the
    /// receiver's search before its first fix included).
    public static func load(activity id: Int64, store: PacerStore) throws(ConfigurationError) -> TrackTimeline {
        let detail: ActivityDetail
        do {
            detail = try store.activities.activity(id)
        } catch {
            throw ConfigurationError("activity \(id): \(error)", cause: error)
        }
        var timeline = TrackTimeline(source: "activity \(id)", name: detail.summary.name)
        timeline.start = detail.summary.startedAt
        do {
            var segment: Int?
            var previous: TrackPoint?
            for (i, p) in detail.points.enumerated() {
                if p.segment != segment {
                    timeline.breakSegment()
                    segment = p.segment
                    previous = nil
                }
                // A point stored at a pause or the end carries the odometer as it stood then,
                // a second or so after its fix (its timer ran on further than its time): that
                // distance is not the fix's, and the leg to it is judged by its speeds.
                var distance = p.distance
                if let previous, let t0 = previous.timer, let t1 = p.timer,
                   (t1 - t0) - .milliseconds(p.time.millisecondsSince1970 - previous.time.millisecondsSince1970) > .milliseconds(500) {
                    distance = nil
                }
                var sample = TrackSample(time: p.time, position: p.position, altitude: p.altitude, speed: p.speed,
                                         distance: distance, heartRate: p.heartRate, rrIntervals: p.rrIntervals)
                sample.readings = p.readings
                try timeline.append(sample, place: "point \(i + 1)")
                previous = p
            }
            try timeline.finish()
        } catch {
            throw ConfigurationError(error.description, cause: error)
        }
        return timeline
    }
}
