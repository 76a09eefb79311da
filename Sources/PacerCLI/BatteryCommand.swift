import ArgumentParser
import Configurator
import Foundation
import ScenarioRunner
import Storage

/// `pacer battery compare`: what each power profile costs and gives, on one scenario.
struct BatteryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "battery", abstract: "Compare power profiles: battery life against coaching and track quality.",
        subcommands: [Compare.self])

    struct Compare: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "compare",
            abstract: "Run a scenario once per profile and compare energy, runtime, track and alerts.",
            discussion: """
                Energy comes from the build's energy model (Hardware/builds, Hardware/parts), \
                charged for what the firmware did in each run: GPS states, wakeups, buzzer \
                seconds, suspended gaps, the Bluetooth radio for a scenario's heart-rate strap \
                (scanning, connected; each measurement a wakeup); with --speech, the build's speaker (Hardware/parts/speakers) \
                or, for a build without one, the part --speaker names. Distance error is against the distance along every fix \
                of the recording (1 Hz). Alert latency: from the runner leaving the speed band \
                (the recording's speed averaged over 5 s, out for 5 s or more) to the first \
                speed-up or slow-down cue; "missed" counts departures that got none before the \
                runner was back.
                """)

        @Argument(help: "The scenario folder (its plan, recording and script are used; its profile is replaced), or a past run: a stored activity (12, activity:12) or a GPX, TCX or FIT file, as the route.")
        var scenario: String

        @Option(name: .long, help: "A past run's plan: a file, or a plan's name in the hardware folder's plans/ (default: the run's own).")
        var plan: String?

        @Option(name: .long, help: "A past run's workout, from 1 (default: the run's own, else 1).")
        var workout: Int?

        @Option(name: .long, help: "The data folder a stored run is read from (default: the settings' data_dir).")
        var dataDir: String?

        @Option(name: .long, help: "Profiles to compare, comma-separated.")
        var profiles: String = "low,medium,high"

        @Option(name: .long, help: "The device build (Hardware/builds; default: the scenario's or the settings').")
        var hardware: String?

        @Flag(name: .long, help: "Also run each profile with the device speaking its default announcements (PROFILE+speech).")
        var speech = false

        @Option(name: .long, help: ArgumentHelp(
            "With --speech, on a build without a speaker: the speaker part charged (Hardware/parts/speakers; default: \(ProfileComparison.defaultSpeaker)).",
            valueName: "NAME"))
        var speaker: String?

        @Flag(name: .customLong("to-go"), help: "Also run each profile with its anticipation (the profile's to_go, else 200 m / 30 s to go and a 3 s countdown) on (PROFILE+to-go), and say what it costs.")
        var toGo = false

        @Flag(name: .customLong("no-strap"), help: "Also run each profile without the scenario's heart-rate strap (PROFILE+no-strap), and say what the strap costs.")
        var noStrap = false

        @Flag(name: .long, help: "JSON instead of the table.")
        var json = false

        @Option(name: .long, help: "Also draw the trade-off as an SVG chart.")
        var svg: String?

        @Option(name: .long, help: "Keep each profile's scenario results here.")
        var out: String?

        @OptionGroup var common: ScenarioCommand.Common

        func run() throws {
            let options = try common.options()
            let names = profiles.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !names.isEmpty else { throw ValidationError("--profiles names no profile") }
            if speaker != nil && !speech { throw ValidationError("--speaker is for --speech runs: give --speech too") }
            for name in names {
                do {
                    _ = try PowerProfileLoader.load(name: name, hardwareDir: options.settings.hardwareDirectory)
                } catch {
                    throw CommandFailure(error, "--profiles")
                }
            }
            let fm = FileManager.default
            let root = out ?? NSTemporaryDirectory() + "pacer-battery-compare-\(getpid())"
            defer { if out == nil { try? fm.removeItem(atPath: root) } }
            var isFolder: ObjCBool = false
            let loaded: Scenario
            if fm.fileExists(atPath: scenario, isDirectory: &isFolder), isFolder.boolValue {
                guard plan == nil, workout == nil else {
                    throw ValidationError("--plan and --workout are for a past run: a scenario names its own")
                }
                loaded = try ScenarioCommand.load(scenario, options: options)
            } else {
                loaded = try pastRun(options: options, folder: "\(root)/run")
            }
            let rows: [ProfileComparison.Row]
            do {
                rows = try ProfileComparison.run(
                    loaded, profiles: names, hardware: hardware, options: options, out: root, speech: speech,
                    speaker: speaker, toGo: toGo, noStrap: noStrap, logger: ScenarioCommand.logger)
            } catch let error as ScenarioError {
                throw CommandFailure(error)
            }
            print(json ? ComparisonReport.json(rows) : ComparisonReport.table(rows), terminator: "")
            if let svg {
                // Checked to the last byte; a device or a link's target written, never replaced.
                try OutputFile.write(svg, text: ComparisonReport.svg(rows, title: "\(loaded.name): energy against alerts and track"))
            }
        }

        /// A past run made the comparison's scenario: its plan (or `--plan`) and workout, its
        /// laps, waypoints and stop.
        func pastRun(options: ScenarioOptions, folder: String) throws -> Scenario {
            let settings = options.settings
            let plansDir = PlanLoader.directory(hardwareDir: settings.hardwareDirectory)
            let source = PastRun.Source(scenario, dataDirectory: dataDir ?? settings.dataDirectory)
            do {
                let past = try PastRun.load(source, plansDirectory: plansDir, scratch: folder)
                var planPath = past.planPath
                if let plan {
                    guard let path = PlanLoader.resolve(plan, plansDir: plansDir) else {
                        throw CommandFailure(.noInput, "no plan '\(plan)' (a file, or a name in \(plansDir))")
                    }
                    planPath = path
                }
                guard let planPath else {
                    throw CommandFailure(.usage, "\(source.name): give --plan PLAN to coach it with (its own is not among the device's plans)")
                }
                let index = workout.map { $0 - 1 } ?? (planPath == past.planPath ? past.workoutIndex ?? 0 : 0)
                return try past.scenario(
                    name: "\(source.name)", planPath: planPath, workoutIndex: index, profile: settings.profile,
                    hardware: hardware ?? settings.hardware, folder: folder)
            } catch let error as ScenarioError {
                throw CommandFailure(error)
            }
        }
    }
}
