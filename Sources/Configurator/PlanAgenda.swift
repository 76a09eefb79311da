import Coaching
import Foundation
import PacerCore
import Runtime
import Storage
import Synchronization

/// The device's plan and its progress, from the plans' store: the plan made the device's
/// with `pacer plan activate`, and its first workout with no completed activity (progress is
/// kept by the plan file's identity, not its name). Read afresh at every question, so that a
/// plan activated while the device waits is the one offered at the next status asked for
/// (`pacer ctl status`; the page asks when it activates one), or after the next workout.
///
/// With a `Memory` (the device's), the plan last read is kept: when its file cannot be read
/// any more but the store still names it (the data folder, with the device's copy of its
/// plan, removed while it runs, and made again by the store), the device goes on with the
/// plan it has.
public struct PlanAgenda: WorkoutAgenda {
    public let plans: PlanStore
    public let memory: Memory?

    /// The plan file last read, by its path and key.
    public final class Memory: Sendable {
        fileprivate let kept = Mutex<(source: String, key: PlanKey, bytes: Data)?>(nil)

        public init() {}
    }

    public init(plans: PlanStore, memory: Memory? = nil) {
        self.plans = plans
        self.memory = memory
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
        let bytes: Data
        if let read = FileManager.default.contents(atPath: active.source) {
            bytes = read
        } else if let kept = memory?.kept.withLock({ $0 }), kept.source == active.source, kept.key == active.key {
            bytes = kept.bytes
        } else {
            return .unavailable("the device's plan \(active.source) cannot be read: activate it again (`pacer plan activate PLAN`)")
        }
        let key = PlanKey(contents: bytes)
        memory?.kept.withLock { $0 = (active.source, key, bytes) }
        let plan: TrainingPlan
        do {
            plan = try PlanLoader.load(file: active.source, text: String(decoding: bytes, as: UTF8.self))
        } catch {
            return .unavailable("the device's plan is broken: \(error)")
        }
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
