import Coaching
import Foundation
import PacerCore
import Storage
import TestSupport
import Testing

/// A GPX 1.1 document: line 1 the XML declaration, line 2 `<gpx>`, the body from line 3.
func gpxDocument(_ body: String, namespace: String = "http://www.topografix.com/GPX/1/1",
                 version: String = "1.1") -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <gpx version="\(version)" creator="test" xmlns="\(namespace)">
    \(body)
    </gpx>

    """
}

@Suite("GPX export")
struct GPXExportTests {
    /// A path that is not a regular file (a device, a link, a FIFO) is written through and
    /// stays what it was: exporting to /dev/null once replaced /dev/null with a file.
    @Test func aDeviceOrALinkIsWrittenThroughNeverReplaced() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        let id = try SampleActivity().record(into: store)
        try store.gpx.exportGPX(activity: id, to: "/dev/null")
        var info = stat()
        #expect(lstat("/dev/null", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)
        let target = "\(dir)/target.gpx", link = "\(dir)/link.gpx"
        #expect(FileManager.default.createFile(atPath: target, contents: nil))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        try store.gpx.exportGPX(activity: id, to: link)
        #expect(lstat(link, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
        try validateGPX(target)
    }

    @Test func exportedActivityIsValidGPX11() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        let id = try SampleActivity().record(into: store)
        let path = "\(dir)/tempo.gpx"
        try store.gpx.exportGPX(activity: id, to: path)
        try validateGPX(path)

        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.components(separatedBy: "<trkseg>").count == 3)
        #expect(text.components(separatedBy: "<trkpt ").count == 36)
        #expect(text.components(separatedBy: "<wpt ").count == 3)
        #expect(text.contains("<name>Tempo &lt;Tuesday&gt; &amp; co</name>"))
        #expect(text.contains("<time>2024-05-01T08:00:00.000Z</time>"))
        #expect(text.contains("<name>Fountain &quot;north&quot;</name>"))
        #expect(text.contains(#"<trkpt lat="45.1" lon="6.2"><ele>200.0</ele><time>2024-05-01T08:00:00.000Z</time>"#
                              + "<extensions><gpxtpx:TrackPointExtension><gpxtpx:speed>3.25</gpxtpx:speed>"
                              + "</gpxtpx:TrackPointExtension></extensions></trkpt>"))
        // No half-written temporary file is left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".tmp") }.isEmpty)
    }

    @Test func exportWithOnlyWhatTheRunnerChoseIsValid() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        let id = try SampleActivity().record(into: store)
        let path = "\(dir)/shared.gpx"
        try store.gpx.exportGPX(activity: id, to: path,
                            options: GPXExportOptions(times: false, speeds: false, elevations: true, waypoints: false))
        try validateGPX(path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains("<time>"))
        #expect(!text.contains("speed"))
        #expect(!text.contains("<wpt"))
        #expect(text.contains("<ele>"))
    }

    @Test func activityWithoutPointsExportsValidGPX() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        let id = try store.activities.begin(SampleActivity().start)
        try store.activities.finish(id, end: .stopped, endedAt: nil, activeTime: .zero)
        let path = "\(dir)/empty.gpx"
        try store.gpx.exportGPX(activity: id, to: path)
        try validateGPX(path)
    }

    @Test func exportedRouteIsValidGPX11() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        let source = try write(gpxDocument("""
            <wpt lat="45.2" lon="6.1"><ele>300</ele><name>Col</name><desc>the top</desc></wpt>
            <rte><name>Loop</name>
            <rtept lat="45.1" lon="6.1"><ele>200</ele></rtept>
            <rtept lat="45.2" lon="6.1"><ele>300</ele></rtept>
            </rte>
            """), to: "loop.gpx", in: dir)
        let route = try store.gpx.importGPX(file: source, as: .route)
        let path = "\(dir)/out.gpx"
        try store.gpx.exportGPX(route: route.id, to: path)
        try validateGPX(path)
        let again = try store.gpx.importGPX(file: path, as: .route)
        #expect(try store.routes.route(again.id).points == store.routes.route(route.id).points)
        #expect(try store.routes.route(again.id).waypoints == store.routes.route(route.id).waypoints)
    }

    @Test func writerKeepsTheSchemasOrder() throws {
        var writer = GPXWriter(creator: "t")
        writer.waypoint(GeoPoint(latitude: 1, longitude: 2), name: "a")
        writer.beginRoute(name: "r")
        writer.routePoint(GeoPoint(latitude: 1, longitude: 2))
        writer.append(Fix(time: t0, position: GeoPoint(latitude: 1.5, longitude: 2), altitude: 3, speed: 1, hdop: 0.9))
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = "\(dir)/w.gpx"
        try Data(writer.finish()).write(to: URL(fileURLWithPath: path))
        try validateGPX(path)
    }

    @Test func exportToAFolderThatDoesNotExistIsSaidClearly() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        let id = try SampleActivity().record(into: store)
        #expect(throws: StorageError.self) { try store.gpx.exportGPX(activity: id, to: "\(dir)/no/such/folder/x.gpx") }
        #expect(throws: StorageError.unknownActivity(77)) { try store.gpx.exportGPX(activity: 77, to: "\(dir)/x.gpx") }
    }
}

@Suite("GPX import")
struct GPXImportTests {
    @Test func exportThenImportGivesTheSamePoints() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        let sample = SampleActivity()
        let id = try sample.record(into: store)
        let path = "\(dir)/tempo.gpx"
        try store.gpx.exportGPX(activity: id, to: path)

        // Issue 39, item 14: the store has this run already (the same start, the same
        // distance): refused, naming it, and nothing stored, unless imported `again`.
        #expect(throws: StorageError.alreadyImported(path: path, activity: id, started: t0,
                                                     distance: try store.activities.activity(id).summary.distance)) {
            try store.gpx.importGPX(file: path, as: .activity)
        }
        #expect(try store.activities.activities().count == 1)
        let result = try store.gpx.importGPX(file: path, as: .activity, again: true)
        #expect(result.kind == .activity)
        #expect(result.pointCount == 35)
        #expect(result.waypointCount == 2)
        let imported = try store.activities.activity(result.id)
        #expect(imported.points == sample.points)
        #expect(imported.waypoints == sample.waypoints)
        #expect(imported.summary.name == sample.start.name)
        #expect(imported.summary.state == .completed)
        #expect(imported.summary.source == path)
        #expect(imported.summary.startedAt == t0)
        #expect(imported.summary.endedAt == sample.points.last?.time)
        #expect(imported.summary.activeTime == .seconds(19 + 14))
        #expect(try imported.statistics == store.activities.activity(id).statistics)
        #expect(imported.cues.isEmpty)
        #expect(imported.phaseResults.isEmpty)
    }

    @Test func importAsRouteListsItsNumbers() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        // 1 km north in ten 100 m steps, climbing 50 m then dropping 100 m.
        var points = ""
        for i in 0...10 {
            let lat = 45 + Double(i) * 100 / metresPerDegree
            let ele = i <= 5 ? 200 + i * 10 : 250 - (i - 5) * 20
            points += "<trkpt lat=\"\(lat)\" lon=\"6\"><ele>\(ele)</ele><time>2024-05-01T08:\(i < 10 ? "0" : "")\(i):00Z</time></trkpt>\n"
        }
        let path = try write(gpxDocument("""
            <metadata><name>Hill &amp; dale</name></metadata>
            <wpt lat="45.0045" lon="6"><ele>250</ele><name>Top</name></wpt>
            <trk><name>ignored: the metadata name wins</name><trkseg>
            \(points)</trkseg></trk>
            """), to: "hill.gpx", in: dir)
        let result = try store.gpx.importGPX(file: path, as: .route)
        #expect(result.kind == .route)
        #expect(result.name == "Hill & dale")
        let route = try #require(try store.routes.routes().first)
        #expect(route.name == "Hill & dale")
        #expect(abs(route.distance - 1000) < 0.5)
        // The points have times, so the altitudes are a receiver's: smoothed over 180 s (here
        // each with its neighbours a minute away), 200-250-150 m becomes 205-240-160 m.
        #expect(route.elevationGain == 35)
        #expect(route.elevationLoss == 80)
        #expect(route.minimumElevation == 160)
        #expect(route.maximumElevation == 240)
        #expect(route.duration == .seconds(600))
        #expect(route.pointCount == 11)
        #expect(route.waypointCount == 1)
        #expect(route.start == GeoPoint(latitude: 45, longitude: 6))
        let here = GeoPoint(latitude: 45 - 2000 / metresPerDegree, longitude: 6)
        #expect(abs((route.distanceToStart(from: here) ?? 0) - 2000) < 0.5)
        let detail = try store.routes.route(result.id)
        #expect(detail.waypoints.map(\.name) == ["Top"])
        #expect(detail.statistics.elevationProfile.count == 50)
        let lines = ActivityReport.routes([route], from: here)
        #expect(lines[1].hasPrefix("   1  Hill & dale                  1.00  00:10:00      35      80     160     240      11     1"))
        #expect(lines[1].hasSuffix("2.00"))
        #expect(try store.activities.activities().isEmpty)
    }

    @Test func gpx10RouteWithSpeedsImports() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        let path = try write(gpxDocument("""
            <name>Old file</name>
            <time>2004-06-01T10:00:00Z</time>
            <trk><trkseg>
            <trkpt lat="45.0" lon="6.0"><ele>100</ele><time>2004-06-01T10:00:00Z</time><speed>2.5</speed></trkpt>
            <trkpt lat="45.001" lon="6.0"><ele>101</ele><time>2004-06-01T10:00:40+00:00</time><speed>2.75</speed></trkpt>
            </trkseg></trk>
            """, namespace: "http://www.topografix.com/GPX/1/0", version: "1.0"), to: "old.gpx", in: dir)
        let result = try store.gpx.importGPX(file: path, as: .activity)
        let activity = try store.activities.activity(result.id)
        #expect(activity.summary.name == "Old file")
        #expect(activity.points.map(\.speed) == [2.5, 2.75])
        #expect(activity.points.last?.time == UTCTimestamp(millisecondsSince1970: 1_086_084_040_000))
    }

    @Test func routeFileImportedAsActivityIsRefusedWithAReason() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        let path = try write(gpxDocument("""
            <rte><rtept lat="45" lon="6"/><rtept lat="45.1" lon="6"/></rte>
            """), to: "route.gpx", in: dir)
        #expect(throws: GPXError(file: path, line: 2,
                                 reason: "no track (<trk>) points: the file holds a route; import it as a route")) {
            try store.gpx.importGPX(file: path, as: .activity)
        }
        #expect(try store.gpx.importGPX(file: path, as: .route).pointCount == 2)
    }

    /// Only a DTD's entity declarations are refused: the five XML defines need none, and
    /// "<!ENTITY" in the document's text (a comment here) declares nothing.
    @Test func xmlsOwnEntitiesAndTheWordsInACommentAreRead() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        let path = try write(gpxDocument("""
            <!-- no <!ENTITY here -->
            <metadata><name>Hill &amp; dale &lt;3 &#x263A;</name></metadata>
            <rte><rtept lat="45" lon="6"/><rtept lat="45.001" lon="6"/></rte>
            """), to: "hill.gpx", in: dir)
        #expect(try store.gpx.importGPX(file: path, as: .route).name == "Hill & dale <3 \u{263A}")
    }

    @Test func parsesTimes() {
        func t(_ s: String) -> Int64? { GPXReader.parseTime(Substring(s))?.millisecondsSince1970 }
        #expect(t("2024-05-01T08:00:00Z") == 1_714_550_400_000)
        #expect(t("2024-05-01T08:00:00.5Z") == 1_714_550_400_500)
        #expect(t("2024-05-01T08:00:00.123456Z") == 1_714_550_400_123)
        #expect(t("2024-05-01T10:00:00+02:00") == 1_714_550_400_000)
        #expect(t("2024-05-01T03:30:00-04:30") == 1_714_550_400_000)
        #expect(t("2024-05-01T08:00:00") == 1_714_550_400_000)
        for bad in ["", "yesterday", "2024-05-01", "2024-13-01T00:00:00Z", "2023-02-29T00:00:00Z", "2024-05-01T24:00:00Z",
                    "2024-05-01T08:00:60Z", "2024-05-01T08:00:00.Z", "2024-05-01T08:00:00ZZ", "2024-05-01 08:00:00Z",
                    "2024-05-01T08:00:00+2"] {
            #expect(t(bad) == nil, "\(bad)")
        }
    }

    @Test func parsesNumbersStrictly() {
        #expect(GPXReader.parseNumber("-12.5") == -12.5)
        #expect(GPXReader.parseNumber("+3") == 3)
        #expect(GPXReader.parseNumber(".5") == 0.5)
        for bad in ["", "nan", "inf", "0x10", "1,5", "12 m", "1e999"] {
            #expect(GPXReader.parseNumber(Substring(bad)) == nil, "\(bad)")
        }
    }
}

/// Broken files are refused with the file, the line and the reason, and store nothing (R19, R25).
@Suite("GPX import refusals")
struct GPXRefusalTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var content: String
        var kind: ImportKind = .route
        var line: Int?
        var reason: String
        var testDescription: String { name }
    }

    static let trackPoint = #"<trk><trkseg><trkpt lat="45" lon="6"><time>2024-05-01T08:00:00Z</time></trkpt>"#

    static let cases: [Case] = [
        Case(name: "empty file", content: "", line: nil, reason: "the file is empty: not a GPX file"),
        Case(name: "blank file", content: "  \n\n", line: nil, reason: "the file is empty: not a GPX file"),
        Case(name: "not XML", content: "lat,lon\n45,6\n", line: 1, reason: "not well-formed XML: no XML document: the file is not XML"),
        Case(name: "binary", content: "\u{1}\u{2}PNG\u{0}", line: 1, reason: "not well-formed XML: no XML document: the file is not XML"),
        Case(name: "not GPX",
             content: "<?xml version=\"1.0\"?>\n<kml xmlns=\"http://www.opengis.net/kml/2.2\"><Document/></kml>\n",
             line: 2, reason: "not a GPX file: the root element is <kml>, not <gpx>"),
        Case(name: "gpx without namespace", content: "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"x\">\n</gpx>\n",
             line: 2, reason: "<gpx> has no namespace"),
        Case(name: "gpx in another namespace", content: gpxDocument("", namespace: "http://example.com/gpx"),
             line: 2, reason: "<gpx> is in namespace http://example.com/gpx, not GPX 1.1 or 1.0"),
        // Issue 14: a version no schema has, or none, or one its namespace contradicts.
        Case(name: "version 2.0", content: gpxDocument("<rte><rtept lat=\"45\" lon=\"6\"/></rte>", version: "2.0"),
             line: 2, reason: "<gpx> version=\"2.0\" is not a GPX version this reads (1.1 or 1.0)"),
        Case(name: "no version",
             content: "<?xml version=\"1.0\"?>\n<gpx creator=\"x\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n</gpx>\n",
             line: 2, reason: "<gpx> has no version attribute: GPX 1.1 files say version=\"1.1\""),
        Case(name: "version 1.0 in the 1.1 namespace", content: gpxDocument("", version: "1.0"),
             line: 2, reason: "<gpx> version=\"1.0\" but its namespace is GPX 1.1's"),
        // Issue 14: the entity's text was dropped without a word ("Run at  today").
        Case(name: "entities declared in a DTD", content: """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE gpx [
              <!ENTITY place "the fjord">
            ]>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
            <metadata><name>Run at &place; today</name></metadata>
            <rte><rtept lat="45" lon="6"/></rte>
            </gpx>

            """, line: 3, reason: "the file declares entities (<!ENTITY ...>) in a DTD: GPX needs none"),
        Case(name: "missing lat", content: gpxDocument("<wpt lon=\"6\"><name>x</name></wpt>"),
             line: 3, reason: "<wpt> without lat"),
        Case(name: "missing lon", content: gpxDocument("<trk><trkseg>\n<trkpt lat=\"45\"></trkpt></trkseg></trk>"),
             line: 4, reason: "<trkpt> without lon"),
        Case(name: "lat 95", content: gpxDocument("<rte>\n\n<rtept lat=\"95\" lon=\"6\"/></rte>"),
             line: 5, reason: "<rtept> lat=\"95\" is out of range (-90 to 90 degrees)"),
        Case(name: "lon 200", content: gpxDocument("<rte><rtept lat=\"45\" lon=\"-200.5\"/></rte>"),
             line: 3, reason: "<rtept> lon=\"-200.5\" is out of range (-180 to 180 degrees)"),
        Case(name: "lat not a number", content: gpxDocument("<rte><rtept lat=\"north\" lon=\"6\"/></rte>"),
             line: 3, reason: "<rtept> lat=\"north\" is not a number"),
        Case(name: "bad time", content: gpxDocument(trackPoint + "\n<trkpt lat=\"45\" lon=\"6\">\n<time>yesterday</time></trkpt></trkseg></trk>"),
             line: 5, reason: "<time> \"yesterday\" is not an ISO 8601 UTC date and time (like 2024-05-01T07:30:00Z)"),
        Case(name: "impossible date", content: gpxDocument("<metadata><time>2024-02-30T00:00:00Z</time></metadata>"),
             line: 3, reason: "<time> \"2024-02-30T00:00:00Z\" is not an ISO 8601 UTC date and time (like 2024-05-01T07:30:00Z)"),
        Case(name: "bad elevation", content: gpxDocument("<wpt lat=\"45\" lon=\"6\"><ele>high</ele></wpt>"),
             line: 3, reason: "<ele> \"high\" is not a number"),
        Case(name: "truncated",
             content: String(gpxDocument(trackPoint + "\n<trkpt lat=\"45.1\" lon=\"6\"><time>2024-05-01T08:00:09Z</time></trkpt>\n</trkseg></trk>").prefix(240)),
             line: 4, reason: "not well-formed XML: the file ends before <time> is closed (truncated?)"),
        Case(name: "mismatched tags", content: gpxDocument("<trk><trkseg></trk>"),
             line: 3, reason: "not well-formed XML: an element is closed by the wrong end tag"),
        Case(name: "bare ampersand", content: gpxDocument("<metadata><name>Hill & dale</name></metadata>"),
             line: 3, reason: "not well-formed XML: a bad entity reference (a bare '&'?)"),
        Case(name: "unquoted attribute", content: gpxDocument("<wpt lat=45 lon=6/>"),
             line: 3, reason: "not well-formed XML: a badly written attribute (values need quotes)"),
        Case(name: "content after the end", content: gpxDocument("") + "<gpx/>\n",
             line: 5, reason: "not well-formed XML: there is content after the end of the document"),
        Case(name: "nothing to import", content: gpxDocument("<metadata><name>Empty</name></metadata>"),
             line: 2, reason: "no route (<rte>) or track (<trk>) points to import"),
        Case(name: "activity without times",
             content: gpxDocument("<trk><trkseg>\n<trkpt lat=\"45\" lon=\"6\"/></trkseg></trk>"), kind: .activity,
             line: 4, reason: "<trkpt> without <time>: an activity needs a time at every point (import the file as a route)"),
        Case(name: "activity going back in time",
             content: gpxDocument(trackPoint + "\n<trkpt lat=\"45\" lon=\"6\"><time>2024-05-01T07:59:00Z</time></trkpt></trkseg></trk>"),
             kind: .activity, line: 4,
             reason: "<trkpt> time 2024-05-01T07:59:00.000Z is before the previous point's 2024-05-01T08:00:00.000Z"),
    ]

    @Test(arguments: cases)
    func refusedAsBroken(_ c: Case) throws {
        try refused(c)
    }

    /// Imports `c` into a store holding something already, expects its error, and checks
    /// that the store is exactly as it was.
    func refused(_ c: Case) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        // Something already stored, to see that it stays exactly as it was.
        _ = try SampleActivity().record(into: store)
        let good = try write(gpxDocument("<rte><rtept lat=\"45\" lon=\"6\"/><rtept lat=\"45.001\" lon=\"6\"/></rte>"), to: "good.gpx", in: dir)
        _ = try store.gpx.importGPX(file: good, as: .route)
        let before = try store.database.rowCounts()

        let path = try write(c.content, to: "broken.gpx", in: dir)
        #expect {
            _ = try store.gpx.importGPX(file: path, as: c.kind)
        } throws: { error in
            guard let error = error as? GPXError else {
                Issue.record("not a GPXError: \(error)")
                return false
            }
            #expect(error.file == path)
            #expect(error.line == c.line, "\(error)")
            #expect(error.reason.hasPrefix(c.reason), "\(error)")
            return true
        }
        #expect(try store.database.rowCounts() == before)
    }

    @Test func aMissingFileIsSaidClearly() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        #expect(throws: GPXError(file: "\(dir)/nope.gpx", line: nil, reason: "no such file")) {
            try store.gpx.importGPX(file: "\(dir)/nope.gpx", as: .route)
        }
        #expect(throws: GPXError(file: dir, line: nil, reason: "is a folder, not a GPX file")) {
            try store.gpx.importGPX(file: dir, as: .route)
        }
    }

    @Test func errorDescriptionNamesFileAndLine() {
        #expect(GPXError(file: "a.gpx", line: 7, reason: "bad").description == "a.gpx:7: bad")
        #expect(GPXError(file: "a.gpx", line: nil, reason: "bad").description == "a.gpx: bad")
    }
}

/// Inputs the fuzzer found (`scripts/fuzz.sh gpx`), each refused with a reason instead of
/// crashing the program.
@Suite("GPX fuzzing findings")
struct GPXFuzzFindingTests {
    /// A declaration of UTF-7 with a NUL byte after it made libxml2 (under Foundation's
    /// parser) dereference a null pointer: `pacer activities import` died of SIGSEGV. The
    /// minimized input first, then the one found (a bundled route with UTF-7 declared and a
    /// NUL in its description).
    @Test func anEncodingLibxml2HandsToIconvIsRefused() throws {
        let minimized = Data("<?xml version=\"1.0\" encoding=\"UTF7\"".utf8) + Data([0])
        let error = #expect(throws: GPXError.self) { try GPXReader.parse(minimized, file: "found.gpx") }
        #expect(error?.line == 1)
        #expect(error?.reason.contains("declares encoding 'UTF7'") == true, "\(String(describing: error))")

        var route = try String(contentsOfFile: "\(repositoryRoot)/Scenarios/routes/park-loop.gpx", encoding: .utf8)
        route = route.replacingOccurrences(of: "encoding=\"UTF-8\"", with: "encoding = 'UTF-7'")
        var bytes = Data(route.utf8)
        let description = try #require(route.range(of: "<desc>A")).upperBound.utf16Offset(in: route)
        bytes.insert(0, at: description)
        let found = #expect(throws: GPXError.self) { try GPXReader.parse(bytes, file: "found.gpx") }
        #expect(found?.reason.contains("declares encoding 'UTF-7'") == true, "\(String(describing: found))")
    }

    /// The encodings libxml2 reads itself still read, declared in any case.
    @Test func utf8AndLatin1DeclarationsStillRead() throws {
        let route = try String(contentsOfFile: "\(repositoryRoot)/Scenarios/routes/park-loop.gpx", encoding: .utf8)
        for encoding in ["utf-8", "UTF-8", "ISO-8859-1", "US-ASCII"] {
            let text = route.replacingOccurrences(of: "encoding=\"UTF-8\"", with: "encoding=\"\(encoding)\"")
            let document = try GPXReader.parse(Data(text.utf8), file: "route.gpx")
            #expect(document.routePointCount + document.trackPointCount > 0, "\(encoding)")
        }
    }
}

extension GPXFuzzFindingTests {
    /// A processing instruction with a target and no data (`<?x?>`) made Foundation's parser
    /// call `strlen` on libxml2's null pointer: SIGSEGV, in UTF-8 and UTF-16 alike. The input
    /// found as it was (a route file mutated, `<?x?>` in place of the declaration), then the
    /// smallest forms; each is refused with its line.
    @Test func aProcessingInstructionWithoutDataIsRefused() throws {
        let found = try #require(Data(base64Encoded:
            "PD94Pz4KPGdweCB2ZXJzaW9uPSIxLjEiIGNyZWF0b3I9IlBhY2VyIiB4bWxucz0iaHR0cDovL3d3dy50b3BvZ3JhZml4LmNvbS9H"
            + "UFgvMS8xIiB4bWxuczpncHh0cHg9Imh0dHA6LyN3d3cuZ2FybWluMDkiIGxvaj0iNC4zMzQyNTMzMzMiPjxlbGU+My44PC9lbGU+"
            + "PHRpbWU+MtDNyccwNS0wJjJUMDc6MAAAAAAAAAAudG9wb2dyYWZpeC5jb20vR1BYLzEvMSIgeG1sbnM6Z3B4dHB4PSJodHRwOi8j"
            + "d3d3Lmdhcm1pbjA5IiBsb2o9IjQuMzM0MjUzMzMzIj48ZWxlvjMuODwvZWxlPjx0aW1lPjLQzcnHMDUtMCYyVDA3OjAAAAAAAAVa"
            + "PC90aW1lPjxleHRlbnNpb25zPjxnICAgPHRya3B0IGxhdD0iNTIuMDk4MDk3MTY3IiBsbz4K"))
        let cases: [(Data, Int)] = [
            (found, 1),
            (Data("<?x?><gpx/>".utf8), 1),
            (Data("<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n<?x?></gpx>".utf8), 3),
            (Data([0xFF, 0xFE, 0x3C, 0, 0x3F, 0, 0x78, 0, 0x3F, 0, 0x3E, 0, 0x3C, 0, 0x67, 0, 0x2F, 0, 0x3E, 0]), 1),
        ]
        for (bytes, line) in cases {
            let error = #expect(throws: GPXError.self) { try GPXReader.parse(bytes, file: "found.gpx") }
            #expect(error?.line == line, "\(String(describing: error))")
            #expect(error?.reason.contains("processing instruction without data") == true, "\(String(describing: error))")
        }
        // With data, or with a space before `?>`, libxml2 hands a string: read as before.
        let route = try String(contentsOfFile: "\(repositoryRoot)/Scenarios/routes/park-loop.gpx", encoding: .utf8)
        let withInstruction = route.replacingOccurrences(of: "<metadata>", with: "<?pacer note?><?pacer ?><metadata>")
        #expect(try GPXReader.parse(Data(withInstruction.utf8), file: "route.gpx").routePointCount > 0)
    }

    /// Encodings libxml2 detects from the first bytes and hands to iconv are refused like
    /// declared ones.
    @Test func ucs4AndEbcdicAreRefused() {
        for bytes: [UInt8] in [[0x00, 0x00, 0x00, 0x3C, 0x00, 0x00, 0x00, 0x3F], [0x4C, 0x6F, 0xA7, 0x94, 0x93, 0x40]] {
            let error = #expect(throws: GPXError.self) { try GPXReader.parse(Data(bytes), file: "x.gpx") }
            #expect(error?.reason.contains("GPX is read as UTF-8") == true, "\(String(describing: error))")
        }
    }
}

extension GPXFuzzFindingTests {
    /// A UTF-16 file with a surrogate out of its pair made libxml2's decoder fault: the
    /// input found, then its minimized form; each refused with its line. Valid UTF-16, pairs
    /// included, still reads.
    @Test func utf16WithAnUnpairedSurrogateIsRefused() throws {
        var foundBytes: [UInt8] = [0xFF, 0xFE]   // a piece at a time: Swift 6.2 gives up on one expression
        foundBytes += [UInt8](repeating: 0xE3, count: 73) + [UInt8](repeating: 0xDB, count: 95)
        foundBytes += [UInt8](repeating: 0xE3, count: 28) + [0x00, 0x00]
        let found = Data(foundBytes)
        for bytes in [found, Data([0xFF, 0xFE, 0xE3, 0xDB, 0xDB, 0xFF])] {
            let error = #expect(throws: GPXError.self) { try GPXReader.parse(bytes, file: "found.gpx") }
            #expect(error?.line == 1, "\(String(describing: error))")
            #expect(error?.reason.contains("not valid UTF-16") == true, "\(String(describing: error))")
        }
        let route = try String(contentsOfFile: "\(repositoryRoot)/Scenarios/routes/park-loop.gpx", encoding: .utf8)
            .replacingOccurrences(of: "encoding=\"UTF-8\"", with: "encoding=\"UTF-16\"")
            .replacingOccurrences(of: "Park loop</name>", with: "Park loop 🏃</name>")
        let utf16 = Data([0xFF, 0xFE]) + route.utf16.reduce(into: Data()) { $0.append(contentsOf: [UInt8($1 & 0xFF), UInt8($1 >> 8)]) }
        let document = try GPXReader.parse(utf16, file: "route.gpx")
        #expect(document.routePointCount > 0 && document.routes.first?.name == "Park loop 🏃")
    }
}
