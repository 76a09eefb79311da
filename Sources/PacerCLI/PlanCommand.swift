import ArgumentParser
import Coaching
import Configurator
import Foundation
import PacerCore
import Storage

/// `pacer plan show FILE`: a plan's workouts and phases with the speed ranges the runner is
/// measured by (R11); `pacer plan list`: the plans in the hardware_dir's plans folder;
/// `pacer plan goals` and `pacer plan create`: plans generated from a goal and the athlete's
/// data (R3, R9, R14, R15).
struct PlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan", abstract: "Show training plans, or generate one for a goal.",
        subcommands: [Show.self, List.self, Goals.self, Create.self, Activate.self, Active.self, Export.self, Import.self])

    /// Today's date for the deadline, from the system clock in UTC (the date the GPS gives the
    /// device). Only the command reads the clock; the rendering is given the date.
    static func systemToday() -> CivilDate {
        WallClock.today
    }

    /// The settings' `<hardware_dir>/plans`, or nil when the settings cannot be read.
    static func plansDirectory(config: String?) throws -> String {
        do {
            let settings = try Settings.load(path: config ?? Settings.defaultPath())
            return PlanLoader.directory(hardwareDir: settings.hardwareDirectory)
        } catch {
            throw CommandFailure.config(error)
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "List a plan's workouts and phases: minutes, speed range (km/h), pace (min/km), distance.",
            discussion: """
                FILE is a plan file (YAML; the bundled ones in Hardware/plans describe the format \
                in their header). A bare name that is not a file, like `intervals`, is looked up in \
                the plans folder of the settings' hardware_dir. A plan past its deadline is shown \
                (marked expired); its workouts cannot be started. A file that cannot be used is \
                refused with its file, line, key and reason (exit status 64).
                """)

        @Argument(help: ArgumentHelp("A plan file, or the name of a plan in <hardware_dir>/plans (\(PlanLoader.namingRule)).", valueName: "plan"))
        var file: String

        @Option(name: .long, help: "Settings file whose hardware_dir holds the plans (for a bare plan name).")
        var config: String?

        func run() throws {
            var path: String?
            if PlanLoader.isPath(file) {
                path = PlanLoader.resolve(file, plansDir: nil)
            } else {
                let folder = try PlanCommand.plansDirectory(config: config)
                path = PlanLoader.resolve(file, plansDir: folder)
                if path == nil {
                    let known = ((try? PlanLoader.available(plansDir: folder)) ?? [])
                        .map { (($0 as NSString).lastPathComponent as NSString).deletingPathExtension }
                    throw CommandFailure(.noInput,
                        "no plan named '\(file)' in \(folder) (plans: \(known.isEmpty ? "none" : known.joined(separator: ", "))); "
                            + "a file in this folder is ./\(file)")
                }
            }
            guard let path else { throw CommandFailure(.noInput, "no plan file '\(file)'") }
            do {
                let plan = try PlanLoader.load(path: path)
                print(PlanRendering.render(plan, today: PlanCommand.systemToday()), terminator: "")
            } catch {
                throw CommandFailure(error)
            }
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Export a plan's workout as a FIT workout file, for a watch or Garmin Connect to follow.",
            discussion: """
                A step per phase: its time, distance or lap press (an open step), its speed \
                range (a custom speed target) or none, its intensity (warm-up, cool-down, recovery \
                or rest from the phase's name, else active) and its notes; a repeated group is its \
                steps once and a repeat step (repeat_until_steps_cmplt) with its count. `pacer \
                plan import FILE.fit` reads a workout the other way.
                """)

        @Argument(help: ArgumentHelp("A plan file, or the name of a plan in <hardware_dir>/plans (\(PlanLoader.namingRule)).", valueName: "plan"))
        var file: String

        @Option(name: .long, help: "The workout's number in the plan, from 1.")
        var workout: Int

        @Option(name: .long, help: "The FIT workout file to write.")
        var fit: String

        @Option(name: .long, help: "Settings file whose hardware_dir holds the plans (for a bare plan name).")
        var config: String?

        func validate() throws {
            if workout < 1 { throw ValidationError("--workout counts from 1") }
        }

        func run() throws {
            let path = try PlanCommand.planPath(file, config: config)
            let plan: TrainingPlan
            do {
                plan = try PlanLoader.load(path: path)
            } catch {
                throw CommandFailure(error)
            }
            let (chosen, bytes) = try PlanActionError.onCommandLine {
                try PlanActions.fitWorkout(plan, path: path, number: workout, at: WallClock.now)
            }
            try OutputFile.write(fit) { write in try write(bytes) }
            let steps = FITWriter.workoutSteps(chosen).count
            print("Workout \(workout) of \(plan.name), \(chosen.name) (\(chosen.phases.count) phases in \(steps) steps), "
                + "written to \(fit) (FIT, \(bytes.count) bytes)")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the plans in the plans folder: name, number of workouts, deadline.",
            discussion: """
                The folder is --dir, else the plans folder of the settings' hardware_dir \
                (--config, $PACER_CONFIG, /etc/pacer/pacer.yaml or the simulated setup beside the binary). \
                A file that does not load is listed with the reason.
                """)

        @Option(name: .long, help: "Folder of plan files.")
        var dir: String?

        @Option(name: .long, help: "Settings file whose hardware_dir holds the plans.")
        var config: String?

        @Option(name: .customLong("data-dir"), help: "Data folder whose stored plans are listed (default: the settings' data_dir).")
        var dataDirectory: String?

        func run() throws {
            defer { listStored() }
            let folder = try dir ?? PlanCommand.plansDirectory(config: config)
            let files: [String]
            do {
                files = try PlanLoader.available(plansDir: folder)
            } catch {
                throw CommandFailure(error)
            }
            let plans = files.map { path in
                (file: (path as NSString).lastPathComponent,
                 plan: Result { () throws(DataFileError) -> TrainingPlan in try PlanLoader.load(path: path) })
            }
            print(PlanRendering.list(plans, today: PlanCommand.systemToday()), terminator: "")
        }

        /// The plans `pacer plan create` stored: goal, deadline, and the workouts done so far
        /// (distinct workouts with a completed activity).
        func listStored() {
            guard let folder = try? ProfileCommand.StoreLocation.folder(config: config, dataDirectory: dataDirectory),
                  FileManager.default.fileExists(atPath: "\(folder)/\(PacerDatabase.fileName)"),
                  let activities = try? PacerStore(directory: folder, access: .read), let stored = try? activities.plans.plans(), !stored.isEmpty
            else { return }
            let today = PlanCommand.systemToday()
            print("")
            print("Stored plans (pacer plan create):")
            for p in stored {
                let done = (try? activities.plans.workoutsDone(plan: PlanKey(contents: p.yaml.utf8)).count) ?? 0
                var line = "  \(p.id)  \(p.name)  goal: \(p.goal.name)  "
                if let deadline = p.deadline {
                    line += "deadline \(deadline)\(deadline < today ? " (expired)" : "")  "
                } else {
                    line += "no deadline  "
                }
                line += "\(done)/\(p.workoutCount) workouts done"
                print(line)
            }
        }
    }
}

