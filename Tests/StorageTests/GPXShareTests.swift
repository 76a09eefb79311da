import Coaching
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import PacerCore
import Storage
import TestSupport
import Testing

/// A loop from the runner's door, in two segments (a pause), past a bakery they keep to
/// themselves: east 602 m, north 602 m (through the bakery's 100 m), then after the pause west
/// 602 m and south back to 7 m from the door. 344 points, 7 m and 1 s apart (none within a
/// metre of a zone's edge); coordinates at 7 decimals, elevations and speeds at 3 or fewer,
/// some missing: they survive GPX exactly.
struct LoopRun {
    static let origin = GeoPoint(latitude: 45, longitude: 6)
    static let bakery = PrivacyZone(name: "Bakery", center: position(602, 301), radius: 100)

    /// `east` and `north` metres from the door.
    static func position(_ east: Double, _ north: Double) -> GeoPoint {
        let lat = origin.latitude + north / metresPerDegree
        let lon = origin.longitude + east / (metresPerDegree * cos(origin.latitude * .pi / 180))
        return GeoPoint(latitude: (lat * 1e7).rounded() / 1e7, longitude: (lon * 1e7).rounded() / 1e7)
    }

    var name = "Hill loop"
    var points: [TrackPoint] = []
    var waypoints: [Waypoint] = []

    init() {
        var legs: [(segment: Int, east: Double, north: Double)] = []
        for i in 0...86 { legs.append((0, 7 * Double(i), 0)) }
        for i in 1...86 { legs.append((0, 602, 7 * Double(i))) }
        for i in 1...86 { legs.append((1, 602 - 7 * Double(i), 602)) }
        for i in 1...85 { legs.append((1, 0, 602 - 7 * Double(i))) }
        for (i, leg) in legs.enumerated() {
            let seconds = Double(i) + (leg.segment == 1 ? 60 : 0)
            points.append(TrackPoint(segment: leg.segment, time: time(seconds), position: Self.position(leg.east, leg.north),
                                     altitude: i % 37 == 5 ? nil : 200 + Double(i % 50) * 0.25,
                                     speed: i % 41 == 7 ? nil : 4.875 + Double(i % 3) * 0.125))
        }
        waypoints = [
            Waypoint(name: "Home door", time: time(2), position: Self.position(10, 0), altitude: 200.5,
                     atLastKnownPosition: false),
            Waypoint(name: "Gate", time: time(100), position: Self.position(602, 100), altitude: 204.25,
                     atLastKnownPosition: false),
            Waypoint(name: "Bakery corner", time: time(132), position: Self.position(602, 320), altitude: nil,
                     atLastKnownPosition: false),
            Waypoint(name: "Top of the hill", time: time(275), position: Self.position(300, 602), altitude: nil,
                     atLastKnownPosition: true),
        ]
    }

    func record(into store: PacerStore) throws -> Int64 {
        let id = try store.activities.begin(ActivityStart(name: name, startedAt: t0, plan: nil, workout: nil, profile: "medium"))
        for p in points { try store.activities.append(p, to: id) }
        for w in waypoints { try store.activities.add(w, to: id) }
        try store.activities.finish(id, end: .completed, endedAt: nil, activeTime: .seconds(343))
        return id
    }
}

/// A GPX file as an XML parser of its own reads it (libxml2, through Foundation's
/// `XMLDocument`), not the project's reader: what is in the file, whatever its place.
struct ParsedXML {
    let root: XMLElement

    init(path: String) throws {
        let document = try XMLDocument(contentsOf: URL(fileURLWithPath: path), options: [])
        root = try #require(document.rootElement())
    }

    /// Every element, in document order.
    var elements: [XMLElement] {
        var out: [XMLElement] = []
        func walk(_ e: XMLElement) {
            out.append(e)
            for case let child as XMLElement in e.children ?? [] { walk(child) }
        }
        walk(root)
        return out
    }

    func all(_ localName: String) -> [XMLElement] { elements.filter { $0.localName == localName } }

