import Coaching
import Configurator
import Foundation
import HAL
import PacerCore
import Simulation
import Storage

/// A past run made a scenario (issue 43): a stored activity, or a GPX, TCX or FIT file,
/// written as its receiver would have sent it (`run.nmea`, with `run.hr.csv` when it has heart
/// rates) into a folder, and coached again on the virtual clock with a plan, a profile and a
/// build, by the scenario runner: what `pacer replay` and `pacer battery compare RUN` run.
///
/// The runner's presses come with a stored run: its lap presses and waypoints at their
/// instants, and its stop when it was stopped before its plan's end. Pauses are not pressed:
/// a run paused by hand replays through the pause standing still (auto-pause, where the
/// profile has it, pauses it).
public struct PastRun: Sendable {
    /// `activity:ID` of a data folder, or a file.
    public enum Source: Hashable, Sendable {
        case activity(Int64, dataDirectory: String)
        case file(String)

        /// `12`, `activity:12` (of `dataDirectory`), or a file's path.
        public init(_ text: String, dataDirectory: String) {
            if let n = TrackReplayLoader.activityNumber(text) {
                self = .activity(n, dataDirectory: dataDirectory)
            } else {
                self = .file(text)
            }
        }

        public var name: String {
            switch self {
            case .activity(let id, _): "activity \(id)"
            case .file(let path): (path as NSString).lastPathComponent
            }
        }
    }

    public var source: Source
    public var timeline: TrackTimeline
    /// The stored activity, for a stored run.
    public var detail: ActivityDetail?
    /// The plan file it followed and its workout (from 0), when the store and the plans
    /// folder tell it.
    public var planPath: String?
    public var workoutIndex: Int?
    /// The identity of the plan a stored run followed.
    public var planKey: PlanKey?

    /// Reads `source`: the run, and for a stored one its record and its plan (found by its
    /// identity among the device's plan, the plans of `plansDirectory` and those the store
    /// keeps, which are written to `scratch` to be read).
    public static func load(_ source: Source, plansDirectory: String, scratch: String) throws -> PastRun {
        switch source {
        case .file(let path):
            do {
                if TrackReplayLoader.format(of: path) == nil {
                    throw ScenarioError("\(path): not a GPX, TCX or FIT file (a past run to replay), nor an activity number")
                }
                return PastRun(source: source, timeline: try TrackReplayLoader.load(path: path))
            } catch let error as ConfigurationError {
                throw ScenarioError(error.description)
            }
        case .activity(let id, let directory):
            let store: PacerStore
            do {
                store = try Configurator.openActivityStore(directory: directory, access: .read)
            } catch {
                throw ScenarioError("activity \(id): \(error)")
            }
            defer { try? store.database.close() }
            do {
                let timeline = try TrackReplayLoader.load(activity: id, store: store)
                let detail = try store.activities.activity(id)
                var run = PastRun(source: source, timeline: timeline, detail: detail)
                let (key, workout) = try store.activities.plan(of: id)
                run.workoutIndex = workout
                run.planKey = key
                if let key { run.planPath = try findPlan(key, store: store, plansDirectory: plansDirectory, scratch: scratch) }
                return run
            } catch let error as ConfigurationError {
                throw ScenarioError(error.description)
            } catch let error as ScenarioError {
                throw error
            } catch {
                throw ScenarioError("activity \(id): \(error)")
            }
        }
    }

    /// The plan file whose bytes have identity `key`.
    static func findPlan(_ key: PlanKey, store: PacerStore, plansDirectory: String, scratch: String) throws -> String? {
        let fm = FileManager.default
        func matches(_ path: String) -> Bool {
            fm.contents(atPath: path).map { PlanKey(contents: $0) == key } ?? false
        }
        if let active = try store.plans.activePlan(), active.key == key, matches(active.source) { return active.source }
        let files = ((try? fm.contentsOfDirectory(atPath: plansDirectory)) ?? []).sorted()
            .filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.map { "\(plansDirectory)/\($0)" }
        if let found = files.first(where: matches) { return found }
        for plan in try store.plans.plans() where PlanKey(contents: Array(plan.yaml.utf8)) == key {
            let path = "\(scratch)/plan.yaml"
            try fm.createDirectory(atPath: scratch, withIntermediateDirectories: true)
            try plan.yaml.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        return nil
    }

    /// Writes the run into `folder` (`run.nmea`, and `run.hr.csv` with heart rates) and
    /// returns the scenario that coaches it again with `plan`'s workout `workoutIndex` on
    /// `profile` (and `hardware`, a build; nil: the settings').
    public func scenario(
        name: String, planPath: String, workoutIndex: Int, profile: String, hardware: String?, folder: String
    ) throws -> Scenario {
        let fm = FileManager.default
        do {
            try fm.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw ScenarioError("cannot create \(folder): \(error.localizedDescription)")
        }
        let recording = "\(folder)/run.nmea"
        var synthesizer = TrackSynthesizer(timeline)
        let handle = try ScenarioOutputFile.create(recording)
        defer { try? handle.close() }
        try synthesizer.write { (bytes: [UInt8]) throws(ScenarioError) in
            do { try handle.write(contentsOf: bytes) } catch { throw ScenarioError("\(recording): \(error.localizedDescription)") }
        }
        var heartRate: Scenario.HeartRateSetup?
        if let stream = synthesizer.heartRateStream() {
            let path = "\(folder)/run.hr.csv"
            try ScenarioOutputFile.write(Array(stream.text.utf8), to: path)
            heartRate = .file(path)
        }
        var scenario = Scenario(
            directory: folder, file: "\(source.name)", name: name, summary: nil, planPath: planPath,
            workoutIndex: workoutIndex, profile: profile, date: timeline.first?.time.date, recording: recording, recipe: nil,
            battery: Scenario.BatterySetup(), script: presses(lead: synthesizer.lead), faults: [], expectations: [])
        scenario.hardware = hardware
        scenario.heartRate = heartRate
        return scenario
    }

    /// A stored run's presses on the replay's clock (which starts `lead` seconds before the
    /// first point, at the run's start): its laps, its waypoints, its stop.
    func presses(lead: Double) -> [ScriptedAction] {
        guard let detail, let started = detail.summary.startedAt else { return [] }
        var actions: [ScriptedAction] = []
        func at(_ time: UTCTimestamp) -> Duration {
            .milliseconds(time.millisecondsSince1970 - started.millisecondsSince1970)
        }
        /// The instant the timer read `timer`: after the pauses before it.
        func instant(timer: Duration) -> Duration {
            var pausedBefore = Duration.zero
            for p in detail.points {
                guard let t = p.timer, t <= timer else { break }
                pausedBefore = max(pausedBefore, at(p.time) - t)
            }
            return timer + pausedBefore
        }
        for lap in detail.lapMarks { actions.append(ScriptedAction(at: instant(timer: lap.timer), action: .lap)) }
        var timer = Duration.zero
        for result in detail.phaseResults.sorted(by: { $0.index < $1.index }) {
            timer += result.duration
            if result.ending == .lap { actions.append(ScriptedAction(at: instant(timer: timer), action: .lap)) }
        }
        for w in detail.waypoints { actions.append(ScriptedAction(at: at(w.time), action: .waypoint(w.name))) }
        if detail.summary.state == .stopped, let ended = detail.summary.endedAt {
            actions.append(ScriptedAction(at: at(ended), action: .stop))
        }
        return actions.sorted { $0.at < $1.at }
    }
}
