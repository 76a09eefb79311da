import Configurator
import Foundation
import PacerCore
import Simulation
import TestSupport
import Testing

/// Recipes for `pacer nmea synth`: a valid one loads exactly; each broken one is refused
/// with the file, the line, the key and the reason.
@Suite("Synthesis recipes")
struct SynthRecipeLoaderTests {
    typealias Recipe = NMEASynthesisRecipe

    /// A GPX track (or route) of `count` points (at most 10) going north-east from The Hague,
    /// with elevations when `elevations` is set; `same` puts every point at the first.
    static func gpx(count: Int = 5, elevations: Bool = true, route: Bool = false, same: Bool = false) -> String {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="pacer tests" xmlns="http://www.topografix.com/GPX/1/1">

            """
        text += route ? "<rte><name>Test route</name>\n" : "<trk><name>Test loop</name><trkseg>\n"
        for i in 0..<count {
            let tag = route ? "rtept" : "trkpt"
            let k = same ? 0 : i
            text += "<\(tag) lat=\"52.07\(k)\" lon=\"4.30\(k)\">"
            if elevations { text += "<ele>\(Double(i))</ele>" }
            text += "</\(tag)>\n"
        }
        text += route ? "</rte>\n</gpx>\n" : "</trkseg></trk>\n</gpx>\n"
        return text
    }

    static let valid = """
        route: loop.gpx
        start: 2026-05-02T23:50:00Z
        rate_hz: 5
        seed: 18446744073709551615
        noise_m: 1.5
        constellations: [GP, GL, GA, GB]
        sky_every_s: 2
        acquire_s: "0:30"
        altitude_m: 12
        sentences: [VTG, ZDA]
        speeds:
          - {for: "5:00", kmh: 9.5}
          - {km: 1.5, kmh: 11}
          - {for: "3:00", from_kmh: 9, to_kmh: 12}
          - {for: 90, kmh: 0}
          - {for: "1:02:03.5", kmh: 8}
        outages:
          - {from: "4:00", to: "4:40", mode: invalid}
          - {from: 600, to: 630.5, mode: silent}
          - {from: "20:00", to: "21:00"}
        """

    /// A folder with `loop.gpx` and the recipe `run.yaml`.
    static func folder(recipe: String = valid, gpx: String = gpx(), _ name: String = #function) throws -> (dir: String, recipe: String) {
        let dir = try makeTemporaryDirectory(name)
        _ = try write(gpx, to: "loop.gpx", in: dir)
        return (dir, try write(recipe, to: "run.yaml", in: dir))
    }

    @Test func aValidRecipeLoadsExactly() throws {
        let (_, path) = try Self.folder()
        let r = try SynthRecipeLoader.load(path: path)
        #expect(r.route.points.count == 5)
        #expect(r.route.points[4] == GeoPoint(latitude: 52.074, longitude: 4.304))
        #expect(r.route.altitudes == [0, 1, 2, 3, 4])
        #expect(r.route.name == "Test loop")
        #expect(r.start.iso8601 == "2026-05-02T23:50:00.000Z")
        #expect(r.rateHz == 5)
        #expect(r.seed == UInt64.max)
        #expect(r.noiseMetres == 1.5)
        #expect(r.constellations == [.gps, .glonass, .galileo, .beidou])
        #expect(r.skyEverySeconds == 2)
        #expect(r.acquireSeconds == 30)
        #expect(r.altitudeMetres == 12)
        #expect(r.extraSentences == [.vtg, .zda])
        #expect(r.stretches == [
            Recipe.Stretch(.seconds(300), kmh: 9.5), Recipe.Stretch(.metres(1500), kmh: 11),
            Recipe.Stretch(.seconds(180), fromKmh: 9, toKmh: 12), Recipe.Stretch(.seconds(90), kmh: 0),
            Recipe.Stretch(.seconds(3723.5), kmh: 8),
        ])
        #expect(r.outages == [
            Recipe.Outage(from: 240, to: 280, mode: .invalid), Recipe.Outage(from: 600, to: 630.5, mode: .silent),
            Recipe.Outage(from: 1200, to: 1260, mode: .invalid),
        ])
        #expect(r.comments == ["recipe run.yaml, route loop.gpx"])
        // It synthesizes.
        var synthesizer = try NMEASynthesizer(r)
        #expect(synthesizer.epochCount == Int(r.duration * 5) + 1)
        var first: [UInt8] = []
        _ = synthesizer.next(appendingTo: &first)
        #expect(String(decoding: first, as: UTF8.self).contains("$GNGGA,235000.00,,,,,0,00,99.99"))
    }

    @Test func defaultsFillWhatARecipeLeavesOut() throws {
        let (_, path) = try Self.folder(recipe: "route: loop.gpx\nspeeds: [{for: 60, kmh: 10}]\n", gpx: Self.gpx(elevations: false, route: true))
        let r = try SynthRecipeLoader.load(path: path)
        #expect(r.route.name == "Test route")
        #expect(r.route.altitudes == nil)
        #expect(r == Recipe(
            route: r.route, start: Recipe.defaultStart, rateHz: 1, stretches: [Recipe.Stretch(.seconds(60), kmh: 10)],
            seed: 1, noiseMetres: 2.5, constellations: [.gps, .glonass, .galileo], skyEverySeconds: nil,
            acquireSeconds: 0, altitudeMetres: 10, outages: [], extraSentences: [], comments: r.comments))
        #expect(Recipe.defaultStart.iso8601 == "2026-05-02T07:00:00.000Z")
    }

    @Test func theRouteIsFoundNextToTheRecipe() throws {
        let dir = try makeTemporaryDirectory()
        _ = try write(Self.gpx(), to: "routes/loop.gpx", in: dir)
        let path = try write(Self.valid.replacingOccurrences(of: "route: loop.gpx", with: "route: ../routes/loop.gpx"),
                             to: "recipes/run.yaml", in: dir)
        #expect(try SynthRecipeLoader.load(path: path).route.points.count == 5)
        let absolute = try write(Self.valid.replacingOccurrences(of: "route: loop.gpx", with: "route: \(dir)/routes/loop.gpx"),
                                 to: "elsewhere/run.yaml", in: dir)
        #expect(try SynthRecipeLoader.load(path: absolute).route.points.count == 5)
    }

    /// Each broken recipe is refused with the file, the line, the key and the reason.
    @Test(arguments: [
        // top-level values
        ("rate_hz: 5", "rate_hz: 0", 3, "rate_hz", "and 20 Hz, got 0"),
        ("rate_hz: 5", "rate_hz: 100", 3, "rate_hz", "must be between one a minute"),
        ("rate_hz: 5", "rate_hz: fast", 3, "rate_hz", "expected a number, got 'fast'"),
        ("rate_hz: 5", "rate_hz: 5\nspeed: 3", 4, "speed", "unknown key (expected one of: acquire_s, altitude_m"),
        ("start: 2026-05-02T23:50:00Z", "start: tomorrow", 2, "start", "expected a UTC date and time like 2026-05-02T07:00:00Z"),
        ("seed: 18446744073709551615", "seed: -1", 4, "seed", "expected a whole number from 0 to 18446744073709551615, got '-1'"),
        ("seed: 18446744073709551615", "seed: 1.5", 4, "seed", "expected a whole number"),
        ("noise_m: 1.5", "noise_m: -2", 5, "noise_m", "must be from 0 to 100 m, got -2"),
        ("noise_m: 1.5", "noise_m: 1.5\nspeed_scale: 2", 6, "speed_scale", "must be from 0.5 to 1.5, got 2"),
        ("[GP, GL, GA, GB]", "[GP, GX]", 6, "constellations", "unknown constellation 'GX' (constellations: GP, GL, GA, GB)"),
        ("[GP, GL, GA, GB]", "[]", 6, "constellations", "needs at least one constellation"),
        ("[GP, GL, GA, GB]", "[GP, GA, GP]", 6, "constellations", "names a constellation twice"),
        ("[GP, GL, GA, GB]", "GP", 6, "constellations", "expected a list like [GP, GL, GA], got a scalar"),
        ("sky_every_s: 2", "sky_every_s: 0", 7, "sky_every_s", "must be above 0 and at most 3600 s, got 0"),
        ("acquire_s: \"0:30\"", "acquire_s: \"0:75\"", 8, "acquire_s", "expected seconds or a time like \"4:30\""),
        ("acquire_s: \"0:30\"", "acquire_s: -3", 8, "acquire_s", "must be from 0 to 3600 s, got -3"),
        ("altitude_m: 12", "altitude_m: 20000", 9, "altitude_m", "must be between -500 and 9000 m"),
        ("[VTG, ZDA]", "[VTG, GGA]", 10, "sentences", "'GGA' is not a sentence this adds"),
        // stretches
        ("kmh: 9.5}", "kmh: -9.5}", 12, "speeds[0].kmh", "must be from 0 to 100 km/h (faster than this simulates: a typo?), got -9.5 km/h"),
        ("kmh: 9.5}", "kmh: 150}", 12, "speeds[0].kmh", "must be from 0 to 100 km/h (faster than this simulates: a typo?), got 150 km/h"),
        ("kmh: 9.5}", "kmh: quick}", 12, "speeds[0].kmh", "expected a number, got 'quick'"),
        ("{km: 1.5, kmh: 11}", "{km: 1.5, kmh: 0}", 13, "speeds[1].km", "never ends"),
        ("{km: 1.5, kmh: 11}", "{km: 0, kmh: 11}", 13, "speeds[1].km", "a stretch must cover more than 0 km"),
        ("{km: 1.5, kmh: 11}", "{km: 1.5, for: 60, kmh: 11}", 13, "speeds[1].km", "give either for (a duration) or km"),
        ("{km: 1.5, kmh: 11}", "{kmh: 11}", 13, nil, "missing key 'speeds[1].for' (a duration) or 'speeds[1].km'"),
        ("{km: 1.5, kmh: 11}", "{km: 1.5}", 13, nil, "missing key 'speeds[1].kmh'"),
        ("{km: 1.5, kmh: 11}", "{km: 1.5, kmh: 11, pace: 5}", 13, "speeds[1].pace", "unknown key"),
        ("{km: 1.5, kmh: 11}", "{km: 1.5, kmh: 11, to_kmh: 12}", 13, "speeds[1].kmh", "give either kmh"),
        ("from_kmh: 9, to_kmh: 12}", "from_kmh: 9}", 14, nil, "missing key 'speeds[2].to_kmh'"),
        ("{for: 90, kmh: 0}", "{for: 0, kmh: 0}", 15, "speeds[3].for", "a stretch must last more than 0 seconds"),
        ("{for: 90, kmh: 0}", "{for: soon, kmh: 0}", 15, "speeds[3].for", "expected seconds or a time"),
        ("{for: 90, kmh: 0}", "{for: \"1:60\", kmh: 0}", 15, "speeds[3].for", "got '1:60'"),
        ("{for: 90, kmh: 0}", "{for: 90, kmh: 0}\n  - 12", 16, "speeds[4]", "expected a mapping"),
        ("{for: \"1:02:03.5\", kmh: 8}", "{for: \"50:00:00\", kmh: 8}", 12, "speeds", "the recording would last 50:"),
        // outages
        ("{from: \"4:00\", to: \"4:40\", mode: invalid}", "{from: \"4:40\", to: \"4:00\", mode: invalid}",
         18, "outages[0].from", "from 4:40 must be before to 4:00"),
        ("{from: \"4:00\", to: \"4:40\", mode: invalid}", "{from: -10, to: \"4:40\", mode: invalid}",
         18, "outages[0].from", "must be at or after the start"),
        ("mode: invalid}", "mode: tunnel}", 18, "outages[0].mode", "'tunnel' is not one of silent, invalid"),
        ("{from: \"20:00\", to: \"21:00\"}", "{from: \"20:00\", to: \"3:00:00\"}", 20, "outages[2].to",
         "ends at 3:00:00, after the recording (1:20:14.41 long)"),
        ("{from: 600, to: 630.5, mode: silent}", "{from: 200, to: 630.5, mode: silent}", 19, "outages[1]",
         "starts at 3:20, before outages[0] ends (4:40)"),
        ("{from: \"20:00\", to: \"21:00\"}", "{to: \"21:00\"}", 20, nil, "missing key 'outages[2].from'"),
        ("{from: \"20:00\", to: \"21:00\"}", "{from: \"20:00\", to: \"21:00\", why: tunnel}", 20, "outages[2].why", "unknown key"),
    ] as [(String, String, Int, String?, String)])
    func brokenRecipesAreRefused(replace: String, with replacement: String, line: Int, key: String?, reason: String) throws {
        #expect(Self.valid.contains(replace))
        let (_, path) = try Self.folder(recipe: Self.valid.replacingOccurrences(of: replace, with: replacement))
        let error = #expect(throws: DataFileError.self) { try SynthRecipeLoader.load(path: path) }
        #expect(error?.file == path)
        #expect(error?.line == line, "\(String(describing: error))")
        #expect(error?.key == key, "\(String(describing: error))")
        #expect(error?.reason.contains(reason) == true, "\(String(describing: error))")
    }

    @Test func emptyListsAndMissingKeysAreRefused() throws {
        let text = Self.valid.components(separatedBy: "speeds:")[0] + "speeds: []\n"
        let (_, path) = try Self.folder(recipe: text)
        let empty = #expect(throws: DataFileError.self) { try SynthRecipeLoader.load(path: path) }
        #expect(empty == DataFileError(file: path, line: 11, key: "speeds", reason: "needs at least one stretch"))

        let (_, noRoute) = try Self.folder(recipe: "speeds: [{for: 60, kmh: 10}]\n", "noRoute")
        let missing = #expect(throws: DataFileError.self) { try SynthRecipeLoader.load(path: noRoute) }
        #expect(missing?.reason == "missing key 'route'")

        let (_, noSpeeds) = try Self.folder(recipe: "route: loop.gpx\n", "noSpeeds")
        let none = #expect(throws: DataFileError.self) { try SynthRecipeLoader.load(path: noSpeeds) }
        #expect(none?.reason == "missing key 'speeds'")

        let (_, notYAML) = try Self.folder(recipe: "route: [loop.gpx\n", "notYAML")
        let broken = #expect(throws: DataFileError.self) { try SynthRecipeLoader.load(path: notYAML) }
        #expect(broken?.reason.hasPrefix("not valid YAML") == true)
        let absent = #expect(throws: DataFileError.self) { try SynthRecipeLoader.load(path: "/nonexistent/run.yaml") }
        #expect(absent?.reason == "no such file")
    }

    /// A route that cannot be used is refused with the GPX file's own line and reason, and
    /// names the recipe that pointed to it.
    @Test func aBadRouteIsRefusedWithTheGPXError() throws {
        let (dir, missing) = try Self.folder(recipe: Self.valid.replacingOccurrences(of: "loop.gpx", with: "nowhere.gpx"))
        let noFile = #expect(throws: DataFileError.self) { try SynthRecipeLoader.load(path: missing) }
        #expect(noFile?.file == "\(dir)/nowhere.gpx")
        #expect(noFile?.reason == "no such file (the route of \(missing):1)")

        let truncated = String(Self.gpx().dropLast(30))
        let (dir2, path) = try Self.folder(gpx: truncated, "truncated")
        let notXML = #expect(throws: DataFileError.self) { try SynthRecipeLoader.load(path: path) }
        #expect(notXML?.file == "\(dir2)/loop.gpx")
        #expect(notXML?.line != nil)
        #expect(notXML?.reason.hasPrefix("not well-formed XML") == true, "\(String(describing: notXML))")

        let (dir3, onePoint) = try Self.folder(gpx: Self.gpx(count: 1), "onePoint")
        let short = #expect(throws: DataFileError.self) { try SynthRecipeLoader.load(path: onePoint) }
        #expect(short?.file == "\(dir3)/loop.gpx")
        #expect(short?.line == 4)
        #expect(short?.reason.hasPrefix("the route has 1 point; a route needs at least 2") == true, "\(String(describing: short))")

        let empty = """
            <?xml version="1.0"?>
            <gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><wpt lat="52" lon="4"/></gpx>
            """
        let (_, noPoints) = try Self.folder(gpx: empty, "noPoints")
        let nothing = #expect(throws: DataFileError.self) { try SynthRecipeLoader.load(path: noPoints) }
        #expect(nothing?.reason.hasPrefix("has no track or route points to follow") == true)

        let (_, same) = try Self.folder(gpx: Self.gpx(count: 3, same: true), "same")
        let flat = #expect(throws: DataFileError.self) { try SynthRecipeLoader.load(path: same) }
        #expect(flat?.reason.hasPrefix("the route has no length") == true, "\(String(describing: flat))")
    }

    // MARK: - The command line's forms

    @Test(arguments: [
        ("90", 90.0), ("12.5", 12.5), ("4:40", 280), ("0:05", 5), ("10:00", 600), ("1:02:03.5", 3723.5), ("4:00:00", 14_400),
    ] as [(String, Double)])
    func durationsAreRead(_ text: String, _ seconds: Double) {
        #expect(SynthRecipeLoader.seconds(text) == seconds)
    }

    @Test(arguments: ["", "4:5", "4:60", "-3", "1:2:3", "a", "1:00:00:00", "4.5:00", ":30", "4:30:", "1e3"])
    func badDurationsAreNot(_ text: String) {
        #expect(SynthRecipeLoader.seconds(text) == nil)
    }

    @Test func stretchesOutagesAndConstellationsFromTheCommandLine() {
        #expect(SynthRecipeLoader.stretch("10:00@9.5") == Recipe.Stretch(.seconds(600), kmh: 9.5))
        #expect(SynthRecipeLoader.stretch("90@0") == Recipe.Stretch(.seconds(90), kmh: 0))
        #expect(SynthRecipeLoader.stretch("2.5km@12") == Recipe.Stretch(.metres(2500), kmh: 12))
        #expect(SynthRecipeLoader.stretch("3:00@9-12") == Recipe.Stretch(.seconds(180), fromKmh: 9, toKmh: 12))
        #expect(SynthRecipeLoader.stretch("1km@8-10") == Recipe.Stretch(.metres(1000), fromKmh: 8, toKmh: 10))
        for bad in ["10:00", "@9", "2.5km@", "10:00@9-", "x@9", "10:00@9@9", "km@9", "10:00@fast", "10:00@-3"] {
            #expect(SynthRecipeLoader.stretch(bad) == nil, "\(bad)")
        }
        #expect(SynthRecipeLoader.outage("4:00-4:40") == Recipe.Outage(from: 240, to: 280, mode: .invalid))
        #expect(SynthRecipeLoader.outage("4:00-4:40:silent") == Recipe.Outage(from: 240, to: 280, mode: .silent))
        #expect(SynthRecipeLoader.outage("240-280:invalid") == Recipe.Outage(from: 240, to: 280, mode: .invalid))
        for bad in ["4:00", "4:00-4:40:tunnel", "-4:40", "4:00-", "a-b"] {
            #expect(SynthRecipeLoader.outage(bad) == nil, "\(bad)")
        }
        #expect(SynthRecipeLoader.constellations("GP,GL,GA") == [.gps, .glonass, .galileo])
        #expect(SynthRecipeLoader.constellations("gp, gb") == [.gps, .beidou])
        #expect(SynthRecipeLoader.constellations("GP,XX") == nil)
        #expect(SynthRecipeLoader.start("2026-05-02T07:00:00Z") == Recipe.defaultStart)
        #expect(SynthRecipeLoader.start("2026-05-02 07:00") == nil)
    }
}
