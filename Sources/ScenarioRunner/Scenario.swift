import Coaching
import HAL
import PacerCore
import Simulation

/// A scripted run of the firmware (a folder under `Scenarios/`): which plan, workout and
/// power profile, which recording the GPS replays, what the runner does and when, what goes
/// wrong with the GPS, and what the device is expected to do. Read from `scenario.yaml` by
/// `ScenarioLoader`; times are scenario time, from the device's first start.
public struct Scenario: Hashable, Sendable {
    /// The folder and the scenario file in it.
    public var directory: String
    public var file: String
    public var name: String
    public var summary: String?

    /// The plan file (resolved) and the workout, counted from 0.
    public var planPath: String
    public var workoutIndex: Int
    public var profile: String
    /// The date the plan's deadline is checked against; nil: the recording's first date.
    public var date: CivilDate?

    /// The NMEA recording the GPS replays (resolved), and the `nmea synth` recipe it was made
    /// from. With a recipe and no recording, the runner synthesises it first; with both,
    /// `scenario test` checks the recording still matches its recipe.
    public var recording: String?
    public var recipe: String?

    public var battery: BatterySetup
    /// The device build whose energy model drains the battery (`Hardware/builds`); nil: the
    /// settings' build.
    public var hardware: String?
    public var script: [ScriptedAction]
    public var faults: [GPSFault]
    public var expectations: [Expectation]
    /// `mode: device`: the device as the systemd unit runs it (`pacer device`): power-on,
    /// searching, ready, a start press; the plan is the device's and its progress picks the
    /// workout. Otherwise (`mode: run`) the workout starts at once, as `pacer run` does.
    public var deviceMode = false
    /// When a device-mode scenario ends (the device waits for presses for ever).
    public var until: Duration?
    /// The GPX file of the route the runner follows (`pacer run --route`), resolved.
    public var route: String?
    /// The simulated system clock the receiver's time is checked against (`system_clock:`,
    /// `sim?at=…` or `sim`); nil: none, the recording's dates are taken as they are.
    public var systemClock: DeviceURI?
    /// What the device says (`speech:`, on the recording speaker); nil: it does not speak.
    public var speech: SpeechSettings?
    /// What sounds before a phase ends (`to_go:`, as in a profile), over the profiles' own.
    public var anticipation: PowerProfile.Anticipation?
    /// The button's actions (`button_actions:`); nil: the settings'.
    public var buttonActions: ButtonActions?
    /// The Wi-Fi radio (`radio: sim`, simulated, switched by the profile's
    /// `wifi_off_during_workout`); nil: none, as in every scenario that does not ask, whose
    /// goldens stay as they were.
    public var radio: DeviceURI?
    /// The strap the device hears (`heart_rate:`); nil: none, as in every scenario that does
    /// not ask.
    public var heartRate: HeartRateSetup?
    /// The ghost raced (`ghost:`): a run's file, or a target; nil: none.
    public var ghost: String?
    /// A what-if (`past_run:`): the scenario folder whose stored run this one coaches again
    /// (its activity, with the fixes between its points, replayed as the recording).
    public var pastRun: String?
    /// The athlete's heart-rate figures (`athlete:`), the zones' source.
    public var athlete: HeartRateFigures?

    /// Where a scenario's heart rate comes from.
    public enum HeartRateSetup: Hashable, Sendable {
        /// A recorded stream (`file: hr.csv`), resolved.
        case file(String)
        /// Made from the synthesized run's true speeds (`synth: {…}`).
        case synth(HeartRateModel)
    }

    public init(directory: String, file: String, name: String, summary: String?, planPath: String, workoutIndex: Int,
                profile: String, date: CivilDate?, recording: String?, recipe: String?, battery: BatterySetup,
                script: [ScriptedAction], faults: [GPSFault], expectations: [Expectation]) {
        self.directory = directory
        self.file = file
        self.name = name
        self.summary = summary
        self.planPath = planPath
        self.workoutIndex = workoutIndex
        self.profile = profile
        self.date = date
        self.recording = recording
        self.recipe = recipe
        self.battery = battery
        self.hardware = nil
        self.script = script
        self.faults = faults
        self.expectations = expectations
    }

    /// The simulated battery the device starts with.
    public struct BatterySetup: Hashable, Sendable {
        /// Nil: the build's battery.
        public var capacityMilliampHours: Double?
        public var percent: Double

