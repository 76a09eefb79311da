import Coaching
import Foundation
import GRDB
import PacerCore

// Sharing an activity (R18): the runner chooses which data leave the device, and where the
// track is hidden; only that goes into the file.

/// What a shared file may carry, one word each on the command line.
public enum ShareItem: String, CaseIterable, Hashable, Sendable {
    /// The track points' positions.
    case track
    /// The time of every point and waypoint, and the activity's start in the metadata.
    case times
    /// The track points' speeds.
    case speeds
    /// The elevations of the points and waypoints.
    case elevations
    /// The waypoints the runner captured, with their names.
    case waypoints
    /// The activity's name (in the metadata and the track).
    case name
    /// The track points' heart rates (health data: never shared unless named).
    case heart

    /// Shared when the runner names nothing: the positions alone, the least a map needs.
    public static let defaults: Set<ShareItem> = [.track]

    /// `track, times, speeds, elevations, waypoints, name`.
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// A comma list (`track,times`), spaces and case ignored; an unknown word is refused with
    /// the words there are.
    public static func parse(list text: String) throws(ShareError) -> Set<ShareItem> {
        var items: Set<ShareItem> = []
        for part in text.split(separator: ",", omittingEmptySubsequences: true) {
            let word = part.trimmingCharacters(in: .whitespaces).lowercased()
            if word.isEmpty { continue }
            guard let item = ShareItem(rawValue: word) else { throw ShareError.unknownItem(String(part)) }
            items.insert(item)
        }
        guard !items.isEmpty else { throw ShareError.nothingChosen }
        return items
    }
}

/// What an export wrote: points and waypoints stored, written, and hidden by each place.
public struct GPXExportReport: Hashable, Sendable {
    /// The activity's track points; 0 when the track was left out (they were not read).
    public var storedPoints = 0
    public var writtenPoints = 0
    /// `<trkseg>`s written: one per recorded segment, and one more after each hidden stretch.
    public var segments = 0
    /// By place: `[0]` within `hideWithin` of the start and end, `[i + 1]` in privacy zone `i`.
    public var hiddenPoints: [Int]
    /// Some track point has a heart rate: a share that leaves them out says so (one without
    /// any does not mention them).
    public var heartRatesStored = false
    /// The activity's waypoints; 0 when waypoints were left out (they were not read).
    public var storedWaypoints = 0
    public var writtenWaypoints = 0
    /// By place, as `hiddenPoints`.
    public var hiddenWaypoints: [Int]

    public init(zones: [PrivacyZone] = []) {
        hiddenPoints = Array(repeating: 0, count: zones.count + 1)
        hiddenWaypoints = hiddenPoints
    }
}

/// What a runner chose to share, and where to hide the track.
public struct ShareChoice: Hashable, Sendable {
    public var items: Set<ShareItem>
    /// Metres round the track's start and end (its first and last stored points) in which
    /// nothing is shared; nil: none.
    public var hideWithin: Double?
    /// Places in which nothing is shared.
    public var zones: [PrivacyZone]

    public init(items: Set<ShareItem> = ShareItem.defaults, hideWithin: Double? = nil, zones: [PrivacyZone] = []) {
        self.items = items
        self.hideWithin = hideWithin
        self.zones = zones
    }

    /// Refuses a choice that makes no file: what belongs to the points without the points.
    /// Speeds are the track's; times and elevations go with the track or the waypoints; a
    /// name alone shares nothing.
    public func check() throws(ShareError) {
        guard !items.isEmpty else { throw ShareError.nothingChosen }
        let track = items.contains(.track), waypoints = items.contains(.waypoints)
        if items.contains(.speeds), !track {
            throw ShareError.needs(.speeds, "speeds are the track points': include track too")
        }
        if items.contains(.heart), !track {
            throw ShareError.needs(.heart, "heart rates are the track points': include track too")
        }
        for item in [ShareItem.times, .elevations, .name] where items.contains(item) && !track && !waypoints {
            let reason = item == .name
                ? "a name alone shares nothing: include track or waypoints too"
                : "\(item.rawValue) are those of the track's points or the waypoints: include track or waypoints too"
            throw ShareError.needs(item, reason)
        }
    }

