import ArgumentParser
import Configurator
import Foundation
import Logging
import ScenarioRunner
import Storage

/// `pacer scenario run|test`: scripted runs of the firmware on recorded NMEA.
struct ScenarioCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenario", abstract: "Run scripted scenarios of the firmware and check them against their goldens.",
        subcommands: [Run.self, Test.self])

    /// The options both share.
    struct Common: ParsableArguments {
        @Option(name: .long, help: "Settings the device starts from (default: the simulated setup).")
        var config: String?

        @Option(name: .long, help: "Folder for the scratch database (default: /dev/shm when there is one, else the temporary folder).")
        var scratch: String?

        func options(timing: Timing = .virtual, wav: String? = nil) throws -> ScenarioOptions {
            do {
                let settings = try Settings.load(path: config ?? Settings.defaultPath(environment: [:]))
                return ScenarioOptions(settings: settings, timing: timing, wav: wav, scratch: scratch)
            } catch {
                throw CommandFailure.config(error)
            }
        }
    }

    static func load(_ directory: String, options: ScenarioOptions) throws -> Scenario {
        var dir = directory
        while dir.count > 1, dir.hasSuffix("/") { dir.removeLast() }
        do {
            return try ScenarioLoader.load(
                directory: dir, plansDir: PlanLoader.directory(hardwareDir: options.settings.hardwareDirectory))
        } catch {
            throw CommandFailure(error)
        }
    }

    static var logger: Logger {
        var logger = Logger(label: "pacer.scenario")
        logger.logLevel = .warning
        return logger
    }

    /// `scenario test`'s: the device's own warnings (a start refused, a GPS missing) are what
    /// many scenarios are about, and their events are checked; said again they would read as
    /// failures in a run that passes.
    static var quietLogger: Logger {
        var logger = Logger(label: "pacer.scenario")
        logger.logLevel = .critical
        return logger
    }

    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Run one scenario and write its timeline, events, track and summary.",
            discussion: """
                Builds the device as on the board, with the recording replayed as the GPS, a \
                virtual clock, a recording buzzer, a simulated battery and a scratch database \
                (thrown away after, unless --data-dir keeps it), plays the scenario's script, and \
                writes OUTDIR/timeline.txt, events.jsonl, track.gpx and summary.json. Prints the \
                timeline. With --data-dir, the activities stay there for `pacer activities \
                list|show|report --data-dir DATA`.
                """)

        @Argument(help: "The scenario folder (with scenario.yaml).")
        var directory: String

        @Option(name: .long, help: "Where the results go (default: /tmp/pacer-scenario-NAME).")
        var out: String?

        @Flag(name: .long, help: "Run in real time (the default is as fast as possible).")
        var realtime = false

        @Option(name: .long, help: "Run at N times real time.")
        var speed: Double?

        @Option(name: .long, help: "Also render the cues to audio: wav:FILE.")
        var buzzer: String?

        @Flag(name: .long, help: "Do not print the timeline.")
        var quiet = false

        @Option(name: .customLong("data-dir"), help: "Keep the run's database (pacer.sqlite) in this folder; it must not hold one yet.")
        var dataDirectory: String?

        @OptionGroup var common: Common

        func validate() throws {
            if realtime && speed != nil { throw ValidationError("give --realtime or --speed, not both") }
            try AllowedRange.scenarioSpeed.check(speed, option: "--speed")
            if let buzzer, !buzzer.hasPrefix("wav:") || buzzer.count <= 4 {
                throw ValidationError("--buzzer: scenarios render cues to a file: wav:FILE")
            }
        }

        func run() throws {
            var timing = Timing.virtual
            if realtime { timing = .paced(speed: 1) }
            if let speed { timing = .paced(speed: speed) }
            var options = try common.options(timing: timing, wav: buzzer.map { String($0.dropFirst(4)) })
            options.dataDirectory = dataDirectory
            let scenario = try ScenarioCommand.load(directory, options: options)
            let name = URL(fileURLWithPath: scenario.directory).lastPathComponent
            let out = self.out ?? "/tmp/pacer-scenario-\(name)"
            let outcome: ScenarioOutcome
            do {
                outcome = try ScenarioRunner.run(scenario, out: out, options: options, logger: ScenarioCommand.logger)
            } catch let error as ScenarioError {
                throw CommandFailure(error)
            }
            if !quiet, let timeline = FileManager.default.contents(atPath: "\(out)/timeline.txt") {
                StandardStream.output.writeQuietly(Array(timeline))
            }
            let failed = ScenarioCheck.failedExpectations(outcome)
            for f in failed { print("expectation failed: \(f)") }
            print("\(scenario.name): \(outcome.activities.count) activit\(outcome.activities.count == 1 ? "y" : "ies"), "
                + "\(outcome.events.count) events, \(scenario.expectations.count - failed.count)/\(scenario.expectations.count) expectations hold")
            print("results in \(out): \(ScenarioOutcome.resultFiles.joined(separator: ", "))"
                + (buzzer.map { uri in
                    let file = uri.dropFirst(4).split(separator: "?", maxSplits: 1)
                    return ", cues in \(file.first ?? "")" + (uri.contains("timed=yes") ? " (timed: each where it fell)" : "")
                } ?? ""))
            if let dataDirectory { print("activities kept in \(dataDirectory) (pacer activities list --data-dir \(dataDirectory))") }
            if !failed.isEmpty { throw ExitCode(1) }
        }
    }

    struct Test: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "test",
            abstract: "Run scenarios, compare them with their goldens and expectations.",
            discussion: """
                Runs every scenario in the folders given (a scenario folder, or a folder of \
                them; default Scenarios/), twice: the two runs must be byte-identical. Then \
                compares the results with DIR/golden/ and checks the expectations in \
                scenario.yaml; prints a diff for each that differs and exits 1 if any fails. \
                --update rewrites the goldens from this run (read the diff first).
                """)

        @Argument(help: "Scenario folders, or folders of scenarios (default: Scenarios).")
        var directories: [String] = []

        @Flag(name: .long, help: "Rewrite the goldens with this run's results.")
        var update = false

        @Option(name: .long, help: "Keep the results here, one folder per scenario (default: a temporary folder, removed).")
        var keep: String?

        @OptionGroup var common: Common

        func run() throws {
            let options = try common.options()
            let fm = FileManager.default
            var folders: [String] = []
            for dir in directories.isEmpty ? ["Scenarios"] : directories {
                if fm.fileExists(atPath: "\(dir)/\(ScenarioLoader.fileName)") {
                    folders.append(dir)
                } else if let children = try? fm.contentsOfDirectory(atPath: dir) {
                    let found = children.sorted().map { "\(dir)/\($0)" }
                        .filter { fm.fileExists(atPath: "\($0)/\(ScenarioLoader.fileName)") }
                    if found.isEmpty { throw CommandFailure(.noInput, "\(dir): no scenarios in it (no */scenario.yaml)") }
                    folders += found
                } else {
                    throw CommandFailure(.noInput, "\(dir): not a scenario folder nor a folder of scenarios")
                }
            }
            let root = keep ?? NSTemporaryDirectory() + "pacer-scenario-test-\(getpid())"
            defer { if keep == nil { try? fm.removeItem(atPath: root) } }
            var failures = 0
            let clock = ContinuousClock()
            for folder in folders {
                let started = clock.now
                let name = URL(fileURLWithPath: folder).lastPathComponent
                var problems: [String] = []
                do {
                    let scenario = try ScenarioCommand.load(folder, options: options)
                    let first = "\(root)/\(name)", second = "\(root)/\(name).again"
                    let outcome = try ScenarioRunner.run(scenario, out: first, options: options, logger: ScenarioCommand.quietLogger)
                    _ = try ScenarioRunner.run(scenario, out: second, options: options, logger: ScenarioCommand.quietLogger)
                    for file in ScenarioOutcome.resultFiles
                    where fm.contents(atPath: "\(first)/\(file)") != fm.contents(atPath: "\(second)/\(file)") {
                        problems.append("not deterministic: two runs wrote different \(file)")
                    }
                    problems += try ScenarioRecordingCheck.check(scenario, scratch: first)
                    problems += ScenarioCheck.failedExpectations(outcome)
                    if update {
                        try ScenarioCheck.updateGoldens(scenario, out: first)
                    } else {
                        problems += ScenarioCheck.compareGoldens(scenario, out: first)
                    }
                } catch let error as ScenarioError {
                    problems.append(error.description)
                } catch let error as CommandFailure {
                    problems.append(error.message)
                } catch {
                    problems.append("\(error)")
                }
                let took = (clock.now - started).components
                let ms = took.seconds * 1000 + took.attoseconds / 1_000_000_000_000_000
                if problems.isEmpty {
                    print("PASS  \(name)\(update ? " (goldens written)" : "")  \(ms) ms")
                } else {
                    failures += 1
                    print("FAIL  \(name)  \(ms) ms")
                    for p in problems { print(p.split(separator: "\n", omittingEmptySubsequences: false).map { "      " + $0 }.joined(separator: "\n")) }
                }
            }
            print("\(folders.count - failures)/\(folders.count) scenarios pass")
            if failures > 0 { throw ExitCode(1) }
        }
    }
}
