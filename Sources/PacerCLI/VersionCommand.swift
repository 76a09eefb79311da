import ArgumentParser
import Configurator

struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version", abstract: "Print Pacer's version and the system libraries it uses.")

    func run() {
        print("pacer 0.1.0")
        print("libgps API \(SystemInfo.libgpsAPI)")
        print("libasound \(SystemInfo.alsa)")
    }
}
