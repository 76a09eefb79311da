import Foundation
import Storage
import TestSupport
import Testing

/// `pacer profile set --max-hr --resting-hr --threshold-hr --age` and the zones `pacer profile
/// show` prints from them (issue 41): each method by the figures it needs, the estimate said,
/// figures out of range or that disagree refused with the reason and nothing stored.
@Suite("pacer profile, heart-rate figures and zones, end to end", .serialized)
struct ProfileHeartRateEndToEndTests {
    static let body = ["profile", "set", "--weight", "70", "--height", "178", "--frequency", "4"]

    @Test func eachMethodByTheFiguresItNeeds() throws {
        let data = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        // An age alone: % of a maximum estimated by Tanaka (208 - 0.7 x 40 = 180), said so.
        let age = try Pacer.run(Self.body + ["--age", "40", "--now", "2026-05-01T08:00:00Z", "--data-dir", data])
        #expect(age.status == 0, "\(age.stderr)")
        #expect(age.stdout.contains("Heart-rate zones, % of maximum heart rate (estimated from age):"), "\(age.stdout)")
        #expect(age.stdout.contains("maximum 180 bpm estimated from age 40"), "\(age.stdout)")
        #expect(age.stdout.contains("  Zone 5 maximum    162-180 bpm"), "\(age.stdout)")

        // A measured maximum and a resting rate: Karvonen's reserve, no estimate.
        let karvonen = try Pacer.run(["profile", "set", "--max-hr", "190", "--resting-hr", "50",
                                      "--now", "2026-05-02T08:00:00Z", "--data-dir", data])
        #expect(karvonen.status == 0, "\(karvonen.stderr)")
        #expect(karvonen.stdout.contains("changed at 2026-05-02 08:00 UTC: max HR, resting HR."), "\(karvonen.stdout)")
        let show = try Pacer.run(["profile", "show", "--data-dir", data])
        #expect(show.status == 0, "\(show.stderr)")
        let lines = show.stdout.split(separator: "\n").map(String.init)
        let title = try #require(lines.firstIndex(of: "Heart-rate zones, % of heart-rate reserve (Karvonen):"), "\(show.stdout)")
        #expect(Array(lines[(title + 1)...(title + 5)]) == [
            "  Zone 1 recovery   120-133 bpm", "  Zone 2 endurance  134-147 bpm", "  Zone 3 tempo      148-161 bpm",
            "  Zone 4 threshold  162-175 bpm", "  Zone 5 maximum    176-190 bpm",
        ])
        #expect(lines[title + 6].hasPrefix("  Method: M. J. Karvonen, E. Kentala, O. Mustala"), "\(show.stdout)")
        #expect(lines.contains { $0.hasPrefix("  max HR            190 bpm") && $0.hasSuffix("since 2026-05-02 08:00") },
                "\(show.stdout)")

        // A threshold wins: Friel's % of it, to the measured maximum.
        let friel = try Pacer.run(["profile", "set", "--threshold-hr", "170", "--now", "2026-05-03T08:00:00Z",
                                   "--data-dir", data])
        #expect(friel.status == 0, "\(friel.stderr)")
        #expect(friel.stdout.contains("Heart-rate zones, % of lactate threshold heart rate (Friel):"), "\(friel.stdout)")
        #expect(friel.stdout.contains("  Zone 5 maximum    170-190 bpm"), "\(friel.stdout)")
        #expect(friel.stdout.contains("  Method: J. Friel, The Triathlete's Training Bible"), "\(friel.stdout)")

        // none forgets a figure: back to Karvonen.
        let cleared = try Pacer.run(["profile", "set", "--threshold-hr", "none", "--now", "2026-05-04T08:00:00Z",
                                     "--data-dir", data])
        #expect(cleared.status == 0 && cleared.stdout.contains("(Karvonen)"), "\(cleared.stdout) \(cleared.stderr)")

        // JSON: the figures and the zones.
        let json = try Pacer.run(["profile", "show", "--json", "--data-dir", data])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let profile = try #require(object["profile"] as? [String: Any])
        let heart = try #require(profile["heart_rate"] as? [String: Any])
        #expect(heart["max_hr"] as? Int == 190 && heart["resting_hr"] as? Int == 50 && heart["age"] as? Int == 40)
        #expect(heart["threshold_hr"] is NSNull)
        let zones = try #require(heart["zones"] as? [String: Any])
        #expect(zones["method"] as? String == "hrr" && zones["estimated"] as? Bool == false)
        #expect((zones["zones"] as? [[String: Any]])?.map { $0["from_bpm"] as? Int } == [120, 134, 148, 162, 176])

        let store = try PacerStore(directory: data, access: .read)
        #expect(try store.athlete.athleteHistory().count == 4)
    }

    /// Out of range or in disagreement: refused (64) with the option, the range or the
    /// reason, and nothing stored.
    @Test func badFiguresAreRefusedAndNothingIsStored() throws {
        let data = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        #expect(try Pacer.run(Self.body + ["--max-hr", "180", "--data-dir", data]).status == 0)
        let cases: [(arguments: [String], says: String)] = [
            (["--max-hr", "300"], "--max-hr 300 is outside 120 to 230 bpm"),
            (["--resting-hr", "20"], "--resting-hr 20 is outside 30 to 110 bpm"),
            (["--threshold-hr", "fast"], "--threshold-hr 'fast' is not a whole number: give 100 to 220 bpm, or none to clear it"),
            (["--age", "150"], "--age 150 is outside 10 to 100 years"),
            (["--max-hr", "130", "--resting-hr", "100"], "the heart-rate figures disagree: a resting heart rate of "
                + "100 bpm is too close to the maximum of 130 bpm (at least 40 bpm apart)"),
            // Against the stored maximum of 180.
            (["--threshold-hr", "185"], "a threshold heart rate of 185 bpm is not below the maximum of 180 bpm"),
        ]
        for (arguments, says) in cases {
            let run = try Pacer.run(["profile", "set"] + arguments + ["--data-dir", data])
            #expect(run.status == 64, "\(arguments): \(run.status) \(run.stderr)")
            #expect(run.stderr.contains(says), "\(arguments): \(run.stderr)")
        }
        let store = try PacerStore(directory: data, access: .read)
        #expect(try store.athlete.athleteHistory().count == 1)
        #expect(try store.athlete.athlete()?.profile.heartRate.maximum == 180)
    }
}
