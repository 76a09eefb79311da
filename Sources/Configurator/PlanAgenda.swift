import Coaching
import Foundation
import PacerCore
import Runtime
import Storage

/// The device's plan and its progress, from the plans' store: the plan made the device's
/// with `pacer plan activate`, and its first workout with no completed activity (progress is
/// kept by the plan file's identity, not its name). Read afresh at every question, so that a
/// plan activated while the device waits is the one offered at the next status asked for
/// (`pacer ctl status`; the page asks when it activates one), or after the next workout.
public struct PlanAgenda: WorkoutAgenda {
    public let plans: PlanStore

    public init(plans: PlanStore) {
        self.plans = plans
    }

    public func today(on date: CivilDate) -> TodaysWorkout {
        let active: (key: PlanKey, source: String)?
        do {
            active = try plans.activePlan()
        } catch {
            return .unavailable("the device's plan cannot be read from storage: \(error)")
        }
        guard let active else {
            return .unavailable("no plan: make one the device's with `pacer plan activate PLAN`")
        }
        guard let bytes = FileManager.default.contents(atPath: active.source) else {
            return .unavailable("the device's plan \(active.source) cannot be read: activate it again (`pacer plan activate PLAN`)")
        }
        let plan: TrainingPlan
        do {
            plan = try PlanLoader.load(file: active.source, text: String(decoding: bytes, as: UTF8.self))
        } catch {
            return .unavailable("the device's plan is broken: \(error)")
        }
        let key = PlanKey(contents: bytes)
        let done: Set<Int>
        do {
            done = try plans.workoutsDone(plan: key)
        } catch {
            return .unavailable("the plan's progress cannot be read: \(error)")
        }
        switch plan.nextWorkout(done: done, on: date) {
        case .workout(let index): return .workout(plan: plan, key: key, index: index, again: false)
        case .allDone: return .workout(plan: plan, key: key, index: 0, again: true)
        case .expired(let deadline): return .expired(plan: plan.name, deadline: deadline)
        }
    }
}
