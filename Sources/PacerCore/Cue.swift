/// The cues the device sounds. Their names are the ones people type (`pacer beep speed-up`)
/// and write in data files.
public enum Cue: String, CaseIterable, Hashable, Sendable {
    case speedUp = "speed-up"
    case slowDown = "slow-down"
    case onPace = "on-pace"
    case phaseChange = "phase-change"
    case workoutComplete = "workout-complete"
    case gpsLost = "gps-lost"
    case gpsBack = "gps-back"
    case waypointSaved = "waypoint-saved"
    case lowBattery = "low-battery"
    // The workout's own moments: what the runner did, confirmed by ear.
    case started = "started"
    case paused = "paused"
    case resumed = "resumed"
    case stopped = "stopped"
    case split = "split"
    case lap = "lap"
    case storageFault = "storage-fault"
    // The device between workouts (`pacer device`): what a runner with no screen hears.
    case powerOn = "power-on"
    case fault = "fault"
    case searching = "searching"
    case ready = "ready"
    case planExpired = "plan-expired"
    case count = "count"
    case countFive = "count-five"
    // Following a route (R21, R23).
    case offRoute = "off-route"
    case onRoute = "on-route"
    case waypointAhead = "waypoint-ahead"
    case turnAround = "turn-around"
    case routeEnd = "route-end"

    /// What the cue means to the runner.
    public var meaning: String {
        switch self {
        case .speedUp: "slower than the phase's range: speed up"
        case .slowDown: "faster than the phase's range: slow down"
        case .onPace: "within the phase's range"
        case .phaseChange: "the next phase begins"
        case .workoutComplete: "the last phase is over"
        case .gpsLost: "the GPS has no position"
        case .gpsBack: "the GPS has a position again"
        case .waypointSaved: "a waypoint was stored"
        case .lowBattery: "the battery is low"
        case .started: "the workout's timer started"
        case .paused: "the timer is paused (a press, or standing still with auto-pause)"
        case .resumed: "the timer runs again"
        case .stopped: "the workout was stopped before its end and stored"
        case .split: "another kilometre done (the profile's split cue)"
        case .lap: "a lap press marked a lap (the phase goes on; a press that ends a phase sounds the phase change)"
        case .storageFault: "the track cannot be stored (disk full, read-only or gone): coaching goes on, nothing is kept from now"
        case .powerOn: "the device is on and its parts answered"
        case .fault: "a part is missing or failed, or there is no plan (the journal says which)"
        case .searching: "no position yet: looking for satellites (repeats quietly)"
        case .ready: "a position: press to start today's workout"
        case .planExpired: "the plan's deadline has passed: no workout to start"
        case .count: "one, counting the workout's number"
        case .countFive: "five, counting the workout's number"
        case .offRoute: "off the route being followed (beyond the profile's off-route distance)"
        case .onRoute: "back on the route"
        case .waypointAhead: "a waypoint of the route lies ahead (the profile's distance; the status says how far and how high)"
        case .turnAround: "the route turns back here"
        case .routeEnd: "the end of the route"
        }
    }
}