    /// Every text in the document and every attribute's value but `lat` and `lon`.
    var texts: [String] {
        elements.flatMap { e -> [String] in
            let attributes = (e.attributes ?? []).filter { !["lat", "lon"].contains($0.name ?? "") }.compactMap(\.stringValue)
            let text = (e.children ?? []).filter { $0.kind == .text }.compactMap(\.stringValue)
            return attributes + text
        }
    }

    static func child(_ e: XMLElement, _ localName: String) -> XMLElement? {
        (e.children ?? []).compactMap { $0 as? XMLElement }.first { $0.localName == localName }
    }

    static func attribute(_ e: XMLElement, _ name: String) -> String? {
        (e.attributes ?? []).first { ($0.localName ?? $0.name) == name }?.stringValue
    }

    static func position(_ e: XMLElement) throws -> GeoPoint {
        GeoPoint(latitude: try #require(Double(attribute(e, "lat") ?? "")),
                 longitude: try #require(Double(attribute(e, "lon") ?? "")))
    }

    static func number(_ e: XMLElement, _ localName: String) -> Double? {
        child(e, localName).flatMap { Double($0.stringValue ?? "") }
    }
}

/// Checks a shared file field by field against what is stored: what was chosen is there and
/// equals the stored values; what was not is nowhere; nothing lies in a hidden place; the
/// track is split where a place cuts it; the file is valid GPX 1.1.
/// `circles`: those the share hid (`GPXExchange.privacyCircles`), larger than the places
/// and moved off them; every point within the places themselves must be
/// among the hidden.
func checkShared(_ path: String, choice: ShareChoice, stored detail: ActivityDetail, circles: [PrivacyCircle] = [],
                 statesDistance: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) throws {
    try validateGPX(path)
    let file = try ParsedXML(path: path)
    let items = choice.items
    let first = detail.points.first?.position, last = detail.points.last?.position
    #expect(circles.isEmpty == (choice.hideWithin == nil && choice.zones.isEmpty), sourceLocation: sourceLocation)
    func hidden(_ p: GeoPoint) -> Bool { circles.contains { $0.contains(p) } }
    func inAPlace(_ p: GeoPoint) -> Bool {
        if let radius = choice.hideWithin, let first, let last,
           Geodesy.distance(p, first) <= radius || Geodesy.distance(p, last) <= radius { return true }
        return choice.zones.contains { Geodesy.distance($0.center, p) <= $0.radius }
    }
    for p in detail.points.map(\.position) + detail.waypoints.map(\.position) where inAPlace(p) {
        #expect(hidden(p), "a point in a place is outside the hidden circles", sourceLocation: sourceLocation)
    }

    // Nothing of what was left out, anywhere in the file.
    let names = Set(file.elements.compactMap(\.localName))
    #expect(names.contains("time") == items.contains(.times), "time: \(names)", sourceLocation: sourceLocation)
    #expect(names.contains("ele") == items.contains(.elevations), "ele: \(names)", sourceLocation: sourceLocation)
    #expect(names.contains("wpt") == items.contains(.waypoints), "wpt: \(names)", sourceLocation: sourceLocation)
    #expect(names.contains("trk") == items.contains(.track), "trk: \(names)", sourceLocation: sourceLocation)
    // The device's distance (the track's <desc> and <pacer:distance>) only in an export.
    #expect(names.isDisjoint(with: ["course", "hdop", "cmt", "src", "link", "author", "copyright", "keywords"]),
            "\(names)", sourceLocation: sourceLocation)
    #expect(names.contains("desc") == statesDistance, "desc: \(names)", sourceLocation: sourceLocation)
    #expect(names.contains("distance") == statesDistance, "distance: \(names)", sourceLocation: sourceLocation)
    #expect(names.contains("speed") == items.contains(.speeds), "speed: \(names)", sourceLocation: sourceLocation)
    #expect(names.contains("extensions") == (items.contains(.speeds) || statesDistance), "\(names)",
            sourceLocation: sourceLocation)
    let declared = (file.root.namespaces ?? []).compactMap(\.stringValue)
    #expect(declared.contains(GPXWriter.speedNamespace) == items.contains(.speeds), "\(declared)",
            sourceLocation: sourceLocation)
    if !items.contains(.times) {
        // No date or time in any text or attribute: not in a name, not in the creator.
        let dateOrTime = try NSRegularExpression(pattern: #"\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}|(19|20)\d{2}"#)
        for text in file.texts {
            #expect(dateOrTime.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) == nil,
                    "a date or time in \"\(text)\"", sourceLocation: sourceLocation)
        }
    }
    // The activity's name only when chosen; a <name> elsewhere is a chosen waypoint's.
    for element in file.all("name") {
        let parent = (element.parent as? XMLElement)?.localName
        if parent == "wpt" { continue }
        #expect(items.contains(.name), "a <name> in <\(parent ?? "")>", sourceLocation: sourceLocation)
        #expect(element.stringValue == detail.summary.name, sourceLocation: sourceLocation)
    }
    if items.contains(.name) {
        let metadata = try #require(file.all("metadata").first, sourceLocation: sourceLocation)
        #expect(ParsedXML.child(metadata, "name")?.stringValue == detail.summary.name, sourceLocation: sourceLocation)
    }

    // The track: the stored points outside the hidden places, in order, a segment per
    // recorded segment and a new one after each hidden stretch.
    var expected: [[TrackPoint]] = []
    var previous: TrackPoint?
    var cut = true
    for p in detail.points {
        if hidden(p.position) {
            cut = true
            continue
        }
        if cut || p.segment != previous?.segment { expected.append([]) }
        expected[expected.count - 1].append(p)
        previous = p
        cut = false
    }
    let segments = file.all("trkseg")
    #expect(segments.count == (items.contains(.track) ? expected.count : 0), sourceLocation: sourceLocation)
    for (segment, points) in zip(segments, expected) {
        let written = (segment.children ?? []).compactMap { $0 as? XMLElement }
        #expect(written.count == points.count, sourceLocation: sourceLocation)
        for (element, point) in zip(written, points) {
            #expect(try ParsedXML.position(element) == point.position, sourceLocation: sourceLocation)
            #expect(!hidden(try ParsedXML.position(element)), sourceLocation: sourceLocation)
            #expect(ParsedXML.number(element, "ele") == (items.contains(.elevations) ? point.altitude : nil),
                    sourceLocation: sourceLocation)
            #expect(ParsedXML.child(element, "time")?.stringValue == (items.contains(.times) ? point.time.iso8601 : nil),
                    sourceLocation: sourceLocation)
            let speed = ParsedXML.child(element, "extensions")
                .flatMap { ParsedXML.child($0, "TrackPointExtension") }.flatMap { ParsedXML.number($0, "speed") }
            #expect(speed == (items.contains(.speeds) ? point.speed : nil), sourceLocation: sourceLocation)
        }
    }
    if items.contains(.times) {
        // The start, or with places hidden the first point shown: never a time inside a place.
        let metadata = try #require(file.all("metadata").first, sourceLocation: sourceLocation)
        let start = choice.hideWithin == nil && choice.zones.isEmpty ? detail.summary.startedAt : expected.first?.first?.time
        #expect(ParsedXML.child(metadata, "time")?.stringValue == start?.iso8601, sourceLocation: sourceLocation)
    }
    if items.contains(.track), !expected.isEmpty {
        // The file's first point is the first stored one outside the hidden places.
        let firstWritten = try #require(file.all("trkpt").first, sourceLocation: sourceLocation)
        #expect(try ParsedXML.position(firstWritten) == expected[0][0].position, sourceLocation: sourceLocation)
    }

    // The waypoints outside the hidden places, with their names.
    let waypoints = file.all("wpt")
    let shown = items.contains(.waypoints) ? detail.waypoints.filter { !hidden($0.position) } : []
    #expect(waypoints.count == shown.count, sourceLocation: sourceLocation)
    for (element, waypoint) in zip(waypoints, shown) {
        #expect(try ParsedXML.position(element) == waypoint.position, sourceLocation: sourceLocation)
        #expect(ParsedXML.child(element, "name")?.stringValue == waypoint.name, sourceLocation: sourceLocation)
        #expect(ParsedXML.number(element, "ele") == (items.contains(.elevations) ? waypoint.altitude : nil),
                sourceLocation: sourceLocation)
        #expect(ParsedXML.child(element, "time")?.stringValue == (items.contains(.times) ? waypoint.time.iso8601 : nil),
                sourceLocation: sourceLocation)
    }
}

