import Foundation
import NMEA
import PacerCore
import Simulation
import Testing

/// The NMEA synthesizer: what it writes decodes cleanly through the project's own engine to
/// the positions it says it wrote, follows the speed script and the route, and is the same
/// from the same seed.
@Suite("NMEA synthesizer")
struct NMEASynthesizerTests {
    typealias F = SynthFixture
    typealias Recipe = NMEASynthesisRecipe

    /// Ten minutes round a 300 m circle, all constellations and extra sentences, with an
    /// acquisition, an invalid and a silent outage.
    static let busy = Recipe(
        route: F.circle(center: F.hague, radius: 300), start: F.start, rateHz: 1,
        stretches: [Recipe.Stretch(.seconds(300), kmh: 9.5), Recipe.Stretch(.metres(1500), kmh: 11),
                    Recipe.Stretch(.seconds(180), fromKmh: 9, toKmh: 12), Recipe.Stretch(.seconds(30), kmh: 0)],
        seed: 42, noiseMetres: 2.5, constellations: [.gps, .glonass, .galileo, .beidou], acquireSeconds: 20,
        outages: [Recipe.Outage(from: 240, to: 250, mode: .invalid), Recipe.Outage(from: 300, to: 305, mode: .silent)],
        extraSentences: [.vtg, .gll, .zda])

    // MARK: - Decoding

    @Test func everyValidEpochDecodesToTheWrittenPosition() throws {
        let (bytes, epochs) = try F.synthesize(Self.busy)
        let decoded = F.decode(bytes)
        #expect(decoded.statistics.rejected == 0, "\(decoded.rejections.prefix(3))")
        #expect(decoded.statistics.skipped == 0)
        let valid = epochs.filter { $0.status == .fix }
        #expect(decoded.fixes.count == valid.count)
        #expect(decoded.statistics.fixes == valid.count)
        #expect(valid.count == epochs.count - 20 - 10 - 5)
        for (fix, epoch) in zip(decoded.fixes, valid) {
            let written = try #require(epoch.position)
            #expect(fix.time == epoch.time)
            #expect(abs(fix.position.latitude - written.latitude) < 1e-7)
            #expect(abs(fix.position.longitude - written.longitude) < 1e-7)
            let altitude = try #require(fix.altitude), speed = try #require(fix.speed), course = try #require(fix.course)
            #expect(abs(altitude - (epoch.altitude ?? .nan)) < 1e-9)
            #expect(abs(speed - (epoch.speed ?? .nan)) < 1e-9)
            #expect(abs(course - (epoch.course ?? .nan)) < 1e-9)
            #expect(fix.mode == .threeD)
            #expect(fix.satellitesUsed == epoch.satellitesUsed)
            #expect(fix.satellitesInView == epoch.satellitesInView)
        }
        // The cycles without a fix still carry their time: the acquisition and the tunnel.
        let noFix = epochs.filter { $0.status == .noFix }.map(\.time)
        #expect(decoded.noFixTimes == noFix)
    }

    @Test func sentencesAreWellFormedAndTheSkyAddsUp() throws {
        let (bytes, epochs) = try F.synthesize(Self.busy)
        let lines = F.lines(bytes)
        #expect(lines.prefix { $0.hasPrefix("#") }.count >= 5, "a header naming the generator and the recipe")
        #expect(lines.first?.contains("pacer nmea synth") == true)
        #expect(String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n").count == lines.count + 1,
                "every line ends in CR LF")
        var gsaUsed = 0, ggaUsed: Int?, inView: [String: Int] = [:], listed: [String: Int] = [:]
        var checked = 0
        func closeEpoch() {
            guard let used = ggaUsed else { return }
            #expect(gsaUsed == used, "GSA lists the satellites GGA counts")
            for (talker, n) in inView { #expect(listed[talker] == n, "GSV of \(talker) lists as many as it says are in view") }
            checked += 1
        }
        for line in lines where !line.hasPrefix("#") {
            #expect(line.utf8.count <= 82, "NMEA 0183's 82 characters: \(line)")
            guard case .sentence(let sentence) = NMEALineParser.parse(line) else {
                Issue.record("not a sentence the engine reads: \(line)")
                continue
            }
            switch sentence {
            case .gga(let s):
                closeEpoch()
                #expect(s.talker == .combined)
                ggaUsed = s.satellitesUsed ?? 0
                gsaUsed = 0
                inView = [:]
                listed = [:]
            case .gsa(let s):
                #expect(s.talker == .combined)
                #expect((1...4).contains(s.systemID ?? 0))
                gsaUsed += s.satellitesUsed
            case .gsv(let s):
                inView[s.talker.description] = s.satellitesInView
                listed[s.talker.description, default: 0] += s.satellites.count
                #expect(s.signalID == (s.talker == .galileo ? 7 : 1))
            default:
                break
            }
        }
        closeEpoch()
        #expect(checked == epochs.filter { $0.status != .silent }.count)
    }

