import PacerCore

/// Writes GPX 1.1 (the exchange format for tracks, routes and waypoints), valid against the
/// GPX 1.1 schema.
///
/// Streams: the header and metadata, then waypoints, routes and tracks in the order the
/// schema requires, then the footer; `takeBytes()` hands out what is written so far, so a
/// marathon's track never sits in memory as text. Numbers are formatted without allocation.
///
/// Speeds have no element in GPX 1.1; they go in the point's `<extensions>` as Garmin's
/// TrackPointExtension v2 `speed` (metres per second), which Garmin, Strava and most tools read.
/// Heart rate goes in the same element as its `hr` (bpm), before the speed as v2's schema
/// orders them: `<gpxtpx:TrackPointExtension><gpxtpx:hr>152</gpxtpx:hr><gpxtpx:speed>…`.
/// v2 rather than v1 (which has `hr` too, and is what older watches write): the `gpxtpx`
/// prefix was already v2's for the speed, v1 has no speed, and one point's figures belong in
/// one element; readers of v1's `hr` (Strava, Garmin Connect, GPSBabel, Pacer's own) read
/// v2's too.
public struct GPXWriter {
    public static let namespace = "http://www.topografix.com/GPX/1/1"
    public static let speedNamespace = "http://www.garmin.com/xmlschemas/TrackPointExtension/v2"
    /// Pacer's own track extension: the distance the device measured (`beginTrack(distance:)`).
    public static let pacerNamespace = "urn:pacer:gpx:track:1"

    public private(set) var bytes: [UInt8] = []

    private enum Section: Int, Comparable {
        case waypoints, routes, tracks, done
        static func < (a: Section, b: Section) -> Bool { a.rawValue < b.rawValue }
    }

    private var section = Section.waypoints
    private var openRoute = false
    private var openTrack = false
    private var openSegment = false
    /// Whether the speed extension's namespace is declared: speeds are written only then.
    private let speeds: Bool
    /// Whether heart rates are written (the same namespace declared for them).
    private let heartRates: Bool