/// Serialized: each test waits on xmllint, and ten at once would hold every thread the
/// run's tasks share (one a core) while timing tests elsewhere wait to be resumed.
@Suite("Sharing an activity (R18)", .serialized)
struct GPXShareTests {
    /// The secret the hidden circles are moved by: a fixed one, so that what is hidden is
    /// known (a store makes its own at random).
    static let secret = ShareSecret(hex: "3c9a5e0f7d21b84466f0a1c2e9d35b17")!

    static let choices: [Set<ShareItem>] = [
        [.track], [.track, .times], [.track, .speeds], [.track, .elevations], [.track, .waypoints], [.track, .name],
        [.waypoints], [.waypoints, .times, .elevations, .name], [.track, .times, .speeds],
        Set(ShareItem.allCases),
    ]

    /// Each choice alone and in company: what was chosen is in the file and equals the stored
    /// values, what was not is nowhere in it.
    @Test(arguments: choices)
    func eachChoiceSharesItAndNothingElse(items: Set<ShareItem>) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        let id = try LoopRun().record(into: store)
        let path = "\(dir)/shared.gpx"
        let choice = ShareChoice(items: items)
        let report = try store.gpx.share(activity: id, to: path, choice: choice)
        try checkShared(path, choice: choice, stored: store.activities.activity(id))
        #expect(report.export.writtenPoints == (items.contains(.track) ? 344 : 0))
        #expect(report.export.writtenWaypoints == (items.contains(.waypoints) ? 4 : 0))
    }

    /// Without --include: the positions alone, said so.
    @Test func theDefaultIsThePositionsAlone() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        let id = try LoopRun().record(into: store)
        let path = "\(dir)/shared.gpx"
        let report = try store.gpx.share(activity: id, to: path, choice: ShareChoice())
        try checkShared(path, choice: ShareChoice(items: [.track]), stored: store.activities.activity(id))
        let names = Set(try ParsedXML(path: path).elements.compactMap(\.localName))
        #expect(names == ["gpx", "trk", "type", "trkseg", "trkpt"])
        #expect(report.summary(activity: id, path: path)
                == "Activity #\(id) shared to \(path): track (344 of 344 points, 2 segments); "
                + "left out: times, speeds, elevations, waypoints, name")
    }

    /// Nothing within 100 m of the first or the last recorded point, track points and
    /// waypoints alike, and more: the circle hidden (`PrivacyCircle`) has a radius of 205.1 m
    /// (100 m, 85 m for the largest move, 20 m for the anchor and a thousandth), its centre
    /// moved off the door by the secret; the file starts at the first point outside.
    @Test func hideWithinHidesTheStartAndTheEnd() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        let run = LoopRun()
        let id = try run.record(into: store)
        let path = "\(dir)/shared.gpx"
        let choice = ShareChoice(items: [.track, .times, .waypoints], hideWithin: 100)
        let report = try store.gpx.share(activity: id, to: path, choice: choice, secret: Self.secret)
        let circles = try store.gpx.privacyCircles(activity: id, choice: choice, secret: Self.secret)
        try checkShared(path, choice: choice, stored: store.activities.activity(id), circles: circles)
        // With this secret the centre is 69.4 m east and 7.2 m north of the door (moved
        // 0.698 r): east 0–273 m from the door (40 points) and north 7–196 m on the way back
        // (28) are hidden.
        let circle = try #require(circles.first)
        #expect(circles.count == 1 && abs(circle.radius - 205.1) < 1e-9)
        #expect(abs(Geodesy.distance(circle.center, LoopRun.position(69.4, 7.2))) < 0.5)
        #expect(report.export.hiddenPoints == [68])
        #expect(report.export.writtenPoints == 344 - 68)
        #expect(report.export.writtenWaypoints == 3 && report.export.hiddenWaypoints == [1])
        let first = try #require(try ParsedXML(path: path).all("trkpt").first)
        #expect(try ParsedXML.position(first) == LoopRun.position(280, 0))
        #expect(Geodesy.distance(try ParsedXML.position(first), run.points[0].position) > 100)
        #expect(report.summary(activity: id, path: path)
                == "Activity #\(id) shared to \(path): track (276 of 344 points, 2 segments; 68 hidden round the "
                + "start and end (100 m and more)), times, waypoints (3 of 4; 1 hidden round the start and end "
                + "(100 m and more)); left out: speeds, elevations, name")
    }

    /// A place in the middle of the track cuts it: the track stops before it and goes on in
    /// a new segment after it, with no line across it; its waypoint is not shared.
    @Test func aPrivacyZoneCutsTheTrackIntoSegments() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        let id = try LoopRun().record(into: store)
        let path = "\(dir)/shared.gpx"
        let choice = ShareChoice(items: Set(ShareItem.allCases), hideWithin: 100, zones: [LoopRun.bakery])
        let report = try store.gpx.share(activity: id, to: path, choice: choice, secret: Self.secret)
        let circles = try store.gpx.privacyCircles(activity: id, choice: choice, secret: Self.secret)
        try checkShared(path, choice: choice, stored: store.activities.activity(id), circles: circles)
        // The bakery's circle is 180.1 m across (100 m and 80 m for the largest move), its
        // centre 64.6 m east and 36.9 m north of the bakery with this secret: north 175–504 m
        // on the bakery's street, 48 points (29 were within its own 100 m).
        #expect(report.export.hiddenPoints == [68, 48])
        #expect(report.export.segments == 3)
        #expect(try ParsedXML(path: path).all("trkseg").count == 3)
        #expect(report.export.hiddenWaypoints == [1, 1])
        #expect(report.summary(activity: id, path: path).contains(
            "track (228 of 344 points, 3 segments; 68 hidden round the start and end (100 m and more), "
                + "48 hidden round Bakery (100 m and more))"))
    }

    /// Sparse points (77 m apart, the medium profile's spacing at a run's pace) either side
    /// of a 12 m zone (its hidden circle 21.6 m): no point is in it, and still no line is drawn across it:
    /// the track is cut between the two points, and no shared leg passes within the
    /// zone.
    @Test func aLineBetweenSparsePointsIsCutWhereItCrossesAZone() throws {
        let dir = try makeTemporaryDirectory()
        let store = try PacerStore(directory: dir)
        let id = try store.activities.begin(ActivityStart(name: "Sparse", startedAt: t0, plan: nil, workout: nil, profile: "medium"))
        for i in 0..<8 {
            try store.activities.append(TrackPoint(segment: 0, time: time(Double(i) * 30), position: LoopRun.position(77 * Double(i), 0),
                                        altitude: nil, speed: 2.6), to: id)
        }
        try store.activities.finish(id, end: .completed, endedAt: nil, activeTime: .seconds(210))
        // 12 m: its hidden circle (21.6 m, moved 7.2 to 9.6 m) keeps clear of the points
        // either side, 38.5 m off the shed.
        let shed = PrivacyZone(name: "Shed", center: LoopRun.position(269.5, 0), radius: 12)
        let path = "\(dir)/shared.gpx"
        let choice = ShareChoice(items: [.track], zones: [shed])
        let report = try store.gpx.share(activity: id, to: path, choice: choice, secret: Self.secret)
        let circle = try #require(try store.gpx.privacyCircles(activity: id, choice: choice, secret: Self.secret).first)
        #expect(report.export.hiddenPoints == [0, 0], "no point is in the zone")
        #expect(report.export.writtenPoints == 8)
        let segments = try ParsedXML(path: path).all("trkseg")
        #expect(segments.count == 2, "cut between 231 m and 308 m")
        // Every leg drawn stays out of the zone.
        for segment in segments {
            let points = try segment.children?.compactMap { $0 as? XMLElement }.filter { $0.localName == "trkpt" }
                .map(ParsedXML.position) ?? []
            for (a, b) in zip(points, points.dropFirst()) {
                let closest = stride(from: 0.0, through: 1.0, by: 0.01).map { t in
                    Geodesy.distance(shed.center, GeoPoint(latitude: a.latitude + (b.latitude - a.latitude) * t,
                                                           longitude: a.longitude + (b.longitude - a.longitude) * t))
                }.min()!
                #expect(closest > shed.radius, "a leg passes \(closest) m from the zone's centre")
                let offCircle = stride(from: 0.0, through: 1.0, by: 0.01).map { t in
                    Geodesy.distance(circle.center, GeoPoint(latitude: a.latitude + (b.latitude - a.latitude) * t,
                                                             longitude: a.longitude + (b.longitude - a.longitude) * t))
                }.min()!
                #expect(offCircle > circle.radius, "a leg passes through the hidden circle")
            }
        }
    }

    /// `activities export` is unchanged by all this: everything, nothing hidden.
    @Test func exportStillWritesEverything() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        let id = try LoopRun().record(into: store)
        let path = "\(dir)/all.gpx"
        try store.gpx.exportGPX(activity: id, to: path)
        try checkShared(path, choice: ShareChoice(items: Set(ShareItem.allCases)), stored: store.activities.activity(id),
                        statesDistance: true)
    }

    /// Without times, a name that tells a date or time is refused, and nothing is written;
    /// with times it is shared as it is.
    @Test func aNameThatTellsATimeIsRefusedWithoutTimes() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        var run = LoopRun()
        run.name = "Run 2026-06-13 07:00"
        let id = try run.record(into: store)
        let path = "\(dir)/shared.gpx"
        #expect(throws: ShareError.revealsTime(what: "the activity's name", text: "Run 2026-06-13 07:00",
                                               found: "2026-06-13", item: .name)) {
            try store.gpx.share(activity: id, to: path, choice: ShareChoice(items: [.track, .name]))
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        // Left out, the name is no matter.
        try store.gpx.share(activity: id, to: path, choice: ShareChoice(items: [.track]))
        try checkShared(path, choice: ShareChoice(items: [.track]), stored: store.activities.activity(id))
        // With the times, it goes.
        try store.gpx.share(activity: id, to: path, choice: ShareChoice(items: [.track, .name, .times]))
        try checkShared(path, choice: ShareChoice(items: [.track, .name, .times]), stored: store.activities.activity(id))

        // A waypoint's name likewise, unless the place hides the waypoint.
        var other = LoopRun()
        other.waypoints[1].name = "Gate at 7:15"
        let second = try other.record(into: store)
        let error = #expect(throws: ShareError.self) {
            try store.gpx.share(activity: second, to: path, choice: ShareChoice(items: [.track, .waypoints]))
        }
        #expect(error?.description == "waypoint 2's name \"Gate at 7:15\" tells a date or time (7:15) and times are "
                + "left out: include times too, or leave waypoints out")
        let choice = ShareChoice(items: [.track, .waypoints], zones: [PrivacyZone(name: "Gate", center: LoopRun.position(602, 100), radius: 20)])
        try store.gpx.share(activity: second, to: path, choice: choice, secret: Self.secret)
        try checkShared(path, choice: choice, stored: store.activities.activity(second),
                        circles: store.gpx.privacyCircles(activity: second, choice: choice, secret: Self.secret))
    }

    /// The dates and times people put in names.
    @Test(arguments: [
        ("Run 2026-06-13 07:00", "2026-06-13"), ("Morning run 07:00", "07:00"), ("13/06/2026 tempo", "13/06/2026"),
        ("Long run 13.06.26", "13.06.26"), ("Easy 7am", "7am"), ("Parkrun June 13", "June 13"),
        ("13th of June intervals", "13th of June"), ("Tuesday tempo", "Tuesday"), ("Marathon 2026", "2026"),
        ("activity_20260613", "20260613"), ("Hills 7h30", "7h30"), ("7 km in 35:00 by 2027-02-23: Week 1", "35:00"),
    ] as [(String, String)])
    func datesAndTimesInNamesAreFound(text: String, found: String) {
        #expect(DateTimeInText.first(in: text) == found)
    }

    @Test(arguments: ["Hill loop", "10k in 50", "Easy 30", "Waypoint 3", "Tempo: 5 x 1 km", "Maybe later", "Top of the hill"])
    func namesWithoutADateOrTimeAreShared(text: String) {
        #expect(DateTimeInText.first(in: text) == nil)
    }

    /// What --include and --hide-within take, and what they refuse.
    @Test func choicesAreReadAndMistakesSaid() throws {
        #expect(try ShareItem.parse(list: "track,times") == [.track, .times])
        #expect(try ShareItem.parse(list: " Track , SPEEDS,") == [.track, .speeds])
        #expect(throws: ShareError.unknownItem("hr")) { try ShareItem.parse(list: "track,hr") }
        #expect(ShareError.unknownItem("hr").description
                == "'hr' is not something to share: choose from track, times, speeds, elevations, waypoints, name, heart")
        // Heart rates: health data, shared only when named, and only with the track.
        #expect(try ShareItem.parse(list: "track,heart") == [.track, .heart])
        #expect(throws: ShareError.self) { try ShareChoice(items: [.heart]).check() }
        #expect(ShareChoice(items: [.track, .heart]).options.heartRates)
        #expect(!ShareChoice(items: [.track, .speeds, .times]).options.heartRates)
        #expect(throws: ShareError.nothingChosen) { try ShareItem.parse(list: " , ") }
        #expect(throws: ShareError.self) { try ShareChoice(items: [.speeds, .waypoints]).check() }
        #expect(throws: ShareError.self) { try ShareChoice(items: [.times]).check() }
        #expect(throws: ShareError.self) { try ShareChoice(items: [.name]).check() }
        try ShareChoice(items: [.waypoints, .times]).check()

        #expect(try ShareChoice.distance(parsing: "300m") == 300)
        #expect(try ShareChoice.distance(parsing: "300 m") == 300)
        #expect(try ShareChoice.distance(parsing: "0.5km") == 500)
        #expect(try ShareChoice.distance(parsing: "1.5KM") == 1500)
        for (text, reason) in [("300", "needs a unit"), ("1mi", "'mi' is not a unit taken here"),
                               ("500ft", "'ft' is not a unit taken here"), ("far", "not a distance"), ("", "not a distance"),
                               ("1.2.3m", "not a distance")] {
            let error = #expect(throws: ShareError.self) { try ShareChoice.distance(parsing: text) }
            #expect(error?.description.contains(reason) == true, "\(text): \(String(describing: error))")
            #expect(error?.isUsage == true)
        }
    }

    /// A choice that would leave nothing of the track is refused, and nothing written.
    @Test func nothingLeftToShareIsRefused() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        let id = try LoopRun().record(into: store)
        let path = "\(dir)/shared.gpx"
        let error = #expect(throws: ShareError.self) {
            try store.gpx.share(activity: id, to: path, choice: ShareChoice(hideWithin: 10_000))
        }
        #expect(error?.description == "activity #\(id): every one of its 344 track points is within a hidden place: "
                + "nothing of the track would be shared")
        #expect(error?.isUsage == false)
        let empty = try store.activities.begin(ActivityStart(name: "Nothing", startedAt: t0, plan: nil, workout: nil, profile: "medium"))
        try store.activities.finish(empty, end: .stopped, endedAt: nil, activeTime: .zero)
        #expect(throws: ShareError.nothingLeft(activity: empty, reason: "it has no track points to share")) {
            try store.gpx.share(activity: empty, to: path, choice: ShareChoice())
        }
        #expect(throws: ShareError.nothingLeft(activity: empty, reason: "it has no waypoints to share")) {
            try store.gpx.share(activity: empty, to: path, choice: ShareChoice(items: [.waypoints]))
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aMissingActivityAndAPathThatCannotBeWrittenAreSaid() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        let id = try LoopRun().record(into: store)
        #expect(throws: StorageError.unknownActivity(77)) {
            try store.gpx.share(activity: 77, to: "\(dir)/x.gpx", choice: ShareChoice())
        }
        let notAFolder = try write("", to: "plain", in: dir)
        let error = #expect(throws: StorageError.self) {
            try store.gpx.share(activity: id, to: "\(notAFolder)/x.gpx", choice: ShareChoice())
        }
        guard case .file(let path, _) = error else {
            Issue.record("not a file error: \(String(describing: error))")
            return
        }
        #expect(path == "\(notAFolder)/x.gpx")
    }
}
