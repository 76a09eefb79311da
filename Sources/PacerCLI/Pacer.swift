import ArgumentParser

@main
struct Pacer: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pacer",
        abstract: "Firmware for a GPS running-coach device, and its simulator.",
        subcommands: [GPSCommand.self, BeepCommand.self, HardwareCommand.self, NMEACommand.self, VersionCommand.self])
}
