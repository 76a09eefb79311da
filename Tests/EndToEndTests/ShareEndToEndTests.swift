import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import PacerCore
import Storage
import TestSupport
import Testing

/// `pacer activities share` (R18) as a runner uses it: an activity imported into a
/// real data folder, shared with a choice, the file read back by libxml2 and checked against
/// the schema and against what the store holds.
@Suite("pacer activities share, end to end", .serialized)
struct ShareEndToEndTests {
    static let schema = repositoryRoot + "/../shared/schemas/gpx-1.1.xsd"

    /// A run as another device writes it: named with its date and time, a point a second with
    /// an elevation and a speed (Garmin's extension), two waypoints with names.
    static func writeRun(_ path: String) throws {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="a watch" xmlns="http://www.topografix.com/GPX/1/1"
                 xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2">
            <metadata><name>Run 2026-06-13 07:00</name><time>2026-06-13T07:00:00Z</time></metadata>
            <wpt lat="45.0005" lon="6.0001"><ele>201</ele><time>2026-06-13T07:00:20Z</time><name>Front gate</name></wpt>
            <wpt lat="45.009" lon="6.0001"><ele>230</ele><time>2026-06-13T07:05:00Z</time><name>Chapel</name></wpt>
            <trk><trkseg>

            """
        // North 1.5 km at 3 m/s, then back: 1000 points, the last 2.5 m from the first.
        for i in 0..<1000 {
            let north = Double(i < 500 ? i : 999 - i) * 3 + (i < 500 ? 0 : 2.5)
            let lat = 45 + north / 111_195
            let second = 7 * 3600 + i
            let time = String(format: "2026-06-13T%02d:%02d:%02dZ", second / 3600, second / 60 % 60, second % 60)
            text += "<trkpt lat=\"\(String(format: "%.7f", lat))\" lon=\"6.0001\"><ele>\(200 + i % 40)</ele>"
                + "<time>\(time)</time><extensions><gpxtpx:TrackPointExtension><gpxtpx:speed>3.25</gpxtpx:speed>"
                + "</gpxtpx:TrackPointExtension></extensions></trkpt>\n"
        }
        text += "</trkseg></trk>\n</gpx>\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// Every element of a file as libxml2 reads it.
    static func elements(_ path: String) throws -> [XMLElement] {
        let document = try XMLDocument(contentsOf: URL(fileURLWithPath: path), options: [])
        var out: [XMLElement] = []
        func walk(_ e: XMLElement) {
            out.append(e)
            for case let child as XMLElement in e.children ?? [] { walk(child) }
        }
        walk(try #require(document.rootElement()))
        return out
    }

    static func position(_ e: XMLElement) throws -> GeoPoint {
        func value(_ name: String) -> Double? {
            (e.attributes ?? []).first { ($0.localName ?? $0.name) == name }?.stringValue.flatMap(Double.init)
        }
        return GeoPoint(latitude: try #require(value("lat")), longitude: try #require(value("lon")))
    }

    static func child(_ e: XMLElement, _ name: String) -> String? {
        (e.children ?? []).compactMap { $0 as? XMLElement }.first { $0.localName == name }?.stringValue
    }

    static func validate(_ path: String) async throws {
        let lint = try await Program.runOffThePool("/usr/bin/xmllint", ["--noout", "--nonet", "--schema", schema, path])
        #expect(lint.status == 0, "xmllint: \(lint.stderr)")
    }

    /// A real run (the Garmin trail run through gpsbabel), shared with its track and times,
    /// hidden 300 m round its start and end and round a place in the settings: every point
    /// written is a stored one, with its stored time, outside every hidden place; the place
    /// in the middle splits the track; nothing else is in the file.
    @Test func aRealRunIsSharedWithOnlyWhatWasChosen() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let gpx = "\(dir)/fenix.gpx"
        let babel = try await Program.runOffThePool("/usr/bin/gpsbabel", [
            "-i", "nmea", "-f", repositoryRoot + "/../shared/tracks/fenix2-trail-run.nmea", "-o", "gpx,gpxver=1.1", "-F", gpx,
        ])
        try #require(babel.status == 0, "gpsbabel: \(babel.stderr)")
        let imported = try await Pacer.runOffThePool(["activities", "import", gpx, "--as", "activity", "--data-dir", "\(dir)/data"])
        try #require(imported.status == 0, "\(imported.stderr)")

        let store = try PacerStore(directory: "\(dir)/data", access: .read)
        let stored = try store.activities.activity(1).points
        try #require(stored.count == 2984)
        let first = stored[0].position, last = stored[stored.count - 1].position
        // A place halfway round, off the start and the end.
        let creek = stored[1500].position
        try #require(Geodesy.distance(creek, first) > 600 && Geodesy.distance(creek, last) > 600)
        let settings = try Pacer.settings(in: dir, extra: """
            privacy_zones:
              - {name: Creek, lat: \(creek.latitude), lon: \(creek.longitude), radius_m: 150}
            """)
        // The device's secret, set to a known one in the data folder (the import made one at
        // random): the circles hidden, larger than the places and moved off them, are known.
        try await Self.setSecret("9f3b27c8e1d4a6055b7e8c2f0a1d3e49", in: "\(dir)/data")
        let out = "\(dir)/shared.gpx"
        let shared = try await Pacer.runOffThePool(["activities", "share", "1", "--include", "track,times", "--hide-within", "300m",
                                    "--out", out, "--config", settings])
        #expect(shared.status == 0, "\(shared.stderr)")
        try await Self.validate(out)

        let circles = try store.gpx.privacyCircles(activity: 1, choice: ShareChoice(
            items: [.track, .times], hideWithin: 300, zones: [PrivacyZone(name: "Creek", center: creek, radius: 150)]))
        // The run ends 1 km or so from its start: a circle round each (300 m, 255 m for the
        // largest move, 37.5 m for the anchor), and the creek's (150 m and 120 m).
        #expect(circles.map(\.place) == [0, 0, 1], "\(circles)")
        #expect(zip(circles.map(\.radius), [592.8, 592.8, 270.15]).allSatisfy { abs($0 - $1) < 1e-6 }, "\(circles)")
        func place(_ p: GeoPoint) -> Int? { circles.first { $0.contains(p) }?.place }
        func hidden(_ p: GeoPoint) -> Bool { place(p) != nil }
        let kept = stored.filter { !hidden($0.position) }
        let nearEnds = stored.filter { place($0.position) == 0 }
        let inCreek = stored.count - kept.count - nearEnds.count
        #expect(nearEnds.count > 0 && inCreek > 0)
        // Everything within the places themselves is among the hidden.
        #expect(stored.allSatisfy {
            !(Geodesy.distance($0.position, first) <= 300 || Geodesy.distance($0.position, last) <= 300
              || Geodesy.distance($0.position, creek) <= 150) || hidden($0.position)
        })

        let elements = try Self.elements(out)
        let names = Set(elements.compactMap(\.localName))
        #expect(names == ["gpx", "metadata", "time", "trk", "type", "trkseg", "trkpt"], "\(names)")
        let points = elements.filter { $0.localName == "trkpt" }
        #expect(points.count == kept.count)
        // The file starts when the first point shown was recorded, not at the hidden start.
        let metadata = try #require(elements.first { $0.localName == "metadata" })
        #expect(Self.child(metadata, "time") == kept.first?.time.iso8601)
        for (element, point) in zip(points, kept) {
            let position = try Self.position(element)
            #expect(position == point.position)
            #expect(Self.child(element, "time") == point.time.iso8601)
            #expect(Geodesy.distance(position, first) > 300 && Geodesy.distance(position, last) > 300)
            #expect(Geodesy.distance(position, creek) > 150)
            #expect(!hidden(position))
        }
        // The places cut the track: two segments, no leg of them crossing a hidden circle.
        let segments = elements.filter { $0.localName == "trkseg" }
        #expect(segments.count == 2)
        for segment in segments {
            let points = try (segment.children ?? []).compactMap { $0 as? XMLElement }.map(Self.position)
            for (a, b) in zip(points, points.dropFirst()) {
                for t in stride(from: 0.0, through: 1.0, by: 0.05) {
                    let p = GeoPoint(latitude: a.latitude + (b.latitude - a.latitude) * t,
                                     longitude: a.longitude + (b.longitude - a.longitude) * t)
                    #expect(!hidden(p), "a leg crosses a hidden circle")
                }
            }
        }
        let text = try String(contentsOfFile: out, encoding: .utf8)
        #expect(!text.contains("gpxtpx") && !text.contains("fenix"))

        let expected = "Activity #1 shared to \(out): track (\(grouped(kept.count)) of 2,984 points, \(segments.count) segments; "
            + "\(nearEnds.count) hidden round the start and end (300 m and more), \(inCreek) hidden round Creek (150 m and more)), "
            + "times; left out: speeds, elevations, waypoints, name\n"
        #expect(shared.stdout == expected)
    }

    /// Sets the device's share secret in a data folder's database (it is never written by
    /// Pacer after it is made), as a test's known one.
    static func setSecret(_ hex: String, in data: String) async throws {
        let result = try await Program.runOffThePool("/usr/bin/sqlite3", [
            "\(data)/pacer.sqlite", "UPDATE device_state SET value = '\(hex)' WHERE key = 'share_secret'; SELECT changes();",
        ])
        try #require(result.status == 0 && result.stdout == "1\n", "sqlite3: \(result.output)")
    }

    func grouped(_ n: Int) -> String {
        n >= 1000 ? "\(n / 1000),\(String(format: "%03d", n % 1000))" : "\(n)"
    }

    /// Without --include, the positions alone: no times (not even in the name, which holds
    /// the date, so it stays home), no elevations, speeds or waypoints. The name is refused
    /// without the times, and goes with them; then everything, values as stored.
    @Test func theDefaultSharesThePositionsAlone() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = "\(dir)/run.gpx"
        try Self.writeRun(source)
        let data = "\(dir)/data"
        let imported = try await Pacer.runOffThePool(["activities", "import", source, "--as", "activity", "--data-dir", data])
        try #require(imported.status == 0, "\(imported.stderr)")
        let detail = try PacerStore(directory: data, access: .read).activities.activity(1)
        try #require(detail.summary.name == "Run 2026-06-13 07:00" && detail.waypoints.count == 2)

        let out = "\(dir)/shared.gpx"
        let shared = try await Pacer.runOffThePool(["activities", "share", "1", "--out", out, "--data-dir", data])
        #expect(shared.status == 0, "\(shared.stderr)")
        #expect(shared.stdout == "Activity #1 shared to \(out): track (1,000 of 1,000 points, 1 segment); "
                + "left out: times, speeds, elevations, waypoints, name\n")
        try await Self.validate(out)
        let elements = try Self.elements(out)
        #expect(Set(elements.compactMap(\.localName)) == ["gpx", "trk", "type", "trkseg", "trkpt"])
        let points = elements.filter { $0.localName == "trkpt" }
        #expect(try points.map(Self.position) == detail.points.map(\.position))
        // Every text and attribute but the coordinates: nothing of the date, the name or the waypoints.
        let texts = elements.flatMap { e in
            (e.attributes ?? []).filter { !["lat", "lon"].contains($0.name ?? "") }.compactMap(\.stringValue)
                + (e.children ?? []).filter { $0.kind == .text }.compactMap(\.stringValue)
        }
        #expect(texts.allSatisfy { $0.range(of: #"\d{4}|\d:\d\d|Run"#, options: .regularExpression) == nil }, "\(texts)")
        #expect(Set(texts) == ["1.1", "Pacer", "running"], "\(texts)")
        let text = try String(contentsOfFile: out, encoding: .utf8)
        for leak in ["Run", "gpxtpx", "speed", "<ele>", "<time>", "<wpt", "<name>", "Front gate", "Chapel"] {
            #expect(!text.contains(leak), "\(leak) in the file")
        }

        // The name tells the date: refused without the times, and nothing written.
        try FileManager.default.removeItem(atPath: out)
        let named = try await Pacer.runOffThePool(["activities", "share", "1", "--include", "track,name", "--out", out, "--data-dir", data])
        #expect(named.status == 65)
        #expect(named.stderr.contains("the activity's name \"Run 2026-06-13 07:00\" tells a date or time (2026-06-13) "
                                      + "and times are left out: include times too, or leave name out"), "\(named.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))

        // Everything: each value as stored.
        let all = try await Pacer.runOffThePool(["activities", "share", "1", "--include", "name,times,track,speeds,elevations,waypoints",
                                 "--out", out, "--data-dir", data])
        #expect(all.status == 0, "\(all.stderr)")
        #expect(all.stdout.hasSuffix("track (1,000 of 1,000 points, 1 segment), times, speeds, elevations, "
                                     + "waypoints (2 of 2), name; nothing left out\n"), "\(all.stdout)")
        try await Self.validate(out)
        let every = try Self.elements(out)
        let trkpts = every.filter { $0.localName == "trkpt" }
        #expect(trkpts.count == detail.points.count)
        for (element, point) in zip(trkpts, detail.points) {
            #expect(try Self.position(element) == point.position)
            #expect(Self.child(element, "time") == point.time.iso8601)
            #expect(Self.child(element, "ele").flatMap(Double.init) == point.altitude)
            let speed = every.first { $0.localName == "speed" && $0.parent?.parent?.parent === element }
            #expect(speed?.stringValue.flatMap(Double.init) == point.speed)
        }
        let wpts = every.filter { $0.localName == "wpt" }
        #expect(wpts.compactMap { Self.child($0, "name") } == ["Front gate", "Chapel"])
        #expect(try wpts.map(Self.position) == detail.waypoints.map(\.position))
        #expect(every.filter { $0.localName == "name" && ($0.parent as? XMLElement)?.localName != "wpt" }
            .allSatisfy { $0.stringValue == "Run 2026-06-13 07:00" })

        // Waypoints within 300 m of the start are not shared; the track starts outside.
        let hidden = try await Pacer.runOffThePool(["activities", "share", "1", "--include", "track,waypoints", "--hide-within", "0.3km",
                                    "--out", out, "--data-dir", data])
        #expect(hidden.status == 0, "\(hidden.stderr)")
        let rest = try Self.elements(out)
        #expect(rest.filter { $0.localName == "wpt" }.compactMap { Self.child($0, "name") } == ["Chapel"])
        let firstWritten = try #require(rest.first { $0.localName == "trkpt" })
        #expect(Geodesy.distance(try Self.position(firstWritten), detail.points[0].position) > 300)
        #expect(hidden.stdout.contains("waypoints (1 of 2; 1 hidden round the start and end (300 m and more))"), "\(hidden.stdout)")
    }

    /// Each mistake with its message and exit status, and no file written.
    @Test func mistakesAreSaidWithTheirExitStatus() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = "\(dir)/run.gpx"
        try Self.writeRun(source)
        let data = "\(dir)/data"
        try #require(try await Pacer.runOffThePool(["activities", "import", source, "--as", "activity", "--data-dir", data]).status == 0)
        let out = "\(dir)/shared.gpx"
        let cases: [(arguments: [String], status: Int32, message: String)] = [
            (["--include", "track,hr"], 64,
             "Error: --include: 'hr' is not something to share: choose from track, times, speeds, elevations, waypoints, name, heart"),
            (["--include", "heart"], 64, "Error: --include: heart rates are the track points': include track too"),
            (["--include", ""], 64, "Error: --include: nothing chosen"),
            (["--include", "speeds"], 64, "Error: --include: speeds are the track points': include track too"),
            (["--include", "times"], 64, "include track or waypoints too"),
            (["--hide-within", "300"], 64, "Error: --hide-within: '300': a distance needs a unit: give metres (300m) or kilometres (0.5km)"),
            (["--hide-within", "300ft"], 64, "Error: --hide-within: '300ft': 'ft' is not a unit taken here"),
            (["--hide-within", "near"], 64, "Error: --hide-within: 'near': not a distance"),
            (["--hide-within", "20km"], 64, "Error: --hide-within: must be above 0 and at most 10000 m, got 20km"),
            (["--out", "-"], 64, "Error: --out: a share is written to a file"),
            (["--hide-within", "10km"], 65, "Error: activity #1: every one of its 1,000 track points is within a hidden place"),
        ]
        for c in cases {
            let result = try await Pacer.runOffThePool(["activities", "share", "1", "--out", out, "--data-dir", data] + c.arguments)
            #expect(result.status == c.status, "\(c.arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains(c.message), "\(c.arguments): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out), "\(c.arguments) wrote a file")
        }

        let missing = try await Pacer.runOffThePool(["activities", "share", "7", "--out", out, "--data-dir", data])
        #expect(missing.status == 66 && missing.stderr == "Error: there is no activity #7\n", "\(missing.stderr)")
        let noFolder = try await Pacer.runOffThePool(["activities", "share", "1", "--out", out, "--data-dir", "\(dir)/nowhere"])
        #expect(noFolder.status == 66 && noFolder.stderr.contains("no activities in \(dir)/nowhere"), "\(noFolder.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/nowhere"))

        // A path under a file: no one can create it, root included.
        let plain = "\(dir)/plain"
        try #require(FileManager.default.createFile(atPath: plain, contents: Data("x".utf8)))
        let unwritable = try await Pacer.runOffThePool(["activities", "share", "1", "--out", "\(plain)/shared.gpx", "--data-dir", data])
        #expect(unwritable.status == 73, "\(unwritable.stderr)")
        #expect(unwritable.stderr.contains("Error: \(plain)/shared.gpx: cannot create the file"), "\(unwritable.stderr)")

        // Privacy zones that cannot be read: refused with the file, line, key, value and range.
        let settings = try Pacer.settings(in: dir, extra: "privacy_zones: [{name: Home, lat: 45, lon: 6, radius_m: 50000}]")
        let badZone = try await Pacer.runOffThePool(["activities", "share", "1", "--out", out, "--config", settings])
        #expect(badZone.status == 78)  // EX_CONFIG: the settings
        #expect(badZone.stderr.contains("\(settings):7: privacy_zones[0].radius_m: must be above 0 and at most 10000 m, got 50000"),
                "\(badZone.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
