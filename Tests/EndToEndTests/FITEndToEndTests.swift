import Foundation
import PacerCore
import Storage
import TestSupport
import Testing

/// FIT out of `pacer activities export --fit` and `pacer plan export --fit`, read
/// back by independent readers: Garmin's FIT SDK for Python (`scripts/fit-dump.py`, pip
/// garmin-fit-sdk, installed by scripts/setup.sh) field by field against what the store
/// holds, and gpsbabel's FIT reader. Without the SDK these tests fail and say so.
@Suite("FIT export end to end", .serialized)
struct FITEndToEndTests {
    static let dumper = repositoryRoot + "/scripts/fit-dump.py"

    /// What the SDK read: its integrity check, its errors, its messages by kind.
    struct Dump {
        var integrity: Bool
        var errors: [String]
        var messages: [String: [[String: Any]]]

        func of(_ kind: String) -> [[String: Any]] { messages[kind + "_mesgs"] ?? [] }
    }

    static func dump(_ file: String) async throws -> Dump {
        let run = try await Program.runOffThePool("/usr/bin/python3", [dumper, file])
        try #require(run.status == 0, "fit-dump.py: \(run.stderr) (scripts/setup.sh installs garmin-fit-sdk)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        return Dump(integrity: json["integrity"] as? Bool ?? false, errors: json["errors"] as? [String] ?? ["?"],
                    messages: json["messages"] as? [String: [[String: Any]]] ?? [:])
    }

    /// Runs `Scenarios/NAME` into a data folder in `dir` and exports its activity as FIT.
    static func exportScenario(_ name: String, dir: String) async throws -> (fit: String, detail: ActivityDetail) {
        let run = try await Pacer.runOffThePool(["scenario", "run", "Scenarios/\(name)", "--quiet", "--out", "\(dir)/out",
                                                 "--data-dir", "\(dir)/data"])
        try #require(run.status == 0, "\(run.stderr)")
        let fit = "\(dir)/\(name).fit"
        let export = try await Pacer.runOffThePool(["activities", "export", "1", "--fit", fit, "--data-dir", "\(dir)/data"])
        try #require(export.status == 0, "\(export.stderr)")
        #expect(export.stdout.hasPrefix("Activity #1 written to \(fit) (FIT, "))
        let store = try PacerStore(directory: "\(dir)/data", access: .read)
        return (fit, try store.activities.activity(1))
    }

    static func number(_ m: [String: Any], _ key: String) -> Double? { (m[key] as? NSNumber)?.doubleValue }

    /// The intervals scenario: a lap per phase with the phase's distance and timer, a record
    /// per stored point at its position with the odometer's distance, and the last record
    /// and the session holding the activity's distance and timer.
    @Test func theIntervalsRunReadsBackInGarminsSDKFieldByField() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (fit, detail) = try await Self.exportScenario("intervals", dir: dir)
        let dump = try await Self.dump(fit)
        #expect(dump.integrity, "the SDK's check_integrity() (header and file CRC) failed")
        #expect(dump.errors.isEmpty, "\(dump.errors)")

        let fileID = try #require(dump.of("file_id").first)
        #expect(fileID["type"] as? String == "activity")
        #expect(fileID["manufacturer"] as? String == "development")

        let phases = detail.phaseResults.sorted { $0.index < $1.index }
        try #require(phases.count == 10)
        let laps = dump.of("lap")
        try #require(laps.count == phases.count, "laps \(laps.count), phases \(phases.count)")
        for (lap, phase) in zip(laps, phases) {
            let distance = try #require(Self.number(lap, "total_distance"))
            let timer = try #require(Self.number(lap, "total_timer_time"))
            #expect(abs(distance - phase.distance) <= 0.1, "phase \(phase.index): \(distance) m, stored \(phase.distance)")
            #expect(abs(timer - phase.duration.inSeconds) <= 0.001, "phase \(phase.index): \(timer) s")
            #expect(lap["sport"] as? String == "running")
        }
        var intensities: [String] = ["warmup"]
        for _ in 0..<4 { intensities += ["active", "recovery"] }
        intensities.append("cooldown")
        let read: [String] = laps.map { $0["intensity"] as? String ?? "" }
        #expect(read == intensities)
        // The laps follow one another on the clock.
        let starts = laps.compactMap { Self.number($0, "start_time") }
        #expect(starts == starts.sorted() && starts.count == laps.count)
        #expect(starts.first == Double(detail.summary.startedAt!.millisecondsSince1970) / 1000)

        let records = dump.of("record")
        let positioned = records.filter { $0["position_lat"] != nil }
        try #require(positioned.count == detail.points.count, "records \(positioned.count), points \(detail.points.count)")
        for (record, point) in zip(positioned, detail.points) {
            let lat = try #require(Self.number(record, "position_lat"))
            let lon = try #require(Self.number(record, "position_long"))
            #expect(abs(lat - point.position.latitude) < 1e-6 && abs(lon - point.position.longitude) < 1e-6)
            #expect(abs((Self.number(record, "distance") ?? -1) - (point.distance ?? -2)) <= 0.01)
            #expect(Self.number(record, "timestamp") == Double(point.time.millisecondsSince1970 / 1000))
        }
        // The last point was stored 30 s before the end: one record more, at the end, without
        // a position, holds the distance the device counted.
        let last = try #require(records.last)
        #expect(abs((Self.number(last, "distance") ?? 0) - detail.summary.distance) <= 0.01)
        #expect(Self.number(last, "timestamp") == Double(detail.summary.endedAt!.millisecondsSince1970) / 1000)
        let distances = records.compactMap { Self.number($0, "distance") }
        #expect(distances == distances.sorted())

        let session = try #require(dump.of("session").first)
        #expect(session["sport"] as? String == "running")
        #expect(abs((Self.number(session, "total_distance") ?? 0) - detail.summary.distance) <= 0.01)
        #expect(abs((Self.number(session, "total_timer_time") ?? 0) - detail.summary.time.inSeconds) <= 0.001)
        #expect(abs((Self.number(session, "total_elapsed_time") ?? 0) - detail.summary.elapsedTime.inSeconds) <= 0.001)
        #expect(Self.number(session, "num_laps") == 10)
        let activity = try #require(dump.of("activity").first)
        #expect(Self.number(activity, "num_sessions") == 1)
        #expect(abs((Self.number(activity, "total_timer_time") ?? 0) - detail.summary.time.inSeconds) <= 0.001)
        let events = dump.of("event").map { "\($0["event"] ?? "")/\($0["event_type"] ?? "")" }
        #expect(events == ["timer/start", "timer/stop_all"])

        // gpsbabel's FIT reader: a point per stored point.
        let gpx = "\(dir)/babel.gpx"
        let babel = try await Program.runOffThePool("/usr/bin/gpsbabel", ["-i", "garmin_fit", "-f", fit, "-o", "gpx", "-F", gpx])
        try #require(babel.status == 0, "gpsbabel: \(babel.stderr)")
        let text = try String(contentsOfFile: gpx, encoding: .utf8)
        #expect(text.components(separatedBy: "<trkpt ").count - 1 == detail.points.count)
    }

    /// A share as FIT (R18): with a privacy zone and --hide-within, the records are
    /// the points the TCX share of the same choice shows (none within a hidden circle), with no
    /// odometer distance on them; the laps are the share's; the SDK's check passes. What FIT
    /// cannot carry is refused as TCX's is, naming --fit, and nothing is written.
    @Test func aFITShareHidesThePlacesAndKeepsTheLaps() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let detail = try await TCXEndToEndTests.record("intervals", in: dir)
        let park = detail.points[13].position
        let settings = try Pacer.settings(in: dir, extra: """
            privacy_zones:
              - {name: Park, lat: \(park.latitude), lon: \(park.longitude), radius_m: 60}
            """)
        try await ShareEndToEndTests.setSecret("9f3b27c8e1d4a6055b7e8c2f0a1d3e49", in: "\(dir)/data")
        let fit = "\(dir)/shared.fit", tcx = "\(dir)/shared.tcx"
        let choice = ["--include", "track,times,speeds", "--hide-within", "200m", "--config", settings]
        let shared = try await Pacer.runOffThePool(["activities", "share", "1", "--fit", fit] + choice)
        #expect(shared.status == 0, "\(shared.stderr)")
        #expect(shared.stdout.hasPrefix("Activity #1 shared to \(fit): track ("), "\(shared.stdout)")
        let asTCX = try await Pacer.runOffThePool(["activities", "share", "1", "--tcx", tcx] + choice)
        #expect(asTCX.status == 0, "\(asTCX.stderr)")

        let dump = try await Self.dump(fit)
        #expect(dump.integrity, "the SDK's check_integrity() failed")
        #expect(dump.errors.isEmpty, "\(dump.errors)")
        let trackpoints = try TCXEndToEndTests.elements(tcx).filter { $0.localName == "Trackpoint" }
        let records = dump.of("record")
        try #require(records.count == trackpoints.count && !records.isEmpty,
                     "records \(records.count), TCX trackpoints \(trackpoints.count)")
        #expect(records.count < detail.points.count - 2)
        for (record, element) in zip(records, trackpoints) {
            let lat = try #require(Self.number(record, "position_lat"))
            let lon = try #require(Self.number(record, "position_long"))
            let position = GeoPoint(latitude: lat, longitude: lon)
            let shown = try #require(TCXEndToEndTests.position(element))
            // FIT's semicircles are 8.4e-8 degrees: within a centimetre of the TCX's.
            #expect(Geodesy.distance(shown, position) < 0.01, "\(position), TCX \(shown)")
            #expect(Geodesy.distance(position, park) > 60)
            #expect(record["distance"] == nil, "an odometer distance in a share: \(record)")
            #expect(record["speed"] != nil || record["enhanced_speed"] != nil)
        }
        let tcxLaps = try TCXEndToEndTests.elements(tcx).filter { $0.localName == "Lap" }
        let laps = dump.of("lap")
        try #require(laps.count == tcxLaps.count && laps.count > 2, "laps \(laps.count), TCX \(tcxLaps.count)")
        for (lap, element) in zip(laps, tcxLaps) {
            let seconds = TCXEndToEndTests.children(element, "TotalTimeSeconds").first?.stringValue.flatMap(Double.init)
            let metres = TCXEndToEndTests.children(element, "DistanceMeters").first?.stringValue.flatMap(Double.init)
            #expect(abs((Self.number(lap, "total_timer_time") ?? -1) - (seconds ?? -2)) < 0.001)
            #expect(abs((Self.number(lap, "total_distance") ?? -1) - (metres ?? -2)) < 0.01)
        }
        let session = try #require(dump.of("session").first)
        let lapTimers = laps.compactMap { Self.number($0, "total_timer_time") }.reduce(0, +)
        #expect(abs((Self.number(session, "total_timer_time") ?? 0) - lapTimers) < 0.01)
        // The file starts at the first point shown, not at the hidden start.
        #expect(Self.number(records[0], "timestamp") == Self.number(try #require(dump.of("file_id").first), "time_created"))

        let out = "\(dir)/x.fit"
        let data = ["--data-dir", "\(dir)/data"]
        let noTimes = try await Pacer.runOffThePool(["activities", "share", "1", "--fit", out] + data)
        #expect(noTimes.status == 64)
        #expect(noTimes.stderr.contains("--fit: a FIT share needs times: FIT requires each point's time"), "\(noTimes.stderr)")
        let waypoints = try await Pacer.runOffThePool(["activities", "share", "1", "--include", "track,times,waypoints",
                                                       "--fit", out] + data)
        #expect(waypoints.status == 64)
        #expect(waypoints.stderr.contains("FIT has no place for waypoints"), "\(waypoints.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// A run with a pause: the timer stops and starts again round it, so the session's timer
    /// is the elapsed time less the pause, and the laps' timers add up to it.
    @Test func aPauseIsATimerStopAndStartInGarminsSDK() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (fit, detail) = try await Self.exportScenario("pause-resume", dir: dir)
        let dump = try await Self.dump(fit)
        #expect(dump.integrity && dump.errors.isEmpty, "\(dump.errors)")
        let events = dump.of("event").map { "\($0["event"] ?? "")/\($0["event_type"] ?? "")" }
        #expect(events == ["timer/start", "timer/stop", "timer/start", "timer/stop_all"])
        let session = try #require(dump.of("session").first)
        let timer = try #require(Self.number(session, "total_timer_time"))
        let elapsed = try #require(Self.number(session, "total_elapsed_time"))
        #expect(abs(timer - detail.summary.time.inSeconds) <= 0.001 && timer < elapsed - 30)
        let laps = dump.of("lap")
        #expect(laps.count == detail.phaseResults.count)
        #expect(abs(laps.compactMap { Self.number($0, "total_timer_time") }.reduce(0, +) - timer) <= 0.01)
        // The stop is where the timer's stored reading puts it, inside the gap between points.
        let stop = try #require(Self.number(dump.of("event")[1], "timestamp"))
        let start = try #require(Self.number(dump.of("event")[2], "timestamp"))
        #expect(start - stop == elapsed - timer)
    }

    /// The reader catches a damaged file: one byte changed in the middle fails the SDK's
    /// integrity check, so the checks above could fail.
    @Test func aDamagedExportFailsTheSDKsCheck() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (fit, _) = try await Self.exportScenario("steady", dir: dir)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fit)))
        bytes[bytes.count / 2] ^= 0x10
        let damaged = "\(dir)/damaged.fit"
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        #expect(try await Self.dump(fit).integrity)
        #expect(try await !Self.dump(damaged).integrity)
    }

    /// `--fit` and `--gpx` together write both; none of `--gpx`, `--tcx`, `--fit` is refused.
    @Test func exportNeedsAFile() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try await Self.exportScenario("steady", dir: dir)
        let none = try await Pacer.runOffThePool(["activities", "export", "1", "--data-dir", "\(dir)/data"])
        #expect(none.status != 0 && none.stderr.contains("--gpx FILE, --tcx FILE or --fit FILE"), "\(none.stderr)")
        let both = try await Pacer.runOffThePool(["activities", "export", "1", "--fit", "\(dir)/b.fit", "--gpx", "\(dir)/b.gpx",
                                                  "--data-dir", "\(dir)/data"])
        #expect(both.status == 0, "\(both.stderr)")
        #expect(FileManager.default.fileExists(atPath: "\(dir)/b.fit") && FileManager.default.fileExists(atPath: "\(dir)/b.gpx"))
        let route = try await Pacer.runOffThePool(["routes", "export", "1", "--data-dir", "\(dir)/data"])
        #expect(route.status != 0 && route.stderr.contains("--gpx"), "\(route.stderr)")
    }

    /// The intervals plan's workout as a FIT workout in Garmin's structure: the warm-up, the
    /// repeated pair once and a repeat step back to it with its count, the cool-down; each
    /// step's time in milliseconds and its speed range (Scenarios/plans/intervals.yaml, in
    /// km/h) in m/s.
    @Test func aPlansWorkoutReadsBackInGarminsSDK() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fit = "\(dir)/workout.fit"
        let export = try await Pacer.runOffThePool(["plan", "export", "Scenarios/plans/intervals.yaml", "--workout", "1",
                                                    "--fit", fit])
        try #require(export.status == 0, "\(export.stderr)")
        #expect(export.stdout.hasPrefix("Workout 1 of Scenario intervals, 4 x 1 min (10 phases in 5 steps), written to \(fit) (FIT, "))
        let dump = try await Self.dump(fit)
        #expect(dump.integrity && dump.errors.isEmpty, "\(dump.errors)")
        #expect(dump.of("file_id").first?["type"] as? String == "workout")
        let workout = try #require(dump.of("workout").first)
        #expect(workout["sport"] as? String == "running")
        #expect(workout["wkt_name"] as? String == "4 x 1 min")
        #expect(Self.number(workout, "num_valid_steps") == 5)

        // name, seconds, km/h low and high, intensity
        let plan: [(String, Double, Double, Double, String)] = [
            ("warm-up", 180, 8, 10.5, "warmup"), ("fast", 60, 13, 15, "active"), ("recovery", 60, 7, 9.5, "recovery"),
            ("", 0, 0, 0, ""), ("cool-down", 120, 7, 10, "cooldown"),
        ]
        let steps = dump.of("workout_step")
        try #require(steps.count == plan.count)
        for (index, (step, phase)) in zip(steps, plan).enumerated() {
            #expect(Self.number(step, "message_index") == Double(index))
            guard index != 3 else { continue }
            #expect(step["wkt_step_name"] as? String == phase.0)
            #expect(step["duration_type"] as? String == "time" && step["target_type"] as? String == "speed")
            #expect(Self.number(step, "duration_time") == phase.1)
            #expect(Self.number(step, "target_speed_zone") == 0, "custom: no zone")
            #expect(abs((Self.number(step, "custom_target_speed_low") ?? 0) - phase.2 / 3.6) <= 0.0005)
            #expect(abs((Self.number(step, "custom_target_speed_high") ?? 0) - phase.3 / 3.6) <= 0.0005)
            #expect(step["intensity"] as? String == phase.4)
        }
        // The repeat: steps from message_index 1, four times.
        #expect(steps[3]["duration_type"] as? String == "repeat_until_steps_cmplt")
        #expect(Self.number(steps[3], "duration_step") == 1)
        #expect(Self.number(steps[3], "repeat_steps") == 4)
        #expect(steps[3]["wkt_step_name"] == nil && steps[3]["intensity"] == nil)

        let beyond = try await Pacer.runOffThePool(["plan", "export", "Scenarios/plans/intervals.yaml", "--workout", "2",
                                                    "--fit", "\(dir)/two.fit"])
        #expect(beyond.status == 64 && beyond.stderr.contains("the plan has 1 workout(s); --workout 2 is not one"),
                "\(beyond.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/two.fit"))
    }
}

