import Foundation
import PacerCore
import TestSupport
import Testing

/// GPX in and out through `pacer activities import` and `export`, at the sizes a device
/// produces, and files no runner could have recorded.
@Suite("pacer activities import and export, end to end", .serialized)
struct GPXEndToEndTests {
    /// A GPX 1.1 track as another device writes it: one point a second, a runner at about
    /// 3 m/s round a 2 km circle, with elevations; `points` of them, about 110 bytes each.
    static func writeTrack(_ path: String, points: Int) throws {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let file = try #require(FileHandle(forWritingAtPath: path))
        defer { try? file.close() }
        var out: [UInt8] = []
        out.append(contentsOf: """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="another device" xmlns="http://www.topografix.com/GPX/1/1">
            <trk><name>All day</name><trkseg>

            """.utf8)
        let start = UTCTimestamp(millisecondsSince1970: 1_714_543_200_000)  // 2024-05-01T06:00:00Z
        let radius = 2000.0, metresPerDegree = 111_195.0
        for i in 0..<points {
            let angle = Double(i) * 3 / radius
            let lat = 45 + radius * sin(angle) / metresPerDegree
            let lon = 6 + radius * (1 - cos(angle)) / (metresPerDegree * cos(45 * Double.pi / 180))
            out.append(contentsOf: "<trkpt lat=\"\(lat)\" lon=\"\(lon)\"><ele>\(200 + (20 * sin(Double(i) / 600)).rounded())</ele><time>".utf8)
            UTCTimestamp(millisecondsSince1970: start.millisecondsSince1970 + Int64(i) * 1000).appendISO8601(to: &out)
            out.append(contentsOf: "</time><sat>9</sat><hdop>0.9</hdop></trkpt>\n".utf8)
            if out.count >= 1 << 20 {
                file.write(Data(out))
                out.removeAll(keepingCapacity: true)
            }
        }
        out.append(contentsOf: "</trkseg></trk>\n</gpx>\n".utf8)
        file.write(Data(out))
    }

    /// Counts `<trkpt ` in a file without reading it whole.
    static func countTrackPoints(_ path: String) throws -> Int {
        let file = try #require(FileHandle(forReadingAtPath: path))
        defer { try? file.close() }
        let tag = Array("<trkpt ".utf8)
        var count = 0, matched = 0
        while let chunk = try file.read(upToCount: 1 << 20), !chunk.isEmpty {
            for byte in chunk {
                if byte == tag[matched] {
                    matched += 1
                    if matched == tag.count {
                        count += 1
                        matched = 0
                    }
                } else {
                    matched = byte == tag[0] ? 1 : 0
                }
            }
        }
        return count
    }

