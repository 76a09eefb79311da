import Coaching
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import PacerCore
import Storage
import TestSupport
import Testing

/// TCX out of the store as a runner uses it: a bundled scenario run into a data
/// folder, exported or shared with `--tcx`, the file checked against Garmin's schema with
/// xmllint, read back with gpsbabel, and read field by field with libxml2 against what the
/// store holds.
@Suite("TCX export and share, end to end", .serialized)
struct TCXEndToEndTests {
    static let schema = repositoryRoot + "/../shared/schemas/TrainingCenterDatabasev2.xsd"

    /// Runs `scenario` into `dir/data` (activity 1).
    static func record(_ scenario: String, in dir: String) async throws -> ActivityDetail {
        let run = try await Pacer.runOffThePool(["scenario", "run", "Scenarios/\(scenario)", "--quiet", "--out", "\(dir)/out",
                                                 "--data-dir", "\(dir)/data"])
        try #require(run.status == 0, "\(run.stderr)")
        return try PacerStore(directory: "\(dir)/data", access: .read).activities.activity(1)
    }

    static func validate(_ path: String) async throws -> ProcessResult {
        try await Program.runOffThePool("/usr/bin/xmllint", ["--noout", "--nonet", "--schema", schema, path])
    }

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

    static func children(_ e: XMLElement, _ name: String) -> [XMLElement] {
        (e.children ?? []).compactMap { $0 as? XMLElement }.filter { $0.localName == name }
    }

    static func number(_ e: XMLElement, _ name: String) -> Double? {
        children(e, name).first?.stringValue.flatMap(Double.init)
    }

    static func descendants(_ e: XMLElement, _ name: String) -> [XMLElement] {
        var out: [XMLElement] = []
        func walk(_ e: XMLElement) {
            for case let child as XMLElement in e.children ?? [] {
                if child.localName == name { out.append(child) }
                walk(child)
            }
        }
        walk(e)
        return out
    }

    static func attribute(_ e: XMLElement, _ name: String) -> String? {
        (e.attributes ?? []).first { ($0.localName ?? $0.name) == name }?.stringValue
    }

    static func near(_ a: GeoPoint?, _ b: GeoPoint) -> Bool {
        guard let a else { return false }
        return abs(a.latitude - b.latitude) < 1e-9 && abs(a.longitude - b.longitude) < 1e-9
    }

    static func position(_ trackpoint: XMLElement) -> GeoPoint? {
        guard let p = children(trackpoint, "Position").first,
              let lat = number(p, "LatitudeDegrees"), let lon = number(p, "LongitudeDegrees") else { return nil }
        return GeoPoint(latitude: lat, longitude: lon)
    }

