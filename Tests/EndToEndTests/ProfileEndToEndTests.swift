import Foundation
import Storage
import TestSupport
import Testing

/// `pacer profile set` and `pacer profile show` as a person uses them: the profile kept in the
/// activity database with the history of its changes, every bad value refused with its range.
@Suite("pacer profile, end to end", .serialized)
struct ProfileEndToEndTests {
    static let first = [
        "profile", "set", "--weight", "70.5", "--height", "178", "--frequency", "4", "--raced", "yes",
        "--best-race", "10km@48:30", "--now", "2026-05-01T08:00:00Z",
    ]

    @Test func setShowChangeOneFieldAndTheHistory() throws {
        let data = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let set = try Pacer.run(Self.first + ["--data-dir", data])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout.contains("Athlete profile set at 2026-05-01 08:00 UTC"), "\(set.stdout)")

        let show = try Pacer.run(["profile", "show", "--data-dir", data])
        #expect(show.status == 0, "\(show.stderr)")
        for expected in [
            "last changed 2026-05-01 08:00 UTC", "70.5 kg", "178 cm", "4 days a week", "10 km in 48:30",
            "BMI               22.3 kg/m2",  // 70.5 / 1.78² = 22.25
            "4:51 min/km, 12.4 km/h",  // 2910 s / 10 km; 10 km / 0.8083 h
        ] {
            #expect(show.stdout.contains(expected), "no '\(expected)' in:\n\(show.stdout)")
        }
        #expect(line("weight", in: show.stdout)?.hasSuffix("since 2026-05-01 08:00") == true, "\(show.stdout)")

        // A later set changes only what it gives; the rest is carried over.
        let change = try Pacer.run(["profile", "set", "--weight", "69", "--now", "2026-05-09T18:30:00Z", "--data-dir", data])
        #expect(change.status == 0, "\(change.stderr)")
        #expect(change.stdout.contains("changed at 2026-05-09 18:30 UTC: weight."), "\(change.stdout)")
        let after = try Pacer.run(["profile", "show", "--history", "--data-dir", data])
        #expect(after.status == 0, "\(after.stderr)")
        #expect(after.stdout.contains("last changed 2026-05-09 18:30 UTC"))
        #expect(line("weight", in: after.stdout)?.contains("69 kg") == true)
        #expect(line("weight", in: after.stdout)?.hasSuffix("since 2026-05-09 18:30") == true, "\(after.stdout)")
        #expect(line("height", in: after.stdout)?.hasSuffix("since 2026-05-01 08:00") == true, "\(after.stdout)")
        #expect(line("best race", in: after.stdout)?.contains("10 km in 48:30") == true)
        // The history: two entries, oldest first, with their dates.
        #expect(after.stdout.contains("History (2 changes, oldest first):"), "\(after.stdout)")
        let entries = after.stdout.split(separator: "\n").filter { $0.hasPrefix("  2026-") }
        #expect(entries.count == 2, "\(after.stdout)")
        #expect(entries.first?.hasPrefix("  2026-05-01 08:00  weight 70.5 kg, height 178 cm") == true)
        #expect(entries.last == "  2026-05-09 18:30  weight 70.5 kg -> 69 kg")