    @Test func aSingleConstellationSpeaksAsGPS() throws {
        var recipe = Self.busy
        recipe.constellations = [.gps]
        recipe.extraSentences = []
        let (bytes, _) = try F.synthesize(recipe, header: false)
        let talkers = Set(F.lines(bytes).map { String($0.dropFirst().prefix(2)) })
        #expect(talkers == ["GP"])
        let decoded = F.decode(bytes)
        #expect(decoded.statistics.rejected == 0)
        #expect(decoded.fixes.allSatisfy { ($0.satellitesUsed ?? 0) >= 4 })
    }

    // MARK: - The script and the route

    @Test func distanceFollowsTheSpeedScript() throws {
        // Ten minutes at 12 km/h is 2.0 km; then 1.5 km at 10 km/h; then 3 minutes from 9 to
        // 12 km/h (an even change: 10.5 km/h on average, 525 m).
        let recipe = Recipe(
            route: F.line(from: F.hague, bearing: 30, length: 5000), start: F.start,
            stretches: [Recipe.Stretch(.seconds(600), kmh: 12), Recipe.Stretch(.metres(1500), kmh: 10),
                        Recipe.Stretch(.seconds(180), fromKmh: 9, toKmh: 12)],
            noiseMetres: 0)
        let (_, epochs) = try F.synthesize(recipe)
        #expect(epochs.count == 600 + 540 + 180 + 1)
        let atTen = try #require(epochs.first { $0.elapsed == 600 })
        #expect(abs(F.length(epochs.prefix(601).map(\.truePosition)) - 2000) < 2)
        #expect(abs(atTen.distance - 2000) < 1e-9)
        let atKm = try #require(epochs.first { $0.elapsed == 1140 })
        #expect(abs(atKm.distance - 3500) < 1e-6)
        #expect(abs(F.length(epochs.map(\.truePosition)) - 4025) < 4)
        #expect(abs(try #require(epochs.last).trueSpeed - 12 / 3.6) < 1e-9)
        // With noise 0 the positions written are the true ones to NMEA's resolution (2 cm).
        for e in epochs {
            let error = F.error(try #require(e.position), from: e.truePosition)
            #expect(abs(error.north) < 0.02 && abs(error.east) < 0.02)
        }
    }

    /// `speed_scale`: a receiver whose Doppler speeds read 3 % low. Its speeds are the true ones
    /// times 0.97 (less than the speeds' noise of 0.05 m/s apart); its positions and courses
    /// are the unbiased receiver's, byte for byte.
    @Test func aSpeedScaleBiasesTheSpeedsAndNothingElse() throws {
        var biased = Self.busy
        biased.speedScale = 0.97
        let (_, truth) = try F.synthesize(Self.busy)
        let (_, scaled) = try F.synthesize(biased)
        #expect(truth.count == scaled.count)
        var compared = 0
        var ratios = 0.0
        for (a, b) in zip(truth, scaled) where a.status == .fix && a.trueSpeed > 1 {
            #expect(a.position == b.position && a.course == b.course)
            let speed = try #require(b.speed)
            #expect(abs(speed - 0.97 * a.trueSpeed) < 0.25, "\(speed) against \(a.trueSpeed)")
            ratios += speed / a.trueSpeed
            compared += 1
        }
        #expect(compared > 500)
        let mean = ratios / Double(compared)
        #expect(abs(mean - 0.97) < 0.002, "\(mean)")
        biased.speedScale = 2
        #expect(throws: NMEASynthesisError.self) { try biased.validate() }
    }

    @Test func elevationsComeFromTheRouteOrTheRecipe() throws {
        var recipe = Recipe(
            route: F.line(from: F.hague, bearing: 90, length: 1000, altitudes: { 5 + $0 / 100 }), start: F.start,
            stretches: [Recipe.Stretch(.metres(1000), kmh: 10)], noiseMetres: 0)
        var (_, epochs) = try F.synthesize(recipe)
        for e in epochs { #expect(abs(e.trueAltitude - (5 + e.distance / 100)) < 1e-6) }
        #expect(abs(try #require(epochs.last?.altitude) - 15) < 0.051)
        recipe.route.altitudes = nil
        recipe.altitudeMetres = 123
        (_, epochs) = try F.synthesize(recipe)
        #expect(epochs.allSatisfy { $0.trueAltitude == 123 && $0.altitude == 123 })
    }

    @Test func aClosedRouteIsRunInLaps() throws {
        let route = F.circle(center: F.hague, radius: 100, count: 36)
        let recipe = Recipe(route: route, start: F.start, stretches: [Recipe.Stretch(.metres(3000), kmh: 12)], noiseMetres: 0)
        let (_, epochs) = try F.synthesize(recipe)
        // Always on the circle (a 36-gon: within 0.4 m of it).
        for e in epochs { #expect(abs(Geodesy.distance(e.truePosition, F.hague) - 100) < 0.5) }
        let lap = F.length(route.points + [route.points[0]])
        var laps = 0
        for (a, b) in zip(epochs, epochs.dropFirst()) where (b.distance / lap).rounded(.down) > (a.distance / lap).rounded(.down) {
            laps += 1
            #expect(Geodesy.distance(b.truePosition, route.points[0]) < 4, "a lap ends at the start")
        }
        #expect(laps == Int(3000 / lap))
        #expect(abs(F.length(epochs.map(\.truePosition)) - 3000) < 6)
    }

    @Test func anOpenRouteIsRunOutAndBack() throws {
        let route = F.line(from: F.hague, bearing: 60, length: 500)
        let recipe = Recipe(route: route, start: F.start, stretches: [Recipe.Stretch(.metres(1200), kmh: 10)], noiseMetres: 0)
        let (_, epochs) = try F.synthesize(recipe)
        let fromStart = epochs.map { Geodesy.distance($0.truePosition, route.points[0]) }
        let turn = try #require(fromStart.indices.max { fromStart[$0] < fromStart[$1] })
        #expect(abs(fromStart[turn] - 500) < 2)
        let back = try #require(fromStart.indices.filter { $0 > turn }.min { fromStart[$0] < fromStart[$1] })
        #expect(fromStart[back] < 2, "back at the start after 1 km")
        #expect(abs(try #require(fromStart.last) - 200) < 2)
        #expect(abs(epochs[turn / 2].trueCourse - 60) < 0.5)
        #expect(abs(epochs[turn + 10].trueCourse - 240) < 0.5)
        #expect(abs(F.length(epochs.map(\.truePosition)) - 1200) < 2)
    }

    @Test func theAntimeridianIsCrossedTheShortWay() throws {
        // East along 10° N from 179.99° E, across 180° into the western hemisphere, and back.
        let route = F.line(from: GeoPoint(latitude: 10, longitude: 179.99), bearing: 90, length: 3000)
        #expect(route.points.contains { $0.longitude < 0 })
        let recipe = Recipe(route: route, start: F.start, stretches: [Recipe.Stretch(.metres(5000), kmh: 15)], seed: 7, noiseMetres: 3)
        let (bytes, epochs) = try F.synthesize(recipe)
        for e in epochs {
            #expect(e.truePosition.longitude >= -180 && e.truePosition.longitude < 180)
            let p = try #require(e.position)
            #expect(p.longitude >= -180 && p.longitude <= 180)
        }
        let step = 15 / 3.6
        for (a, b) in zip(epochs, epochs.dropFirst()) {
            #expect(Geodesy.distance(a.truePosition, b.truePosition) < step * 1.001, "no jump at ±180°")
            #expect(Geodesy.distance(try #require(a.position), try #require(b.position)) < step + 1.5)
        }
        #expect(abs(F.length(epochs.map(\.truePosition)) - 5000) < 5)
        let decoded = F.decode(bytes)
        #expect(decoded.statistics.rejected == 0)
        #expect(decoded.fixes.count == epochs.count)
        #expect(decoded.fixes.contains { $0.position.longitude > 179.98 } && decoded.fixes.contains { $0.position.longitude < -179.99 })
        for (fix, e) in zip(decoded.fixes, epochs) {
            #expect(abs(fix.position.longitude - (e.position?.longitude ?? .nan)) < 1e-7)
        }
    }

    @Test func theEquatorIsCrossed() throws {
        let route = F.line(from: GeoPoint(latitude: -0.003, longitude: -78.5), bearing: 0, length: 700)
        let recipe = Recipe(route: route, start: F.start, stretches: [Recipe.Stretch(.seconds(240), kmh: 10)], noiseMetres: 0)
        let (bytes, epochs) = try F.synthesize(recipe)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains(",S,07830.") && text.contains(",N,07830.") && text.contains(",W,"))
        let decoded = F.decode(bytes)
        #expect(decoded.fixes.count == epochs.count)
        for (fix, e) in zip(decoded.fixes, epochs) {
            #expect(abs(fix.position.latitude - (e.position?.latitude ?? .nan)) < 1e-7)
        }
        let latitudes = decoded.fixes.map(\.position.latitude)
        #expect(latitudes.first! < 0 && latitudes.last! > 0)
        #expect(zip(latitudes, latitudes.dropFirst()).allSatisfy { $1 > $0 }, "north all the way, no jump at 0°")
    }

    // MARK: - Time

    @Test func midnightAndNewYearMoveTheDate() throws {
        let start = UTCTimestamp(millisecondsSince1970: 1_798_761_540_000)  // 2026-12-31T23:59:00Z
        #expect(start.iso8601 == "2026-12-31T23:59:00.000Z")
        let recipe = Recipe(route: F.circle(center: F.hague, radius: 200), start: start,
                            stretches: [Recipe.Stretch(.seconds(120), kmh: 10)], seed: 3)
        let (bytes, epochs) = try F.synthesize(recipe)
        let rmc = F.lines(bytes).filter { $0.hasPrefix("$GNRMC") }
        #expect(rmc.first?.contains(",311226,") == true)
        #expect(rmc.last?.contains(",010127,") == true)
        #expect(rmc.contains { $0.hasPrefix("$GNRMC,000000.00,A,") && $0.contains(",010127,") })
        let decoded = F.decode(bytes)
        #expect(decoded.fixes.map(\.time) == epochs.map(\.time))
        #expect(decoded.fixes.last?.time.iso8601 == "2027-01-01T00:01:00.000Z")
    }

    @Test(arguments: [(1.0, 100), (10.0, 10), (5.0, 20), (0.5, 200)])
    func ratesSetTheEpochSpacing(_ hz: Double, _ centiseconds: Int64) throws {
        let recipe = Recipe(route: F.circle(center: F.hague, radius: 200), start: F.start, rateHz: hz,
                            stretches: [Recipe.Stretch(.seconds(60), kmh: 10)], seed: 5)
        let (bytes, epochs) = try F.synthesize(recipe)
        #expect(epochs.count == Int(60 * hz) + 1)
        for (a, b) in zip(epochs, epochs.dropFirst()) {
            #expect(b.time.millisecondsSince1970 - a.time.millisecondsSince1970 == centiseconds * 10)
        }
        let decoded = F.decode(bytes)
        #expect(decoded.statistics.rejected == 0)
        #expect(decoded.fixes.map(\.time) == epochs.map(\.time))
        // Speeds from positions stay believable at any rate: the error is smooth, not jitter.
        let speeds = zip(epochs, epochs.dropFirst()).map { a, b in
            Geodesy.distance(a.position!, b.position!) / (b.elapsed - a.elapsed)
        }
        let mean = speeds.reduce(0, +) / Double(speeds.count)
        #expect(abs(mean - 10 / 3.6) < 0.15, "mean speed from positions \(mean) m/s")
        #expect(speeds.allSatisfy { abs($0 - 10 / 3.6) < 1.5 }, "worst \(speeds.map { abs($0 - 10 / 3.6) }.max()!)")
    }

    @Test func skyReportsComeAtTheirOwnInterval() throws {
        var recipe = Self.busy
        recipe.skyEverySeconds = 5
        let (bytes, epochs) = try F.synthesize(recipe)
        let lines = F.lines(bytes).filter { !$0.hasPrefix("#") }
        let gsa = lines.filter { $0.hasPrefix("$GNGSA") }.count
        // Every five seconds in which the receiver talked at all (not the silent window).
        let reports = Set(epochs.filter { $0.status != .silent }.map { Int($0.elapsed) / 5 }).count
        #expect(gsa == 4 * reports)
        #expect(reports == 204)
        let (same, _) = try F.synthesize(Self.busy)
        let positions = { (bytes: [UInt8]) in F.lines(bytes).filter { $0.hasPrefix("$GNGGA") }.map { $0.split(separator: ",")[2...5].joined(separator: ",") } }
        #expect(positions(bytes).suffix(100) == positions(same).suffix(100), "the sky setting does not move the positions")
    }

    // MARK: - Noise and determinism

    @Test func theSameSeedGivesTheSameBytes() throws {
        let a = try F.synthesize(Self.busy).bytes
        let b = try F.synthesize(Self.busy).bytes
        #expect(a == b)
        var other = Self.busy
        other.seed = 43
        let c = try F.synthesize(other).bytes
        #expect(a != c)
        #expect(a.count > 100_000)
    }

    /// Pins the output: a change here changes every scenario recording made with this
    /// version, and on another machine it would mean the arithmetic is not portable.
    @Test func theOutputIsPinned() throws {
        let recipe = Recipe(
            route: F.line(from: F.hague, bearing: 30, length: 1000), start: F.start,
            stretches: [Recipe.Stretch(.seconds(3), kmh: 10)], seed: 2026, noiseMetres: 3, constellations: [.gps, .galileo])
        let lines = F.lines(try F.synthesize(recipe, header: false).bytes)
        let first = lines.filter { $0.hasPrefix("$GNGGA") || $0.hasPrefix("$GNRMC") }
        #expect(first == Self.pinned, "\(first)")
    }

    static let pinned = [
        "$GNGGA,070000.00,5204.23005,N,00418.10012,E,1,17,0.70,13.6,M,47.0,M,,*7B",
        "$GNRMC,070000.00,A,5204.23005,N,00418.10012,E,5.388,30.38,020526,,,A,V*38",
        "$GNGGA,070001.00,5204.23132,N,00418.10173,E,1,17,0.70,13.5,M,47.0,M,,*7A",
        "$GNRMC,070001.00,A,5204.23132,N,00418.10173,E,5.420,30.09,020526,,,A,V*3D",
        "$GNGGA,070002.00,5204.23260,N,00418.10334,E,1,16,0.71,13.6,M,47.0,M,,*7F",
        "$GNRMC,070002.00,A,5204.23260,N,00418.10334,E,5.379,30.16,020526,,,A,V*3E",
        "$GNGGA,070003.00,5204.23393,N,00418.10485,E,1,16,0.71,13.1,M,47.0,M,,*79",
        "$GNRMC,070003.00,A,5204.23393,N,00418.10485,E,5.442,30.65,020526,,,A,V*34",
    ]

    @Test func noiseHasTheAskedSpreadAndStaysSmooth() throws {
        let sigma = 3.0
        let recipe = Recipe(route: F.circle(center: F.hague, radius: 400), start: F.start,
                            stretches: [Recipe.Stretch(.seconds(3600), kmh: 10)], seed: 11, noiseMetres: sigma)
        let (_, epochs) = try F.synthesize(recipe, header: false)
        let errors = try epochs.map { F.error(try #require($0.position), from: $0.truePosition) }
        let n = Double(errors.count)
        let rmsNorth = (errors.reduce(0) { $0 + $1.north * $1.north } / n).squareRoot()
        let rmsEast = (errors.reduce(0) { $0 + $1.east * $1.east } / n).squareRoot()
        let meanNorth = errors.reduce(0) { $0 + $1.north } / n
        let meanEast = errors.reduce(0) { $0 + $1.east } / n
        let meanRadial = errors.reduce(0) { $0 + ($1.north * $1.north + $1.east * $1.east).squareRoot() } / n
        #expect(rmsNorth > 0.6 * sigma && rmsNorth < 1.4 * sigma, "rms north \(rmsNorth)")
        #expect(rmsEast > 0.6 * sigma && rmsEast < 1.4 * sigma, "rms east \(rmsEast)")
        #expect(abs(meanNorth) < sigma / 2 && abs(meanEast) < sigma / 2, "bias \(meanNorth), \(meanEast)")
        #expect(meanRadial > 0.8 * sigma && meanRadial < 1.8 * sigma, "mean error \(meanRadial) (1.25 σ expected)")
        #expect(errors.allSatisfy { abs($0.north) < 6 * sigma && abs($0.east) < 6 * sigma })
        // Smooth: the track is as long as the true one to within 1 %, and successive errors
        // differ by centimetres, not metres.
        let written = F.length(epochs.map { $0.position! })
        #expect(abs(written - 10_000) / 10_000 < 0.01, "track length \(written) m for 10 km")
        let steps = zip(errors, errors.dropFirst()).map { hypot($1.north - $0.north, $1.east - $0.east) }
        #expect(steps.max()! < 1.5, "largest change of the error in a second: \(steps.max()!) m")
        // Reported speed is the true one with a little noise.
        let speedErrors = epochs.map { $0.speed! - $0.trueSpeed }
        #expect(speedErrors.allSatisfy { abs($0) < 0.3 })
        #expect(abs(speedErrors.reduce(0, +) / n) < 0.01)
    }

    @Test func standingStillIsStill() throws {
        let recipe = Recipe(route: F.circle(center: F.hague, radius: 200), start: F.start,
                            stretches: [Recipe.Stretch(.seconds(60), kmh: 0), Recipe.Stretch(.seconds(60), kmh: 12)], noiseMetres: 2)
        let (_, epochs) = try F.synthesize(recipe)
        let still = epochs.prefix(60)
        #expect(still.allSatisfy { $0.truePosition == epochs[0].truePosition && $0.trueSpeed == 0 })
        #expect(still.allSatisfy { ($0.speed ?? 1) < 0.2 && $0.course == still.first!.course })
        #expect(epochs.last!.trueSpeed == 12 / 3.6)
    }

    // MARK: - Outages and acquisition

    @Test func outagesAreSilentOrInvalid() throws {
        let (bytes, epochs) = try F.synthesize(Self.busy)
        let decoded = F.decode(bytes)
        let startMs = F.start.millisecondsSince1970
        func inWindow(_ t: UTCTimestamp, _ from: Double, _ to: Double) -> Bool {
            let s = Double(t.millisecondsSince1970 - startMs) / 1000
            return s >= from && s < to
        }
        // Silent: nothing at all, not even a cycle without a fix.
        #expect(epochs.filter { $0.status == .silent }.count == 5)
        #expect(!decoded.epochs.contains {
            switch $0 {
            case .fix(let f): inWindow(f.time, 300, 305)
            case .noFix(let t): t.map { inWindow($0, 300, 305) } ?? true
            }
        })
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(!text.contains("$GNGGA,070500.00") && !text.contains("$GNGGA,070504.00"))
        #expect(text.contains("$GNGGA,070459.00") && text.contains("$GNGGA,070505.00"))
        // Invalid: talking, no fix: ten cycles with a time and without a position.
        #expect(!decoded.fixes.contains { inWindow($0.time, 240, 250) })
        #expect(decoded.noFixTimes.filter { inWindow($0, 240, 250) }.count == 10)
        #expect(text.contains("$GNRMC,070400.00,V,,,,,,,020526,,,N,V"))
        #expect(text.contains("$GNGGA,070400.00,,,,,0,00,99.99,,,,,,"))
        // Acquisition: the first twenty seconds have time and date but no position.
        #expect(decoded.noFixTimes.filter { inWindow($0, 0, 20) }.count == 20)
        #expect(decoded.fixes.first?.time == UTCTimestamp(millisecondsSince1970: startMs + 20_000))
        #expect(epochs[19].distance == 0 && epochs[20].distance == 0)
        #expect(abs(epochs[21].distance - 9.5 / 3.6) < 1e-9)
        // The script runs after the acquisition: its stretches end where they should.
        #expect(abs(epochs[320].distance - 9.5 / 3.6 * 300) < 1e-9)
        #expect(abs(epochs[321].distance - (9.5 / 3.6 * 300 + 11 / 3.6)) < 1e-9)
    }

    // MARK: - Refusals

    /// A valid recipe with one change each, the key that is refused and why.
    static let badRecipes: [(String, Recipe, String)] = {
        let base = Recipe(route: F.circle(center: F.hague, radius: 100), stretches: [Recipe.Stretch(.seconds(60), kmh: 10)])
        func changed(_ change: (inout Recipe) -> Void) -> Recipe {
            var r = base
            change(&r)
            return r
        }
        return [
            ("route", changed { r in r.route.points = [F.hague] }, "a route needs at least 2"),
            ("route", changed { r in r.route.points = [F.hague, F.hague] }, "has no length"),
            ("rate_hz", changed { r in r.rateHz = 0 }, "and 20 Hz, got 0"),
            ("rate_hz", changed { r in r.rateHz = 50 }, "must be between"),
            ("speeds", changed { r in r.stretches = [] }, "needs at least one stretch"),
            ("speeds[0]", changed { r in r.stretches = [Recipe.Stretch(.seconds(60), kmh: -1)] }, "must be from 0 to 100 km/h"),
            ("speeds[0]", changed { r in r.stretches = [Recipe.Stretch(.metres(100), kmh: 0)] }, "never ends"),
            ("speeds[0]", changed { r in r.stretches = [Recipe.Stretch(.seconds(0), kmh: 5)] }, "more than 0 seconds"),
            ("speeds", changed { r in r.stretches = [Recipe.Stretch(.seconds(49 * 3600), kmh: 5)] }, "would last 49:00:00"),
            ("noise_m", changed { r in r.noiseMetres = -1 }, "must be from 0 to 100 m"),
            ("constellations", changed { r in r.constellations = [] }, "at least one"),
            ("constellations", changed { r in r.constellations = [.gps, .gps] }, "twice"),
            ("sky_every_s", changed { r in r.skyEverySeconds = 0 }, "must be above 0 and at most 3600 s"),
            ("acquire_s", changed { r in r.acquireSeconds = -5 }, "must be from 0 to 3600 s"),
            ("outages[0]", changed { r in r.outages = [Recipe.Outage(from: 10, to: 10, mode: .silent)] }, "must be before"),
            ("outages[0]", changed { r in r.outages = [Recipe.Outage(from: 10, to: 9999, mode: .silent)] }, "after the recording"),
            ("outages[1]", changed { r in r.outages = [Recipe.Outage(from: 10, to: 30, mode: .silent), Recipe.Outage(from: 20, to: 40, mode: .invalid)] }, "overlaps outages[0]"),
        ]
    }()

    @Test(arguments: badRecipes)
    func badRecipesAreRefused(_ key: String, _ recipe: Recipe, _ reason: String) throws {
        let error = #expect(throws: NMEASynthesisError.self) { try NMEASynthesizer(recipe) }
        #expect(error?.key == key, "\(String(describing: error))")
        #expect(error?.reason.contains(reason) == true, "\(String(describing: error))")
    }

    // MARK: - Streaming

    @Test func theRecordingIsStreamedInBoundedChunks() throws {
        let recipe = Recipe(route: F.circle(center: F.hague, radius: 300), start: F.start, rateHz: 10,
                            stretches: [Recipe.Stretch(.seconds(600), kmh: 10)])
        var synthesizer = try NMEASynthesizer(recipe)
        var chunks: [Int] = []
        let summary = synthesizer.write(chunkSize: 16 * 1024, to: { chunks.append($0.count) })
        #expect(chunks.count > 10)
        #expect(chunks.allSatisfy { $0 < 16 * 1024 + 2048 }, "a chunk is flushed as soon as it is full")
        #expect(summary.bytes == chunks.reduce(0, +))
        #expect(summary.epochs == 6001 && summary.fixes == 6001)
        #expect(summary.duration == 600)
        #expect(abs(summary.distance - 10_000 / 6) < 1e-6)
        var rest: [UInt8] = []
        #expect(synthesizer.next(appendingTo: &rest) == nil && rest.isEmpty)
    }
}
