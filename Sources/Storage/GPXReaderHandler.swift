internal import CLibXML2
import Foundation
import PacerCore

/// The SAX handler `GPXReader` gives libxml2's parser: it follows the open elements, builds
/// the `GPXDocument`, hands each point to the caller as it closes, and keeps the first error.
extension GPXReader {
    final class Handler: SAXHandler {
        let file: String
        var error: GPXError?
        /// The first error the XML parser reported (later ones follow from it).
        var xmlError: (code: Int, line: Int)?
        var document: GPXDocument?
        var namespace = ""
        /// `namespace` as a C string, compared with each element's.
        var namespaceBytes: [UInt8] = [0]

        /// Open elements: local name, whether in the GPX namespace, line.
        var stack: [(name: String, gpx: Bool, line: Int)] = []
        /// How many elements on `stack` are not GPX's (extensions, foreign namespaces): counted
        /// as they open and close, so that no element looks down the whole stack (a file nested
        /// a million deep took minutes, quadratically).
        var foreignOpen = 0
        /// The text of the element being read, as the parser's UTF-8 bytes: trimmed and parsed
        /// as bytes, made a String only for a name, a description or a type.
        var text: [UInt8] = []
        var capturing = false
        var point: ImportedPoint?
        var route: GPXRoute?
        var track: GPXTrack?
        var segment: [ImportedPoint]?
        unowned let input: Input
        /// Where route and track points go as they are read; nil to keep them in the document.
        let points: ((ImportedPoint, GPXPlace) throws -> Void)?
        /// What `points` threw; the reading stopped there.
        var pointsError: (any Error)?

        init(file: String, input: Input, xml: LibXML2, points: ((ImportedPoint, GPXPlace) throws -> Void)?) {
            self.file = file
            self.input = input
            self.points = points
            super.init(xml: xml)
        }

        /// Hands a point to `points`, or says whether to keep it in the document.
        func handOver(_ point: ImportedPoint, _ place: GPXPlace) -> Bool {
            guard let points else { return true }
            do {
                try points(point, place)
            } catch {
                if pointsError == nil, self.error == nil {
                    pointsError = error
                    abortParsing()
                }
            }
            return false
        }

        func fail(_ reason: String, line: Int? = nil) {
            // A well-formedness error reported first is the real problem (libxml2 recovers
            // and goes on, e.g. with an unquoted attribute dropped).
            guard error == nil, xmlError == nil else { return }
            error = GPXError(file: file, line: line ?? lineNumber, reason: reason)
            abortParsing()
        }

        /// The line the parser is at (0 before it starts).
        var lineNumber: Int {
            Int(pacer_xml_line(context))
        }

        func abortParsing() {
            if let context { pacer_xml_stop(xml.functions, context) }
        }