    /// A well-formed GPX over 10 MB was refused with "XML parser error 1" at its last line:
    /// Foundation handed libxml2 the whole file as one chunk, over libxml2's 10,000,000-byte
    /// limit. The issue's file had 103,093 points; a file may have 100,000 since issue 38
    /// (`TrackPlausibility.maximumPoints`), so 100,000 points, each with its satellites and
    /// HDOP as a receiver writes them, make the 10 MB: imported and exported whole.
    @Test func aGPXOver10MBImportsAndExportsWhole() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = "\(dir)/all-day.gpx"
        try Self.writeTrack(source, points: 100_000)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: source)[.size] as? Int)
        #expect(size > 10_000_000)

        let data = "\(dir)/data"
        let imported = try Pacer.run(["activities", "import", source, "--as", "activity", "--data-dir", data])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("100000 points"), "\(imported.stdout)")

        let exported = "\(dir)/out.gpx"
        let export = try Pacer.run(["activities", "export", "1", "--gpx", exported, "--data-dir", data])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(try Self.countTrackPoints(exported) == 100_000)
        // Well-formed to an independent parser (libxml2 reading it as a stream).
        let lint = try Program.run("/usr/bin/xmllint", ["--noout", "--stream", exported])
        #expect(lint.status == 0, "xmllint: \(lint.stderr)")
        // To standard output, streamed the same way: the same document.
        let piped = try Pacer.run(["activities", "export", "1", "--gpx", "-", "--data-dir", data])
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stdout == (try String(contentsOfFile: exported, encoding: .utf8)))
    }

    /// A 2-point track of 19,967 km in 1 s is refused, with the line and why, not made an
    /// activity (whose `pacer stats` would say an average of 144,971 km/h); the same jump as
    /// one point of a run is dropped and said, and the statistics are the run's.
    @Test func anImpossibleTrackNeverReachesTheStatistics() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let data = "\(dir)/data"
        let far = "\(dir)/far.gpx"
        try """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="a probe" xmlns="http://www.topografix.com/GPX/1/1">
            <trk><trkseg>
            <trkpt lat="0" lon="0"><time>2024-05-01T08:00:00Z</time></trkpt>
            <trkpt lat="0" lon="179.568"><time>2024-05-01T08:00:01Z</time></trkpt>
            </trkseg></trk>
            </gpx>

            """.write(toFile: far, atomically: true, encoding: .utf8)
        let refused = try Pacer.run(["activities", "import", far, "--as", "activity", "--data-dir", data])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("\(far):5: <trkpt> is 19967 km from the point at line 4, 1 s earlier"), "\(refused.stderr)")
        let none = try Pacer.run(["stats", "--data-dir", data])
        #expect(none.stdout.contains("No activities yet"), "\(none.stdout)")

        // A run of 10 minutes at 3 m/s, with the same jump at 5 minutes.
        let run = "\(dir)/run.gpx"
        try Self.writeTrack(run, points: 600)
        var text = try String(contentsOfFile: run, encoding: .utf8).components(separatedBy: "\n")
        let spike = 3 + 300  // the 301st point's line, 0-based
        let point = text[spike]
        let lat = try #require(point.range(of: #"lat="[^"]*" lon="[^"]*""#, options: .regularExpression))
        text[spike] = point.replacingCharacters(in: lat, with: #"lat="-45" lon="-173.568""#)
        try text.joined(separator: "\n").write(toFile: run, atomically: true, encoding: .utf8)
        let imported = try Pacer.run(["activities", "import", run, "--as", "activity", "--data-dir", data])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("599 points"), "\(imported.stdout)")
        #expect(imported.stdout.contains("Dropped 1 of the file's 600 points as GPS glitches"), "\(imported.stdout)")
        #expect(imported.stdout.contains("\(run):\(spike + 1): <trkpt> dropped as a GPS glitch: is "), "\(imported.stdout)")
        let stats = try Pacer.run(["stats", "--data-dir", data])
        #expect(stats.status == 0)
        // 599 s at 3 m/s round the circle: 1.80 km, at 10.8 km/h.
        #expect(stats.stdout.contains("Longest run: 1.80 km"), "\(stats.stdout)")
        #expect(stats.stdout.contains("Average speed over all activities: 10.8 km/h"), "\(stats.stdout)")
    }

    /// A real run (a Garmin Fenix 2 on a trail, 1 Hz, hilly, under trees), as gpsbabel writes
    /// it to GPX: none of its points is taken for a glitch.
    @Test func aRealRunImportsWhole() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let gpx = "\(dir)/fenix.gpx"
        let babel = try Program.run("/usr/bin/gpsbabel", [
            "-i", "nmea", "-f", repositoryRoot + "/../shared/tracks/fenix2-trail-run.nmea", "-o", "gpx,gpxver=1.1", "-F", gpx,
        ])
        try #require(babel.status == 0, "gpsbabel: \(babel.stderr)")
        let imported = try Pacer.run(["activities", "import", gpx, "--as", "activity", "--data-dir", "\(dir)/data"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("2984 points"), "\(imported.stdout)")
        #expect(!imported.stdout.contains("Dropped"), "\(imported.stdout)")
        #expect(!imported.stdout.contains("Left out"), "\(imported.stdout)")
    }
}
