import ArgumentParser

@main
struct Pacer: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pacer",
        abstract: "Firmware for a GPS running-coach device, and its simulator.",
        version: "pacer \(PacerVersion.number)",
        subcommands: [RunCommand.self, DeviceCommand.self, CtlCommand.self, PlanCommand.self, ActivitiesCommand.self, RoutesCommand.self, ProfileCommand.self, StatsCommand.self, GPSCommand.self, BeepCommand.self, HardwareCommand.self, NMEACommand.self, ScenarioCommand.self, BatteryCommand.self, VersionCommand.self])
}