    /// The intervals scenario (ten phases, a point every 30 s on the medium profile) exported
    /// with `--tcx`: valid against the schema; a lap per phase with the phase's timer time and
    /// stored distance, its intensity, the laps summing to the device's distance; every stored
    /// point a trackpoint with its time, position and odometer distance, within its lap's, and
    /// the last trackpoint at the device's distance; gpsbabel reads every stored point back.
    @Test func anIntervalsRunExportsItsPhasesAsLapsAndTheDevicesDistance() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let detail = try await Self.record("intervals", in: dir)
        let phases = detail.phaseResults, stored = detail.points
        try #require(phases.count == 10 && stored.count == 26)
        let out = "\(dir)/intervals.tcx"
        let export = try await Pacer.runOffThePool(["activities", "export", "1", "--tcx", out, "--data-dir", "\(dir)/data"])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stdout == "Activity #1 written to \(out)\n")
        let lint = try await Self.validate(out)
        #expect(lint.status == 0, "xmllint: \(lint.stderr)")

        let elements = try Self.elements(out)
        let activity = try #require(elements.first { $0.localName == "Activity" })
        #expect(Self.attribute(activity, "Sport") == "Running")
        #expect(Self.children(activity, "Id").first?.stringValue == detail.summary.startedAt?.iso8601)
        #expect(Self.children(activity, "Notes").first?.stringValue == detail.summary.name)
        let creator = try #require(Self.children(activity, "Creator").first)
        #expect(Self.children(creator, "Name").first?.stringValue == "Pacer")

        let laps = Self.children(activity, "Lap")
        #expect(laps.count == phases.count)
        var start = 0.0
        var last = -1.0
        var trackpoints: [XMLElement] = []
        for (lap, phase) in zip(laps, phases) {
            let seconds = try #require(Self.number(lap, "TotalTimeSeconds"))
            #expect(abs(seconds - phase.duration.inSeconds) < 0.001, "\(phase.name): \(seconds) s")
            let metres = try #require(Self.number(lap, "DistanceMeters"))
            #expect(abs(metres - phase.distance) < 0.1, "\(phase.name): \(metres) m, stored \(phase.distance)")
            #expect(Self.number(lap, "Calories") == 0)
            #expect(Self.children(lap, "Intensity").first?.stringValue == (phase.name == "recovery" ? "Resting" : "Active"))
            #expect(Self.children(lap, "TriggerMethod").first?.stringValue == "Time")
            // The lap's trackpoints run from its start distance to its end, never back.
            let points = Self.descendants(lap, "Trackpoint")
            #expect(!points.isEmpty, "\(phase.name)")
            for p in points {
                let d = try #require(Self.number(p, "DistanceMeters"))
                #expect(d >= last && d >= start - 0.001 && d <= start + phase.distance + 0.001,
                        "\(phase.name): \(d) m outside \(start)...\(start + phase.distance)")
                last = d
            }
            // A point falls on each phase change here (the phases change on the half-minute), at
            // the lap's start: above it by at most a second of the speed carried on (while the
            // medium profile calibrates, a fix a second: the live figure shown at the change is
            // never taken back, the phase is measured to its end).
            let first = points.first.flatMap { Self.number($0, "DistanceMeters") } ?? -1
            #expect(first - start > -0.1 && first - start < 5, "\(phase.name): \(first) m at a lap from \(start) m")
            start += phase.distance
            trackpoints += points
        }
        #expect(abs(start - detail.summary.distance) < 0.1, "the laps sum to \(start) m, the device \(detail.summary.distance)")
        #expect(abs(last - detail.summary.distance) < 0.1, "the last trackpoint at \(last) m")

        // Every stored point, in order, with its time, position and odometer distance; past the
        // last one (at 12:30; the run ends at 13:00), one of time and distance only.
        let positioned = trackpoints.filter { Self.position($0) != nil }
        #expect(positioned.count == stored.count)
        #expect(trackpoints.count == stored.count + 1)
        for (element, point) in zip(positioned, stored) {
            #expect(Self.near(Self.position(element), point.position))
            #expect(Self.children(element, "Time").first?.stringValue == point.time.iso8601)
            let d = try #require(Self.number(element, "DistanceMeters"))
            #expect(abs(d - (point.distance ?? -1)) < 0.001)
        }
        let end = try #require(trackpoints.last)
        #expect(Self.position(end) == nil)
        #expect(Self.children(end, "Time").first?.stringValue == detail.summary.endedAt?.iso8601)

        // gpsbabel reads it as Garmin's own: every stored point (the point without a position
        // is no point on a map).
        let babel = try await Program.runOffThePool("/usr/bin/gpsbabel", ["-i", "gtrnctr", "-f", out, "-o", "gpx", "-F",
                                                                         "\(dir)/back.gpx"])
        #expect(babel.status == 0, "gpsbabel: \(babel.stderr)")
        let back = try String(contentsOfFile: "\(dir)/back.gpx", encoding: .utf8)
        #expect(back.components(separatedBy: "<trkpt ").count - 1 == stored.count)

        // The schema check can fail: a lap without its required Calories is refused.
        let broken = "\(dir)/broken.tcx"
        let text = try String(contentsOfFile: out, encoding: .utf8)
        try text.replacingOccurrences(of: "<Calories>0</Calories>", with: "").write(toFile: broken, atomically: true,
                                                                                  encoding: .utf8)
        #expect(try await Self.validate(broken).status != 0)
    }

    /// Runs that end otherwise, on the bundled scenarios: across the antimeridian (stored at
    /// +180, which TCX writes as -180), stopped early, cut off by a power cut and recovered
    /// (two activities), two runs in a day. Each activity: valid against the schema; the laps
    /// sum to the device's distance and the last trackpoint is at it; the distances never go
    /// back; every stored point is a trackpoint with a position, and gpsbabel reads them all;
    /// the last lap of a run not completed was ended by the runner (Manual), a phase by its
    /// time.
    @Test(arguments: ["antimeridian", "stop-early", "power-cut", "device-day"])
    func everyActivityOfAScenarioExportsWithTheDevicesDistance(_ scenario: String) async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try await Self.record(scenario, in: dir)
        let store = try PacerStore(directory: "\(dir)/data", access: .read)
        let activities = try store.activities.activities()
        try #require(!activities.isEmpty)
        for summary in activities {
            let detail = try store.activities.activity(summary.id)
            let out = "\(dir)/\(summary.id).tcx"
            let export = try await Pacer.runOffThePool(["activities", "export", "\(summary.id)", "--tcx", out,
                                                        "--data-dir", "\(dir)/data"])
            #expect(export.status == 0, "\(export.stderr)")
            let lint = try await Self.validate(out)
            #expect(lint.status == 0, "\(scenario) #\(summary.id): \(lint.stderr)")
            let activity = try #require(try Self.elements(out).first { $0.localName == "Activity" })
            let laps = Self.children(activity, "Lap")
            let sum = laps.compactMap { Self.number($0, "DistanceMeters") }.reduce(0, +)
            #expect(abs(sum - summary.distance) < 0.1, "\(scenario) #\(summary.id): laps \(sum) m, device \(summary.distance)")
            let trackpoints = Self.descendants(activity, "Trackpoint")
            let distances = trackpoints.compactMap { Self.number($0, "DistanceMeters") }
            #expect(distances.count == trackpoints.count)
            #expect(zip(distances, distances.dropFirst()).allSatisfy { $0 <= $1 }, "\(scenario) #\(summary.id)")
            #expect(abs((distances.last ?? -1) - summary.distance) < 0.1, "\(scenario) #\(summary.id)")
            let positions = trackpoints.compactMap(Self.position)
            #expect(positions.count == detail.points.count)
            #expect(positions.allSatisfy { $0.longitude >= -180 && $0.longitude < 180 })
            let triggers = laps.map { Self.children($0, "TriggerMethod").first?.stringValue }
            #expect(triggers.last == (summary.state == .completed ? "Time" : "Manual"), "\(scenario) #\(summary.id): \(triggers)")
            #expect(triggers.first == "Time", "\(scenario) #\(summary.id): \(triggers)")
            let babel = try await Program.runOffThePool("/usr/bin/gpsbabel", ["-i", "gtrnctr", "-f", out, "-o", "gpx",
                                                                             "-F", "\(dir)/back.gpx"])
            #expect(babel.status == 0, "gpsbabel: \(babel.stderr)")
            let back = try String(contentsOfFile: "\(dir)/back.gpx", encoding: .utf8)
            #expect(back.components(separatedBy: "<trkpt ").count - 1 == detail.points.count)
        }
    }

    /// An import (no timer, no odometer in its points): one lap of its time and distance, its
    /// points' distances summed along each segment up to the stored distance.
    @Test func anImportedRunIsOneLap() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try await Self.record("intervals", in: dir)
        let imported = try await Pacer.runOffThePool(["activities", "import", "\(dir)/out/track.gpx", "--as", "activity",
                                                      "--data-dir", "\(dir)/imported"])
        try #require(imported.status == 0, "\(imported.stderr)")
        let detail = try PacerStore(directory: "\(dir)/imported", access: .read).activities.activity(1)
        let out = "\(dir)/imported.tcx"
        let export = try await Pacer.runOffThePool(["activities", "export", "1", "--tcx", out, "--data-dir", "\(dir)/imported"])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(try await Self.validate(out).status == 0)
        let activity = try #require(try Self.elements(out).first { $0.localName == "Activity" })
        let laps = Self.children(activity, "Lap")
        #expect(laps.count == 1)
        let lap = try #require(laps.first)
        #expect(abs((Self.number(lap, "DistanceMeters") ?? -1) - detail.summary.distance) < 0.1)
        #expect(abs((Self.number(lap, "TotalTimeSeconds") ?? -1) - detail.summary.time.inSeconds) < 0.001)
        #expect(Self.children(lap, "TriggerMethod").first?.stringValue == "Manual")
        let trackpoints = Self.descendants(lap, "Trackpoint")
        #expect(trackpoints.count == detail.points.count)
        #expect(abs((trackpoints.last.flatMap { Self.number($0, "DistanceMeters") } ?? -1) - detail.summary.distance) < 0.1)
    }

    /// A pause within a phase: the lap holds a track per recorded segment (TCX has no pause;
    /// Strava and Garmin read the gap in time), and its time is the timer's, pauses excluded.
    @Test func aPauseWithinAPhaseStartsANewTrackInItsLap() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let detail = try await Self.record("pause-resume", in: dir)
        try #require(detail.segments.count == 2)
        let out = "\(dir)/run.tcx"
        let export = try await Pacer.runOffThePool(["activities", "export", "1", "--tcx", out, "--data-dir", "\(dir)/data"])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(try await Self.validate(out).status == 0)
        let activity = try #require(try Self.elements(out).first { $0.localName == "Activity" })
        let laps = Self.children(activity, "Lap")
        #expect(laps.map { Self.children($0, "Track").count } == [1, 2, 1])
        let total = laps.compactMap { Self.number($0, "TotalTimeSeconds") }.reduce(0, +)
        #expect(abs(total - (detail.summary.activeTime?.inSeconds ?? 0)) < 0.001)
    }

    /// A share in TCX with a privacy zone and --hide-within: the same points a GPX share of
    /// the same choice shows, none within a hidden circle (every trackpoint's distance to the
    /// zone's centre checked), valid against the schema; no odometer distance (it would tell
    /// how far the first point shown is from the hidden start), no name, no elevations.
    @Test func aTCXShareHidesThePlacesAsTheGPXShareDoes() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let detail = try await Self.record("intervals", in: dir)
        let stored = detail.points
        let first = stored[0].position, lastPoint = stored[stored.count - 1].position
        let park = stored[13].position
        let settings = try Pacer.settings(in: dir, extra: """
            privacy_zones:
              - {name: Park, lat: \(park.latitude), lon: \(park.longitude), radius_m: 60}
            """)
        try await ShareEndToEndTests.setSecret("9f3b27c8e1d4a6055b7e8c2f0a1d3e49", in: "\(dir)/data")
        let tcx = "\(dir)/shared.tcx", gpx = "\(dir)/shared.gpx"
        let choice = ["--include", "track,times,speeds", "--hide-within", "200m", "--config", settings]
        let shared = try await Pacer.runOffThePool(["activities", "share", "1", "--tcx", tcx] + choice)
        #expect(shared.status == 0, "\(shared.stderr)")
        #expect(shared.stdout.hasPrefix("Activity #1 shared to \(tcx): track ("), "\(shared.stdout)")
        let asGPX = try await Pacer.runOffThePool(["activities", "share", "1", "--out", gpx] + choice)
        #expect(asGPX.status == 0, "\(asGPX.stderr)")
        let lint = try await Self.validate(tcx)
        #expect(lint.status == 0, "xmllint: \(lint.stderr)")

        let store = try PacerStore(directory: "\(dir)/data", access: .read)
        let circles = try store.gpx.privacyCircles(activity: 1, choice: ShareChoice(
            items: [.track, .times, .speeds], hideWithin: 200, zones: [PrivacyZone(name: "Park", center: park, radius: 60)]))
        #expect(Set(circles.map(\.place)) == [0, 1])
        let kept = stored.filter { p in !circles.contains { $0.contains(p.position) } }
        #expect(kept.count > 0 && kept.count < stored.count - 2)

        let elements = try Self.elements(tcx)
        let trackpoints = elements.filter { $0.localName == "Trackpoint" }
        #expect(trackpoints.count == kept.count)
        for (element, point) in zip(trackpoints, kept) {
            let position = try #require(Self.position(element))
            #expect(Self.near(position, point.position), "\(position) stored as \(point.position)")
            #expect(Self.children(element, "Time").first?.stringValue == point.time.iso8601)
            #expect(Geodesy.distance(position, park) > 60, "\(position) is \(Geodesy.distance(position, park)) m from the zone")
            #expect(Geodesy.distance(position, first) > 200 && Geodesy.distance(position, lastPoint) > 200)
            #expect(!circles.contains { $0.contains(position) })
        }
        // The same points as the GPX share.
        let gpxPoints = try ShareEndToEndTests.elements(gpx).filter { $0.localName == "trkpt" }
        let gpxPositions = try gpxPoints.map(ShareEndToEndTests.position)
        #expect(gpxPositions.count == trackpoints.count
                && zip(gpxPositions, trackpoints).allSatisfy { Self.near(Self.position($1), $0) })
        let names = Set(elements.compactMap(\.localName))
        #expect(!names.contains("DistanceMeters") || elements.filter { $0.localName == "DistanceMeters" }
            .allSatisfy { $0.parent?.localName == "Lap" }, "an odometer distance in a share")
        #expect(!names.contains("AltitudeMeters") && !names.contains("Notes"), "\(names)")
        #expect(names.contains("Speed"))
        // The file starts at the first point shown, not at the hidden start.
        let activity = try #require(elements.first { $0.localName == "Activity" })
        #expect(Self.children(activity, "Id").first?.stringValue == kept.first?.time.iso8601)
        #expect(Self.children(activity, "Lap").first.flatMap { Self.attribute($0, "StartTime") }
                == kept.first?.time.iso8601)
    }

    /// What TCX cannot carry is refused, saying which option, and nothing is written: a share
    /// or an export without times (TCX requires each point's), a share with waypoints.
    @Test func aTCXWithoutTimesIsRefusedNamingTheOption() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try await Self.record("intervals", in: dir)
        let out = "\(dir)/x.tcx"
        let data = ["--data-dir", "\(dir)/data"]
        let noTimes = try await Pacer.runOffThePool(["activities", "share", "1", "--tcx", out] + data)
        #expect(noTimes.status == 64)
        #expect(noTimes.stderr.contains("a TCX share needs times: TCX requires each point's time; include times "
                                        + "(--include track,times) or share as GPX (--out FILE)"), "\(noTimes.stderr)")
        let waypoints = try await Pacer.runOffThePool(["activities", "share", "1", "--include", "track,times,waypoints",
                                                       "--tcx", out] + data)
        #expect(waypoints.status == 64)
        #expect(waypoints.stderr.contains("TCX has no place for waypoints"), "\(waypoints.stderr)")
        let both = try await Pacer.runOffThePool(["activities", "share", "1", "--include", "track,times", "--tcx", out,
                                                  "--out", "\(dir)/x.gpx"] + data)
        #expect(both.status == 64)
        let export = try await Pacer.runOffThePool(["activities", "export", "1", "--tcx", out, "--no-times"] + data)
        #expect(export.status == 64)
        #expect(export.stderr.contains("TCX needs times"), "\(export.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/x.gpx"))
    }
}