        public init(capacityMilliampHours: Double? = nil, percent: Double = 100) {
            self.capacityMilliampHours = capacityMilliampHours
            self.percent = percent
        }
    }

    /// The power cuts in the script, in order.
    public var powerCuts: [(at: Duration, restartAfter: Duration)] {
        script.compactMap { action in
            if case .powerCut(let restart) = action.action { (action.at, restart) } else { nil }
        }
    }
}

/// Something the scenario does to the device at a time: what a runner presses, a battery
/// running down, the power going off.
public struct ScriptedAction: Hashable, Sendable {
    public enum Action: Hashable, Sendable {
        case waypoint(String)
        case pause
        case resume
        case stop
        /// The simulated battery is set to this level (percent).
        case battery(Double)
        /// The power goes off without warning; the device boots again after the delay and
        /// starts the same workout (as the boot unit does), recovering the cut activity.
        case powerCut(restartAfter: Duration)
        /// The button held this long: what the press pattern does is the settings' (short:
        /// waypoint, long: pause or resume, very long: stop, by default).
        case press(hold: Duration)
        /// `pacer ctl start` (device mode).
        case start
        /// `pacer ctl say-status`: the device says where the runner stands (when it speaks).
        case sayStatus
        /// `pacer ctl lap`: ends a phase that a lap press ends, or marks a lap.
        case lap
    }

    public var at: Duration
    public var action: Action
    /// The line in the scenario file, for messages.
    public var line: Int?

    public init(at: Duration, action: Action, line: Int? = nil) {
        self.at = at
        self.action = action
        self.line = line
    }
}

/// A window in which the GPS misbehaves.
public struct GPSFault: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// The receiver says nothing (sentences withheld).
        case silent
        /// The receiver talks but has no fix (invalid sentences).
        case invalid
        /// The receiver is unplugged and plugged back in.
        case unplug
    }

    public var kind: Kind
    public var from: Duration
    public var to: Duration
    public var line: Int?

    public init(kind: Kind, from: Duration, to: Duration, line: Int? = nil) {
        self.kind = kind
        self.from = from
        self.to = to
        self.line = line
    }
}

/// What the device must have done, checked directly by `scenario test` besides the goldens.
public struct Expectation: Hashable, Sendable {
    public enum Check: Hashable, Sendable {
        /// Cues of a kind: one near a time, or how many (optionally within a window).
        case cue(Cue, near: Near?, count: CountBound?, window: ClosedRange<Duration>?)
        /// GPS status changes of a kind (`fix-lost`, `fix`, `disconnected`, …), like cues.
        case gps(String, near: Near?, count: CountBound?)
        /// Any other event kind (`paused`, `resumed`, `phase-started`, `power-cut`, `recovered`,
        /// `waypoint-ahead`, …), optionally only those with a name (a waypoint's).
        case event(String, name: String?, near: Near?, count: CountBound?, window: ClosedRange<Duration>? = nil)
        /// An activity's distance in km, within a tolerance.
        case distance(activity: Int?, km: Double, tolerance: Double)
        /// An activity's timer (its active time, pauses left out), and optionally its elapsed
        /// and moving times, each within a tolerance: what a pause did to the runner's figures.
        case times(activity: Int?, timer: Duration, elapsed: Duration?, moving: Duration?, tolerance: Duration)
        /// How an activity ended: completed, stopped, recovered.
        case end(activity: Int?, state: String)
        case activities(Int)
        case waypoints(activity: Int?, count: Int)
        case segments(activity: Int?, count: Int)
        case phases(activity: Int?, count: Int)
    }

    public struct Near: Hashable, Sendable {
        public var at: Duration
        public var tolerance: Duration
    }

    public struct CountBound: Hashable, Sendable {
        public var minimum: Int?
        public var maximum: Int?

        func contains(_ n: Int) -> Bool { (minimum.map { n >= $0 } ?? true) && (maximum.map { n <= $0 } ?? true) }

        var text: String {
            switch (minimum, maximum) {
            case let (lo?, hi?) where lo == hi: "exactly \(lo)"
            case let (lo?, hi?): "\(lo) to \(hi)"
            case let (lo?, nil): "at least \(lo)"
            case let (nil, hi?): "at most \(hi)"
            case (nil, nil): "any number"
            }
        }
    }

    public var check: Check
    public var line: Int?

    public init(_ check: Check, line: Int? = nil) {
        self.check = check
        self.line = line
    }
}
