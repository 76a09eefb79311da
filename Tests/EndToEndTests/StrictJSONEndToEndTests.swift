import Foundation
import TestSupport
import Testing

/// Every JSON the command line writes, read with the strict reader (a key given twice is a
/// defect that most readers hide by keeping the last value): `nmea decode --json`,
/// `gps watch --json`, `hw check --json`, `profile show --json`, `battery compare --json`, and a
/// scenario run's events.jsonl and summary.json.
@Suite("Strict JSON out of every command")
struct StrictJSONEndToEndTests {
    /// Each line (or the whole text, `lines: false`) is one JSON value without a key twice.
    func expectStrict(_ text: String, lines: Bool = true, _ what: String) {
        let values = lines ? text.split(separator: "\n").map(String.init) : [text]
        #expect(!values.isEmpty, "\(what): no JSON")
        for value in values {
            do {
                let twice = try StrictJSON.duplicateKeys(value)
                #expect(twice.isEmpty, "\(what): keys given twice \(twice) in \(value)")
            } catch {
                Issue.record("\(what): not JSON (\(error)): \(value)")
            }
        }
    }

    @Test func everyJSONOutputIsStrict() throws {
        let recording = Pacer.trackLoop
        let decode = try Pacer.run(["nmea", "decode", "--json", recording])
        #expect(decode.status == 0, "\(decode.stderr)")
        expectStrict(decode.stdout, "nmea decode --json")

        let watch = try Pacer.run(["gps", "watch", "--json", "--source", "file:\(recording)?pace=fast&outage=5-20", "--count", "30"])
        #expect(watch.status == 0, "\(watch.stderr)")
        expectStrict(watch.stdout, "gps watch --json")

        // No gpsd, no sound device here: exit 69, and still a JSON report.
        let check = try Pacer.run(["hw", "check", "--json", "--gps", "gpsd://127.0.0.1:1", "--buzzer", "alsa:pacer-none", "--battery", "sim", "--listen", "1"])
        #expect(check.status == 69, "\(check.stderr)")
        expectStrict(check.stdout, lines: false, "hw check --json")

        let data = TemporaryDirectory()
        let set = try Pacer.run(["profile", "set", "--weight", "70", "--height", "178", "--frequency", "4",
                                 "--raced", "yes", "--best-race", "10km@48:30", "--data-dir", data.path])
        #expect(set.status == 0, "\(set.stderr)")
        let profile = try Pacer.run(["profile", "show", "--json", "--history", "--data-dir", data.path])
        #expect(profile.status == 0, "\(profile.stderr)")
        expectStrict(profile.stdout, lines: false, "profile show --json")

        let compare = try Pacer.run(["battery", "compare", "Scenarios/battery-compare", "--json"])
        #expect(compare.status == 0, "\(compare.stderr)")
        expectStrict(compare.stdout, lines: false, "battery compare --json")

        let out = TemporaryDirectory()
        let scenario = try Pacer.run(["scenario", "run", "Scenarios/route-waypoints", "--out", out.path, "--quiet"])
        #expect(scenario.status == 0, "\(scenario.stderr)")
        expectStrict(try String(contentsOfFile: out.path + "/events.jsonl", encoding: .utf8), "events.jsonl")
        expectStrict(try String(contentsOfFile: out.path + "/summary.json", encoding: .utf8), lines: false, "summary.json")
    }
}
