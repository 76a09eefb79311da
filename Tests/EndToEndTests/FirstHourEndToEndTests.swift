import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Storage
import TestSupport
import Testing

/// A new user's first hour: what a command says it does, it does.
@Suite("A new user's first hour, end to end", .serialized)
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
        // The device follows its own copy, kept in the data folder under the plan's key.
        let copied = try #require(activate.stdout.range(of: "copied to \(data)/plans/activated/"), "\(activate.stdout)")
        let copy = String(activate.stdout[copied.lowerBound...].dropFirst("copied to ".count).prefix { $0 != "\n" }.dropLast())
        #expect(copy.hasSuffix(".yaml"), "\(copy)")
        let active = try Pacer.run(["plan", "active", "--data-dir", data])
        #expect(active.stdout.hasPrefix("'7 km in 35:00 by 2026-07-24' (\(copy), "), "\(active.stdout)")

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

        // Activated with a relative --data-dir, the plan is found from anywhere else.
        let relative = try Pacer.run(["plan", "activate", "1", "--data-dir", "data"], in: dir)
        #expect(relative.status == 0 && relative.stdout.contains("(\(data)/plans/plan-1.yaml, "), "\(relative.stdout) \(relative.stderr)")
        let elsewhere = try Pacer.run(["plan", "active", "--data-dir", data], in: "/")
        #expect(elsewhere.status == 0 && elsewhere.stdout.hasPrefix("'7 km in 35:00 by 2026-07-24' (\(copy), "),
                "\(elsewhere.stdout) \(elsewhere.stderr)")
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
    /// activity) and what it did not keep, with the counts: a route the heart rates and the
    /// cadences, an activity the cadences (it keeps the heart rates).
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
        #expect(routeLines.contains("Not kept: the heart rate of 12 points and the cadence of 8 points in the file "
                                    + "(a route keeps no heart rate; Pacer records no cadence)."),
                "\(route.stdout)")

        let activity = try Pacer.run(["activities", "import", gpx, "--as", "activity", "--data-dir", data])
        #expect(activity.status == 0, "\(activity.stderr)")
        #expect(activity.stdout.contains("Stored as activity #1, a past run (pacer activities list)."), "\(activity.stdout)")
        // An activity keeps the heart rates (TrackPointExtension v2 here); the cadences are still said.
        #expect(activity.stdout.contains("Not kept: the cadence of 8 points in the file (Pacer records no cadence)."),
                "\(activity.stdout)")
        let stored = try PacerStore(directory: data, access: .read).activities.activity(1).points
        #expect(stored.map(\.heartRate) == (0..<12).map { 140 + $0 }, "\(stored.map(\.heartRate))")
        let list = try Pacer.run(["activities", "list", "--data-dir", data])
        #expect(list.stdout.contains("Morning run"), "\(list.stdout)")

        // A file without them says nothing of them.
        let plain = try Pacer.run(["activities", "import", "Scenarios/routes/canal-path.gpx", "--data-dir", data])
        #expect(plain.status == 0 && !plain.stdout.contains("Not kept"), "\(plain.stdout)")
    }
}

/// `pacer hw check` tries the button: the evdev device must be there and
/// readable; with --press, a press must arrive. A FIFO carrying the kernel's input_event
/// records stands in for the device (no uinput here), as in the evdev adapter's tests.
@Suite("pacer hw check tries the button, end to end", .serialized)
struct ButtonCheckEndToEndTests {
    /// One `struct input_event` as a 64-bit kernel writes it.
    static func record(type: UInt16 = 1, code: UInt16, value: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        withUnsafeBytes(of: Int(1_000)) { bytes += $0 }
        withUnsafeBytes(of: Int(0)) { bytes += $0 }
        withUnsafeBytes(of: type) { bytes += $0 }
        withUnsafeBytes(of: code) { bytes += $0 }
        withUnsafeBytes(of: value) { bytes += $0 }
        return bytes
    }

    static let simulated = ["--gps", "none", "--buzzer", "null", "--battery", "sim"]

    @Test func theButtonIsCheckedAndAPressHeard() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }

        // No button configured: fine, and said.
        let none = try Pacer.run(["hw", "check"] + Self.simulated)
        #expect(none.status == 0, "\(none.stdout)")
        #expect(none.stdout.contains("no button configured"), "\(none.stdout)")

        // A device that is not there: the button is missing, the check fails (69).
        let missing = try Pacer.run(["hw", "check", "--buttons", "evdev:\(dir)/event9?keys=28"] + Self.simulated)
        #expect(missing.status == 69, "\(missing.stdout)")
        #expect(missing.stdout.contains("button   MISSING   evdev:\(dir)/event9?keys=28   (required)"), "\(missing.stdout)")
        #expect(missing.stdout.contains("the button's input device \(dir)/event9 is not there"), "\(missing.stdout)")

        let fifo = "\(dir)/event0"
        #expect(mkfifo(fifo, 0o600) == 0)
        // There and readable, not pressed: ok without --press.
        let readable = try Pacer.run(["hw", "check", "--buttons", "evdev:\(fifo)?keys=28"] + Self.simulated)
        #expect(readable.status == 0, "\(readable.stdout)")
        #expect(readable.stdout.contains("\(fifo) is a FIFO, readable (keys 28)"), "\(readable.stdout)")

        // --press: nothing pressed within the time is a failure that says so.
        let silent = try Pacer.run(["hw", "check", "--buttons", "evdev:\(fifo)?keys=28", "--press", "0.5"] + Self.simulated)
        #expect(silent.status == 69, "\(silent.stdout)")
        #expect(silent.stdout.contains("no press within 0.5 s"), "\(silent.stdout)")

        // A press of another key, then of key 28, while the check waits.
        let check = try Pacer.start(["hw", "check", "--buttons", "evdev:\(fifo)?keys=28", "--press", "10", "--json"] + Self.simulated)
        let writer = open(fifo, O_WRONLY)
        #expect(writer >= 0)
        let bytes = Self.record(code: 30, value: 1) + Self.record(code: 30, value: 0)
            + Self.record(type: 0, code: 0, value: 0) + Self.record(code: 28, value: 1) + Self.record(code: 28, value: 0)
        #expect(bytes.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) } == bytes.count)
        let out = check.standardOutputData()
        check.process.waitUntilExit()
        close(writer)
        #expect(check.process.terminationStatus == 0, "\(String(decoding: out.0, as: UTF8.self))")
        let object = try #require(try JSONSerialization.jsonObject(with: out.0) as? [String: Any])
        let parts = try #require(object["parts"] as? [[String: Any]])
        let button = try #require(parts.first { $0["part"] as? String == "button" })
        #expect(button["status"] as? String == "ok", "\(button)")
        let found = (button["found"] as? [String]) ?? []
        #expect(found.contains("key 30 pressed, not one of the configured keys"), "\(found)")
        #expect(found.contains { $0.hasPrefix("a press of key 28 heard after ") }, "\(found)")
    }
}
