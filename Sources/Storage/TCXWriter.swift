import PacerCore

/// Writes Garmin's Training Center Database v2 (TCX), valid against its schema
/// (`TrainingCenterDatabasev2.xsd`): one `<Activity Sport="Running">` with its laps, each lap
/// with its figures and its tracks of trackpoints, then the notes and the creator.
///
/// TCX carries what GPX cannot: laps (Pacer's phases) with their timer time and distance,
/// and each point's distance on the device's odometer, which Strava, Garmin Connect,
/// intervals.icu and Runalyze read instead of summing the straight lines between points.
/// Speeds go in Garmin's ActivityExtension v2 (`<TPX><Speed>`, metres per second), inside
/// the schema's `<Extensions>` (processed laxly: any other namespace is allowed there).
/// Heart rate is the schema's own: a trackpoint's `<HeartRateBpm><Value>`, a lap's
/// `<AverageHeartRateBpm>` and `<MaximumHeartRateBpm>`, each where the schema's sequence puts
/// it, and only when there is one (a run without a strap is written as before).
///
/// Streams like `GPXWriter`: `takeBytes()` hands out what is written so far.
public struct TCXWriter {
    public static let namespace = "http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"
    public static let extensionNamespace = "http://www.garmin.com/xmlschemas/ActivityExtension/v2"
    static let schemaInstance = "http://www.w3.org/2001/XMLSchema-instance"

    /// What ends a lap (the schema's `TriggerMethod_t`, the values Pacer uses).
    public enum Trigger: String, Hashable, Sendable {
        /// The runner (a stop, or a lap of an activity without phases).
        case manual = "Manual"
        /// The workout's clock: a phase of so many minutes ran out.
        case time = "Time"
        /// The odometer: a phase of so many metres was run.
        case distance = "Distance"
    }

    public private(set) var bytes: [UInt8] = []
    private var openLap = false
    /// The open lap's notes, written when it closes.
    private var lapNotes: String?
    private var openTrack = false
    private var laps = 0
    private var finished = false
    /// Whether the extension's namespace is declared: speeds are written only then.
    private let speeds: Bool

