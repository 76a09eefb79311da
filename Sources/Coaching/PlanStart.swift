import PacerCore

/// Why a workout cannot be started (R4, R14).
public enum PlanStartError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The plan's deadline has passed: its workouts can be viewed but not started.
    case expired(plan: String, deadline: CivilDate, today: CivilDate)
    /// No workout with that index; `count` is how many the plan has.
    case noSuchWorkout(plan: String, index: Int, count: Int)

    public var description: String {
        switch self {
        case .expired(let plan, let deadline, let today):
            return "plan '\(plan)' expired: its deadline was \(deadline) (today is \(today)); "
                + "a workout of an expired plan cannot be started"
        case .noSuchWorkout(let plan, let index, let count):
            let known = count == 1 ? "it has workout 1 only" : "its workouts are 1 to \(count)"
            return "plan '\(plan)' has no workout \(index + 1): \(known)"
        }
    }
}

extension TrainingPlan {
    /// The workout at `index` (0-based; people see it as number `index + 1`) if it may be
    /// started on `today`: the plan has not expired and the workout exists. `today` comes from
    /// the caller (the GPS date on the device, the system date on a desktop), never from here.
    public func workoutToStart(at index: Int, on today: CivilDate) throws(PlanStartError) -> Workout {
        if let deadline, hasExpired(on: today) {
            throw .expired(plan: name, deadline: deadline, today: today)
        }
        guard workouts.indices.contains(index) else {
            throw .noSuchWorkout(plan: name, index: index, count: workouts.count)
        }
        return workouts[index]
    }
}
