internal import CLibXML2
import Foundation
import PacerCore

/// A TCX file that cannot be read: the file, the line when known, and why.
public struct TCXError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var reason: String

    public init(file: String, line: Int?, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    public var description: String {
        line.map { "\(file):\($0): \(reason)" } ?? "\(file): \(reason)"
    }
}

/// A trackpoint of a TCX file as read.
public struct TCXPoint: Hashable, Sendable {
    public var time: UTCTimestamp
    public var position: GeoPoint
    public var altitude: Double?
    /// Metres on the recording device's odometer (`DistanceMeters`).
    public var distance: Double?
    /// Metres per second (Garmin's ActivityExtension v2 `Speed`).
    public var speed: Double?
    public var heartRate: Int?
    /// The first point of a `Track` that is not its lap's first: the device broke its track
    /// there (a pause, a loss of fix). A lap's first track follows on from the lap before.
    public var startsTrack: Bool
    public var line: Int
}

/// What a TCX file held besides its points.
public struct TCXDocument: Hashable, Sendable {
    /// A course's name; nil for an activity (TCX gives activities none).
    public var name: String?
    public var activities = 0
    public var laps = 0
    /// Trackpoints with a time and a position, handed over.
    public var pointCount = 0
    /// Trackpoints without a position or a time (a treadmill's), passed over.
    public var pointsWithoutPosition = 0
}

/// Reads Garmin's Training Center Database v2 (TCX) as `TCXWriter` writes it and as Garmin
/// Connect and Strava export it: the trackpoints of every activity's laps (and of courses),
/// each with its time, position, altitude, odometer distance, heart rate and speed, handed
/// over one at a time as the file is read (libxml2's SAX parser, as GPX's: constant memory
/// whatever the file's size). A file that is not TCX v2, not well-formed, or has a field
/// that is not what the schema says (a latitude of 200, a time that is not one) is refused
/// with its line and the reason.
public enum TCXReader {
    public static let namespace = TCXWriter.namespace

