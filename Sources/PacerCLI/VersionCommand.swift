import ArgumentParser
import Configurator

/// Pacer's version: one place, for `pacer version`, `pacer --version` and the Debian package.
enum PacerVersion {
    static let number = "0.1.0"
}

struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version", abstract: "Print Pacer's version and the system libraries it uses.")

    func run() {
        print("pacer \(PacerVersion.number)")
        print("libgps API \(SystemInfo.libgpsAPI)")
        print("libasound \(SystemInfo.alsa)")
        print("opened when first used: \(SystemInfo.openedWhenUsed.joined(separator: ", "))")
    }
}
