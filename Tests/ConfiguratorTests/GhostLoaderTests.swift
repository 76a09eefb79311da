import Coaching
import Configurator
import Testing

/// `--ghost` and a scenario's `ghost:` (issue 43): targets as a runner writes them, and a
/// clear refusal of what is not one.
@Suite("Ghost specifications")
struct GhostLoaderTests {
    @Test func targetsAsRunnersWriteThem() throws {
        let ten = try GhostLoader.load("10km@50:00", dataDirectory: nil)
        #expect(ten.finish == Ghost.Mark(seconds: 3000, metres: 10_000))
        #expect(ten.name == "10km in 50:00, even")
        #expect(try GhostLoader.load("5000m@22:30", dataDirectory: nil).finish == Ghost.Mark(seconds: 1350, metres: 5000))
        let half = try GhostLoader.load("13.1mi@1:45:00", dataDirectory: nil)
        #expect(abs(half.finish.metres - 13.1 * 1609.344) < 1e-6 && half.finish.seconds == 6300)
        let split = try GhostLoader.load("10 km@50:00,negative=2%", dataDirectory: nil)
        #expect(split.name == "10 km in 50:00, second half 2% faster")
        #expect(abs(split.seconds(at: 5000) - 3000 / 1.98) < 1e-9)
    }

    @Test func whatIsNoGhostIsRefusedWithTheReason() {
        let cases: [(String, String)] = [
            ("10km@", "is not a time"),
            ("10furlongs@50:00", "is not a distance"),
            ("10km@5:00", "not a runner's pace"),
            ("10km@50:00,positive=2%", "unknown option"),
            ("10km@50:00,negative=40%", "a split of 0 to 20 %"),
            ("50m@0:20", "100 m to 1000 km"),
            ("no-such-run.gpx", "not a stored run, a GPX, TCX or FIT file, or a target"),
            ("activity:7", "no data folder"),
        ]
        for (spec, reason) in cases {
            do {
                _ = try GhostLoader.load(spec, dataDirectory: nil)
                Issue.record("\(spec) was taken")
            } catch {
                #expect(error.description.contains("ghost '\(spec)'") && error.description.contains(reason), "\(spec): \(error)")
            }
        }
    }
}
