import ArgumentParser
import Configurator
import Foundation
import Storage

/// `pacer settings set KEY VALUE` / `pacer settings show`: the power profile and the
/// announcements a runner changes without editing the settings file, kept in the data
/// folder's device.yaml (`DeviceOverlay`), as the companion page changes them.
struct SettingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "Show or change the device's power profile and announcements (the data folder's device.yaml).",
        subcommands: [SetSetting.self, ShowSettings.self])

    struct SetSetting: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Change the power profile or an announcement setting.",
            discussion: """
                KEY is profile (a profile of <hardware_dir>/profiles: low, medium, high) or \
                speech.KEY (\(DeviceOverlay.speechKeys.joined(separator: ", ")): as in the \
                settings' speech: block, docs/speech.md). The value is written to the data \
                folder's device.yaml, read after the settings file and over it (a --profile \
                flag wins over both), once the settings and device.yaml together pass the same \
                checks as the settings file; a refused value changes nothing. The device reads \
                it when it starts (sudo systemctl restart pacer). The companion page writes the \
                same file.
                """)

        @Argument(help: ArgumentHelp("profile, or speech.KEY.", valueName: "key"))
        var key: String

        @Argument(help: "The value.")
        var value: String

        @OptionGroup var settingsFile: SettingsOption

        @Option(name: .customLong("data-dir"), help: "Data folder holding device.yaml (default: the settings' data_dir).")
        var dataDirectory: String?

        func run() throws {
            let settings = try SettingsCommand.load(settingsFile, dataDirectory: dataDirectory)
            do {
                let result = try DeviceOverlay.set([(key, value)], over: settings)
                let path = DeviceOverlay.path(dataDirectory: result.dataDirectory)
                print("\(key) is now \(value) (\(path)). \(DeviceOverlay.takesEffect)")
                if let silent = DeviceOverlay.silentSpeech(result) {
                    StandardStream.error.writeQuietly("warning: \(silent)\n")
                }
            } catch {
                throw CommandFailure(.config, error.description)
            }
        }
    }

    struct ShowSettings: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Show the power profile and announcements, and where they come from.")

        @OptionGroup var settingsFile: SettingsOption

        @Option(name: .customLong("data-dir"), help: "Data folder holding device.yaml (default: the settings' data_dir).")
        var dataDirectory: String?

        func run() throws {
            let s = try SettingsCommand.load(settingsFile, dataDirectory: dataDirectory)
            let overlay = DeviceOverlay.path(dataDirectory: s.dataDirectory)
            print("settings: \(s.source)")
            print("overlay:  \(overlay)\(FileManager.default.fileExists(atPath: overlay) ? "" : " (none yet)")")
            print("profile:  \(s.profile)")
            let sp = s.speech
            print("speech:   enabled \(sp.enabled ? "yes" : "no"), language \(sp.language), split_m "
                + "\(sp.splitEvery.map { "\(Int($0))" } ?? "default"), phases \(sp.phases ? "yes" : "no"), "
                + "finish \(sp.finish ? "yes" : "no"), pace_cues \(sp.paceCues.rawValue), alerts \(sp.alerts.rawValue)")
        }
    }

    /// The settings with device.yaml over them; `dataDirectory` replaces the settings' data_dir.
    static func load(_ settingsFile: SettingsOption, dataDirectory: String?) throws -> Settings {
        try settingsFile.settings(Settings.Overrides(dataDirectory: dataDirectory))
    }
}