    /// The export that writes what was chosen and nothing else.
    public var options: GPXExportOptions {
        GPXExportOptions(times: items.contains(.times), speeds: items.contains(.speeds),
                         elevations: items.contains(.elevations), waypoints: items.contains(.waypoints),
                         track: items.contains(.track), name: items.contains(.name), distance: false,
                         heartRates: items.contains(.heart), hideWithin: hideWithin, privacyZones: zones)
    }

    /// A distance with its unit, `300m`, `300 m`, `0.5km`: metres. A number without a unit,
    /// another unit (`mi`, `ft`) or no number is refused with what to write.
    public static func distance(parsing text: String) throws(ShareError) -> Double {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let number = trimmed.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        let unit = trimmed.dropFirst(number.count).trimmingCharacters(in: .whitespaces)
        let howTo = "give metres (300m) or kilometres (0.5km)"
        guard !number.isEmpty, let value = Double(number), value.isFinite else {
            throw ShareError.badDistance(text, "not a distance: \(howTo)")
        }
        switch unit.lowercased() {
        case "m": return value
        case "km": return value * 1000
        case "": throw ShareError.badDistance(text, "a distance needs a unit: \(howTo)")
        default: throw ShareError.badDistance(text, "'\(unit)' is not a unit taken here: \(howTo)")
        }
    }
}

/// Why a share was refused.
public enum ShareError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A word that is not a `ShareItem`.
    case unknownItem(String)
    /// An empty list.
    case nothingChosen
    /// An item that needs another: the item and why.
    case needs(ShareItem, String)
    /// A distance that is not one: the text and why.
    case badDistance(String, String)
    /// Text the runner chose that tells a date or a time while times are left out: what it
    /// is, its text, what in it is a date or time, and the item that brought it.
    case revealsTime(what: String, text: String, found: String, item: ShareItem)
    /// A choice that leaves nothing to share in this activity.
    case nothingLeft(activity: Int64, reason: String)

    /// A mistake in the choice itself (the command line's usage), not in the activity.
    public var isUsage: Bool {
        switch self {
        case .unknownItem, .nothingChosen, .needs, .badDistance: true
        case .revealsTime, .nothingLeft: false
        }
    }

    public var description: String {
        switch self {
        case .unknownItem(let word): "'\(word)' is not something to share: choose from \(ShareItem.names)"
        case .nothingChosen: "nothing chosen: give one or more of \(ShareItem.names), separated by commas"
        case .needs(_, let reason): reason
        case .badDistance(let text, let reason): "'\(text)': \(reason)"
        case .revealsTime(let what, let text, let found, let item):
            "\(what) \"\(text)\" tells a date or time (\(found)) and times are left out: "
                + "include times too, or leave \(item.rawValue) out"
        case .nothingLeft(let id, let reason): "activity #\(id): \(reason)"
        }
    }
}

/// Finds the dates and times people write in names (`Run 2026-06-13 07:00`, `13/06/2026`,
/// `7:00`, `7am`, `June 13`, `Tuesday`, a year): what must not leave the device in a name
/// when the runner keeps the times to themselves. It errs on the side of finding one (the
/// `35:00` of a plan's `7 km in 35:00` is taken for a time of day): a name refused can be
/// left out; a date let through cannot be taken back.
public enum DateTimeInText {
    static let patterns: [NSRegularExpression] = [
        #"(?<!\d)\d{4}-\d{1,2}-\d{1,2}(?!\d)"#,  // 2026-06-13
        #"(?<!\d)(19|20)\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?!\d)"#,  // 20260613
        #"(?<!\d)\d{1,2}[/.]\d{1,2}[/.]\d{2,4}(?!\d)"#,  // 13/06/2026, 13.06.26
        #"(?<!\d)\d{1,2}:\d{2}(:\d{2})?(?!\d)"#,  // 07:00, 7:00:30
        #"(?<!\d)\d{1,2}h\d{2}(?!\d)"#,  // 7h30
        #"(?<!\d)\d{1,2} ?(am|pm)\b"#,  // 7am, 7 pm
        #"(?<!\d)(19|20)\d{2}(?!\d)"#,  // 2026
        #"\b(jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sept?(ember)?|oct(ober)?|nov(ember)?|dec(ember)?)\.? \d{1,2}(?!\d)"#,
        #"(?<!\d)\d{1,2}(st|nd|rd|th)? (of )?(jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sept?(ember)?|oct(ober)?|nov(ember)?|dec(ember)?)\b"#,
        #"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"#,
    ].map { try! NSRegularExpression(pattern: $0, options: [.caseInsensitive]) }

