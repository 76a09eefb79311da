import Coaching
import HAL
import PacerCore

/// Something the device did or noticed, as it happens: what `pacer run` prints, what a
/// scenario's timeline and `events.jsonl` are made of. Reported on the clock's loop, in
/// order, together with the status right after it.
public enum RuntimeEvent: Hashable, Sendable {
    /// The activity began (its id in storage).
    case started(activity: Int64)
    case phaseStarted(index: Int)
    case phaseFinished(PhaseResult)
    /// The fix after a phase's end measured it to its end: the result that replaces the one
    /// given when it ended.
    case phaseRevised(PhaseResult)
    /// A cue sounded; `phase` is the phase it belongs to, when it belongs to one.
    case cue(Cue, phase: Int?)
    /// The GPS source's status changed (fix, fix lost, disconnected, …).
    case gps(GPSStatus, detail: String?)
    /// A waypoint press and what came of it.
    case waypoint(name: String, outcome: DeviceRuntime.WaypointOutcome)
    case paused
    case resumed
    /// A lap press that ended no phase split the activity: lap `number` (from 1) ended at
    /// `timer` (active time) and `distance` (the odometer's metres).
    case lap(number: Int, timer: Duration, distance: Double)
    /// Auto-pause stopped the timer: the runner had stood still for `standing`, and the timer
    /// stopped at the start of it.
    case autoPaused(standing: Duration)
    /// Auto-pause let the timer run again: the runner moves at `speed` (m/s).
    case autoResumed(speed: Double)
    /// The battery gauge's reading: the first, then each time it enters another 5 % step.
    case battery(percent: Double)
    /// The battery fell to a profile's step-down level: the device switched profile.
    case profileChanged(from: String, to: String, percent: Double)
    /// The profile's calibration at the workout's start is over (`PowerProfile.calibration`):
    /// the receiver follows the profile's own mode from here. `factor`: what the receiver's
    /// speeds are counted at (1: as they are), from `stretches` stretches compared.
    case calibrated(factor: Double, stretches: Int)
    /// The Wi-Fi radio switched off (`off`) for the workout or on again after it; `failure`
    /// says why it could not be (the radio then stays as it was).
    case radio(off: Bool, failure: String?)
    /// The heart-rate strap's source changed status (searching, connected, reading, lost).
    case strap(HeartRateStatus, detail: String?)
    /// The strap's battery, per cent (as it said, when it changed).
    case strapBattery(percent: Int)
    /// The activity ended and was closed in storage.
    case finished(ActivityEnd)
    /// Storage refused a commit (a full disk, a read-only or vanished folder): reported once
    /// until it works again; what was not stored is kept and tried again at each commit.
    case storageFault(String)
    /// Something about the route being followed: joined, off it, back on it, a waypoint
    /// ahead or passed, a turn-around, its end.
    case route(RouteFollower.Event)
    /// Words were said: `after` the event when they wait for what plays (only the
    /// end's summary, said as the clock stops), for `duration` (the speaker's estimate).
    case said(Utterance, duration: Duration, after: Duration)
    /// A cue cut the announcement being said.
    case speechCut(key: String)
    /// Where the runner stands against the ghost, told on the profile's schedule.
    case ghost(GhostGap)
    /// An announcement was not said: `paused`, or `share` (speech would take more of the run
    /// than the settings allow).
    case speechDropped(key: String, reason: String)

    /// A short name: `cue`, `phase-started`, `gps`, …
    public var kind: String {
        switch self {
        case .started: "started"
        case .phaseStarted: "phase-started"
        case .phaseFinished: "phase-finished"
        case .phaseRevised: "phase-revised"
        case .cue: "cue"
        case .gps: "gps"
        case .waypoint: "waypoint"
        case .paused: "paused"
        case .resumed: "resumed"
        case .lap: "lap"
        case .autoPaused: "auto-paused"
        case .autoResumed: "auto-resumed"
        case .battery: "battery"
        case .profileChanged: "profile-changed"
        case .calibrated: "calibrated"
        case .radio: "radio"
        case .strap: "strap"
        case .strapBattery: "strap-battery"
        case .finished: "finished"
        case .storageFault: "storage-fault"
        case .said: "say"
        case .speechCut: "say-cut"
        case .ghost: "ghost"
        case .speechDropped: "say-dropped"
        case .route(let e):
            switch e {
            case .joined: "route-joined"
            case .offRoute: "off-route"
            case .backOnRoute: "on-route"
            case .waypointAhead: "waypoint-ahead"
            case .waypointPassed: "waypoint-passed"
            case .turnAround: "turn-around"
            case .finished: "route-end"
            }
        }
    }
}
