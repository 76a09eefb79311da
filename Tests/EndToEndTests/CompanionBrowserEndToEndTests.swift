import Foundation
import TestSupport
import Testing

/// The companion page in a real browser: `scripts/companion-browser-test.py` drives
/// headless Chromium against a real `pacer device` on the bundled recording in real time —
/// logs in, uploads a route and follows it, activates a plan, starts the workout with a
/// simulated press, watches the live state, stops it from the page, downloads the FIT and has
/// Garmin's SDK read it — and fails on any console error, failed request or HTTP error.
@Suite("The companion page in Chromium, end to end", .serialized)
struct CompanionBrowserEndToEndTests {
    static let script = repositoryRoot + "/scripts/companion-browser-test.py"

    @Test func aRunnerLogsInFollowsARouteRunsAndDownloadsTheFIT() async throws {
        try ReportEndToEndTests.requireChromium()
        let run = try await Program.runOffThePool("/usr/bin/python3", [Self.script, "--pacer", Pacer.executable,
                                                                       "--chromium", ReportEndToEndTests.chromium])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("OK companion: "), "\(run.stdout)")
        for step in ["logged in", "route uploaded and chosen", "plan activated", "stopped from the page",
                     "the SDK's integrity check passes"] {
            #expect(run.stdout.contains(step), "no step '\(step)' in \(run.stdout)")
        }
    }
}