        // The same values again: nothing new.
        let again = try Pacer.run(["profile", "set", "--weight", "69", "--now", "2026-05-10T08:00:00Z", "--data-dir", data])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("unchanged"))
        let store = try PacerStore(directory: data, access: .read)
        #expect(try store.athlete.athleteHistory().count == 2)
        #expect(try store.athlete.athlete()?.profile.bestRace?.time == .seconds(2910))
    }

    @Test func jsonCarriesTheValuesTheDatesAndTheHistory() throws {
        let data = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        #expect(try Pacer.run(Self.first + ["--data-dir", data]).status == 0)
        let marathon = try Pacer.run([
            "profile", "set", "--marathon", "yes", "--best-marathon", "3:59:59", "--now", "2026-06-01T07:00:00Z",
            "--data-dir", data,
        ])
        #expect(marathon.status == 0, "\(marathon.stderr)")
        let show = try Pacer.run(["profile", "show", "--json", "--history", "--data-dir", data])
        #expect(show.status == 0, "\(show.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any])
        #expect(object["changed_at"] as? String == "2026-06-01T07:00:00.000Z")
        let profile = try #require(object["profile"] as? [String: Any])
        #expect(profile["weight_kg"] as? Double == 70.5)
        #expect(profile["weekly_frequency"] as? Int == 4)
        #expect(profile["marathon"] as? Bool == true)
        #expect(profile["bmi"] as? Double == 22.3)
        let race = try #require(profile["best_race"] as? [String: Any])
        #expect(race["distance_m"] as? Double == 10_000)
        #expect(race["time"] as? String == "48:30")
        #expect(race["pace_min_per_km"] as? String == "4:51")
        let best = try #require(profile["best_marathon"] as? [String: Any])
        #expect(best["time"] as? String == "3:59:59")
        let since = try #require(object["since"] as? [String: String])
        #expect(since["weight"] == "2026-05-01T08:00:00.000Z")
        #expect(since["best_marathon"] == "2026-06-01T07:00:00.000Z")
        let history = try #require(object["history"] as? [[String: Any]])
        #expect(history.map { $0["changed_at"] as? String } == ["2026-05-01T08:00:00.000Z", "2026-06-01T07:00:00.000Z"])
        #expect(history.last?["changed"] as? [String] == ["marathon", "best_marathon"])
    }

    @Test func raceAndMarathonRules() throws {
        let data = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let base = ["profile", "set", "--data-dir", data]
        #expect(try Pacer.run(base + ["--weight", "60", "--height", "165", "--frequency", "3"]).status == 0)
        // Not raced yet: a best race needs --raced yes.
        let noRace = try Pacer.run(base + ["--best-race", "5000m@22:10"])
        #expect(noRace.status == 64)
        #expect(noRace.stderr.contains("--best-race needs --raced yes"), "\(noRace.stderr)")
        #expect(try Pacer.run(base + ["--raced", "yes", "--best-race", "5000m@22:10"]).status == 0)
        // Stored yes is enough for the next one.
        #expect(try Pacer.run(base + ["--best-race", "21.1km@1:45:00"]).status == 0)
        let store = try PacerStore(directory: data, access: .read)
        #expect(try store.athlete.athlete()?.profile.bestRace?.distance == 21_100)
        // --raced no clears the best race.
        #expect(try Pacer.run(base + ["--raced", "no"]).status == 0)
        #expect(try store.athlete.athlete()?.profile.bestRace == nil)
        #expect(try store.athlete.athlete()?.profile.hasRaced == false)
        let noMarathon = try Pacer.run(base + ["--best-marathon", "4:10:00"])
        #expect(noMarathon.status == 64)
        #expect(noMarathon.stderr.contains("--best-marathon needs --marathon yes"), "\(noMarathon.stderr)")
        #expect(try store.athlete.athleteHistory().count == 4)
    }

    /// Every bad value is refused (exit status 64) with the option and its allowed range, and
    /// nothing is stored.
    @Test func badValuesAreRefusedWithTheAllowedRangeAndNothingIsStored() throws {
        let data = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let ok = ["--weight", "70", "--height", "175", "--frequency", "4"]
        let cases: [(arguments: [String], says: [String])] = [
            (["--weight", "29.9", "--height", "175", "--frequency", "4"], ["--weight 29.9 is outside 30 to 250 kg"]),
            (["--weight", "251", "--height", "175", "--frequency", "4"], ["--weight 251 is outside 30 to 250 kg"]),
            (["--weight", "seventy", "--height", "175", "--frequency", "4"], ["--weight 'seventy' is not a number: give 30 to 250 kg"]),
            (["--weight", "nan", "--height", "175", "--frequency", "4"], ["--weight 'nan' is not a number"]),
            (["--weight", "", "--height", "175", "--frequency", "4"], ["--weight '' is not a number"]),
            (["--weight", "70", "--height", "119", "--frequency", "4"], ["--height 119 is outside 120 to 230 cm"]),
            (["--weight", "70", "--height", "231", "--frequency", "4"], ["--height 231 is outside 120 to 230 cm"]),
            (["--weight", "70", "--height", "1.75", "--frequency", "4"], ["--height 1.75 is outside 120 to 230 cm"]),
            (Array(ok.dropLast(1)) + ["0"], ["--frequency 0 is outside 1 to 7 days a week"]),
            (Array(ok.dropLast(1)) + ["8"], ["--frequency 8 is outside 1 to 7 days a week"]),
            (Array(ok.dropLast(1)) + ["3.5"], ["--frequency '3.5' is not a whole number of days: give 1 to 7 days a week"]),
            (ok + ["--raced", "maybe"], ["'maybe'", "'yes'", "'no'"]),
            (ok + ["--marathon", "1"], ["'1'", "'yes'", "'no'"]),
            (ok + ["--raced", "yes", "--best-race", "10km"], ["--best-race '10km' is not DISTANCE@TIME"]),
            (ok + ["--raced", "yes", "--best-race", "10mi@1:20:00"], ["--best-race '10mi@1:20:00' is not DISTANCE@TIME"]),
            (ok + ["--raced", "yes", "--best-race", "10km@48:70"], ["is not DISTANCE@TIME"]),
            (ok + ["--raced", "yes", "--best-race", "10km@1:4:00"], ["is not DISTANCE@TIME"]),
            (ok + ["--raced", "yes", "--best-race", "500m@1:30"], ["--best-race 500m@1:30", "outside 1 to 100 km"]),
            (ok + ["--raced", "yes", "--best-race", "101km@10:00:00"], ["outside 1 to 100 km"]),
            (ok + ["--raced", "yes", "--best-race", "10km@20:00"],
             ["--best-race 10km@20:00", "faster than the world record allows", "must be 25:15 to 5:00:00"]),
            (ok + ["--raced", "yes", "--best-race", "5km@3:00:00"], ["slower than 2 km/h", "must be 12:06 to 2:30:00"]),
            (ok + ["--raced", "no", "--best-race", "10km@48:30"], ["--raced no clears the best race"]),
            (ok + ["--marathon", "yes", "--best-marathon", "1:59:59"], ["--best-marathon 1:59:59 is outside 2:00:00 to 8:00:00"]),
            (ok + ["--marathon", "yes", "--best-marathon", "8:00:01"], ["--best-marathon 8:00:01 is outside 2:00:00 to 8:00:00"]),
            (ok + ["--marathon", "yes", "--best-marathon", "3h45"], ["--best-marathon '3h45' is not a time: give H:MM:SS, 2:00:00 to 8:00:00"]),
            (ok + ["--marathon", "no", "--best-marathon", "3:45:00"], ["--marathon no clears the best marathon"]),
            (ok + ["--best-marathon", "3:45:00"], ["--best-marathon needs --marathon yes"]),
            (["--weight", "70"], ["the first set needs --weight, --height and --frequency",
                                  "missing: --height (120 to 230 cm), --frequency (1 to 7 days a week)"]),
            ([], ["nothing to set"]),
            (ok + ["--now", "yesterday"], ["--now 'yesterday' is not an ISO 8601 time"]),
        ]
        for (arguments, says) in cases {
            let result = try Pacer.run(["profile", "set", "--data-dir", data] + arguments)
            #expect(result.status == 64, "\(arguments): status \(result.status)")
            for text in says {
                #expect(result.stderr.contains(text), "\(arguments): no '\(text)' in \(result.stderr)")
            }
        }
        // Several problems are said at once.
        let many = try Pacer.run(["profile", "set", "--data-dir", data, "--weight", "20", "--height", "300", "--frequency", "9"])
        for text in ["--weight 20", "--height 300", "--frequency 9"] {
            #expect(many.stderr.contains(text), "\(many.stderr)")
        }
        // Nothing was stored.
        let show = try Pacer.run(["profile", "show", "--data-dir", data])
        #expect(show.status == 1)
        let store = try PacerStore(directory: data, access: .read)
        #expect(try store.database.rowCounts()["athlete_profile"] == 0)

        // With a profile stored, a bad change is refused and the profile stays as it was.
        #expect(try Pacer.run(["profile", "set", "--data-dir", data] + ok).status == 0)
        let bad = try Pacer.run(["profile", "set", "--data-dir", data, "--weight", "70.5", "--frequency", "12"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--frequency 12 is outside 1 to 7 days a week"), "\(bad.stderr)")
        #expect(try store.athlete.athleteHistory().count == 1)
        #expect(try store.athlete.athlete()?.profile.weight == 70)
    }

    @Test func showWithoutAProfileSaysHowToSetOne() throws {
        let data = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        for arguments in [["profile", "show"], ["profile", "show", "--json"], ["profile", "show", "--history"]] {
            let show = try Pacer.run(arguments + ["--data-dir", data])
            #expect(show.status == 1)
            #expect(show.stdout.isEmpty)
            #expect(show.stderr.contains("No athlete profile yet: set one with `pacer profile set --weight KG --height CM --frequency DAYS`"),
                    "\(show.stderr)")
        }
    }

    /// A data folder that does not exist is an error naming it, with 66 as
    /// `pacer activities list` gives, not "no profile yet" (`plan active` likewise).
    @Test func aMissingDataFolderIsAnErrorNamingIt() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let nowhere = "\(dir)/nowhere"
        let list = try Pacer.run(["activities", "list", "--data-dir", nowhere])
        #expect(list.status == 66, "\(list.stderr)")
        for arguments in [["profile", "show"], ["profile", "show", "--json"], ["plan", "active"]] {
            let show = try Pacer.run(arguments + ["--data-dir", nowhere])
            #expect(show.status == 66, "\(arguments): \(show.stderr)")
            #expect(show.stdout.isEmpty)
            #expect(show.stderr.contains("no data folder \(nowhere): it does not exist"), "\(show.stderr)")
            #expect(!show.stderr.contains("No athlete profile yet"))
        }
        #expect(!FileManager.default.fileExists(atPath: nowhere), "reading made the folder")
    }

    /// Without --data-dir, the settings' data_dir, as for `pacer activities`.
    @Test func theSettingsDataFolderIsUsed() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let settings = try Pacer.settings(in: dir)
        let set = try Pacer.run(["profile", "set", "--weight", "80", "--height", "185", "--frequency", "2", "--config", settings])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(FileManager.default.fileExists(atPath: "\(dir)/data/pacer.sqlite"))
        let show = try Pacer.run(["profile", "show"], environment: ["PACER_CONFIG": settings])
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.contains("80 kg"))
    }

    /// The line of `profile show` for a field.
    func line(_ label: String, in text: String) -> String? {
        text.split(separator: "\n").map(String.init).first { $0.hasPrefix("  \(label)  ") }
    }
}
