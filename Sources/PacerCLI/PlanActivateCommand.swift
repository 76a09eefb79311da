import ArgumentParser
import Coaching
import Configurator
import Foundation
import PacerCore
import Storage

extension PlanCommand {
    /// The identity of the plan file at `path`: progress is kept by it (`PlanKey`).
    static func key(ofPlanFile path: String) throws -> PlanKey {
        try PlanActionError.onCommandLine { try PlanActions.key(ofPlanFile: path) }
    }

    /// A plan argument (a file, or a bundled plan's name) as an absolute path.
    static func planPath(_ argument: String, config: String?) throws -> String {
        let path = PlanLoader.isPath(argument)
            ? PlanLoader.resolve(argument, plansDir: nil)
            : PlanLoader.resolve(argument, plansDir: try plansDirectory(config: config))
        guard let path else {
            throw CommandFailure(.noInput, PlanLoader.isPath(argument)
                ? "no plan file '\(argument)'"
                : "no plan named '\(argument)' among the bundled plans (pacer plan list); a file in this folder is ./\(argument)")
        }
        return path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    /// One line on a plan's progress and what comes next.
    static func progressLine(_ plan: TrainingPlan, done: Set<Int>, today: CivilDate) -> String {
        PlanActions.progressLine(plan, done: done, today: today)
    }

    struct Activate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "activate",
            abstract: "Make a plan the device's: `pacer run` without --plan follows it, workout after workout.",
            discussion: """
                PLAN is a plan file, a bundled plan's name, or the id of a plan stored by \
                `pacer plan create --save` ("stored as plan 1": `pacer plan activate 1`). The \
                device then offers the plan's \
                first workout not completed yet (run to its last phase), while the plan's \
                deadline has not passed. Progress is kept by the plan file's identity (a hash \
                of its contents), not its name: two plans with one name keep their own, and a \
                plan file that changes starts afresh. The device keeps its own copy of the \
                file in the data folder (plans/activated/), so the file may be anywhere the \
                device cannot read (/tmp, a home) and may change or go afterwards: activate \
                it again to follow a changed file.
                """)

        @Argument(help: "A plan file, a bundled plan's name, or a stored plan's id.")
        var plan: String

        @OptionGroup var store: ProfileCommand.StoreLocation

        /// The plan file for a stored plan's id: the file `plan create --save` wrote into the
        /// data folder's plans/ when it is still there with the same text, else the stored
        /// text written there as `plan-ID.yaml` (the same text: the same plan, its progress kept).
        func storedPlanPath(_ id: Int64) throws -> String {
            let activities = try store.open(writing: true)
            let data = try store.folder()
            return try PlanActionError.onCommandLine { try PlanActions.storedPlanPath(id, in: activities.plans, dataFolder: data) }
        }

        func run() throws {
            let path: String
            if let id = Int64(plan), id > 0, (try? PlanCommand.planPath(plan, config: store.config)) == nil {
                path = try storedPlanPath(id)
            } else {
                path = try PlanCommand.planPath(plan, config: store.config)
            }
            let (loaded, key, activities, copy): (TrainingPlan, PlanKey, PacerStore, String)
            do {
                let data = try store.folder()
                (loaded, key, activities, copy) = try PlanActionError.onCommandLine {
                    try PlanActions.activate(path: path, dataFolder: data, in: { try store.open(writing: true) }, at: WallClock.now)
                }
            } catch let error as DataFileError {
                throw CommandFailure(error)
            }
            print("The device's plan is now '\(loaded.name)' (\(path), \(key)), copied to \(copy).")
            print(PlanCommand.progressLine(loaded, done: try activities.plans.workoutsDone(plan: key), today: PlanCommand.systemToday()))
        }
    }

    struct Active: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "active",
            abstract: "Show the device's plan, its progress and its next workout.")

        @OptionGroup var store: ProfileCommand.StoreLocation

        func run() throws {
            guard let activities = try store.openIfPresent(), let active = try activities.plans.activePlan() else {
                print("No plan is the device's yet: `pacer plan activate PLAN`.")
                return
            }
            let loaded: TrainingPlan
            do {
                loaded = try PlanLoader.load(path: active.source)
            } catch {
                throw CommandFailure(error, "the device's plan")
            }
            let now = try PlanCommand.key(ofPlanFile: active.source)
            print("'\(loaded.name)' (\(active.source), \(active.key))")
            if now != active.key {
                print("The file has changed since it was activated: as a new plan, its progress starts afresh.")
            }
            print(PlanCommand.progressLine(loaded, done: try activities.plans.workoutsDone(plan: now), today: PlanCommand.systemToday()))
        }
    }
}
