/// A position on the WGS84 ellipsoid in decimal degrees.
public struct GeoPoint: Hashable, Sendable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// What kind of solution the receiver has (NMEA GSA mode, gpsd's `mode`).
public enum FixMode: Int, Hashable, Sendable {
    case none = 1
    case twoD = 2
    case threeD = 3
}

/// How the position was obtained (NMEA GGA quality indicator, RMC/GNS mode letter).
public enum FixQuality: String, Hashable, Sendable {
    case gps
    case dgps
    case pps
    case rtk
    case floatRTK
    case estimated
    case manual
    case simulated
}

/// One receiver epoch: everything the sentences of one cycle said about where and when.
///
/// Built by the NMEA engine's epoch assembler; a fix always has a valid position and a full
/// UTC time. Everything else is optional because not every receiver reports it.
public struct Fix: Hashable, Sendable {
    public var time: UTCTimestamp
    public var position: GeoPoint
    /// Metres above mean sea level.
    public var altitude: Double?
    /// Speed over ground, metres per second.
    public var speed: Double?
    /// Course over ground, degrees true.
    public var course: Double?
    public var mode: FixMode
    public var quality: FixQuality
    public var hdop: Double?
    public var satellitesUsed: Int?
    public var satellitesInView: Int?

    public init(
        time: UTCTimestamp, position: GeoPoint, altitude: Double? = nil, speed: Double? = nil,
        course: Double? = nil, mode: FixMode = .twoD, quality: FixQuality = .gps,
        hdop: Double? = nil, satellitesUsed: Int? = nil, satellitesInView: Int? = nil
    ) {
        self.time = time
        self.position = position
        self.altitude = altitude
        self.speed = speed
        self.course = course
        self.mode = mode
        self.quality = quality
        self.hdop = hdop
        self.satellitesUsed = satellitesUsed
        self.satellitesInView = satellitesInView
    }
}

/// A fix between two track points that was no position update: when, where, and the
/// receiver's speed and course. The store keeps them with the next point (`TrackPoint.readings`)
/// and a replay writes them again (`TrackSample.readings`).
public struct TrackReading: Hashable, Sendable {
    public var time: UTCTimestamp
    public var position: GeoPoint
    /// Metres per second.
    public var speed: Double?
    /// Degrees true.
    public var course: Double?

    public init(time: UTCTimestamp, position: GeoPoint, speed: Double?, course: Double?) {
        self.time = time
        self.position = position
        self.speed = speed
        self.course = course
    }
}
