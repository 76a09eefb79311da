import Foundation
import TestSupport
import Testing

/// Issue 24, a new user's first hour: what a command says it does, it does.
@Suite("A new user's first hour (issue 24), end to end", .serialized)
struct FirstHourEndToEndTests {
    /// `routes export ID --gpx -`: the help says "- for standard output", so it writes there,
    /// the same document the file gets; an unknown route is still 66.
    @Test func aRouteIsExportedToStandardOutput() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let data = "\(dir)/data"
        let imported = try Pacer.run(["routes", "import", "Scenarios/routes/canal-path.gpx", "--data-dir", data])
        #expect(imported.status == 0, "\(imported.stderr)")

        let out = try Pacer.run(["routes", "export", "1", "--gpx", "-", "--data-dir", data])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.stderr.isEmpty, "\(out.stderr)")
        #expect(out.stdout.hasPrefix("<?xml") && out.stdout.contains("<rte>") && out.stdout.contains("<rtept"), "\(out.stdout.prefix(300))")
        let file = try Pacer.run(["routes", "export", "1", "--gpx", "\(dir)/route.gpx", "--data-dir", data])
        #expect(file.status == 0 && file.stdout == "Route #1 written to \(dir)/route.gpx\n", "\(file.stdout) \(file.stderr)")
        #expect(try String(contentsOfFile: "\(dir)/route.gpx", encoding: .utf8) == out.stdout)

        let none = try Pacer.run(["routes", "export", "7", "--gpx", "-", "--data-dir", data])
        #expect(none.status == 66 && none.stderr.contains("there is no route #7") && none.stdout.isEmpty, "\(none.stderr)")
        #expect(!none.stderr.contains("USAGE"), "\(none.stderr)")
    }

    /// `plan create --save` says "stored as plan 1": `plan activate 1` takes that id, and
    /// activates the very file it wrote (the same identity: the same progress).
    @Test func aStoredPlanIsActivatedByItsId() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let data = "\(dir)/data"
        let set = try Pacer.run(["profile", "set", "--weight", "70", "--height", "175", "--frequency", "3", "--data-dir", data])
        #expect(set.status == 0, "\(set.stderr)")
        let create = try Pacer.run(["plan", "create", "--goal", "7k-35", "--start", "2026-05-01", "--deadline", "2026-07-24",
                                    "--save", "--data-dir", data])
        #expect(create.status == 0, "\(create.stderr)")
        #expect(create.stdout.contains("stored as plan 1 (`pacer plan activate 1` makes it the device's)"), "\(create.stdout)")
        let file = "\(data)/plans/7k-35-from-2026-05-01.yaml"
        #expect(FileManager.default.fileExists(atPath: file))

        let activate = try Pacer.run(["plan", "activate", "1", "--data-dir", data])
        #expect(activate.status == 0, "\(activate.stderr)")
        #expect(activate.stdout.hasPrefix("The device's plan is now '7 km in 35:00 by 2026-07-24' (\(file), "), "\(activate.stdout)")
        let active = try Pacer.run(["plan", "active", "--data-dir", data])
        #expect(active.stdout.hasPrefix("'7 km in 35:00 by 2026-07-24' (\(file), "), "\(active.stdout)")

        // Its file moved away (--out elsewhere, or removed): the stored text is written back.
        try FileManager.default.removeItem(atPath: file)
        let again = try Pacer.run(["plan", "activate", "1", "--data-dir", data])
        #expect(again.status == 0 && again.stdout.contains("(\(data)/plans/plan-1.yaml, "), "\(again.stdout) \(again.stderr)")
        #expect(FileManager.default.contents(atPath: "\(data)/plans/plan-1.yaml").map { String(decoding: $0, as: UTF8.self) }?
            .contains("7 km in 35:00") == true)

        let none = try Pacer.run(["plan", "activate", "9", "--data-dir", data])
        #expect(none.status == 66 && none.stderr.contains("there is no stored plan #9"), "\(none.stderr)")
        // A bundled plan's name still means the bundled plan.
        let named = try Pacer.run(["plan", "activate", "tempo", "--data-dir", data])
        #expect(named.status == 0 && named.stdout.contains("'Tempo'"), "\(named.stdout) \(named.stderr)")
    }

    /// A watch's GPX: 12 points a few seconds apart, each with a heart rate, 8 with a cadence.
    static func watchGPX() -> String {
        var points = ""
        for i in 0..<12 {
            let lat = 52.0 + Double(i) * 0.0001
            let cad = i < 8 ? "<gpxtpx:cad>84</gpxtpx:cad>" : ""
            points += """
                <trkpt lat="\(lat)" lon="4.3"><time>2026-05-02T07:00:\(String(format: "%02d", i * 5))Z</time>\
                <extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>\(140 + i)</gpxtpx:hr>\(cad)\
                </gpxtpx:TrackPointExtension></extensions></trkpt>

                """
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="a watch" xmlns="http://www.topografix.com/GPX/1/1"
                 xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2">
            <trk><name>Morning run</name><trkseg>
            \(points)</trkseg></trk></gpx>

            """
    }

    /// `activities import` says what it stored (a route by default, an activity with --as
    /// activity) and that the file's heart rates and cadences are not kept, with the counts.
    @Test func anImportSaysWhatItStoredAndWhatItDidNotKeep() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let data = "\(dir)/data"
        let gpx = "\(dir)/watch.gpx"
        try Self.watchGPX().write(toFile: gpx, atomically: true, encoding: .utf8)

        let route = try Pacer.run(["activities", "import", gpx, "--data-dir", data])
        #expect(route.status == 0, "\(route.stderr)")
        let routeLines = route.stdout.split(separator: "\n").map(String.init)
        #expect(routeLines.first?.hasPrefix("Imported route #1 \"Morning run\"") == true, "\(route.stdout)")
        #expect(routeLines.contains("Stored as route #1, to follow (pacer routes list; pacer run --route 1), not as an activity: "
                                    + "--as activity keeps a past run among the activities."), "\(route.stdout)")
        #expect(routeLines.contains("Not kept: the heart rate of 12 points and the cadence of 8 points in the file (Pacer records neither)."),
                "\(route.stdout)")

        let activity = try Pacer.run(["activities", "import", gpx, "--as", "activity", "--data-dir", data])
        #expect(activity.status == 0, "\(activity.stderr)")
        #expect(activity.stdout.contains("Stored as activity #1, a past run (pacer activities list)."), "\(activity.stdout)")
        #expect(activity.stdout.contains("Not kept: the heart rate of 12 points and the cadence of 8 points"), "\(activity.stdout)")
        let list = try Pacer.run(["activities", "list", "--data-dir", data])
        #expect(list.stdout.contains("Morning run"), "\(list.stdout)")

        // A file without them says nothing of them.
        let plain = try Pacer.run(["activities", "import", "Scenarios/routes/canal-path.gpx", "--data-dir", data])
        #expect(plain.status == 0 && !plain.stdout.contains("Not kept"), "\(plain.stdout)")
    }
}
