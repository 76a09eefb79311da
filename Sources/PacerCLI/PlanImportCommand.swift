import ArgumentParser
import Coaching
import Configurator
import Foundation
import Storage

extension PlanCommand {
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import a FIT workout file (Garmin Connect's, a coach's) as a plan of that one workout.",
            discussion: """
                FILE is a FIT workout file (file_id type 5), as Garmin Connect, TrainingPeaks or \
                intervals.icu export a workout for a watch. Its steps become the workout's phases: \
                a time, a distance or a lap press (an open step) ends each; a custom speed range \
                is its band, an open target none; a repeat (repeat_until_steps_cmplt) repeats its \
                steps, one level deep; names and notes are kept. A step Pacer cannot coach is \
                refused with its number and why (exit status 65): heart rate (it comes later), \
                power, cadence, calories, a watch's speed zone, repeats until a time, a distance \
                or a heart rate. The plan file is written into the data folder's plans/ (named \
                after the plan) or to --out; `pacer plan show FILE` lists it and `pacer plan \
                activate FILE` makes it the device's. `pacer plan export PLAN --workout N --fit \
                FILE` writes a workout the other way.
                """)

        @Argument(help: ArgumentHelp("The FIT workout file.", valueName: "file.fit"))
        var file: String

        @Option(name: .long, help: "The plan's name (default: the workout's name, else the file's).")
        var name: String?

        @Option(name: .long, help: "Write the plan file here instead of into the data folder's plans/.")
        var out: String?

        @Flag(name: .long, help: "Replace the plan file if it exists.")
        var force = false

        @OptionGroup var store: ProfileCommand.StoreLocation

        func run() throws {
            let imported: (plan: TrainingPlan, header: [String], read: FITWorkoutData)
            do {
                imported = try PlanActions.importFITWorkout(path: file, name: name)
            } catch let error as FITWorkoutError {
                throw CommandFailure(error.isUnreadable ? .noInput : .dataError, error.description)
            }
            let dataFolder = out == nil ? try store.folder() : ""
            let path = try PlanActionError.onCommandLine {
                try PlanActions.saveImported((imported.plan, imported.header), dataFolder: dataFolder, out: out,
                                             replace: force)
            }
            let workout = imported.plan.workouts[0]
            print("Imported '\(workout.name)' from \(file) (\(imported.read.steps) steps, \(workout.phases.count) phases) "
                + "as plan '\(imported.plan.name)' in \(path)")
            print("`pacer plan show \(path)` lists it; `pacer plan activate \(path)` makes it the device's.")
        }
    }
}
