import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

@main
struct Pacer: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pacer",
        abstract: "Firmware for a GPS running-coach device, and its simulator.",
        version: "pacer \(PacerVersion.number)",
        subcommands: [RunCommand.self, DeviceCommand.self, CtlCommand.self, PlanCommand.self, ActivitiesCommand.self, RoutesCommand.self, ProfileCommand.self, SettingsCommand.self, StatsCommand.self, GPSCommand.self, BeepCommand.self, SayCommand.self, HardwareCommand.self, NMEACommand.self, ScenarioCommand.self, BatteryCommand.self, CompanionCommand.self, VersionCommand.self])

    /// ArgumentParser's main, with the failures of the layers below given their sysexits
    /// status (`ExitStatus`) and their message alone: the usage text is for usage errors.
    static func main() {
        // `pacer --version` alone, the cheapest question a script or a package check asks,
        // is answered before the parser is built: swift-argument-parser's first parse reflects
        // on the commands' properties, and each type it asks about for the first time makes the
        // Swift runtime search all of the binary's ~10,000 protocol conformance records, about
        // 12 M instructions, three quarters of a start-up (issue 27, docs/measured.md). The text
        // is the one the parser would print (`configuration.version`); the tests compare them.
        if CommandLine.arguments.count == 2, CommandLine.arguments[1] == "--version" {
            FileDescriptorOutput.write(Array("\(configuration.version)\n".utf8), to: 1)
            return
        }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            if let status = ExitStatus.of(error) {
                let text = String(describing: error)
                FileDescriptorOutput.write(Array("Error: \(text)\n".utf8), to: 2)
                Glibc.exit(status.rawValue)
            }
            exit(withError: error)
        }
    }
}
