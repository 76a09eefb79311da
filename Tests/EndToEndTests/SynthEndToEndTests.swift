import Foundation
import PacerCore
import Storage
import TestSupport
import Testing

/// `pacer nmea synth` as a person uses it, checked against an independent reader: gpsbabel
/// (Debian `gpsbabel`) must read the recording back to the positions pacer's own decoder
/// finds, which are the positions the synthesizer wrote.
@Suite("pacer nmea synth, end to end", .serialized)
struct SynthEndToEndTests {
    /// A closed loop of about 1.2 km near The Hague, with elevations.
    static func loopGPX() -> String {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="pacer tests" xmlns="http://www.topografix.com/GPX/1/1">
            <trk><name>Park loop</name><trkseg>

            """
        for i in 0..<40 {
            let a = 2 * Double.pi * Double(i) / 40
            text += "<trkpt lat=\"\(52.0705 + 0.0017 * sin(a))\" lon=\"\(4.3016 + 0.0028 * cos(a))\"><ele>\(2 + sin(a))</ele></trkpt>\n"
        }
        return text + "</trkseg></trk>\n</gpx>\n"
    }

    /// Four constellations, every extra sentence, a searching start, a tunnel and a dead
    /// cable, across midnight UTC.
    static let recipe = """
        route: loop.gpx
        start: 2026-05-02T23:52:00Z
        rate_hz: 1
        seed: 2026
        noise_m: 3
        constellations: [GP, GL, GA, GB]
        acquire_s: 15
        sentences: [VTG, GLL, ZDA]
        speeds:
          - {for: "4:00", kmh: 10}
          - {km: 0.8, kmh: 12}
          - {for: "2:00", from_kmh: 12, to_kmh: 8}
          - {for: 30, kmh: 0}
        outages:
          - {from: "3:00", to: "3:20", mode: invalid}
          - {from: "7:50", to: "8:05", mode: silent}
        """

    struct Point {
        var time: String
        var latitude: Double
        var longitude: Double
    }

    @Test func gpsbabelReadsBackTheWrittenPositions() throws {
        let dir = try makeTemporaryDirectory()
        try Self.loopGPX().write(toFile: "\(dir)/loop.gpx", atomically: true, encoding: .utf8)
        try Self.recipe.write(toFile: "\(dir)/run.yaml", atomically: true, encoding: .utf8)
        let nmea = "\(dir)/run.nmea"

        let synth = try Pacer.run(["nmea", "synth", "\(dir)/run.yaml", "--out", nmea])
        try #require(synth.status == 0, "\(synth.stderr)")
        #expect(synth.stdout.isEmpty)
        // 15 s searching + 4:00 + 0.8 km at 12 km/h (4:00) + 2:00 + 0:30 = 10:45, one epoch a second.
        #expect(synth.stderr.contains("646 epochs (596 fixes, 35 without a fix, 15 silent) over 10:45"), "\(synth.stderr)")

        // Pacer's own decoder: every line accepted, one fix per valid epoch.
        let decode = try Pacer.run(["nmea", "decode", "--json", nmea])
        #expect(decode.status == 0)
        #expect(decode.stderr.contains(" 0 rejected") && decode.stderr.contains(" 0 skipped") && decode.stderr.contains(" 596 fixes"),
                "\(decode.stderr)")
        let ours = try decode.stdout.split(separator: "\n").map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return Point(time: try #require(object["time"] as? String),
                         latitude: try #require(object["lat"] as? Double), longitude: try #require(object["lon"] as? Double))
        }
        #expect(ours.count == 596)
        #expect(ours.first?.time == "2026-05-02T23:52:15.000Z")
        #expect(ours.last?.time == "2026-05-03T00:02:45.000Z")

        // gpsbabel, an independent reader, finds the same positions at the same times.
        let gpx = "\(dir)/gpsbabel.gpx"
        let babel = try Program.run("/usr/bin/gpsbabel", ["-i", "nmea", "-f", nmea, "-o", "gpx", "-F", gpx])
        try #require(babel.status == 0, "gpsbabel: \(babel.stderr) (apt-get install gpsbabel)")
        #expect(babel.stderr.isEmpty, "gpsbabel complained: \(babel.stderr)")
        let document = try GPXReader.read(path: gpx)
        let theirs = document.tracks.flatMap { $0.segments.flatMap { $0 } }
        #expect(theirs.count == ours.count, "gpsbabel read \(theirs.count) points, pacer \(ours.count)")
        for (a, b) in zip(ours, theirs) {
            #expect(abs(a.latitude - b.position.latitude) < 1e-6 && abs(a.longitude - b.position.longitude) < 1e-6,
                    "at \(a.time): pacer \(a.latitude), \(a.longitude), gpsbabel \(b.position)")
            #expect(b.time.map { String($0.iso8601.prefix(19)) } == String(a.time.prefix(19)))
        }
        // Midnight UTC came and went in both.
        #expect(theirs.contains { $0.time?.iso8601.hasPrefix("2026-05-02T23:5") == true })
        #expect(theirs.contains { $0.time?.iso8601.hasPrefix("2026-05-03T00:0") == true })

        // The same recipe again, to standard output: the same bytes.
        let again = try Pacer.run(["nmea", "synth", "\(dir)/run.yaml"])
        #expect(again.status == 0)
        #expect(Data(again.stdout.utf8) == (try Data(contentsOf: URL(fileURLWithPath: nmea))))
    }

    @Test func optionsAloneOrOverARecipe() throws {
        let dir = try makeTemporaryDirectory()
        try Self.loopGPX().write(toFile: "\(dir)/loop.gpx", atomically: true, encoding: .utf8)
        try Self.recipe.write(toFile: "\(dir)/run.yaml", atomically: true, encoding: .utf8)

        let alone = try Pacer.run([
            "nmea", "synth", "--route", "\(dir)/loop.gpx", "--stretch", "1:00@9.5", "--stretch", "0.2km@12-10",
            "--rate", "10", "--constellations", "GP", "--outage", "0:10-0:20:silent", "--seed", "5", "--out", "\(dir)/a.nmea",
        ])
        #expect(alone.status == 0, "\(alone.stderr)")
        // 60 s + 0.2 km at 11 km/h on average (65.45 s), ten epochs a second; 100 silent.
        #expect(alone.stderr.contains("1255 epochs (1155 fixes, 0 without a fix, 100 silent)"), "\(alone.stderr)")
        let text = try String(contentsOfFile: "\(dir)/a.nmea", encoding: .utf8)
        #expect(text.contains("$GPGGA,070000.00,") && text.contains("$GPGGA,070000.10,") && !text.contains("$GN"))
        #expect(text.contains("#   --stretch 0.2km@12-10"), "the header records the options")

        let over = try Pacer.run(["nmea", "synth", "\(dir)/run.yaml", "--rate", "5", "--sky-every", "5", "--noise", "0",
                                  "--stretch", "30@10", "--outage", "0:20-0:25", "--start", "2026-06-01T12:00:00Z"])
        #expect(over.status == 0, "\(over.stderr)")
        // 15 s searching (from the recipe) and 30 s of running, five epochs a second.
        #expect(over.stderr.contains("226 epochs (126 fixes, 100 without a fix, 0 silent) over 0:45"), "\(over.stderr)")
        #expect(over.stdout.contains("$GNRMC,120045.00,A,") && over.stdout.contains(",010626,"))

        // Refusals name the option or the file, the line and the key.
        let refusals: [([String], String)] = [
            (["nmea", "synth"], "give a recipe file, or --route and at least one --stretch"),
            (["nmea", "synth", "--route", "\(dir)/loop.gpx"], "give a recipe file, or --route and at least one --stretch"),
            (["nmea", "synth", "\(dir)/run.yaml", "--rate", "0"], "--rate: must be between one a minute (0.016667) and 20 Hz, got 0"),
            (["nmea", "synth", "\(dir)/run.yaml", "--stretch", "10:00@fast"], "--stretch '10:00@fast': expected DURATION@KMH"),
            (["nmea", "synth", "\(dir)/run.yaml", "--stretch", "10:00@-3"], "--stretch '10:00@-3': expected DURATION@KMH"),
            (["nmea", "synth", "\(dir)/run.yaml", "--stretch", "1km@0"], "--stretch '1km@0': a stretch of 1 km at 0 km/h never ends"),
            (["nmea", "synth", "\(dir)/run.yaml", "--constellations", "GP,XX"], "--constellations 'GP,XX'"),
            (["nmea", "synth", "\(dir)/run.yaml", "--outage", "9:00-99:00"], "outages[0]: ends at 1:39:00, after the recording"),
            (["nmea", "synth", "\(dir)/run.yaml", "--start", "noon"], "--start: expected a UTC date and time"),
            (["nmea", "synth", "\(dir)/missing.yaml"], "missing.yaml: no such file"),
            (["nmea", "synth", "--route", "\(dir)/none.gpx", "--stretch", "60@10"], "none.gpx: no such file"),
            (["nmea", "synth", "\(dir)/run.yaml", "--out", "\(dir)/no/such/dir/x.nmea"], "x.nmea: No such file or directory"),
        ]
        for (arguments, message) in refusals {
            let result = try Pacer.run(arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }
}