    /// The first date or time in `text`, as written there; nil when there is none.
    public static func first(in text: String) -> String? {
        let range = NSRange(text.startIndex..., in: text)
        var best: NSRange?
        for pattern in patterns {
            if let match = pattern.firstMatch(in: text, range: range),
               best == nil || match.range.location < best!.location {
                best = match.range
            }
        }
        return best.flatMap { Range($0, in: text) }.map { String(text[$0]) }
    }
}

/// What a share wrote, said for the runner.
public struct ShareReport: Hashable, Sendable {
    public var choice: ShareChoice
    public var export: GPXExportReport

    public init(choice: ShareChoice, export: GPXExportReport) {
        self.choice = choice
        self.export = export
    }

    /// `Activity #3 shared to run.gpx: track (1,234 of 1,310 points, 2 segments; 76 hidden
    /// round the start and end (300 m and more)), times; left out: speeds, elevations,
    /// waypoints, name`.
    public func summary(activity id: Int64, path: String) -> String {
        var shared: [String] = []
        var leftOut: [String] = []
        for item in ShareItem.allCases {
            guard choice.items.contains(item) else {
                if item != .heart || export.heartRatesStored { leftOut.append(item.rawValue) }
                continue
            }
            switch item {
            case .track:
                let segments = export.segments == 1 ? "1 segment" : "\(Self.grouped(export.segments)) segments"
                shared.append("track (\(Self.grouped(export.writtenPoints)) of \(Self.grouped(export.storedPoints)) points, "
                              + segments + hidden(export.hiddenPoints) + ")")
            case .waypoints:
                shared.append("waypoints (\(Self.grouped(export.writtenWaypoints)) of \(Self.grouped(export.storedWaypoints))"
                              + hidden(export.hiddenWaypoints) + ")")
            default:
                shared.append(item.rawValue)
            }
        }
        return "Activity #\(id) shared to \(path): \(shared.joined(separator: ", "))"
            + (leftOut.isEmpty ? "; nothing left out" : "; left out: \(leftOut.joined(separator: ", "))")
    }

    /// `; 76 hidden round the start and end (300 m and more), 12 hidden round Home (200 m and
    /// more)`: the circles hidden are larger than the places and moved off them
    /// (`PrivacyCircle`).
    private func hidden(_ counts: [Int]) -> String {
        var parts: [String] = []
        if let radius = choice.hideWithin {
            let count = counts.first ?? 0
            parts.append("\(count == 0 ? "none" : Self.grouped(count)) hidden round the start and end (\(Self.metres(radius)) and more)")
        }
        for (index, zone) in choice.zones.enumerated() {
            let count = index + 1 < counts.count ? counts[index + 1] : 0
            if count > 0 { parts.append("\(Self.grouped(count)) hidden round \(zone.name) (\(Self.metres(zone.radius)) and more)") }
        }
        return parts.isEmpty ? "" : "; " + parts.joined(separator: ", ")
    }

    /// `300 m`, `1.5 km`.
    static func metres(_ value: Double) -> String {
        value >= 1000 ? "\(ActivityFormat.fixed(value / 1000, places: value.truncatingRemainder(dividingBy: 1000) == 0 ? 0 : 1)) km"
            : "\(ActivityFormat.fixed(value, places: value == value.rounded() ? 0 : 1)) m"
    }

    /// `1,234`.
    static func grouped(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return (n < 0 ? "-" : "") + out
    }
}