    /// Starts the document and its one activity, identified by `id` (its start).
    public init(id: UTCTimestamp, speeds: Bool = true) {
        self.speeds = speeds
        bytes.reserveCapacity(4096)
        bytes.append(contentsOf: #"<?xml version="1.0" encoding="UTF-8"?>"#.utf8)
        bytes.append(0x0A)
        bytes.append(contentsOf: "<TrainingCenterDatabase xmlns=\"\(Self.namespace)\" xmlns:xsi=\"\(Self.schemaInstance)\"".utf8)
        if speeds { bytes.append(contentsOf: " xmlns:ns3=\"\(Self.extensionNamespace)\"".utf8) }
        bytes.append(contentsOf: ">\n  <Activities>\n    <Activity Sport=\"Running\">\n      <Id>".utf8)
        id.appendISO8601(to: &bytes)
        bytes.append(contentsOf: "</Id>\n".utf8)
    }

    /// Starts a lap: when it started, its timer time (pauses excluded), its distance in metres
    /// and its highest speed (metres per second; nil: not written). Calories are 0: Pacer
    /// does not count them, and the schema requires the element. `heartRate`: the lap's
    /// average and maximum (bpm, 1 to 255); nil: not written.
    public mutating func beginLap(start: UTCTimestamp, totalTime: Duration, distance: Double, maximumSpeed: Double?,
                                  resting: Bool, trigger: Trigger, notes: String? = nil,
                                  heartRate: (average: Int, maximum: Int)? = nil) {
        precondition(!finished, "TCX: lap after finish")
        closeLap()
        lapNotes = notes
        bytes.append(contentsOf: "      <Lap StartTime=\"".utf8)
        start.appendISO8601(to: &bytes)
        bytes.append(contentsOf: "\">\n".utf8)
        number("TotalTimeSeconds", max(0, totalTime.inSeconds), places: 3, indent: 8)
        number("DistanceMeters", max(0, distance), places: 3, indent: 8)
        if let maximumSpeed, maximumSpeed.isFinite, maximumSpeed >= 0 {
            number("MaximumSpeed", maximumSpeed, places: 3, indent: 8)
        }
        bytes.append(contentsOf: "        <Calories>0</Calories>\n".utf8)
        if let heartRate, let average = HeartRateRecords.rate(heartRate.average),
           let maximum = HeartRateRecords.rate(heartRate.maximum) {
            bytes.append(contentsOf: "        <AverageHeartRateBpm><Value>\(average)</Value></AverageHeartRateBpm>\n".utf8)
            bytes.append(contentsOf: "        <MaximumHeartRateBpm><Value>\(maximum)</Value></MaximumHeartRateBpm>\n".utf8)
        }
        bytes.append(contentsOf: "        <Intensity>\(resting ? "Resting" : "Active")</Intensity>\n".utf8)
        bytes.append(contentsOf: "        <TriggerMethod>\(trigger.rawValue)</TriggerMethod>\n".utf8)
        openLap = true
        laps += 1
    }

    /// Starts a track within the lap: one per recorded segment (a pause or a fix loss ends
    /// one), so that the gap in time shows as a gap.
    public mutating func beginTrack() {
        precondition(openLap, "TCX: track outside a lap")
        closeTrack()
        bytes.append(contentsOf: "        <Track>\n".utf8)
        openTrack = true
    }

    /// A trackpoint; starts a track when none is open. `position` nil: a point of time and
    /// distance only (the odometer's reading where no position was stored). `distance`: the
    /// odometer's metres at the point. `heartRate`: bpm, written from 1 to 255 (the schema's
    /// unsignedByte from 1).
    public mutating func trackpoint(time: UTCTimestamp, position: GeoPoint?, altitude: Double? = nil,
                                    distance: Double? = nil, speed: Double? = nil, heartRate: Int? = nil) {
        if !openTrack { beginTrack() }
        bytes.append(contentsOf: "          <Trackpoint><Time>".utf8)
        time.appendISO8601(to: &bytes)
        bytes.append(contentsOf: "</Time>".utf8)
        if let position {
            bytes.append(contentsOf: "<Position><LatitudeDegrees>".utf8)
            bytes.appendDecimal(position.latitude, places: 9)
            bytes.append(contentsOf: "</LatitudeDegrees><LongitudeDegrees>".utf8)
            // The schema's longitudes run from -180 up to, not including, 180: the same meridian.
            bytes.appendDecimal(position.longitude >= 180 ? position.longitude - 360 : position.longitude, places: 9)
            bytes.append(contentsOf: "</LongitudeDegrees></Position>".utf8)
        }
        if let altitude, altitude.isFinite { number("AltitudeMeters", altitude, places: 3, indent: 0) }
        if let distance, distance.isFinite, distance >= 0 { number("DistanceMeters", distance, places: 3, indent: 0) }
        if let rate = HeartRateRecords.rate(heartRate) {
            bytes.append(contentsOf: "<HeartRateBpm><Value>\(rate)</Value></HeartRateBpm>".utf8)
        }
        if speeds, let speed, speed.isFinite, speed >= 0 {
            bytes.append(contentsOf: "<Extensions><ns3:TPX><ns3:Speed>".utf8)
            bytes.appendDecimal(speed, places: 3)
            bytes.append(contentsOf: "</ns3:Speed></ns3:TPX></Extensions>".utf8)
        }
        bytes.append(contentsOf: "</Trackpoint>\n".utf8)
    }

    /// Hands out the bytes written so far (to write them to a file) and forgets them.
    public mutating func takeBytes() -> [UInt8] {
        defer { bytes.removeAll(keepingCapacity: true) }
        return bytes
    }

    /// Closes the activity with its notes (the activity's name, when given) and its creator
    /// (`Device` Pacer with `version`, `major.minor.build`), and the document; returns the
    /// bytes not yet taken. The schema requires a lap: call `beginLap` first.
    public mutating func finish(notes: String?, version: String) -> [UInt8] {
        precondition(laps > 0, "TCX: an activity needs a lap")
        guard !finished else { return bytes }
        closeLap()
        if let notes, !notes.isEmpty {
            bytes.append(contentsOf: "      <Notes>".utf8)
            GPXWriter.appendEscaped(notes, to: &bytes)
            bytes.append(contentsOf: "</Notes>\n".utf8)
        }
        let parts: [UInt16] = version.split(separator: ".").map { UInt16($0) ?? 0 } + [0, 0, 0]
        bytes.append(contentsOf: """
                  <Creator xsi:type="Device_t">
                    <Name>Pacer</Name>
                    <UnitId>0</UnitId>
                    <ProductID>0</ProductID>
                    <Version><VersionMajor>\(parts[0])</VersionMajor><VersionMinor>\(parts[1])</VersionMinor>\
            <BuildMajor>\(parts[2])</BuildMajor><BuildMinor>0</BuildMinor></Version>
                  </Creator>
                </Activity>
              </Activities>
            </TrainingCenterDatabase>

            """.utf8)
        finished = true
        return bytes
    }

    // MARK: - Pieces

    private mutating func closeTrack() {
        if openTrack { bytes.append(contentsOf: "        </Track>\n".utf8) }
        openTrack = false
    }

    private mutating func closeLap() {
        closeTrack()
        // The lap's notes come after its tracks (the schema's order).
        if openLap, let notes = lapNotes, !notes.isEmpty {
            bytes.append(contentsOf: "        <Notes>".utf8)
            GPXWriter.appendEscaped(notes, to: &bytes)
            bytes.append(contentsOf: "</Notes>\n".utf8)
        }
        if openLap { bytes.append(contentsOf: "      </Lap>\n".utf8) }
        openLap = false
        lapNotes = nil
    }

    private mutating func number(_ tag: String, _ value: Double, places: Int, indent n: Int) {
        for _ in 0..<n { bytes.append(0x20) }
        bytes.append(UInt8(ascii: "<"))
        bytes.append(contentsOf: tag.utf8)
        bytes.append(UInt8(ascii: ">"))
        bytes.appendDecimal(value, places: places)
        bytes.append(contentsOf: "</".utf8)
        bytes.append(contentsOf: tag.utf8)
        bytes.append(UInt8(ascii: ">"))
        if n > 0 { bytes.append(0x0A) }
    }
}
