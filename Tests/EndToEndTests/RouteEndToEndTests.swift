import Foundation
import TestSupport
import Testing

/// Following a route by ear with the command line (R21, R23): import a route, run it with a
/// wrong turn, make a route of that run and run it again.
@Suite("pacer run --route, end to end", .serialized)
struct RouteEndToEndTests {
    static func count(_ cue: String, in output: String) -> Int {
        output.components(separatedBy: "[\(cue)]").count - 1
    }

    @Test func aWrongTurnIsHeardAndAPastRunIsFollowedAsARoute() throws {
        let data = try makeTemporaryDirectory("route-run")
        let recording = "\(data)/run.nmea"
        let synth = try Pacer.run(["nmea", "synth", "Scenarios/route-wrong-turn/run.synth.yaml", "--out", recording])
        try #require(synth.status == 0, "\(synth.stderr)")
        let imported = try Pacer.run(["routes", "import", "Scenarios/routes/canal-path.gpx", "--data-dir", data])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("Imported route #1 \"Canal path\": 2.20 km, 45 points, 0 waypoints"))

        func run(route: String) throws -> ProcessResult {
            try Pacer.run([
                "run", "--plan", "Scenarios/plans/steady.yaml", "--source", "file:\(recording)", "--fast",
                "--buzzer", "null", "--profile", "high", "--data-dir", data, "--today", "2026-06-21",
                "--socket", "\(data)/control.sock", "--route", route,
            ])
        }
        let first = try run(route: "1")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("Following route 'Canal path': 2.2 km, 0 waypoints."))
        // 150 m down a side street and back: off once, on once; the status line says by how much.
        #expect(Self.count("off-route", in: first.stdout) == 1)
        #expect(Self.count("on-route", in: first.stdout) == 1)
        let offLine = first.stdout.split(separator: "\n").first { $0.hasSuffix("[off-route]") }
        #expect(offLine?.contains("OFF ROUTE by 3") == true, "\(offLine ?? "")")
        #expect(first.stdout.contains("route 0.70/2.20 km  left 1.50 km  fix  [on-route]"))

        // R23: the run, side street and all, made a route and followed again on the same
        // recording: never off it; the side street's end is a turn-around.
        let made = try Pacer.run(["routes", "import", "--from-activity", "1", "--name", "Canal, my way", "--data-dir", data])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stdout.contains("Imported route #2 \"Canal, my way\""))
        #expect(made.stdout.contains("(from activity #1)"))
        let show = try Pacer.run(["activities", "show", "1", "--data-dir", data])
        let points = try #require(show.stdout.split(separator: "\n").first { $0.hasPrefix("Points:") })
        #expect(made.stdout.contains(" \(points.split(separator: " ")[1]) points"), "\(points) vs \(made.stdout)")
        let again = try run(route: "2")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(Self.count("off-route", in: again.stdout) == 0)
        #expect(Self.count("turn-around", in: again.stdout) == 1)

        // A GPX file straight from the disk is a route too.
        let file = try run(route: "Scenarios/routes/canal-path.gpx")
        #expect(file.status == 0, "\(file.stderr)")
        #expect(Self.count("off-route", in: file.stdout) == 1)
    }

    @Test func aRouteThatIsNotThereIsRefusedWithTheReason() throws {
        let data = try makeTemporaryDirectory("route-refused")
        _ = try Pacer.run(["routes", "import", "Scenarios/routes/canal-path.gpx", "--data-dir", data])
        func run(_ route: String) throws -> ProcessResult {
            try Pacer.run([
                "run", "--plan", "Scenarios/plans/steady.yaml", "--source", "none", "--fast", "--buzzer", "null",
                "--data-dir", data, "--today", "2026-06-21", "--socket", "\(data)/control.sock", "--route", route,
            ])
        }
        let missing = try run("7")
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("--route 7: there is no route #7"), "\(missing.stderr)")
        let word = try run("canal")
        #expect(word.status != 0)
        #expect(word.stderr.contains("not a route id (a number: pacer routes list) nor a GPX file"), "\(word.stderr)")
        let broken = "\(data)/broken.gpx"
        try "<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\"><rte><rtept lat=\"1\" lon=\"2\"/></rte></gpx>"
            .write(toFile: broken, atomically: true, encoding: .utf8)
        let short = try run(broken)
        #expect(short.status != 0)
        #expect(short.stderr.contains("a route to follow needs two or more"), "\(short.stderr)")
        // Nothing was recorded by the refused runs.
        let list = try Pacer.run(["activities", "list", "--data-dir", data])
        #expect(!list.stdout.contains("Scenario steady"), "\(list.stdout)")

        let both = try Pacer.run(["routes", "import", "x.gpx", "--from-activity", "1", "--data-dir", data])
        #expect(both.status == 64 && both.stderr.contains("give a GPX file or --from-activity ID, one of the two"))
        let unknown = try Pacer.run(["routes", "import", "--from-activity", "9", "--data-dir", data])
        #expect(unknown.status != 0 && unknown.stderr.contains("there is no activity #9"), "\(unknown.stderr)")
    }
}
