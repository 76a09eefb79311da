import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import Storage

@main
struct Pacer: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pacer",
        abstract: "Firmware for a GPS running-coach device, and its simulator.",
        version: "pacer \(PacerVersion.number)",
        subcommands: [RunCommand.self, ReplayCommand.self, DeviceCommand.self, CtlCommand.self, PlanCommand.self, ActivitiesCommand.self, RoutesCommand.self, ProfileCommand.self, SettingsCommand.self, HeartRateCommand.self, StatsCommand.self, GPSCommand.self, BeepCommand.self, SayCommand.self, HardwareCommand.self, NMEACommand.self, ScenarioCommand.self, BatteryCommand.self, CompanionCommand.self, VersionCommand.self])

    /// ArgumentParser's main, with the failures of the layers below given their sysexits
    /// status (`ExitStatus`) and their message alone: the usage text is for usage errors.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            if let status = ExitStatus.of(error) {
                let text = String(describing: error)
                StandardStream.error.writeQuietly("Error: \(text)\n")
                Glibc.exit(status.rawValue)
            }
            exit(withError: error)
        }
    }
}
