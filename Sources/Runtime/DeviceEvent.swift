import Coaching
import HAL
import PacerCore

/// Where the device stands (`pacer device`), each state heard as its own cue.
public enum DeviceState: String, Hashable, Sendable {
    /// Power-on: the parts are being checked.
    case starting
    /// No position yet: a faint `searching` tick repeats.
    case searching
    /// A position: `ready`, then today's workout counted in beeps; a start press starts it.
    case ready
    /// A workout runs (the runtime's cues).
    case running
    /// Asked to end (SIGTERM): a running workout is stopped and stored first.
    case off
}

/// Today's workout, as the plan and its progress offer it.
public enum TodaysWorkout: Hashable, Sendable {
    /// `again`: every workout was done, so the plan starts over.
    case workout(plan: TrainingPlan, key: PlanKey?, index: Int, again: Bool)
    /// The plan's deadline has passed: nothing may start (R4).
    case expired(plan: String, deadline: CivilDate)
    /// No plan, or the plan cannot be read: the reason, for the journal.
    case unavailable(String)
}

/// Where the device's plan and its progress come from (the activity store, through the
/// configurator): asked at power-on, at the first fix (the GPS knows the date) and after
/// each workout.
public protocol WorkoutAgenda: Sendable {
    func today(on date: CivilDate) -> TodaysWorkout
    /// The route the runner chose for the next workout to follow (the companion page,
    /// `pacer routes follow`), read when a workout starts; nil for none. `--route` wins.
    func chosenRoute() throws -> FollowedRoute?
    /// The power profile and the announcements as the runner last chose them (the companion
    /// page, `pacer settings set`), read when a workout starts; nil: as at power-on.
    func workoutSettings() -> WorkoutSettings?
}

extension WorkoutAgenda {
    public func chosenRoute() throws -> FollowedRoute? { nil }
    public func workoutSettings() -> WorkoutSettings? { nil }
}

/// What a workout starts with that the runner may have changed since power-on.
public struct WorkoutSettings: Sendable {
    public var profile: PowerProfile
    /// The profiles `profile` steps down to, by name.
    public var profiles: [String: PowerProfile]
    public var speech: SpeechSettings

    public init(profile: PowerProfile, profiles: [String: PowerProfile], speech: SpeechSettings) {
        self.profile = profile
        self.profiles = profiles
        self.speech = speech
    }
}

/// What the device did between and around workouts, as it happens (the journal, a
/// scenario's timeline, `pacer ctl watch`). Reported on the clock's loop, in order.
public enum DeviceEvent: Hashable, Sendable {
    case state(DeviceState, detail: String?)
    /// A cue of the device itself (the workout's own are in `.workout`).
    case cue(Cue)
    /// A number counted in beeps (`count-five` per five, `count` per one): the workout offered.
    case counted(Int)
    /// A part missing or failed, or no plan: what the journal says.
    case fault(String)
    /// The workout a start press would start (number from 1).
    case offered(plan: String, workout: Int, of: Int, name: String, again: Bool)
    /// A start press refused, and why.
    case refused(String)
    /// A press pattern and what it did.
    case pressed(PressPattern, action: String)
    /// The receiver's status between workouts.
    case gps(GPSStatus, detail: String?)
    /// Something the workout's runtime did, with its status after it.
    case workout(RuntimeEvent, RuntimeStatus)

    public var kind: String {
        switch self {
        case .state: "state"
        case .cue, .counted: "cue"
        case .fault: "fault"
        case .offered: "offered"
        case .refused: "refused"
        case .pressed: "button"
        case .gps: "gps"
        case .workout(let e, _): e.kind
        }
    }
}

extension DeviceEvent {
    /// The event as a JSON line for `pacer ctl watch`: the workout's own as `RuntimeEvent`
    /// writes them; the device's as `{"event":"state","state":"ready"}`, `{"event":"cue",
    /// "cue":"ready"}`, `{"event":"offered","plan":…,"workout":2,"of":8,"name":…}`, ….
    public func jsonLine(time: UTCTimestamp? = nil) -> String {
        let fields: [(String, EventJSON.Value)]
        switch self {
        case .workout(let event, let status): return event.jsonLine(status: status, time: time)
        case .state(let state, let detail):
            fields = [("state", .text(state.rawValue))] + (detail.map { [("detail", .text($0))] } ?? [])
        case .cue(let cue): fields = [("cue", .text(cue.rawValue))]
        case .counted(let n): fields = [("cue", .text(n % 5 == 0 ? Cue.countFive.rawValue : Cue.count.rawValue)), ("count", .int(n))]
        case .fault(let text): fields = [("detail", .text(text))]
        case .offered(let plan, let workout, let of, let name, let again):
            fields = [("plan", .text(plan)), ("workout", .int(workout)), ("of", .int(of)), ("name", .text(name)),
                      ("again", .bool(again))]
        case .refused(let reason): fields = [("reason", .text(reason))]
        case .pressed(let pattern, let action): fields = [("press", .text(pattern.rawValue)), ("action", .text(action))]
        case .gps(let status, let detail):
            fields = [("gps", .text(status.rawValue))] + (detail.map { [("detail", .text($0))] } ?? [])
        }
        return EventJSON.line(kind: kind, time: time, fields: fields)
    }
}
