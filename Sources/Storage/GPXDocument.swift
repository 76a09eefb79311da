import PacerCore

/// Why a GPX file was refused: the file, the line and the reason (R19, R26).
public struct GPXError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    /// 1-based; nil when the problem is not at one place (an empty file, nothing to import).
    public var line: Int?
    public var reason: String

    /// The reasons a file could not be read at all (not there, a folder, no permission).
    static let noSuchFile = "no such file"
    static let folder = "is a folder, not a GPX file"
    static let unreadable = "cannot read the file"

    /// The file could not be read at all: an input that is not there, not a broken one.
    public var isUnreadable: Bool {
        line == nil && (reason == Self.noSuchFile || reason == Self.folder || reason.hasPrefix(Self.unreadable))
    }

    /// The file was not read because libxml2 could not be opened: the installation is at
    /// fault, not the file.
    public var isLibraryMissing: Bool {
        line == nil && reason.hasPrefix(LibXML2Error.prefix)
    }

    public init(file: String, line: Int?, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    public var description: String {
        if let line { return "\(file):\(line): \(reason)" }
        return "\(file): \(reason)"
    }
}

public struct GPXRoute: Hashable, Sendable {
    public var name: String?
    public var points: [ImportedPoint]
}

public struct GPXTrack: Hashable, Sendable {
    public var name: String?
    public var segments: [[ImportedPoint]]
}

/// Where a route or track point read from a GPX file belongs.
public enum GPXPlace: Hashable, Sendable {
    /// In the file's `<rte>` number `route` (from 0).
    case route(Int)
    /// In the file's `<trk>` number `track`, its `<trkseg>` number `segment` (from 0).
    case track(Int, segment: Int)
}

/// A GPX document as read: what the runner needs of it (names, times, points), nothing more.
public struct GPXDocument: Hashable, Sendable {
    /// "1.1" or "1.0", from the namespace (and the `version` attribute, which must agree).
    public var version: String
    public var name: String?
    public var time: UTCTimestamp?
    public var waypoints: [ImportedPoint] = []
    /// Routes and tracks with their names; their points are here unless they were handed to
    /// a reader's `points` function as they were read.
    public var routes: [GPXRoute] = []
    public var tracks: [GPXTrack] = []
    /// The line of the `<gpx>` element.
    public var line: Int
    /// The points read, wherever they went.
    public var trackPointCount = 0
    public var routePointCount = 0
    /// Points with a heart rate or a cadence in their extensions (an `hr` and a `cad` in any
    /// namespace, as watches write them), counted so an import can say what it did not keep.
    public var heartRateCount = 0
    public var cadenceCount = 0
    /// The heart rates read (`ImportedPoint.heartRate`): an `hr` in Garmin's TrackPointExtension
    /// v1 or v2, above 0. The others of `heartRateCount` were in a namespace Pacer does not
    /// read, or 0 (a strap off the skin).
    public var heartRatesRead = 0

    public init(version: String, line: Int) {
        self.version = version
        self.line = line
    }
}

