import Configurator
import Foundation
import TestSupport
import Testing

/// device.yaml in the data folder: over the settings file, under a command line's flag.
@Suite struct DeviceOverlayTests {
    func settingsFile(_ dir: TemporaryDirectory, speech: String = "") throws -> String {
        let path = dir.path + "/pacer.yaml"
        let text = """
            gps: none
            buzzer: "null"
            battery: sim
            profile: medium
            data_dir: data
            hardware_dir: \(hardwareDirectory)
            \(speech)
            """
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: dir.path + "/data", withIntermediateDirectories: true)
        return path
    }

    @Test func theOverlayIsReadAfterTheSettingsFileAndAFlagWinsOverBoth() throws {
        let dir = TemporaryDirectory()
        let path = try settingsFile(dir, speech: "speech: {enabled: no, split_m: 2000, profiles: {low: {split_m: 0}}}")
        #expect(try Settings.load(path: path).profile == "medium")
        try DeviceOverlay.set([("profile", "low"), ("speech.enabled", "yes"), ("speech.language", "de")],
                              over: try Settings.load(path: path))
        let settings = try Settings.load(path: path)
        #expect(settings.profile == "low")
        #expect(settings.speech.enabled && settings.speech.language == "de")
        #expect(settings.speech.splitEvery == 2000, "a key the overlay does not set stays the file's")
        #expect(settings.speech.perProfile["low"]?.splitEvery == 0, "a profile's own block still differs")
        #expect(settings.speech.perProfile["low"]?.language == "de", "the overlay holds under every profile")
        #expect(try Settings.load(path: path, overrides: .init(profile: "high")).profile == "high")
        // A later set keeps what is there.
        try DeviceOverlay.set([("speech.split_m", "1000")], over: settings)
        let again = try DeviceOverlay.load(dataDirectory: dir.path + "/data")
        #expect(again == DeviceOverlay(profile: "low", speech: ["enabled": "yes", "language": "de", "split_m": "1000"]))
    }

    /// Issue 39, item 18: speech could be switched on (the page, `pacer settings set`) with no
    /// speaker in the settings, and nothing said the device would stay silent.
    @Test func speechOnWithoutASpeakerIsSaidToStaySilent() throws {
        let dir = TemporaryDirectory()
        let path = try settingsFile(dir)
        #expect(DeviceOverlay.silentSpeech(try Settings.load(path: path)) == nil, "speech off: nothing to say")
        let on = try DeviceOverlay.set([("speech.enabled", "yes")], over: try Settings.load(path: path))
        let said = try #require(DeviceOverlay.silentSpeech(on))
        #expect(said.contains("name no speaker: the device will only beep") && said.contains(path), "\(said)")
        let other = TemporaryDirectory()
        let speaking = try settingsFile(other, speech: "speaker: espeak:default\nspeech: {enabled: yes}")
        #expect(DeviceOverlay.silentSpeech(try Settings.load(path: speaking)) == nil)
    }

    @Test func aBrokenOverlayStopsTheSettingsWithItsFileLineAndKey() throws {
        let dir = TemporaryDirectory()
        let path = try settingsFile(dir)
        try "profile: low\nwifi: off\n".write(toFile: dir.path + "/data/device.yaml", atomically: true, encoding: .utf8)
        #expect {
            try Settings.load(path: path)
        } throws: { error in
            "\(error)" == "\(dir.path)/data/device.yaml:2: wifi: unknown key (expected one of: heart_rate, profile, speech)"
        }
    }

    @Test func aValueWithQuotesStaysOneValue() throws {
        let dir = TemporaryDirectory()
        let path = try settingsFile(dir)
        #expect(throws: DataFileError.self) {
            try DeviceOverlay.set([("speech.language", "en'\nprofile: 'high")], over: try Settings.load(path: path))
        }
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/data/device.yaml"))
        #expect(try Settings.load(path: path).profile == "medium")
    }

    /// `0x10` is no number a runner types: refused, and nothing is written.
    @Test func aSplitWrittenInHexOrTooShortIsRefusedAndNothingWritten() throws {
        let dir = TemporaryDirectory()
        let path = try settingsFile(dir)
        let overlay = DeviceOverlay.path(dataDirectory: try Settings.load(path: path).dataDirectory)
        for value in ["0x10", "0.01", "inf"] {
            #expect(throws: DataFileError.self) {
                try DeviceOverlay.set([("speech.split_m", value)], over: try Settings.load(path: path))
            }
            #expect(!FileManager.default.fileExists(atPath: overlay), "\(value)")
        }
    }

    /// Seven changes at once (the page's handlers, `pacer settings set`): each is made, none
    /// is refused and none is lost; each reads what the one before wrote.
    @Test func simultaneousChangesAreAllKept() async throws {
        let dir = TemporaryDirectory()
        let path = try settingsFile(dir)
        let changes: [(String, String)] = [
            ("profile", "low"), ("speech.enabled", "yes"), ("speech.language", "de"), ("speech.split_m", "500"),
            ("speech.phases", "no"), ("speech.finish", "no"), ("speech.pace_cues", "both"),
        ]
        let settings = try Settings.load(path: path)
        let failures = await withTaskGroup(of: String?.self) { group in
            for change in changes {
                group.addTask {
                    do {
                        try DeviceOverlay.set([change], over: settings)
                        return nil
                    } catch {
                        return "\(change.0): \(error)"
                    }
                }
            }
            var all: [String] = []
            for await failure in group { if let failure { all.append(failure) } }
            return all
        }
        #expect(failures.isEmpty, "\(failures)")
        let overlay = try DeviceOverlay.load(dataDirectory: settings.dataDirectory)
        #expect(overlay.profile == "low")
        #expect(overlay.speech.count == 6, "\(overlay.speech)")
    }

    /// `pacer hr pair` and `unpair` write heart_rate here: an address in BlueZ's form, or none.
    @Test func theHeartRateStrapIsSetOverTheSettings() throws {
        let dir = TemporaryDirectory()
        let settings = try Settings.load(path: try settingsFile(dir, speech: "heart_rate: bluez"))
        #expect(settings.heartRate?.text == "bluez")
        let paired = try DeviceOverlay.set([("heart_rate", "bluez:c4-7c-8d-6a-3e-11")], over: settings)
        #expect(paired.heartRate?.text == "bluez:C4:7C:8D:6A:3E:11")
        #expect(try Settings.load(path: dir.path + "/pacer.yaml").heartRate?.text == "bluez:C4:7C:8D:6A:3E:11")
        #expect(try DeviceOverlay.set([("heart_rate", "none")], over: settings).heartRate == nil)
        #expect(try Settings.load(path: dir.path + "/pacer.yaml").heartRate == nil)
        #expect {
            try DeviceOverlay.set([("heart_rate", "bluez:C4:7C")], over: settings)
        } throws: { "\($0)".hasSuffix("heart_rate: 'C4:7C' is not a Bluetooth address (six pairs of hex digits: C4:7C:8D:6A:3E:11)") }
        #expect {
            try DeviceOverlay.set([("heart_rate", "sim:hr.csv")], over: settings)
        } throws: { "\($0)".contains("unknown heart-rate strap 'sim:hr.csv'") }
    }
}
