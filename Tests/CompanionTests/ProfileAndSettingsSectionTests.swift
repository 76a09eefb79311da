import Configurator
import Foundation
import PacerCore
import Storage
import Testing
import TestSupport
@testable import Companion

@Suite struct AthleteSectionTests {
    @Test func theProfileIsSetWithTheCommandLinesChecksAndMessages() async throws {
        let f = try PagesFixture()
        let first = try await callRoute(f.athlete, .post, "/athlete", form: ["weight": "70"])
        #expect(first.refusal?.status == 400)
        #expect(first.refusal?.message == "there is no athlete profile yet: the first set needs --weight, --height and "
            + "--frequency; missing: --height (120 to 230 cm), --frequency (1 to 7 days a week)", "\(first)")
        let bad = try await callRoute(f.athlete, .post, "/athlete", form: ["weight": "20", "height": "tall", "frequency": "3"])
        #expect(bad.refusal?.message == "--weight 20 is outside 30 to 250 kg\n--height 'tall' is not a number: give 120 to 230 cm")
        // The command line says the same, word for word.
        let cli = try await Pacer.runOffThePool(["profile", "set", "--weight", "20", "--height", "tall", "--frequency", "3",
                                                 "--data-dir", f.folder.path + "/cli"])
        #expect(cli.status == 64)
        #expect(cli.stderr.contains("Error: " + (bad.refusal?.message ?? "-")), "\(cli.stderr)")
        #expect(try f.device.activities.athlete.athlete() == nil)

        let set = try await callRoute(f.athlete, .post, "/athlete", form: ["weight": "70", "height": "178", "frequency": "3", "raced": ""])
        #expect(set.redirect?.notice == "Athlete profile set.", "\(set)")
        let changed = try await callRoute(f.athlete, .post, "/athlete",
                                     form: ["raced": "yes", "best_race": "10km@48:30", "weight": " 71 "])
        #expect(changed.redirect?.notice == "Athlete profile changed: weight, raced, best race.", "\(changed)")
        let stored = try #require(try f.device.activities.athlete.athlete()).profile
        #expect(stored.weight == 71 && stored.height == 178 && stored.weeklyFrequency == 3)
        #expect(stored.bestRace?.distance == 10_000)
        let contradiction = try await callRoute(f.athlete, .post, "/athlete", form: ["raced": "no", "best_race": "5km@25:00"])
        #expect(contradiction.refusal?.message == "--raced no clears the best race: give --best-race only with --raced yes")
        let page = try await callRoute(f.athlete, .get, "/athlete")
        #expect(page.body.contains("<tr id=\"athlete-weight\"><th>weight</th><td>71 kg</td>"), "\(page.body)")
        #expect(page.body.contains("10 km in 48:30"))
        #expect(page.body.contains("id=\"athlete-save\""))
    }
}

@Suite struct DeviceSettingsSectionTests {
    @Test func aProfileChosenIsWrittenToTheOverlayAndReadBackByTheSettings() async throws {
        let f = try PagesFixture()
        let page = try await callRoute(f.deviceSettings, .get, "/settings")
        #expect(page.body.contains("<p id=\"current-profile\">Now: <strong>medium</strong></p>"), "\(page.body)")
        #expect(page.body.contains("id=\"use-profile-low\"") && page.body.contains("id=\"use-profile-high\""))
        #expect(!page.body.contains("id=\"use-profile-medium\""), "the current one has no button")
        #expect(page.body.contains("Wi-Fi off during a workout"))

        let answer = try await callRoute(f.deviceSettings, .post, "/settings/profile", form: ["profile": "low"])
        #expect(answer.redirect?.notice?.hasPrefix("The power profile is now low.") == true, "\(answer)")
        #expect(try f.settings().profile == "low")
        let overlay = try DeviceOverlay.load(dataDirectory: f.data)
        #expect(overlay.profile == "low")

        let before = FileManager.default.contents(atPath: f.data + "/device.yaml")
        let refused = try await callRoute(f.deviceSettings, .post, "/settings/profile", form: ["profile": "turbo"])
        #expect(refused.refusal?.status == 400)
        // The data folder's file by its name: the board's path means nothing on a phone (issue 39).
        #expect(refused.refusal?.message == "device.yaml:3: profile: no such power profile 'turbo' (profiles: high, low, medium)",
                "\(refused)")
        #expect(FileManager.default.contents(atPath: f.data + "/device.yaml") == before, "a refused value writes nothing")
        // `pacer settings set` refuses it with the same words, the file by its path.
        let cli = try await Pacer.runOffThePool(["settings", "set", "profile", "turbo", "--data-dir", f.data])
        #expect(cli.status == 78)
        #expect(cli.stderr == "Error: \(f.data)/\(refused.refusal?.message ?? "-")\n", "\(cli.stderr)")
    }

    @Test func announcementsGoThroughTheSpeechLoader() async throws {
        let f = try PagesFixture()
        let bad = try await callRoute(f.deviceSettings, .post, "/settings/speech", form: ["split_m": "-5", "enabled": "yes"])
        #expect(bad.refusal?.status == 400)
        #expect(bad.refusal?.message.contains("speech.split_m:") == true, "\(bad)")
        #expect(!FileManager.default.fileExists(atPath: f.data + "/device.yaml"))
        let language = try await callRoute(f.deviceSettings, .post, "/settings/speech", form: ["language": "xx"])
        #expect(language.refusal?.message.hasSuffix("speech.language: no phrase book for 'xx' (languages: de, en)") == true,
                "\(language)")
        // Issue 39, item 18: two wrong fields are both said, not the first alone.
        let both = try await callRoute(f.deviceSettings, .post, "/settings/speech", form: ["language": "xx", "split_m": "-5"])
        let message = both.refusal?.message ?? ""
        #expect(message.hasPrefix("device.yaml: ") && message.contains("speech.language: no phrase book for 'xx'")
                    && message.contains("speech.split_m:"), "\(both)")
        let saved = try await callRoute(f.deviceSettings, .post, "/settings/speech",
                                   form: ["enabled": "yes", "language": "de", "split_m": "500", "pace_cues": "words"])
        #expect(saved.redirect?.to == "/settings", "\(saved)")
        let speech = try f.settings().speech
        #expect(speech.enabled && speech.language == "de" && speech.splitEvery == 500 && speech.paceCues == .words)
        let page = try await callRoute(f.deviceSettings, .get, "/settings")
        #expect(page.body.contains("<option value=\"de\" selected>de</option>"), "\(page.body)")
        #expect(page.body.contains("id=\"speech-split_m\" value=\"500\""))
    }
}
