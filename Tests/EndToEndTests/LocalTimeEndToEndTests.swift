import Foundation
import TestSupport
import Testing

/// A runner reads local time: the commands show times in the board's zone
/// (`TZ`, `/etc/localtime`), saying which; what is stored and exported stays UTC.
@Suite("Times shown in the board's zone, end to end")
struct LocalTimeEndToEndTests {
    @Test func listsAndDetailsAreInLocalTimeAndTheExportInUTC() throws {
        try #require(FileManager.default.fileExists(atPath: "/usr/share/zoneinfo/Europe/Oslo"), "tzdata is installed")
        let dir = try makeTemporaryDirectory()
        let data = "\(dir)/data"
        let settings = try Pacer.settings(in: dir, gps: "file:\(Pacer.trackLoop)", data: data)
        let run = try Pacer.run(["run", "--plan", "easy-run", "--fast", "--config", settings, "--today", "2026-05-02"])
        try #require(run.status == 0, "\(run.stderr)")

        let utc = try Pacer.run(["activities", "list", "--data-dir", data], environment: ["TZ": "UTC"])
        #expect(utc.stdout.contains("DATE (UTC)") && utc.stdout.contains("2026-05-02 07:00"), "\(utc.stdout)")
        let oslo = try Pacer.run(["activities", "list", "--data-dir", data], environment: ["TZ": "Europe/Oslo"])
        #expect(oslo.stdout.contains("DATE (local)") && oslo.stdout.contains("2026-05-02 09:00"), "\(oslo.stdout)")
        let show = try Pacer.run(["activities", "show", "1", "--data-dir", data], environment: ["TZ": "Europe/Oslo"])
        #expect(show.stdout.contains("2026-05-02 09:00:00 UTC+02:00 to"), "\(show.stdout)")
        let india = try Pacer.run(["activities", "show", "1", "--data-dir", data], environment: ["TZ": "Asia/Kolkata"])
        #expect(india.stdout.contains("2026-05-02 12:30:00 UTC+05:30"), "\(india.stdout)")
        // Stored and exported times are UTC, whatever the zone.
        let gpx = try Pacer.run(["activities", "export", "1", "--gpx", "-", "--data-dir", data],
                                environment: ["TZ": "Europe/Oslo"])
        #expect(gpx.stdout.contains("<time>2026-05-02T07:00"), "the export is UTC")
    }
}