        /// An element starts: its local name, prefix and namespace as libxml2 gives them.
        override func didStartElement(_ localName: UnsafePointer<UInt8>, prefix: UnsafePointer<UInt8>?,
                             namespaceURI uri: UnsafePointer<UInt8>?, attributes: SAXAttributes) {
            guard error == nil, pointsError == nil else { return }
            let line = lineNumber
            let elementName = String(cString: localName)
            guard document != nil else {
                let namespaceURI = uri.map { String(cString: $0) }
                let qName = prefix.map { String(cString: $0) + ":" + elementName }
                input.scanning = false
                if let declaration = input.entityDeclarationLine, declaration <= line {
                    fail("the file declares entities (<!ENTITY ...>) in a DTD: GPX needs none, and they are not "
                         + "expanded here, so the file is refused rather than imported with their text missing",
                         line: declaration)
                    return
                }
                // The root element decides whether this is GPX at all.
                let ns = namespaceURI ?? ""
                guard elementName == "gpx", let version = GPXReader.namespaces[ns] else {
                    let shown = qName ?? elementName
                    if elementName == "gpx" {
                        fail(ns.isEmpty
                             ? "<gpx> has no namespace: not GPX 1.1 (xmlns=\"http://www.topografix.com/GPX/1/1\") or 1.0"
                             : "<gpx> is in namespace \(ns), not GPX 1.1 or 1.0", line: line)
                    } else {
                        fail("not a GPX file: the root element is <\(shown)>, not <gpx>", line: line)
                    }
                    return
                }
                // The schema fixes version="1.1" (GPX 1.0's, "1.0"); a file that says another, or
                // none, or contradicts its namespace, was not written to either schema.
                guard let stated = attributes.string("version") else {
                    fail("<gpx> has no version attribute: GPX \(version) files say version=\"\(version)\"", line: line)
                    return
                }
                guard stated == version else {
                    fail(GPXReader.namespaces.values.contains(stated)
                         ? "<gpx> version=\"\(stated)\" but its namespace is GPX \(version)'s (\(ns)): which is it?"
                         : "<gpx> version=\"\(stated)\" is not a GPX version this reads (1.1 or 1.0)", line: line)
                    return
                }
                namespace = ns
                namespaceBytes = Array(ns.utf8) + [0]
                self.document = GPXDocument(version: version, line: line)
                stack.append((elementName, true, line))
                return
            }
            let inGPX = uri.map { GPXReader.same($0, namespaceBytes) } ?? false
            guard stack.count < GPXReader.maximumDepth else {
                fail("elements nested more than \(GPXReader.maximumDepth) deep: no GPX needs that many "
                     + "(a point is four deep, its extensions a few more)", line: line)
                return
            }
            let parent = stack.last
            let insideForeign = foreignOpen > 0
            stack.append((elementName, inGPX, line))
            if !inGPX { foreignOpen += 1 }
            if !inGPX || insideForeign {
                // Extensions: a point's speed, and its heart rate in Garmin's TrackPointExtension
                // (v1 or v2, whatever the prefix: `gpxtpx:`, Strava's `ns3:`), are read; a heart
                // rate in another namespace, and a cadence, are counted.
                if elementName == "speed", point != nil { startText() }
                if elementName == "hr", point != nil {
                    document?.heartRateCount += 1
                    if let uri, GPXReader.heartRateNamespaces.contains(where: { GPXReader.same(uri, $0) }) { startText() }
                }
                if elementName == "cad", point != nil { document?.cadenceCount += 1 }
                return
            }
            switch elementName {
            case "wpt", "rtept", "trkpt":
                guard let p = readPoint(elementName, attributes, line: line) else { return }
                point = p
            case "rte":
                route = GPXRoute(name: nil, points: [])
            case "trk":
                track = GPXTrack(name: nil, segments: [])
            case "trkseg":
                segment = []
            case "name", "desc", "type", "time", "ele", "speed":
                if point != nil || parent?.name == "metadata" || parent?.name == "gpx"
                    || parent?.name == "rte" || parent?.name == "trk" {
                    startText()
                }
            default:
                break
            }
        }

        func startText() {
            text.removeAll(keepingCapacity: true)
            capturing = true
        }

        func readPoint(_ tag: String, _ attributes: SAXAttributes, line: Int) -> ImportedPoint? {
            func coordinate(_ key: StaticString, limit: Double) -> Double? {
                guard let bytes = attributes.value(key) else {
                    fail("<\(tag)> without \(key)", line: line)
                    return nil
                }
                var raw: String { String(decoding: bytes, as: UTF8.self) }
                guard let value = GPXReader.parseNumber(bytes: UnsafeBufferPointer(rebasing: bytes[GPXReader.trimmed(bytes, newlines: false)]))
                else {
                    fail("<\(tag)> \(key)=\"\(raw)\" is not a number", line: line)
                    return nil
                }
                guard abs(value) <= limit else {
                    fail("<\(tag)> \(key)=\"\(raw)\" is out of range (-\(Int(limit)) to \(Int(limit)) degrees)", line: line)
                    return nil
                }
                return value
            }
            guard let lat = coordinate("lat", limit: 90), let lon = coordinate("lon", limit: 180) else { return nil }
            return ImportedPoint(position: GeoPoint(latitude: lat, longitude: lon), line: line)
        }

        override func foundCharacters(_ bytes: UnsafeBufferPointer<UInt8>) {
            if capturing { text.append(contentsOf: bytes) }
        }

        override func foundCDATA(_ bytes: UnsafeBufferPointer<UInt8>) {
            // As a String first, as XMLParser's delegate did: bytes that are not UTF-8 become U+FFFD.
            if capturing { text.append(contentsOf: String(decoding: bytes, as: UTF8.self).utf8) }
        }

        /// An element ends (the open elements' stack says which).
        override func didEndElement() {
            guard error == nil, pointsError == nil, let (name, inGPX, line) = stack.popLast() else { return }
            if !inGPX { foreignOpen -= 1 }
            let parent = stack.last?.name
            let wasCapturing = capturing
            capturing = false
            guard wasCapturing else {
                ended(name, inGPX: inGPX)
                return
            }
            text.withUnsafeBufferPointer { all in
                let value = UnsafeBufferPointer(rebasing: all[GPXReader.trimmed(all, newlines: true)])
                endedText(name, inGPX: inGPX, parent: parent, value: value, line: line)
            }
        }

