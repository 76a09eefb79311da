import ArgumentParser
import Charts
import Coaching
import Companion
import Configurator
import Foundation
import HAL
import PacerCore
import ScenarioRunner
import Simulation
import Storage

/// `pacer replay`: a past run coached again (issue 43), and what the runner would have heard
/// beside what they did hear.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Coach a past run again with another plan, profile or build, and compare.",
        discussion: """
            RUN is a stored activity (its number, or activity:N of the data folder) or a GPX, TCX \
            or FIT file. The run is written as its receiver would have sent it and replayed on \
            the virtual clock through the firmware, as a scenario is, with --plan, --workout, \
            --profile and --hardware (each by default the run's own). A stored run is also \
            replayed as it was, for the battery it used and to check the replay hears what the \
            runner heard. The comparison (figures, cues on one time line, phases, splits, \
            battery) is printed, and with --page written as an HTML page. Nothing is added to \
            the runner's activities.
            """)

    @Argument(help: ArgumentHelp("A stored activity (12, activity:12) or a GPX, TCX or FIT file.", valueName: "run"))
    var pastRun: String

    @Option(name: .long, help: "The plan to coach it with: a file, or a plan's name in the hardware folder's plans/ (default: the run's own, else the device's).")
    var plan: String?

    @Option(name: .long, help: "The plan's workout, from 1 (default: the run's own for its plan, else 1).")
    var workout: Int?

    @Option(name: .long, help: "The power profile (default: the run's own, else the settings').")
    var profile: String?

    @Option(name: .long, help: "The device build (Hardware/builds; default: the settings').")
    var hardware: String?

    @Option(name: .long, help: "Also write the comparison as an HTML page.")
    var page: String?

    @Option(name: .long, help: "Keep the replays' results (run.nmea, timelines, events, tracks) in this folder.")
    var out: String?

    @Option(name: .long, help: "The data folder a stored run is read from (default: the settings' data_dir).")
    var dataDir: String?

    @OptionGroup var common: ScenarioCommand.Common

    func validate() throws {
        if let workout, workout < 1 { throw ValidationError("--workout counts from 1") }
    }

    func run() throws {
        let options = try common.options()
        let settings = options.settings
        let fm = FileManager.default
        let work = out ?? NSTemporaryDirectory() + "pacer-replay-\(getpid())"
        defer { if out == nil { try? fm.removeItem(atPath: work) } }
        let plansDir = PlanLoader.directory(hardwareDir: settings.hardwareDirectory)
        let source = PastRun.Source(pastRun, dataDirectory: dataDir ?? settings.dataDirectory)
        var past: PastRun
        do {
            past = try PastRun.load(source, plansDirectory: plansDir, scratch: work)
        } catch let error as ScenarioError {
            throw CommandFailure(.noInput, error.description)
        }
        // The plan given may be the one the run followed, kept elsewhere.
        if past.planPath == nil, let plan, let key = past.planKey, let path = PlanLoader.resolve(plan, plansDir: plansDir),
           let bytes = fm.contents(atPath: path), PlanKey(contents: bytes) == key {
            past.planPath = path
        }

        // The plan, the workout and the profile the run is coached with.
        let ownProfile = past.detail?.summary.profile ?? settings.profile
        var planPath = past.planPath
        if let plan {
            guard let path = PlanLoader.resolve(plan, plansDir: plansDir) else {
                throw CommandFailure(.noInput, PlanLoader.isPath(plan) ? "no plan file '\(plan)'" : "no plan named '\(plan)' in \(plansDir)")
            }
            planPath = path
        } else if planPath == nil {
            planPath = try activePlan(settings)
        }
        guard let planPath else {
            throw CommandFailure(.usage, past.detail == nil
                ? "\(source.name) follows no plan: give --plan PLAN to coach it with"
                : "the plan \(source.name) followed is not among the device's plans any more: give --plan PLAN")
        }
        let samePlan = planPath == past.planPath
        let workoutIndex = workout.map { $0 - 1 } ?? (samePlan ? past.workoutIndex ?? 0 : 0)
        let whatIfProfile = profile ?? ownProfile
        let build = hardware ?? settings.hardware
        do {
            _ = try PowerProfileLoader.load(name: whatIfProfile, hardwareDir: settings.hardwareDirectory)
            let loaded = try PlanLoader.load(path: planPath)
            guard workoutIndex < loaded.workouts.count else {
                throw CommandFailure(.usage, "--workout \(workoutIndex + 1): the plan has \(loaded.workouts.count)")
            }
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw CommandFailure(error)
        }

        let logger = ScenarioCommand.quietLogger
        let whatIf: ScenarioOutcome
        var asRun: ScenarioOutcome?
        do {
            let scenario = try past.scenario(
                name: "What if: \(source.name)", planPath: planPath, workoutIndex: workoutIndex, profile: whatIfProfile,
                hardware: build, folder: work)
            whatIf = try ScenarioRunner.run(scenario, out: "\(work)/what-if", options: options, logger: logger)
            if let detail = past.detail, let ownPlan = past.planPath {
                let own = try past.scenario(
                    name: "As run: \(source.name)", planPath: ownPlan, workoutIndex: past.workoutIndex ?? 0,
                    profile: detail.summary.profile ?? settings.profile, hardware: build, folder: work)
                asRun = try ScenarioRunner.run(own, out: "\(work)/as-run", options: options, logger: logger)
            }
        } catch let error as ScenarioError {
            throw CommandFailure(error)
        }
        guard let replayed = whatIf.activities.first else {
            throw CommandFailure(.dataError, "the replay stored no activity (the workout never started)")
        }

        // Side a: what the runner heard (a stored run), or the file's run; side b: the what-if.
        var notes: [String] = []
        var a: RunComparisonInput.Side
        if let detail = past.detail {
            a = RunComparisonInput.Side(label: "heard", run: detail.reportInput, hardware: build)
            if asRun == nil {
                notes.append("The plan \(source.name) followed is not among the device's plans (give it with --plan to check the replay and its battery against the run).")
            }
            if let asRun, let again = asRun.activities.first {
                Self.battery(asRun, into: &a)
                let same = again.cues.map { "\($0.elapsed) \($0.cue)" } == detail.cues.map { "\($0.elapsed) \($0.cue)" }
                notes.append(same
                    ? "Replayed as it was (its plan and profile), the run hears the \(detail.cues.count) cues the runner heard, at the same instants: the replay is faithful."
                    : "Replayed as it was, the run hears \(again.cues.count) cues where the runner heard \(detail.cues.count): "
                        + "the replay is not exact (a run stored before its fixes between points were kept, a pause by hand, or another build).")
            }
        } else {
            a = RunComparisonInput.Side(label: "as run", run: Self.reportInput(past.timeline), profile: nil)
            notes.append("\(source.name) holds no cues: only its track, times\(past.timeline.hasHeartRate ? " and heart rates" : "") are compared.")
        }
        var b = RunComparisonInput.Side(label: "what if", run: replayed.reportInput, profile: whatIfProfile, hardware: build)
        Self.battery(whatIf, into: &b)
        let name = past.detail?.summary.name ?? past.timeline.name ?? source.name
        var comparison = RunComparisonInput(title: "What if: \(source.name)" + (name == source.name ? "" : ", \(name)"), a: a, b: b)
        comparison.notes = notes
        try Self.show(comparison, page: page)
    }

    /// Prints the comparison, and writes its page when asked.
    static func show(_ comparison: RunComparisonInput, page: String?) throws {
        print(RunComparison.text(comparison), terminator: "")
        guard let page else { return }
        do {
            try OutputFile.write(page, text: RunComparison.html(comparison))
        } catch {
            throw CommandFailure(error)
        }
        print("Page written to \(page)")
    }

    /// The device's plan (`pacer plan activate`), for a file that names none.
    func activePlan(_ settings: Settings) throws -> String? {
        guard let store = try? Configurator.openActivityStore(directory: dataDir ?? settings.dataDirectory, access: .read) else {
            return nil
        }
        defer { try? store.database.close() }
        return try? store.plans.activePlan()?.source
    }

    /// The energy account of a replay, onto its side.
    static func battery(_ outcome: ScenarioOutcome, into side: inout RunComparisonInput.Side) {
        guard let energy = outcome.energy.first else { return }
        side.batteryMilliampHours = energy.totalMilliampHours
        side.batteryPercent = energy.totalMilliampHours / energy.model.battery.capacityMilliampHours * 100
        side.runtimeHours = energy.projectedRuntimeHours
        side.hardware = energy.model.name
    }

    /// A file's run as a report's input: its points on the time since the first, its
    /// distance along them (the file's odometer where it has one).
    static func reportInput(_ timeline: TrackTimeline) -> ActivityReportInput {
        var points: [TrackPoint] = []
        for (s, segment) in timeline.segments.enumerated() {
            for p in segment {
                points.append(TrackPoint(segment: s, time: p.time, position: p.position, altitude: p.altitude, speed: p.speed,
                                         heartRate: p.heartRate))
            }
        }
        let statistics = ActivityStatistics(points: points)
        let elapsed = Duration.milliseconds(Int64((timeline.duration * 1000).rounded()))
        return ActivityReportInput(
            id: 0, name: timeline.name ?? timeline.source, state: "completed", startedAt: timeline.first?.time,
            endedAt: timeline.last?.time, plan: nil, workout: nil, profile: nil, source: timeline.source,
            distance: timeline.distance, timer: nil, elapsedTime: elapsed, movingTime: statistics.movingTime,
            averageSpeed: timeline.duration > 0 ? timeline.distance / timeline.duration : 0,
            maximumSpeed: statistics.maximumSpeed, points: points, waypoints: [], cues: [], phases: [],
            statistics: statistics)
    }
}
