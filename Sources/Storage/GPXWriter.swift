import PacerCore

/// Writes GPX 1.1 (the exchange format for tracks, routes and waypoints).
///
/// Streams: the header, then `trkpt`s appended as they come, then the footer; a track of a
/// marathon never sits in memory as text. Numbers are formatted without allocation.
public struct GPXWriter {
    public private(set) var bytes: [UInt8] = []
    private var openSegment = false

    public init(creator: String = "Pacer", trackName: String? = nil) {
        bytes.append(contentsOf: #"<?xml version="1.0" encoding="UTF-8"?>"#.utf8)
        bytes.append(0x0A)
        bytes.append(contentsOf: #"<gpx version="1.1" creator=""#.utf8)
        GPXWriter.appendEscaped(creator, to: &bytes)
        bytes.append(contentsOf: #"" xmlns="http://www.topografix.com/GPX/1/1">"#.utf8)
        bytes.append(contentsOf: "\n  <trk>\n".utf8)
        if let trackName {
            bytes.append(contentsOf: "    <name>".utf8)
            GPXWriter.appendEscaped(trackName, to: &bytes)
            bytes.append(contentsOf: "</name>\n".utf8)
        }
    }

    /// Starts a new track segment (after a pause or a fix loss).
    public mutating func beginSegment() {
        if openSegment { bytes.append(contentsOf: "    </trkseg>\n".utf8) }
        bytes.append(contentsOf: "    <trkseg>\n".utf8)
        openSegment = true
    }

    public mutating func append(_ fix: Fix) {
        if !openSegment { beginSegment() }
        bytes.append(contentsOf: #"      <trkpt lat=""#.utf8)
        bytes.appendDecimal(fix.position.latitude, places: 9)
        bytes.append(contentsOf: #"" lon=""#.utf8)
        bytes.appendDecimal(fix.position.longitude, places: 9)
        bytes.append(contentsOf: #"">"#.utf8)
        if let alt = fix.altitude {
            bytes.append(contentsOf: "<ele>".utf8)
            bytes.appendDecimal(alt, places: 3)
            bytes.append(contentsOf: "</ele>".utf8)
        }
        bytes.append(contentsOf: "<time>".utf8)
        fix.time.appendISO8601(to: &bytes)
        bytes.append(contentsOf: "</time>".utf8)
        if let hdop = fix.hdop {
            bytes.append(contentsOf: "<hdop>".utf8)
            bytes.appendDecimal(hdop, places: 2)
            bytes.append(contentsOf: "</hdop>".utf8)
        }
        bytes.append(contentsOf: "</trkpt>\n".utf8)
    }

    /// Closes the document and returns its bytes.
    public mutating func finish() -> [UInt8] {
        if openSegment { bytes.append(contentsOf: "    </trkseg>\n".utf8) }
        openSegment = false
        bytes.append(contentsOf: "  </trk>\n</gpx>\n".utf8)
        return bytes
    }

    static func appendEscaped(_ text: String, to out: inout [UInt8]) {
        for c in text.utf8 {
            switch c {
            case UInt8(ascii: "&"): out.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): out.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): out.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\""): out.append(contentsOf: "&quot;".utf8)
            default: out.append(c)
            }
        }
    }
}