        /// The end of an element whose text was read: a name, a time, a number.
        func endedText(_ name: String, inGPX: Bool, parent: String?, value bytes: UnsafeBufferPointer<UInt8>, line: Int) {
            var value: String { String(decoding: bytes, as: UTF8.self) }
            if !inGPX || foreignOpen > 0 {
                if name == "speed", point != nil { setSpeed(bytes, line: line) }
                if name == "hr", point != nil { setHeartRate(bytes, line: line) }
                return
            }
            switch name {
            case "name", "desc", "type":
                // Names are said aloud and shown on the page: kept to what a person reads.
                let limit = name == "desc" ? GPXReader.maximumDescriptionLength : GPXReader.maximumNameLength
                let value = value.count > limit ? String(value.prefix(limit)) : value
                if point != nil {
                    if name == "name" { point?.name = value }
                    if name == "desc" { point?.description = value }
                    if name == "type" { point?.type = value }
                } else if name == "name" {
                    switch parent {
                    case "metadata", "gpx": document?.name = value
                    case "rte": route?.name = value
                    case "trk": track?.name = value
                    default: break
                    }
                }
            case "time":
                guard let time = GPXReader.parseTime(bytes: bytes) else {
                    fail("<time> \"\(value)\" is not an ISO 8601 UTC date and time (like 2024-05-01T07:30:00Z)", line: line)
                    return
                }
                if point != nil {
                    point?.time = time
                } else if parent == "metadata" || parent == "gpx" {
                    document?.time = time
                }
            case "ele":
                guard point != nil else { return }
                guard let ele = GPXReader.parseNumber(bytes: bytes) else {
                    fail("<ele> \"\(value)\" is not a number", line: line)
                    return
                }
                point?.altitude = ele
            case "speed":
                if point != nil { setSpeed(bytes, line: line) }
            default:
                ended(name, inGPX: inGPX)
            }
        }

        /// The end of an element whose text was not read: a point, a route, a track.
        func ended(_ name: String, inGPX: Bool) {
            if !inGPX || foreignOpen > 0 { return }
            switch name {
            case "wpt":
                if let point { document?.waypoints.append(point) }
                point = nil
            case "rtept":
                if let point, route != nil, let index = document?.routes.count {
                    document?.routePointCount += 1
                    if handOver(point, .route(index)) { route?.points.append(point) }
                }
                point = nil
            case "trkpt":
                if let point, segment != nil, let index = document?.tracks.count, let segmentIndex = track?.segments.count {
                    document?.trackPointCount += 1
                    if handOver(point, .track(index, segment: segmentIndex)) { segment?.append(point) }
                }
                point = nil
            case "rte":
                if let route { document?.routes.append(route) }
                route = nil
            case "trkseg":
                if let segment { track?.segments.append(segment) }
                segment = nil
            case "trk":
                if let track { document?.tracks.append(track) }
                track = nil
            default:
                break
            }
        }

        func setSpeed(_ value: UnsafeBufferPointer<UInt8>, line: Int) {
            guard let speed = GPXReader.parseNumber(bytes: value), speed >= 0 else {
                fail("<speed> \"\(String(decoding: value, as: UTF8.self))\" is not a speed (metres per second)", line: line)
                return
            }
            point?.speed = speed
        }

        /// A point's heart rate: a number of beats per minute, 0 to 255 (a decimal is
        /// rounded); 0, a strap off the skin, is no heart rate. Anything else refuses the file,
        /// as a bad speed does: the file is not what it says.
        func setHeartRate(_ value: UnsafeBufferPointer<UInt8>, line: Int) {
            guard let bpm = GPXReader.parseNumber(bytes: value), (0...255.4).contains(bpm) else {
                fail("<hr> \"\(String(decoding: value, as: UTF8.self))\" is not a heart rate (beats per minute, 0 to 255)",
                     line: line)
                return
            }
            let rate = Int(bpm.rounded())
            point?.heartRate = rate > 0 ? rate : nil
            if rate > 0 { document?.heartRatesRead += 1 }
        }

        /// libxml2 reports an error (or a warning): its code (`xmlParserErrors`).
        override func parseErrorOccurred(_ code: Int) {
            if xmlError == nil, error == nil {
                xmlError = (code, lineNumber)
                abortParsing()
            }
        }
    }
}