extension GPXExchange {
    /// Shares an activity (R18): writes to `path` a GPX 1.1 file holding only what `choice`
    /// names, with no track point and no waypoint in a hidden place, the track split where a
    /// place cuts it (`writeGPX`), through a temporary file renamed into place.
    ///
    /// Refused before anything is written: a choice that makes no file (`ShareChoice.check`);
    /// without times, a chosen name or waypoint name that tells a date or time
    /// (`DateTimeInText`); a track chosen of which nothing would be left (no points, or all
    /// of them hidden); waypoints alone and none to share. `secret`: the one the hidden
    /// circles are moved by (`PrivacyCircle`); nil, the device's, from the database.
    @discardableResult
    public func share(activity id: Int64, to path: String, choice: ShareChoice,
                      secret: ShareSecret? = nil) throws -> ShareReport {
        try choice.check()
        var options = choice.options
        options.secret = secret
        return try read { db in
            try Self.activityExists(id, db)
            try Self.checkShare(activity: id, options: options, db)
            var report = GPXExportReport()
            try Self.writeAtomically(path) { write in
                report = try Self.writeGPX(activity: id, options: options, db, to: write)
            }
            return ShareReport(choice: choice, export: report)
        }
    }

    /// Shares an activity (R18) as `format`: GPX as `share(activity:to:choice:secret:)`; TCX
    /// and FIT from the laps a share shows (`sharedLaps`: the same points as the GPX share,
    /// the same places hidden, no device distance), refused without times (TCX requires a
    /// time at every point) and with waypoints (neither has a place for them). Refused before anything
    /// is written, as the GPX share is (`checkShare`).
    @discardableResult
    public func share(activity id: Int64, to path: String, choice: ShareChoice, format: ShareFormat,
                      version: String, secret: ShareSecret? = nil) throws -> ShareReport {
        switch format {
        case .gpx:
            return try share(activity: id, to: path, choice: choice, secret: secret)
        case .tcx, .fit:
            try choice.check()
            try choice.checkLapShare(format)
            var options = choice.options
            options.secret = secret
            return try read { db in
                try Self.activityExists(id, db)
                try Self.checkShare(activity: id, options: options, db)
                let export = try Self.laps(activity: id, options: options, db)
                if format == .fit {
                    let bytes = FITWriter.activity(laps: export)
                    try Self.writeAtomically(path) { write in try write(bytes) }
                } else {
                    try Self.writeAtomically(path) { write in try TCXExchange.writeTCX(export, version: version, to: write) }
                }
                return ShareReport(choice: choice, export: export.report)
            }
        }
    }

    /// What `share` refuses on the activity's data, found in one pass over its points.
    static func checkShare(activity id: Int64, options: GPXExportOptions, _ db: Database) throws {
        let mask = try privacyMask(activity: id, options: options, db)
        if options.name, !options.times,
           let name = try String.fetchOne(db, sql: "SELECT name FROM activities WHERE id = ?", arguments: [id]),
           let found = DateTimeInText.first(in: name) {
            throw ShareError.revealsTime(what: "the activity's name", text: name, found: found, item: .name)
        }
        var waypointsKept = 0, waypointsStored = 0
        if options.waypoints {
            let waypoints = try Row.fetchCursor(
                db, sql: "SELECT name, lat, lon FROM waypoints WHERE activity_id = ? ORDER BY seq", arguments: [id])
            while let w = try waypoints.next() {
                waypointsStored += 1
                if mask?.place(of: GeoPoint(latitude: w[1], longitude: w[2])) != nil { continue }
                waypointsKept += 1
                let name: String = w[0]
                if !options.times, let found = DateTimeInText.first(in: name) {
                    throw ShareError.revealsTime(what: "waypoint \(waypointsStored)'s name", text: name, found: found,
                                                 item: .waypoints)
                }
            }
        }
        if options.track {
            var stored = 0, kept = 0
            let points = try Row.fetchCursor(
                db, sql: "SELECT lat, lon FROM track_points WHERE activity_id = ? ORDER BY seq", arguments: [id])
            while let p = try points.next() {
                stored += 1
                if mask?.place(of: GeoPoint(latitude: p[0], longitude: p[1])) == nil { kept += 1 }
            }
            if stored == 0 { throw ShareError.nothingLeft(activity: id, reason: "it has no track points to share") }
            if kept == 0 {
                throw ShareError.nothingLeft(
                    activity: id, reason: "every one of its \(ShareReport.grouped(stored)) track points is within a hidden place: "
                        + "nothing of the track would be shared")
            }
        } else if options.waypoints, waypointsKept == 0 {
            throw ShareError.nothingLeft(
                activity: id, reason: waypointsStored == 0 ? "it has no waypoints to share"
                    : "every one of its waypoints is within a hidden place: nothing would be shared")
        }
    }
}