    /// Starts the document: the `<gpx>` element and, when a name or a time is given, its
    /// metadata. `speeds` false: a document without speeds, which does not even declare the
    /// speed extension's namespace (a shared file that left speeds out); `trackPoint` then
    /// ignores the speeds it is given. `heartRates`: the points' heart rates are written (and
    /// the extension's namespace declared for them); false (a track without any, a share) and
    /// the file is as it was before heart rate, byte for byte.
    public init(creator: String = "Pacer", name: String? = nil, time: UTCTimestamp? = nil, speeds: Bool = true,
                heartRates: Bool = false) {
        self.speeds = speeds
        self.heartRates = heartRates
        bytes.reserveCapacity(4096)
        bytes.append(contentsOf: #"<?xml version="1.0" encoding="UTF-8"?>"#.utf8)
        bytes.append(0x0A)
        bytes.append(contentsOf: #"<gpx version="1.1" creator=""#.utf8)
        GPXWriter.appendEscaped(creator, to: &bytes)
        bytes.append(contentsOf: "\" xmlns=\"\(GPXWriter.namespace)\"".utf8)
        if speeds || heartRates { bytes.append(contentsOf: " xmlns:gpxtpx=\"\(GPXWriter.speedNamespace)\"".utf8) }
        bytes.append(contentsOf: ">\n".utf8)
        if name != nil || time != nil {
            bytes.append(contentsOf: "  <metadata>\n".utf8)
            if let name { element("name", name, indent: 4) }
            if let time {
                bytes.append(contentsOf: "    <time>".utf8)
                time.appendISO8601(to: &bytes)
                bytes.append(contentsOf: "</time>\n".utf8)
            }
            bytes.append(contentsOf: "  </metadata>\n".utf8)
        }
    }

    /// A waypoint; all waypoints come before any route or track.
    public mutating func waypoint(_ position: GeoPoint, altitude: Double? = nil, time: UTCTimestamp? = nil,
                                  name: String? = nil, description: String? = nil, type: String? = nil) {
        precondition(section == .waypoints, "GPX: waypoints come before routes and tracks")
        bytes.append(contentsOf: "  <wpt".utf8)
        coordinates(position)
        bytes.append(contentsOf: ">\n".utf8)
        if let altitude, altitude.isFinite { number("ele", altitude, places: 3, indent: 4) }
        if let time { timeElement(time, indent: 4) }
        if let name { element("name", name, indent: 4) }
        if let description { element("desc", description, indent: 4) }
        if let type { element("type", type, indent: 4) }
        bytes.append(contentsOf: "  </wpt>\n".utf8)
    }

    /// Starts a route; routes come after waypoints and before tracks.
    public mutating func beginRoute(name: String? = nil) {
        precondition(section <= .routes, "GPX: routes come before tracks")
        closeRoute()
        section = .routes
        bytes.append(contentsOf: "  <rte>\n".utf8)
        if let name { element("name", name, indent: 4) }
        openRoute = true
    }

    public mutating func routePoint(_ position: GeoPoint, altitude: Double? = nil, time: UTCTimestamp? = nil,
                                    name: String? = nil) {
        precondition(openRoute, "GPX: routePoint outside a route")
        bytes.append(contentsOf: "    <rtept".utf8)
        coordinates(position)
        bytes.append(contentsOf: ">".utf8)
        if let altitude, altitude.isFinite { number("ele", altitude, places: 3, indent: 0) }
        if let time { timeElement(time, indent: 0) }
        if let name { element("name", name, indent: 0) }
        bytes.append(contentsOf: "</rtept>\n".utf8)
    }

    /// Starts a track; tracks come last. `distance`: the metres the device measured for it
    /// (its odometer, which counts every fix), said in the track's `<desc>` and, for programs,
    /// in its `<extensions>` as `<pacer:distance>` (namespace `pacerNamespace`): on a sparse
    /// power profile the straight lines between the points kept are shorter, and a program
    /// that sums them reads less than the runner was told.
    public mutating func beginTrack(name: String? = nil, type: String? = nil, distance: Double? = nil) {
        closeRoute()
        closeTrack()
        section = .tracks
        bytes.append(contentsOf: "  <trk>\n".utf8)
        if let name { element("name", name, indent: 4) }
        let distance = distance.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        if let distance {
            var text: [UInt8] = []
            text.appendDecimal(distance / 1000, places: 3)
            element("desc", "Distance \(String(decoding: text, as: UTF8.self)) km, by the device's odometer, which "
                    + "counts every fix; the straight lines between the points here may sum to less.", indent: 4)
        }
        if let type { element("type", type, indent: 4) }
        if let distance {
            bytes.append(contentsOf: "    <extensions><pacer:TrackExtension xmlns:pacer=\"\(GPXWriter.pacerNamespace)\">".utf8)
            bytes.append(contentsOf: "<pacer:distance>".utf8)
            bytes.appendDecimal(distance, places: 1)
            bytes.append(contentsOf: "</pacer:distance></pacer:TrackExtension></extensions>\n".utf8)
        }
        openTrack = true
    }

    /// Starts a new track segment (after a pause or a fix loss); starts a track when none is open.
    public mutating func beginSegment() {
        if !openTrack { beginTrack() }
        if openSegment { bytes.append(contentsOf: "    </trkseg>\n".utf8) }
        bytes.append(contentsOf: "    <trkseg>\n".utf8)
        openSegment = true
    }

    /// A track point; starts a segment when none is open. `heartRate`: bpm, written from 1
    /// to 255 when the writer writes heart rates.
    public mutating func trackPoint(_ position: GeoPoint, altitude: Double? = nil, time: UTCTimestamp? = nil,
                                    speed: Double? = nil, hdop: Double? = nil, heartRate: Int? = nil) {
        if !openSegment { beginSegment() }
        bytes.append(contentsOf: "      <trkpt".utf8)
        coordinates(position)
        bytes.append(contentsOf: ">".utf8)
        if let altitude, altitude.isFinite { number("ele", altitude, places: 3, indent: 0) }
        if let time { timeElement(time, indent: 0) }
        if let hdop, hdop.isFinite, hdop >= 0 { number("hdop", hdop, places: 2, indent: 0) }
        let speed = speeds ? speed.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil } : nil
        let rate = heartRates ? HeartRateRecords.rate(heartRate) : nil
        if speed != nil || rate != nil {
            bytes.append(contentsOf: "<extensions><gpxtpx:TrackPointExtension>".utf8)
            if let rate { bytes.append(contentsOf: "<gpxtpx:hr>\(rate)</gpxtpx:hr>".utf8) }
            if let speed {
                bytes.append(contentsOf: "<gpxtpx:speed>".utf8)
                bytes.appendDecimal(speed, places: 3)
                bytes.append(contentsOf: "</gpxtpx:speed>".utf8)
            }
            bytes.append(contentsOf: "</gpxtpx:TrackPointExtension></extensions>".utf8)
        }
        bytes.append(contentsOf: "</trkpt>\n".utf8)
    }

    /// A fix as a track point.
    public mutating func append(_ fix: Fix) {
        trackPoint(fix.position, altitude: fix.altitude, time: fix.time, speed: fix.speed, hdop: fix.hdop)
    }

    /// Hands out the bytes written so far (to write them to a file) and forgets them.
    public mutating func takeBytes() -> [UInt8] {
        defer { bytes.removeAll(keepingCapacity: true) }
        return bytes
    }

    /// Closes the document and returns the bytes not yet taken.
    public mutating func finish() -> [UInt8] {
        closeRoute()
        closeTrack()
        if section != .done {
            bytes.append(contentsOf: "</gpx>\n".utf8)
            section = .done
        }
        return bytes
    }

    // MARK: - Pieces

    private mutating func closeRoute() {
        if openRoute { bytes.append(contentsOf: "  </rte>\n".utf8) }
        openRoute = false
    }

    private mutating func closeTrack() {
        if openSegment { bytes.append(contentsOf: "    </trkseg>\n".utf8) }
        if openTrack { bytes.append(contentsOf: "  </trk>\n".utf8) }
        openSegment = false
        openTrack = false
    }

    private mutating func coordinates(_ position: GeoPoint) {
        bytes.append(contentsOf: #" lat=""#.utf8)
        bytes.appendDecimal(position.latitude, places: 9)
        bytes.append(contentsOf: #"" lon=""#.utf8)
        bytes.appendDecimal(position.longitude, places: 9)
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func indent(_ n: Int) {
        for _ in 0..<n { bytes.append(0x20) }
    }

    private mutating func element(_ tag: String, _ text: String, indent n: Int) {
        indent(n)
        bytes.append(UInt8(ascii: "<"))
        bytes.append(contentsOf: tag.utf8)
        bytes.append(UInt8(ascii: ">"))
        GPXWriter.appendEscaped(text, to: &bytes)
        bytes.append(contentsOf: "</".utf8)
        bytes.append(contentsOf: tag.utf8)
        bytes.append(UInt8(ascii: ">"))
        if n > 0 { bytes.append(0x0A) }
    }

    private mutating func number(_ tag: String, _ value: Double, places: Int, indent n: Int) {
        indent(n)
        bytes.append(UInt8(ascii: "<"))
        bytes.append(contentsOf: tag.utf8)
        bytes.append(UInt8(ascii: ">"))
        bytes.appendDecimal(value, places: places)
        bytes.append(contentsOf: "</".utf8)
        bytes.append(contentsOf: tag.utf8)
        bytes.append(UInt8(ascii: ">"))
        if n > 0 { bytes.append(0x0A) }
    }

    private mutating func timeElement(_ time: UTCTimestamp, indent n: Int) {
        indent(n)
        bytes.append(contentsOf: "<time>".utf8)
        time.appendISO8601(to: &bytes)
        bytes.append(contentsOf: "</time>".utf8)
        if n > 0 { bytes.append(0x0A) }
    }

    /// XML-escapes text; drops the control characters XML 1.0 cannot carry.
    static func appendEscaped(_ text: String, to out: inout [UInt8]) {
        for c in text.utf8 {
            switch c {
            case UInt8(ascii: "&"): out.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): out.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): out.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\""): out.append(contentsOf: "&quot;".utf8)
            case 0x09, 0x0A, 0x0D: out.append(c)
            case ..<0x20: break
            default: out.append(c)
            }
        }
    }
}
