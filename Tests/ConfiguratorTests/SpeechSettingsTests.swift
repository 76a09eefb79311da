import Coaching
import Configurator
import HAL
import PacerCore
import Simulation
import TestSupport
import Testing

@Suite("Speech settings and the speaker factory")
struct SpeechSettingsTests {
    func settings(_ extra: String) throws -> Settings {
        try Settings.load(file: "/tmp/pacer.yaml", text: """
            gps: "null"
            buzzer: "null"
            battery: sim
            profile: medium
            data_dir: /tmp/pacer-data
            hardware_dir: \(hardwareDirectory)
            \(extra)
            """)
    }

    @Test func speechIsOffWithoutTheBlockAndItsDefaultsAreNotChatty() throws {
        let s = try settings("")
        #expect(s.speaker == nil && !s.speech.enabled)
        #expect(s.speech.paceCues == .beep && s.speech.phases && s.speech.finish && s.speech.maximumShare == 0.1)
        #expect(s.speech.splitDistance == 1000)
        #expect(SpeechSettings(units: .imperial).splitDistance == 1609.344)
    }

    @Test func theBlockIsRead() throws {
        let s = try settings("speaker: record\nspeech: {enabled: yes, language: de, units: imperial, pace: speed, split_m: 500, phases: no, pace_cues: both, max_share: 0.05}")
        #expect(s.speaker?.scheme == "record")
        #expect(s.speech == SpeechSettings(enabled: true, language: "de", units: .imperial, paceStyle: .speed, splitEvery: 500,
                                           phases: false, paceCues: .both, maximumShare: 0.05))
    }

    @Test func eachProfileMayChooseOtherAnnouncementsOverTheBlocksOwn() throws {
        let s = try settings("""
            speech:
              enabled: yes
              split_m: 500
              alerts: beep
              profiles:
                low: {split_m: 0, phases: no}
                high: {pace_cues: both, alerts: both}
            """)
        #expect(s.speech.alerts == .beep)
        #expect(s.speech.under(profile: "medium") == s.speech)
        let low = s.speech.under(profile: "low")
        #expect(low.splitDistance == 0 && !low.phases && low.finish && low.alerts == .beep && low.enabled)
        let high = s.speech.under(profile: "high")
        #expect(high.splitDistance == 500 && high.paceCues == .both && high.alerts == .both && high.phases)
        #expect(high.perProfile.isEmpty)
        // Speech off but on under one profile: the device still needs its voice.
        let one = try settings("speech: {profiles: {high: {enabled: yes}}}")
        #expect(!one.speech.enabled && one.speech.speaksAnywhere)
    }

    @Test func aProfilesBlockIsRefusedWhereItDoesNotBelong() throws {
        for (extra, line, reason) in [
            ("speech:\n  profiles:\n    lwo: {phases: no}", 9, "speech.profiles.lwo: no such power profile (profiles: high, low, medium)"),
            ("speech:\n  profiles:\n    low: {language: de}", 9,
             "speech.profiles.low.language: is the device's, the same under every profile; set it in `speech:` itself"),
            ("speech:\n  profiles:\n    low: {alerts: words}", 9, "speech.profiles.low.alerts: 'words' is not one of beep, both"),
        ] {
            do {
                _ = try settings(extra)
                Issue.record("\(extra) was accepted")
            } catch {
                #expect("\(error)".contains("/tmp/pacer.yaml:\(line): \(reason)"), "\(error)")
            }
        }
    }

    @Test func badValuesAreRefusedWithTheirLine() throws {
        for (extra, reason) in [("speech: {pace_cues: shout}", "speech.pace_cues: 'shout' is not one of beep, words, both"),
                                ("speech: {max_share: 2}", "speech.max_share"),
                                ("speech: {enabled: maybe}", "speech.enabled: 'maybe' is not yes or no"),
                                ("speech: {loud: yes}", "speech.loud: unknown key"),
                                // A split every centimetre is a voice that never stops.
                                ("speech: {split_m: 0.01}", "speech.split_m: 0.01 m is too short a split: at least 100 m, or 0 for none"),
                                ("speech: {split_m: 99}", "speech.split_m: 99 m is too short a split"),
                                // Swift's Double reads "0x10" as 16: a number is decimal here.
                                ("speech: {split_m: 0x10}", "speech.split_m: expected a number, got '0x10'"),
                                ("speech: {max_share: nan}", "speech.max_share: expected a number, got 'nan'")] {
            do {
                _ = try settings(extra)
                Issue.record("\(extra) was accepted")
            } catch {
                #expect("\(error)".contains("/tmp/pacer.yaml:7: \(reason)"), "\(error)")
            }
        }
    }

    @Test func aSplitOfAtLeast100MetresOrNoneIsTaken() throws {
        #expect(try settings("speech: {split_m: 100}").speech.splitEvery == 100)
        #expect(try settings("speech: {split_m: 0}").speech.splitEvery == 0)
        #expect(try settings("speech: {split_m: 1.5e3}").speech.splitEvery == 1500)
    }

    @Test func theFactoryKnowsNullAndRecordAndRefusesWhatItDoesNotKnow() throws {
        #expect(try Configurator.makeSpeaker(nil) is NullSpeaker)
        #expect(try Configurator.makeSpeaker(DeviceURI(parsing: "null")) is NullSpeaker)
        #expect(try Configurator.makeSpeaker(DeviceURI(parsing: "record"), clock: VirtualClock()) is RecordingSpeaker)
        do {
            _ = try Configurator.makeSpeaker(DeviceURI(parsing: "shout:loud"))
            Issue.record("an unknown speaker was made")
        } catch {
            #expect("\(error)" == "unknown speaker 'shout:loud' (known: espeak:DEVICE, wav:PATH, null, record)")
        }
    }

    @Test func aSpeakingDeviceLoadsItsPhraseBookAndAMissingOneIsNamed() throws {
        var s = try settings("speaker: record\nspeech: {enabled: yes}")
        s.gps = try DeviceURI(parsing: "file:\(hardwareDirectory)/recordings/easy-run.nmea")
        let device = try Configurator.makeDevice(settings: s, timing: .virtual)
        #expect(device.phrases?.language == "en")
        #expect(device.speaker is RecordingSpeaker)
        s.speech.language = "xx"
        do {
            _ = try Configurator.makeDevice(settings: s, timing: .virtual)
            Issue.record("a missing phrase book was accepted")
        } catch {
            #expect(error.description.contains("speech/xx.yaml"), "\(error)")
        }
    }
}
