import Coaching
import Foundation
import PacerCore
import Storage
import TestSupport
import Testing

/// A past run as a source (issue 43): a run stored by `pacer run`, exported as GPX, TCX and
/// FIT, each file replayed by `pacer run --source file:…`, and the stored run itself by
/// `--source activity:1`, coached again on the virtual clock.
@Suite("Past runs replayed, end to end", .serialized)
struct ReplayEndToEndTests {
    static let plan = "Scenarios/plans/steady.yaml"
    static let recording = "Scenarios/steady/run.nmea"

    /// Runs the steady plan from `source` on `profile` into `data`.
    static func run(_ source: String, profile: String, data: String) throws -> ProcessResult {
        try Pacer.run([
            "run", "--plan", plan, "--source", source, "--fast", "--profile", profile, "--buzzer", "null",
            "--data-dir", data, "--today", "2026-05-02", "--socket", "\(data).sock",
        ])
    }

    static func store(_ data: String) throws -> PacerStore {
        try PacerStore(directory: data, access: .read)
    }

    static func cues(_ detail: ActivityDetail) -> [String] {
        detail.cues.map { "\($0.elapsed) \($0.cue) \($0.phase.map(String.init) ?? "-")" }
    }

    /// The stored run's GPX, TCX and FIT exports replay to its distance (within 0.5 %), its
    /// start, its end and its time, and the TCX and FIT ones (which carry the odometer)
    /// within a metre.
    @Test func aRunsExportsReplayToItsDistanceAndTimes() throws {
        let dir = try makeTemporaryDirectory()
        let first = try Self.run("file:" + Self.recording, profile: "high", data: "\(dir)/run")
        try #require(first.status == 0, "\(first.stderr)")
        let stored = try Self.store("\(dir)/run").activities.activity(1)
        for format in ["gpx", "tcx", "fit"] {
            let export = try Pacer.run(["activities", "export", "1", "--data-dir", "\(dir)/run", "--\(format)", "\(dir)/run.\(format)"])
            try #require(export.status == 0, "\(export.stderr)")
            let replay = try Self.run("file:\(dir)/run.\(format)", profile: "high", data: "\(dir)/\(format)")
            try #require(replay.status == 0, "\(format): \(replay.stderr)")
            #expect(replay.stdout.contains("gps file:\(dir)/run.\(format)"), "the source is named by its file")
            let again = try Self.store("\(dir)/\(format)").activities.activity(1)
            let s = stored.summary, a = again.summary
            #expect(abs(a.distance - s.distance) / s.distance < 0.005, "\(format): \(a.distance) m against \(s.distance) m")
            if format != "gpx" { #expect(abs(a.distance - s.distance) < 1, "\(format): \(a.distance) m against \(s.distance) m") }
            #expect(a.startedAt == s.startedAt, "\(format)")
            #expect(a.endedAt == s.endedAt, "\(format)")
            #expect(a.time == s.time, "\(format)")
            #expect(a.state == .completed, "\(format)")
            // The replayed points are the stored ones, at the same times and places.
            #expect(again.points.map(\.time) == stored.points.map(\.time), "\(format)")
            for (p, q) in zip(again.points, stored.points) {
                #expect(Geodesy.distance(p.position, q.position) < 0.05, "\(format): \(p.time)")
            }
        }
    }

    /// The stored run coached again with its own plan and profile hears what it heard, at
    /// the same instants, and measures the same distance; on another profile it hears what
    /// that profile's run of the same recording heard.
    @Test func aStoredRunCoachedAgainHearsWhatItHeard() throws {
        let dir = try makeTemporaryDirectory()
        for profile in ["high", "medium", "low"] {
            let data = "\(dir)/\(profile)"
            let first = try Self.run("file:" + Self.recording, profile: "high", data: data)
            try #require(first.status == 0, "\(first.stderr)")
            let again = try Self.run("activity:1", profile: profile, data: data)
            try #require(again.status == 0, "\(again.stderr)")
            #expect(again.stdout.contains("gps activity:1"))
            let direct = try Self.run("file:" + Self.recording, profile: profile, data: "\(dir)/direct-\(profile)")
            try #require(direct.status == 0, "\(direct.stderr)")
            let store = try Self.store(data)
            let original = try store.activities.activity(1)
            let replayed = try store.activities.activity(2)
            let reference = try Self.store("\(dir)/direct-\(profile)").activities.activity(1)
            #expect(Self.cues(replayed) == Self.cues(reference), "\(profile)")
            #expect(abs(replayed.summary.distance - reference.summary.distance) < 0.01, "\(profile)")
            #expect(replayed.phaseResults.map(\.timeInBand) == reference.phaseResults.map(\.timeInBand), "\(profile)")
            if profile == "high" {
                #expect(Self.cues(replayed) == Self.cues(original))
                #expect(replayed.cues.count > 70)
            }
            // Every fix between the points (one a second, a point every 10 s) was kept with them.
            let inner = original.points.dropFirst().dropLast()
            #expect(inner.allSatisfy { $0.readings.count == 9 }, "\(inner.map(\.readings.count))")
        }
    }

    /// `pacer replay`: the stored run on the low profile beside what the runner heard on
    /// high, as text and as a page that loads cleanly in Chromium; the runner's activities
    /// are left as they were.
    @Test func whatIfOfAStoredRunOnAnotherProfile() async throws {
        try ReportEndToEndTests.requireChromium()
        let dir = try makeTemporaryDirectory()
        let first = try Self.run("file:" + Self.recording, profile: "high", data: "\(dir)/data")
        try #require(first.status == 0, "\(first.stderr)")
        let replay = try Pacer.run(["replay", "1", "--data-dir", "\(dir)/data", "--plan", Self.plan, "--profile", "low",
                                    "--page", "\(dir)/what-if.html", "--out", "\(dir)/out"])
        try #require(replay.status == 0, "\(replay.stderr)")
        let text = replay.stdout
        #expect(text.contains("the run hears the 75 cues the runner heard, at the same instants: the replay is faithful"), "\(text)")
        #expect(text.contains("profile        high              low"), "\(text)")
        #expect(text.contains("cues           75                13"), "\(text)")
        #expect(text.contains("00:05:46  split             |  -"), "\(text)")
        #expect(text.contains("battery used   "), "\(text)")
        // What the low profile's own run of the recording heard, cue for cue.
        let direct = try Self.run("file:" + Self.recording, profile: "low", data: "\(dir)/direct")
        try #require(direct.status == 0)
        let low = try Self.store("\(dir)/direct").activities.activity(1)
        let timeline = try String(contentsOfFile: "\(dir)/out/what-if/timeline.txt", encoding: .utf8)
        #expect(timeline.contains("gps connected (file:run.nmea)"))
        let whatIfCues = text.split(separator: "\n").filter { $0.first?.isNumber == true && $0.contains("|") && !$0.hasSuffix("|  -") }.count
        #expect(whatIfCues == low.cues.count, "\(whatIfCues) cue instants against \(low.cues.count) cues")
        #expect(try Self.store("\(dir)/data").activities.activities().count == 1, "a what-if logs no run")
        let check = try await ReportEndToEndTests.check(["\(dir)/what-if.html"], ["--self-contained", "--screenshot", "\(dir)/what-if.png"])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        try await ReportEndToEndTests.expectWellFormed("\(dir)/what-if.html")
    }

    /// A ghost race against the runner's own run on the same recording is level at every
    /// position (0.0 m stored at each) with no ghost beep; against a target 2 % faster than an
    /// even run the gap grows, told every minute, to what the truth says (within 5 m at the
    /// last telling), and the report draws it.
    @Test func ghostRaces() async throws {
        let dir = try makeTemporaryDirectory()
        let first = try Self.run("file:" + Self.recording, profile: "high", data: "\(dir)/data")
        try #require(first.status == 0, "\(first.stderr)")
        let race = try Pacer.run([
            "run", "--plan", Self.plan, "--source", "file:" + Self.recording, "--fast", "--profile", "high", "--buzzer", "null",
            "--data-dir", "\(dir)/data", "--today", "2026-05-02", "--socket", "\(dir)/s.sock", "--ghost", "activity:1",
        ])
        try #require(race.status == 0, "\(race.stderr)")
        #expect(race.stdout.contains("racing the ghost: activity 1, 2.06 km in 00:12:00"))
        let raced = try Self.store("\(dir)/data").activities.activity(2)
        #expect(raced.summary.ghost == "activity 1")
        let gaps = raced.points.compactMap(\.ghostGap)
        #expect(gaps.count == raced.points.count - 1 && gaps.allSatisfy { $0 == 0 }, "\(gaps)")
        #expect(!raced.cues.contains { $0.cue.hasPrefix("ghost") })
        #expect(race.stdout.split(separator: "\n").filter { $0.contains("ghost level") }.count > 70)
        let report = try Pacer.run(["activities", "report", "2", "--data-dir", "\(dir)/data", "--out", "\(dir)/ghost.html"])
        try #require(report.status == 0, "\(report.stderr)")
        #expect(try String(contentsOfFile: "\(dir)/ghost.html", encoding: .utf8).contains("Metres ahead of the ghost (activity 1)"))
        // The two runs side by side: the same run twice, level to the second.
        let compare = try Pacer.run(["activities", "compare", "1", "2", "--data-dir", "\(dir)/data", "--page", "\(dir)/compare.html"])
        try #require(compare.status == 0, "\(compare.stderr)")
        #expect(compare.stdout.contains("1   00:05:46               00:05:46               0 s"), "\(compare.stdout)")
        try ReportEndToEndTests.requireChromium()
        let pages = ["\(dir)/ghost.html", "\(dir)/compare.html"]
        let check = try await ReportEndToEndTests.check(pages, ["--self-contained"])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        for page in pages { try await ReportEndToEndTests.expectWellFormed(page) }

        // The target: 5 km in 24:30 against 12 km/h (the recipe's truth).
        let target = try Pacer.run(["scenario", "run", "Scenarios/ghost-target", "--quiet", "--out", "\(dir)/target"])
        try #require(target.status == 0, "\(target.stderr)")
        let events = try String(contentsOfFile: "\(dir)/target/events.jsonl", encoding: .utf8).split(separator: "\n")
            .filter { $0.contains("\"event\":\"ghost\"") }
        #expect(events.count == 24, "\(events.count) tellings")
        var previous = 0.0
        for line in events {
            let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let t = try #require(json["t"] as? Double), ahead = try #require(json["ahead_m"] as? Double)
            let truth = 12 / 3.6 * t - 5000 / 1470 * t
            #expect(abs(ahead - truth) < 5, "at \(t) s: \(ahead) m, the truth \(truth) m")
            #expect(ahead <= previous + 0.5, "the gap grows: \(ahead) after \(previous)")
            previous = ahead
        }
        #expect(previous < -90)
    }

    /// The what-if scenario (`past_run:`): profile-high's stored run coached again on low hears
    /// what profile-low's own run of the recording heard, at the same instants, over the same
    /// distance.
    @Test func aWhatIfScenarioHearsWhatThatProfilesRunHeard() throws {
        let dir = try makeTemporaryDirectory()
        func cues(_ scenario: String) throws -> (cues: [String], distance: String) {
            let run = try Pacer.run(["scenario", "run", "Scenarios/\(scenario)", "--quiet", "--out", "\(dir)/\(scenario)"])
            try #require(run.status == 0, "\(run.stderr)")
            let events = try String(contentsOfFile: "\(dir)/\(scenario)/events.jsonl", encoding: .utf8).split(separator: "\n")
            let heard = events.filter { $0.contains("\"event\":\"cue\"") }.map { line in
                String(line.split(separator: ",").filter { $0.hasPrefix("\"t\"") || $0.hasPrefix("\"cue\"") }.joined(separator: ","))
            }
            let summary = try String(contentsOfFile: "\(dir)/\(scenario)/summary.json", encoding: .utf8)
            let distance = summary.split(separator: "\n").first { $0.contains("\"distance_m\"") }.map(String.init) ?? ""
            return (heard, distance)
        }
        let whatIf = try cues("what-if-low"), low = try cues("profile-low")
        #expect(whatIf.cues.count > 10)
        #expect(whatIf.cues == low.cues)
        #expect(whatIf.distance == low.distance, "\(whatIf.distance) against \(low.distance)")
    }

    /// What is not a run is refused naming the file and why.
    @Test func whatIsNoRunIsRefusedNamingTheFile() throws {
        let dir = try makeTemporaryDirectory()
        try "<notes><note/></notes>".write(toFile: "\(dir)/notes.xml", atomically: true, encoding: .utf8)
        let xml = try Self.run("file:\(dir)/notes.xml", profile: "high", data: "\(dir)/a")
        #expect(xml.status != 0)
        #expect(xml.stderr.contains("notes.xml") && xml.stderr.contains("neither GPX nor TCX"), "\(xml.stderr)")

        try """
            <?xml version="1.0"?>
            <gpx xmlns="http://www.topografix.com/GPX/1/1" version="1.1" creator="t">
              <trk><trkseg><trkpt lat="52.1" lon="4.3"/><trkpt lat="52.2" lon="4.3"/></trkseg></trk>
            </gpx>
            """.write(toFile: "\(dir)/route.gpx", atomically: true, encoding: .utf8)
        let untimed = try Self.run("file:\(dir)/route.gpx", profile: "high", data: "\(dir)/b")
        #expect(untimed.status != 0)
        #expect(untimed.stderr.contains("route.gpx") && untimed.stderr.contains("no times"), "\(untimed.stderr)")

        let missing = try Self.run("activity:7", profile: "high", data: "\(dir)/c")
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("activity"), "\(missing.stderr)")
    }
}