    /// Reads the file at `path`, handing each timed trackpoint with a position to `point`.
    /// An error `point` throws stops the reading and is rethrown as it is.
    public static func read(path: String, point: @escaping (TCXPoint) throws -> Void) throws -> TCXDocument {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw TCXError(file: path, line: nil, reason: GPXError.noSuchFile)
        }
        guard !isDirectory.boolValue else { throw TCXError(file: path, line: nil, reason: "is a folder, not a TCX file") }
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw TCXError(file: path, line: nil, reason: "\(GPXError.unreadable): not a regular file (a FIFO, a device, a socket)")
        }
        guard let base = InputStream(fileAtPath: path), access(path, R_OK) == 0 else {
            throw TCXError(file: path, line: nil, reason: "\(GPXError.unreadable) (permission?)")
        }
        if let mapped = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) {
            try preflight(mapped, file: path)
        }
        return try parse(GPXReader.Input(base), file: path, point: point)
    }

    /// Reads a document in memory; `file` names it in errors.
    public static func parse(_ data: Data, file: String, point: @escaping (TCXPoint) throws -> Void) throws -> TCXDocument {
        try preflight(data, file: file)
        return try parse(GPXReader.Input(InputStream(data: data)), file: file, point: point)
    }

    /// The GPX reader's checks of the bytes before libxml2 sees them: an encoding it hands to
    /// iconv (UTF-7, UCS-4: libxml2 died of SIGSEGV in xmlParseChunk on a TCX file of
    /// "\0\0\0<2222…", the fuzzer's first find), broken UTF-16, an empty processing
    /// instruction.
    static func preflight(_ data: Data, file: String) throws(TCXError) {
        do {
            try GPXReader.preflight(data, file: file)
        } catch {
            throw TCXError(file: file, line: error.line, reason: error.reason.replacingOccurrences(of: "GPX", with: "TCX"))
        }
    }

    static func parse(_ input: GPXReader.Input, file: String, point: @escaping (TCXPoint) throws -> Void) throws -> TCXDocument {
        let xml: LibXML2
        switch LibXML2.loaded {
        case .success(let library): xml = library
        case .failure(let error): throw TCXError(file: file, line: nil, reason: error.description)
        }
        let handler = Handler(file: file, input: input, xml: xml, point: point)
        let parser = GPXReader.SAXParser(handler: handler)
        defer { parser.close() }
        let ok = parser.parse(input)
        if let error = handler.pointError { throw error }
        if let error = handler.error { throw error }
        if let error = input.error { throw TCXError(file: file, line: nil, reason: "cannot read the file: \(error)") }
        guard !input.blank else { throw TCXError(file: file, line: nil, reason: "the file is empty: not a TCX file") }
        if !ok || handler.xmlError != nil {
            let code = handler.xmlError?.code ?? parser.result
            let line = handler.xmlError?.line ?? handler.lineNumber
            throw TCXError(file: file, line: line, reason: GPXReader.describe(code, open: handler.stack.last))
        }
        guard handler.rooted else { throw TCXError(file: file, line: nil, reason: "no XML element: not a TCX file") }
        return handler.document
    }

    /// The longest text kept of a field (a number, a time, a name): a field longer than any
    /// of them is refused, not held in memory.
    static let maximumText = 1000

    final class Handler: GPXReader.SAXHandler {
        let file: String
        unowned let input: GPXReader.Input
        let point: (TCXPoint) throws -> Void
        var error: TCXError?
        var pointError: (any Error)?
        var xmlError: (code: Int, line: Int)?
        var document = TCXDocument()
        var rooted = false
        /// Open elements' local names (those in TCX's namespace; others are counted only).
        var stack: [String] = []
        var foreignDepth = 0
        var text: [UInt8] = []
        var capturing = false
        var current: (time: UTCTimestamp?, lat: Double?, lon: Double?, altitude: Double?, distance: Double?,
                      speed: Double?, heartRate: Int?, line: Int)?
        /// Tracks begun in the current lap.
        var tracksInLap = 0
        var trackStarted = false

        init(file: String, input: GPXReader.Input, xml: LibXML2, point: @escaping (TCXPoint) throws -> Void) {
            self.file = file
            self.input = input
            self.point = point
            super.init(xml: xml)
        }

        var lineNumber: Int { Int(pacer_xml_line(context)) }

        func fail(_ reason: String, line: Int? = nil) {
            guard error == nil, xmlError == nil else { return }
            error = TCXError(file: file, line: line ?? lineNumber, reason: reason)
            if let context { pacer_xml_stop(xml.functions, context) }
        }

        override func didStartElement(_ localName: UnsafePointer<UInt8>, prefix: UnsafePointer<UInt8>?,
                                      namespaceURI uri: UnsafePointer<UInt8>?, attributes: GPXReader.SAXAttributes) {
            guard error == nil, pointError == nil else { return }
            let name = String(cString: localName)
            let ns = uri.map { String(cString: $0) } ?? ""
            if !rooted {
                input.scanning = false
                if let declaration = input.entityDeclarationLine, declaration <= lineNumber {
                    fail("the file declares entities (<!ENTITY ...>) in a DTD: TCX needs none", line: declaration)
                    return
                }
                guard name == "TrainingCenterDatabase" else {
                    fail("not a TCX file: the root element is <\(name)>, not <TrainingCenterDatabase>")
                    return
                }
                guard ns == TCXReader.namespace else {
                    fail(ns.isEmpty ? "<TrainingCenterDatabase> has no namespace: not TCX v2 (xmlns=\"\(TCXReader.namespace)\")"
                                    : "<TrainingCenterDatabase> is in namespace \(ns), not TCX v2's (\(TCXReader.namespace))")
                    return
                }
                rooted = true
                stack.append(name)
                return
            }
            guard stack.count + foreignDepth < GPXReader.maximumDepth else {
                fail("elements nested more than \(GPXReader.maximumDepth) deep: not a TCX file")
                return
            }
            capturing = false
            // Speed sits in Garmin's extension, in its own namespace.
            if ns != TCXReader.namespace {
                foreignDepth += 1
                if name == "Speed", current != nil { startText() }
                return
            }
            guard foreignDepth == 0 else {
                foreignDepth += 1
                return
            }
            let parent = stack.last
            stack.append(name)
            switch name {
            case "Activity": document.activities += 1
            case "Lap":
                document.laps += 1
                tracksInLap = 0
            case "Track":
                tracksInLap += 1
                trackStarted = true
            case "Trackpoint":
                current = (nil, nil, nil, nil, nil, nil, nil, lineNumber)
            case "Time", "LatitudeDegrees", "LongitudeDegrees", "AltitudeMeters":
                if current != nil { startText() }
            case "DistanceMeters":
                if current != nil, parent == "Trackpoint" { startText() }
            case "Value":
                if current != nil, parent == "HeartRateBpm" { startText() }
            case "Name":
                if parent == "Course" { startText() }
            default:
                break
            }
        }

        func startText() {
            text.removeAll(keepingCapacity: true)
            capturing = true
        }

        override func foundCharacters(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard capturing else { return }
            guard text.count + bytes.count <= TCXReader.maximumText else {
                fail("a field longer than \(TCXReader.maximumText) characters: not a TCX value")
                return
            }
            text.append(contentsOf: bytes)
        }

        override func foundCDATA(_ bytes: UnsafeBufferPointer<UInt8>) {
            foundCharacters(bytes)
        }

        override func didEndElement() {
            guard error == nil, pointError == nil else { return }
            if foreignDepth > 0 {
                foreignDepth -= 1
                if capturing {
                    capturing = false
                    if let v = number("Speed", min: 0, max: 1000) { current?.speed = v }
                }
                return
            }
            guard let name = stack.popLast() else { return }
            let wasCapturing = capturing
            capturing = false
            if wasCapturing {
                switch name {
                case "Time":
                    let value = trimmed()
                    guard let time = value.withUnsafeBufferPointer({ GPXReader.parseTime(bytes: $0) }) else {
                        fail("<Time> \"\(String(decoding: value, as: UTF8.self))\" is not an ISO 8601 date and time (like 2024-05-01T07:30:00Z)")
                        return
                    }
                    current?.time = time
                case "LatitudeDegrees": current?.lat = number(name, min: -90, max: 90)
                case "LongitudeDegrees": current?.lon = number(name, min: -180, max: 180)
                case "AltitudeMeters": current?.altitude = number(name, min: -100_000, max: 100_000)
                case "DistanceMeters": current?.distance = number(name, min: 0, max: 1e9)
                case "Value":
                    if let bpm = number("HeartRateBpm", min: 0, max: 255.4) {
                        let rate = Int(bpm.rounded())
                        current?.heartRate = rate > 0 ? rate : nil
                    }
                case "Name": document.name = String(String(decoding: trimmed(), as: UTF8.self).prefix(GPXReader.maximumNameLength))
                default: break
                }
                return
            }
            guard name == "Trackpoint", let c = current else { return }
            current = nil
            guard error == nil else { return }
            guard let time = c.time, let lat = c.lat, let lon = c.lon else {
                document.pointsWithoutPosition += 1
                return
            }
            document.pointCount += 1
            let starts = trackStarted && tracksInLap > 1
            trackStarted = false
            do {
                try point(TCXPoint(time: time, position: GeoPoint(latitude: lat, longitude: lon), altitude: c.altitude,
                                   distance: c.distance, speed: c.speed, heartRate: c.heartRate, startsTrack: starts,
                                   line: c.line))
            } catch {
                pointError = error
                if let context { pacer_xml_stop(xml.functions, context) }
            }
        }

        private func trimmed() -> [UInt8] {
            text.withUnsafeBufferPointer { Array($0[GPXReader.trimmed($0, newlines: true)]) }
        }

        /// The captured text as a number in `min...max`, or the file refused naming the field.
        private func number(_ field: String, min: Double, max: Double) -> Double? {
            let value = trimmed()
            guard let v = value.withUnsafeBufferPointer({ GPXReader.parseNumber(bytes: $0) }), v >= min, v <= max else {
                fail("<\(field)> \"\(String(decoding: value.prefix(80), as: UTF8.self))\" is not a number from \(min.formatted()) to \(max.formatted())")
                return nil
            }
            return v
        }

        override func parseErrorOccurred(_ code: Int) {
            if xmlError == nil, error == nil {
                xmlError = (code, lineNumber)
                if let context { pacer_xml_stop(xml.functions, context) }
            }
        }
    }
}

extension Double {
    /// `90`, `-180`, `1000000000`, `255.4`: a bound as a message writes it.
    fileprivate func formatted() -> String {
        self == rounded() && abs(self) < 1e15 ? String(Int64(self)) : String(self)
    }
}
