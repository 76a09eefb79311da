import ArgumentParser
import Coaching
import Configurator
import Foundation
import PacerCore

/// `pacer plan show FILE`: a plan's workouts and phases with the speed ranges the runner is
/// measured by (R11); `pacer plan list`: the plans in the hardware_dir's plans folder.
struct PlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan", abstract: "Show training plans.",
        subcommands: [Show.self, List.self])

    /// Today's date for the deadline, from the system clock in UTC (the date the GPS gives the
    /// device). Only the command reads the clock; the rendering is given the date.
    static func systemToday() -> CivilDate {
        CivilDate(daysSince1970: Int((Date().timeIntervalSince1970 / 86_400).rounded(.down)))
    }

    /// The settings' `<hardware_dir>/plans`, or nil when the settings cannot be read.
    static func plansDirectory(config: String?) throws -> String {
        do {
            let settings = try Settings.load(path: config ?? Settings.defaultPath())
            return PlanLoader.directory(hardwareDir: settings.hardwareDirectory)
        } catch {
            throw ValidationError(error.description)
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a plan's workouts and phases: minutes, speed range (km/h), pace (min/km), distance.",
            discussion: """
                FILE is a plan file (YAML; the bundled ones in Hardware/plans describe the format \
                in their header). A bare name that is not a file, like `intervals`, is looked up in \
                the plans folder of the settings' hardware_dir. A plan past its deadline is shown \
                (marked expired); its workouts cannot be started. A file that cannot be used is \
                refused with its file, line, key and reason (exit status 64).
                """)

        @Argument(help: "The plan file, or the name of a plan in <hardware_dir>/plans.")
        var file: String

        @Option(name: .long, help: "Settings file whose hardware_dir holds the plans (for a bare plan name).")
        var config: String?

        func run() throws {
            var path = PlanLoader.resolve(file, plansDir: nil)
            if path == nil, !file.contains("/") {
                let folder = try PlanCommand.plansDirectory(config: config)
                path = PlanLoader.resolve(file, plansDir: folder)
                if path == nil {
                    let known = ((try? PlanLoader.available(plansDir: folder)) ?? [])
                        .map { (($0 as NSString).lastPathComponent as NSString).deletingPathExtension }
                    throw ValidationError(
                        "no plan file '\(file)', nor a plan of that name in \(folder) (plans: \(known.isEmpty ? "none" : known.joined(separator: ", ")))")
                }
            }
            guard let path else { throw ValidationError("no plan file '\(file)'") }
            do {
                let plan = try PlanLoader.load(path: path)
                print(PlanRendering.render(plan, today: PlanCommand.systemToday()), terminator: "")
            } catch {
                throw ValidationError(error.description)
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the plans in the plans folder: name, number of workouts, deadline.",
            discussion: """
                The folder is --dir, else the plans folder of the settings' hardware_dir \
                (--config, $PACER_CONFIG, /etc/pacer/pacer.yaml or Hardware/config/simulated.yaml). \
                A file that does not load is listed with the reason.
                """)

        @Option(name: .long, help: "Folder of plan files.")
        var dir: String?

        @Option(name: .long, help: "Settings file whose hardware_dir holds the plans.")
        var config: String?

        func run() throws {
            let folder = try dir ?? PlanCommand.plansDirectory(config: config)
            let files: [String]
            do {
                files = try PlanLoader.available(plansDir: folder)
            } catch {
                throw ValidationError(error.description)
            }
            let plans = files.map { path in
                (file: (path as NSString).lastPathComponent,
                 plan: Result { () throws(DataFileError) -> TrainingPlan in try PlanLoader.load(path: path) })
            }
            print(PlanRendering.list(plans, today: PlanCommand.systemToday()), terminator: "")
        }
    }
}