/// FIT in through `pacer activities import`: Pacer's own export round-tripped, a
/// FIT that gpsbabel wrote from a GPX, and broken files refused with the byte and the reason.
@Suite("FIT import end to end", .serialized)
struct FITImportEndToEndTests {
    /// The intervals run exported as FIT and imported as an activity and as a route: every
    /// point at its time and position; gpsbabel's FIT of the GPX export gives the same points.
    @Test func anExportAndGpsbabelsFITImportAsTheStoredPoints() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (fit, detail) = try await FITEndToEndTests.exportScenario("intervals", dir: dir)
        let gpx = "\(dir)/run.gpx", babel = "\(dir)/babel.fit"
        let export = try await Pacer.runOffThePool(["activities", "export", "1", "--gpx", gpx, "--data-dir", "\(dir)/data"])
        try #require(export.status == 0, "\(export.stderr)")
        let convert = try await Program.runOffThePool("/usr/bin/gpsbabel", ["-i", "gpx", "-f", gpx, "-o", "garmin_fit", "-F", babel])
        try #require(convert.status == 0, "gpsbabel: \(convert.stderr)")

        // Issue 39, item 14: the run is stored already: an import of its own FIT is refused
        // (65), naming it; with --again it is stored beside it (as gpsbabel's is).
        let same = try await Pacer.runOffThePool(["activities", "import", fit, "--as", "activity", "--data-dir", "\(dir)/data"])
        #expect(same.status == 65 && same.stderr.contains("the same run as activity #1"), "\(same.status) \(same.stderr)")
        for (file, id) in [(fit, 2), (babel, 3)] {
            let run = try await Pacer.runOffThePool(["activities", "import", file, "--as", "activity", "--again",
                                                     "--data-dir", "\(dir)/data"])
            try #require(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("Stored as activity #\(id), a past run"), "\(run.stdout)")
            let store = try PacerStore(directory: "\(dir)/data", access: .read)
            let imported = try store.activities.activity(Int64(id)).points
            try #require(imported.count == detail.points.count, "\(file): \(imported.count) points")
            for (a, b) in zip(imported, detail.points) {
                #expect(a.time.millisecondsSince1970 / 1000 == b.time.millisecondsSince1970 / 1000)
                #expect(abs(a.position.latitude - b.position.latitude) < 1e-6)
                #expect(abs(a.position.longitude - b.position.longitude) < 1e-6)
            }
        }
        // Issue 39, item 14: the run comes back as it was stored, its distance and timer the
        // file's session's (measured again along the points it read 5.81 km, 41:00 for a
        // 5.90 km, 45:00 run).
        let back = try PacerStore(directory: "\(dir)/data", access: .read).activities.activity(2).summary
        #expect(abs(back.distance - detail.summary.distance) < 0.01, "\(back.distance) m, stored \(detail.summary.distance)")
        #expect(back.activeTime == detail.summary.activeTime, "\(String(describing: back.activeTime))")
        #expect(back.elapsedTime == detail.summary.elapsedTime, "\(back.elapsedTime)")
        // The watch's laps come in as the activity's phase results: our export's are the
        // intervals' ten phases, each lap's timer and distance as stored.
        let store = try PacerStore(directory: "\(dir)/data", access: .read)
        let laps = try store.activities.activity(2).phaseResults.sorted { $0.index < $1.index }
        let phases = detail.phaseResults.sorted { $0.index < $1.index }
        try #require(laps.count == phases.count && laps.count == 10, "\(laps.count) laps")
        for (lap, phase) in zip(laps, phases) {
            #expect(lap.name == "Lap \(phase.index + 1)")
            #expect(abs(lap.distance - phase.distance) <= 0.01, "\(lap.distance) m, stored \(phase.distance)")
            #expect(lap.duration == phase.duration)
        }
        #expect(try store.activities.activity(3).phaseResults.count <= 1, "gpsbabel's FIT has at most one lap")
        let show = try await Pacer.runOffThePool(["activities", "show", "2", "--data-dir", "\(dir)/data"])
        #expect(show.stdout.contains("Laps (the file's)") && !show.stdout.contains("Phases"), "\(show.stdout)")
        let report = "\(dir)/imported.html"
        let page = try await Pacer.runOffThePool(["activities", "report", "2", "--out", report, "--data-dir", "\(dir)/data"])
        #expect(page.status == 0, "\(page.stderr)")
        let html = try String(contentsOfFile: report, encoding: .utf8)
        #expect(html.contains("<h2>Laps (the file&#39;s)</h2>") && !html.contains("in band"))
        let route = try await Pacer.runOffThePool(["activities", "import", fit, "--as", "route", "--data-dir", "\(dir)/data"])
        #expect(route.status == 0 && route.stdout.contains("Stored as route #1"), "\(route.stderr)")
    }

    /// A pause (timer stop and start) starts a new segment.
    @Test func aPauseInAFITIsANewSegment() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (fit, detail) = try await FITEndToEndTests.exportScenario("pause-resume", dir: dir)
        let run = try await Pacer.runOffThePool(["activities", "import", fit, "--as", "activity", "--again",
                                                 "--data-dir", "\(dir)/data"])
        try #require(run.status == 0, "\(run.stderr)")
        let store = try PacerStore(directory: "\(dir)/data", access: .read)
        #expect(try store.activities.activity(2).segments.map(\.count) == detail.segments.map(\.count))
    }

    /// Broken files: refused with the file, the byte and the reason, nothing stored.
    @Test func brokenFITFilesAreRefusedWithTheByteAndTheReason() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (fit, _) = try await FITEndToEndTests.exportScenario("steady", dir: dir)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fit)))
        var flipped = bytes
        flipped[40] ^= 0x01
        var header = bytes
        header[2] ^= 0x01
        let cases: [(String, [UInt8], String)] = [
            ("cut.fit", Array(bytes.prefix(100)), "cut.fit: the header says \(bytes.count - 16) bytes of records and a CRC, the file has 86: truncated"),
            ("flipped.fit", flipped, "flipped.fit: byte \(bytes.count - 2): the file's CRC is wrong (the file is damaged)"),
            ("header.fit", header, "header.fit: byte 12: the header's CRC is wrong (the header is damaged)"),
            ("short.fit", Array(bytes.prefix(5)), "short.fit: 5 bytes: too short for a FIT file (a 12 or 14-byte header)"),
        ]
        for (name, content, reason) in cases {
            let path = "\(dir)/\(name)"
            try Data(content).write(to: URL(fileURLWithPath: path))
            let run = try await Pacer.runOffThePool(["activities", "import", path, "--as", "activity", "--data-dir", "\(dir)/data"])
            #expect(run.status == 65, "\(name): \(run.stderr)")
            #expect(run.stderr.contains(reason), "\(name): \(run.stderr)")
        }
        let store = try PacerStore(directory: "\(dir)/data", access: .read)
        #expect(try store.activities.activities().count == 1)
    }
}
