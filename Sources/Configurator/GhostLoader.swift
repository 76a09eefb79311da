import Coaching
import Foundation
import PacerCore
import Simulation
import Storage

/// The ghost a run races (`--ghost`, a scenario's `ghost:`), from what the runner names:
/// - `activity:12` (or `12`): a stored run of the data folder, on its timer and odometer;
/// - a GPX, TCX or FIT file: its run, on the time since its first point and its odometer (or
///   the length along its points);
/// - a target: `10km@50:00`, `5000m@22:30`, `13.1mi@1:45:00`, even, or with a negative split
///   (`10km@50:00,negative=2%`: the second half 2 % faster than the first).
public enum GhostLoader {
    public static let help = "activity:N (a stored run), a GPX, TCX or FIT file, or a target DISTANCE@TIME[,negative=P%] (10km@50:00, 5000m@22:30,negative=2%)"

    /// `store`: the data folder's store when the caller has it open (a run records into it),
    /// else `dataDirectory`'s is opened for reading.
    public static func load(_ spec: String, dataDirectory: String?, store: PacerStore? = nil) throws(ConfigurationError) -> Ghost {
        let text = spec.trimmingCharacters(in: .whitespaces)
        if text.contains("@") { return try target(text) }
        if let n = TrackReplayLoader.activityNumber(text) {
            return try activity(n, dataDirectory: dataDirectory, store: store, spec: spec)
        }
        guard TrackReplayLoader.format(of: text) != nil else {
            throw ConfigurationError("ghost '\(spec)': not a stored run, a GPX, TCX or FIT file, or a target (\(help))")
        }
        let timeline = try TrackReplayLoader.load(path: text)
        guard let first = timeline.first?.time.millisecondsSince1970 else {
            throw ConfigurationError("ghost '\(spec)': no timed points")
        }
        var marks: [Ghost.Mark] = []
        var along = 0.0
        for segment in timeline.segments {
            for (i, s) in segment.enumerated() {
                if i > 0 { along += TrackTimeline.legLength(segment[i - 1], s) }
                marks.append(Ghost.Mark(seconds: Double(s.time.millisecondsSince1970 - first) / 1000, metres: s.distance ?? along))
            }
        }
        guard let ghost = Ghost(name: timeline.source, marks: marks) else {
            throw ConfigurationError("ghost '\(spec)': the run does not move")
        }
        return ghost
    }

    /// A stored run on its timer and odometer.
    static func activity(_ id: Int64, dataDirectory: String?, store open: PacerStore?, spec: String) throws(ConfigurationError) -> Ghost {
        do {
            let store: PacerStore
            if let open {
                store = open
            } else {
                guard let dataDirectory else { throw ConfigurationError("ghost '\(spec)': no data folder to read the activity from") }
                store = try Configurator.openActivityStore(directory: dataDirectory, access: .read)
            }
            defer { if open == nil { try? store.database.close() } }
            let detail = try store.activities.activity(id)
            let marks = detail.points.compactMap { p -> Ghost.Mark? in
                guard let timer = p.timer, let metres = p.distance else { return nil }
                return Ghost.Mark(seconds: timer.inSeconds, metres: metres)
            }
            guard let ghost = Ghost(name: "activity \(id)", marks: marks) else {
                throw ConfigurationError("ghost '\(spec)': activity \(id) has no timer and odometer on its points (an import, or a run too short)")
            }
            return ghost
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError("ghost '\(spec)': \(error)", cause: error)
        }
    }

    /// `DISTANCE@TIME[,negative=P%]`.
    static func target(_ spec: String) throws(ConfigurationError) -> Ghost {
        let parts = spec.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        let race = parts[0].split(separator: "@", omittingEmptySubsequences: false)
        func fail(_ reason: String) -> ConfigurationError {
            ConfigurationError("ghost '\(spec)': \(reason) (a target is DISTANCE@TIME[,negative=P%]: 10km@50:00)")
        }
        guard race.count == 2 else { throw fail("one @ between the distance and the time") }
        guard let metres = distance(String(race[0])) else {
            throw fail("'\(race[0])' is not a distance (10km, 5000m, 13.1mi)")
        }
        guard (100...1_000_000).contains(metres) else { throw fail("the distance must be 100 m to 1000 km") }
        guard let seconds = time(String(race[1])), seconds > 0 else {
            throw fail("'\(race[1])' is not a time (50:00, 1:45:00)")
        }
        let speed = metres / seconds
        guard speed > 0.5, speed < 12 else {
            throw fail("\(race[0]) in \(race[1]) is \(String(format: "%.1f", speed * 3.6)) km/h: not a runner's pace")
        }
        var split = 0.0
        var splitText = "even"
        for option in parts.dropFirst() {
            let kv = option.split(separator: "=", maxSplits: 1).map(String.init)
            guard kv.count == 2, kv[0] == "negative" else { throw fail("unknown option '\(option)' (negative=P%)") }
            var value = kv[1]
            if value.hasSuffix("%") { value.removeLast() }
            guard let p = Double(value), p >= 0, p <= 20 else { throw fail("negative=\(kv[1]): a split of 0 to 20 %") }
            split = p / 100
            splitText = "second half \(kv[1].hasSuffix("%") ? kv[1] : kv[1] + "%") faster"
        }
        let name = "\(race[0]) in \(race[1]), \(splitText)"
        guard let ghost = Ghost.target(metres: metres, time: .seconds(seconds), negativeSplit: split, name: name) else {
            throw fail("not a target")
        }
        return ghost
    }

    /// `10km`, `10 km`, `5000m`, `13.1mi`.
    static func distance(_ text: String) -> Double? {
        let t = text.replacingOccurrences(of: " ", with: "").lowercased()
        for (unit, factor) in [("km", 1000.0), ("mi", 1609.344), ("m", 1.0)] where t.hasSuffix(unit) {
            guard let v = Double(t.dropLast(unit.count)), v.isFinite, v > 0 else { return nil }
            return v * factor
        }
        return nil
    }

    /// `50:00`, `1:45:00`, `22:30.5`: seconds.
    static func time(_ text: String) -> Double? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(fields.count) else { return nil }
        var total = 0.0
        for (i, f) in fields.enumerated() {
            guard let v = Double(f), v >= 0, v.isFinite, i == 0 || v < 60 else { return nil }
            total = total * 60 + v
        }
        return total
    }
}