extension PlanCommand {
    struct Goals: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "goals",
            abstract: "List the goals a plan can be generated for (`pacer plan create --goal GOAL`).")

        func run() {
            print(PlanCommand.goalsText(), terminator: "")
        }
    }

    /// The catalog with descriptions, and the syntax of a goal of one's own.
    static func goalsText() -> String {
        let width = GoalCatalog.entries.map(\.key.count).max() ?? 0
        var out = "Goals (pacer plan create --goal GOAL):\n"
        for entry in GoalCatalog.entries {
            let pad = String(repeating: " ", count: width - entry.key.count)
            out += "  \(entry.key)\(pad)  \(entry.goal.name): \(entry.description)\n"
        }
        out += "Or a goal of your own: \(GoalCatalog.syntax).\n"
        out += "A goal without a time counts as slower than any goal with one.\n"
        return out
    }

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Generate a training plan for a goal from the athlete's data.",
            discussion: """
                GOAL is one of `pacer plan goals` (5k, 7k-35, marathon, recreational) or a goal of \
                one's own: 12km, 10km-in-50:00, 21.1km-in-1:55:00, marathon-in-3:45:00. The plan \
                spans the whole weeks from --start (default today, UTC) to --deadline (default \
                \(PlanGenerator.defaultWeeks) weeks later, \(PlanGenerator.defaultMarathonWeeks) for \
                a marathon; at least 1 week, at most \(PlanGenerator.maximumWeeks)); the deadline is \
                the plan's: after it, its workouts cannot be started. The athlete is the stored \
                profile (`pacer profile set`); --weight, --height, --frequency, --raced, \
                --marathon, --best-race and --best-marathon give or override its fields. The same \
                athlete, goal, start and deadline always give the same plan. Without --out or \
                --save the plan file (YAML, the format of Hardware/plans) is printed; --out writes \
                it there; --save also stores it with its goal and deadline in the data folder \
                (`pacer plan list` shows its progress), written to --out or the data folder's \
                plans/. The file is for `pacer plan show FILE` and `pacer run --plan FILE`.
                """)

        @Option(name: .long, help: "The goal: a key of `pacer plan goals`, a distance (12km, 10k, half, marathon) or a distance in a time (10k-in-50:00).")
        var goal: String

        @Option(name: .long, help: "The last day to start a workout, YYYY-MM-DD.")
        var deadline: String?

        @Option(name: .long, help: "The first day of the plan, YYYY-MM-DD (default: today, UTC).")
        var start: String?

        @Option(name: .long, help: "Write the plan file here instead of printing it.")
        var out: String?

        @Flag(name: .long, help: "Replace the --out file if it exists.")
        var force = false

        @Flag(name: .long, help: "Store the plan in the data folder (its file: --out, else the data folder's plans/).")
        var save = false

        @OptionGroup var store: ProfileCommand.StoreLocation

        @Option(name: .long, help: "Body weight, kg.")
        var weight: Double?

        @Option(name: .long, help: "Height, cm.")
        var height: Double?

        @Option(name: .long, help: "Training days a week, 1 to 7.")
        var frequency: Int?

        @Option(name: .long, help: ArgumentHelp("The weekdays to train on, one per session a week (default: the start's weekday and a spread after it).", valueName: "mon,wed,sat"))
        var days: String?

        @Option(name: .long, help: ArgumentHelp("Whether the runner has run a race (default: the profile's, or yes with a best mark).", valueName: "yes|no"))
        var raced: ProfileCommand.YesNo?

        @Option(name: .long, help: ArgumentHelp("Whether the runner has run a marathon (default: the profile's, or yes with a marathon time).", valueName: "yes|no"))
        var marathon: ProfileCommand.YesNo?

        @Option(name: .long, help: "Best race as DISTANCE@TIME, like 5km@25:00 or 21.1km@1:55:00.")
        var bestRace: String?

        @Option(name: .long, help: "Best marathon time, H:MM:SS.")
        var bestMarathon: String?

        @Flag(name: .customLong("hr-cap"), help: "Hold easy and long runs' easy running under the top of heart-rate zone 2 too (needs the profile's heart-rate figures).")
        var heartRateCap = false

        /// The profile's numbers against the ranges `pacer profile set` takes, before any use.
        func validate() throws {
            try AllowedRange(AthleteProfile.weightRange, unit: "kg").check(weight, option: "--weight")
            try AllowedRange(AthleteProfile.heightRange, unit: "cm").check(height, option: "--height")
            let days = AthleteProfile.frequencyRange
            try AllowedRange(Double(days.lowerBound)...Double(days.upperBound), unit: "days a week")
                .check(frequency.map(Double.init), option: "--frequency")
        }

        func run() throws {
            let chosen = try PlanCommand.goal(goal)
            // A deadline is checked against the start: by default today, so a past one is
            // refused; an explicit earlier start (for a scenario's date) is the caller's choice.
            let startDate = try start.map { try PlanCommand.date($0, option: "--start") } ?? PlanCommand.systemToday()
            let deadlineDate = try deadline.map { try PlanCommand.date($0, option: "--deadline") }
            var trainingDays: [Weekday]?
            if let days {
                let (list, unknown) = Weekday.list(days)
                if let word = unknown {
                    throw ValidationError("--days '\(days)': '\(word)' is not a day (mon, tue, wed, thu, fri, sat, sun)")
                }
                trainingDays = list
            }
            let result = try PlanCommand.generate(
                profile: profile(), goal: chosen, asGiven: goal, start: startDate, deadline: deadlineDate,
                trainingDays: trainingDays, heartRateCap: heartRateCap)
            if let out, !save {
                do {
                    try PlanWriter.write(result.plan, header: result.header, to: out, replace: force)
                } catch {
                    throw CommandFailure(.cannotCreate, error.description)
                }
                print("Wrote plan '\(result.plan.name)' (\(result.plan.workouts.count) workouts, deadline "
                    + "\(result.plan.deadline.map { "\($0)" } ?? "none")) to \(out)")
            } else if save {
                let activities = try store.open(writing: true)
                let dataFolder = try store.folder()
                let (path, id) = try PlanActionError.onCommandLine {
                    try PlanActions.save(
                        result, goal: chosen, asGiven: goal, start: startDate, in: activities.plans, dataFolder: dataFolder,
                        out: out, replace: force, at: PlanCommand.now())
                }
                print("Wrote plan '\(result.plan.name)' (\(result.plan.workouts.count) workouts, deadline "
                    + "\(result.plan.deadline.map { "\($0)" } ?? "none")) to \(path); stored as plan \(id) "
                    + "(`pacer plan activate \(id)` makes it the device's)")
            } else {
                print(PlanWriter.text(result.plan, header: result.header), terminator: "")
            }
        }

        /// The athlete: the stored profile, with the options' fields over it; the options
        /// alone when none is stored.
        func profile() throws -> AthleteProfile {
            let stored = try? store.open().athlete.athlete()?.profile
            let weight = self.weight ?? stored?.weight
            let height = self.height ?? stored?.height
            let frequency = self.frequency ?? stored?.weeklyFrequency
            let missing = [("--weight", weight == nil), ("--height", height == nil), ("--frequency", frequency == nil)]
                .filter(\.1).map(\.0)
            guard let weight, let height, let frequency else {
                throw ValidationError("the athlete's \(missing.joined(separator: ", ")) \(missing.count == 1 ? "is" : "are") "
                    + "needed to generate a plan (kg, cm, days a week): `pacer profile set` stores them, "
                    + "or give them here")
            }
            var mark: AthleteProfile.Mark?
            if let bestRace {
                let parts = bestRace.split(separator: "@", omittingEmptySubsequences: false)
                guard parts.count == 2, let distance = GoalCatalog.parseDistance(String(parts[0])),
                      let time = GoalCatalog.parseTime(String(parts[1]))
                else {
                    throw ValidationError("--best-race '\(bestRace)': expected DISTANCE@TIME, like 5km@25:00 or 21.1km@1:55:00")
                }
                mark = AthleteProfile.Mark(distance: distance, time: time)
            }
            var marathonTime: Duration?
            if let bestMarathon {
                guard let time = GoalCatalog.parseTime(bestMarathon) else {
                    throw ValidationError("--best-marathon '\(bestMarathon)': expected a time H:MM:SS, like 4:15:00")
                }
                marathonTime = time
            }
            mark = mark ?? stored?.bestRace
            marathonTime = marathonTime ?? stored?.bestMarathon
            // A mark says the runner has raced (a marathon time, that they ran one), unless
            // they say otherwise: then the mark is a contradiction.
            if marathon == .no, bestMarathon != nil {
                throw ValidationError("--marathon no and --best-marathon contradict each other: give one of them")
            }
            if raced == .no, bestRace != nil || bestMarathon != nil || marathon == .yes {
                throw ValidationError("--raced no contradicts a best race, a best marathon or --marathon yes: give one of them")
            }
            let ranMarathon = marathon.map(\.value) ?? (marathonTime != nil || stored?.hasRunMarathon == true)
            let hasRaced = raced.map(\.value) ?? (ranMarathon || mark != nil || stored?.hasRaced == true)
            return AthleteProfile(
                weight: weight, height: height, weeklyFrequency: frequency,
                hasRaced: hasRaced, hasRunMarathon: ranMarathon,
                bestRace: hasRaced ? mark : nil, bestMarathon: ranMarathon ? marathonTime : nil)
        }
    }

    /// Now, for a stored plan's creation time (the CLI may read the wall clock).
    static func now() -> UTCTimestamp {
        WallClock.now
    }

    /// The goal `text` names (`pacer plan goals`), or the reason it names none.
    static func goal(_ text: String) throws -> Goal {
        try PlanActionError.onCommandLine { try PlanActions.goal(text) }
    }

    /// What `pacer plan create` makes of a profile and a goal (`PlanActions.generate`).
    static func generate(
        profile: AthleteProfile, goal: Goal, asGiven goalText: String, start: CivilDate, deadline: CivilDate?,
        trainingDays: [Weekday]? = nil, heartRateCap: Bool = false
    ) throws -> (plan: TrainingPlan, header: [String]) {
        try PlanActionError.onCommandLine {
            try PlanActions.generate(profile: profile, goal: goal, asGiven: goalText, start: start, deadline: deadline,
                                     trainingDays: trainingDays, heartRateCap: heartRateCap)
        }
    }

    /// `YYYY-MM-DD`, a day of the calendar.
    static func date(_ text: String, option: String) throws -> CivilDate {
        try PlanActionError.onCommandLine { try PlanActions.date(text, option: option) }
    }
}

extension PlanActionError {
    /// `body`'s refusal as the command line says it: a value given wrong with the usage
    /// (`ValidationError`), the others with their exit status and without it.
    static func onCommandLine<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PlanActionError {
            switch error.kind {
            case .invalid: throw ValidationError(error.message)
            case .usage: throw CommandFailure(.usage, error.message)
            case .noInput: throw CommandFailure(.noInput, error.message)
            case .cannotCreate: throw CommandFailure(.cannotCreate, error.message)
            }
        }
    }
}
