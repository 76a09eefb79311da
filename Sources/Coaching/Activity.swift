import PacerCore

/// One stored position of a recording.
public struct TrackPoint: Hashable, Sendable {
    public var segment: Int
    public var time: UTCTimestamp
    public var position: GeoPoint
    public var altitude: Double?
    /// Metres per second, as the receiver reported it.
    public var speed: Double?
    /// The runner's timer at the point (pauses excluded), as the coach read it; nil for an
    /// import, or a point recorded before the points carried it.
    public var timer: Duration?
    /// The odometer's distance at the point (metres), the one the coach and the activity's
    /// total count; nil as `timer`.
    public var distance: Double?
    /// The runner's heart rate at the point (beats per minute), from a strap or a file; nil
    /// without one.
    public var heartRate: Int?
    /// The intervals between beats the strap sent since the point before, seconds; empty when
    /// it sent none.
    public var rrIntervals: [Double]
    /// The fixes the receiver delivered since the point before (in this segment) that were not
    /// position updates: counted for distance and smoothed into the pace, not stored as points
    /// (R20 stores the updates). Kept so that the run can be coached again as it was
    /// (`pacer replay`): the odometer and the pace judged on every one of them.
    public var readings: [TrackReading]
    /// Metres the runner was ahead of the ghost at the point (negative: behind), when racing
    /// one.
    public var ghostGap: Double?

    public init(segment: Int, time: UTCTimestamp, position: GeoPoint, altitude: Double?, speed: Double?,
                timer: Duration? = nil, distance: Double? = nil, heartRate: Int? = nil, rrIntervals: [Double] = [],
                readings: [TrackReading] = []) {
        self.readings = readings
        self.segment = segment
        self.time = time
        self.position = position
        self.altitude = altitude
        self.speed = speed
        self.timer = timer
        self.distance = distance
        self.heartRate = heartRate
        self.rrIntervals = rrIntervals
    }
}

/// A named position the runner captured (R20).
public struct Waypoint: Hashable, Sendable {
    public var name: String
    public var time: UTCTimestamp
    public var position: GeoPoint
    public var altitude: Double?
    /// True when there was no fix at the press: the position is the last known one.
    public var atLastKnownPosition: Bool

    public init(name: String, time: UTCTimestamp, position: GeoPoint, altitude: Double?, atLastKnownPosition: Bool) {
        self.name = name
        self.time = time
        self.position = position
        self.altitude = altitude
        self.atLastKnownPosition = atLastKnownPosition
    }
}

/// A lap press that ended no phase: the activity is split into laps there (a free run, a
/// timed phase split by hand).
public struct LapMark: Hashable, Sendable {
    /// The runner's timer at the press (pauses excluded).
    public var timer: Duration
    /// The odometer's metres at the press.
    public var distance: Double

    public init(timer: Duration, distance: Double) {
        self.timer = timer
        self.distance = distance
    }
}

/// One lap of a recorded activity on the runner's timer and odometer: a phase, or the part of
/// one between lap presses that ended no phase.
public struct LapSpan: Hashable, Sendable {
    public var name: String
    /// Milliseconds of active time in the lap.
    public var timerMS: Int64
    /// Metres.
    public var distance: Double
    /// What ended it: the phase's time or distance, a lap press, the runner's stop.
    public var ending: PhaseEnding
    /// The phase's pass through a repeated group, when it was in one.
    public var repetition: Repetition?

    public init(name: String, timerMS: Int64, distance: Double, ending: PhaseEnding, repetition: Repetition? = nil) {
        self.name = name
        self.timerMS = timerMS
        self.distance = distance
        self.ending = ending
        self.repetition = repetition
    }

    /// What a file's lap notes say of it: `fast, repeat 3 of 6`; nil outside a repeat.
    public var notes: String? {
        repetition.map { "\(name), repeat \($0.number) of \($0.count)" }
    }

    /// The laps of an activity's phases: a lap per phase, split where a lap press ended no
    /// phase (`marks`, on the same timer and odometer), each with what ended it.
    public static func spans(phases: [PhaseResult], marks: [LapMark]) -> [LapSpan] {
        func ms(_ d: Duration) -> Int64 { d.nanoseconds / 1_000_000 }
        var out: [LapSpan] = []
        var timer: Int64 = 0, distance = 0.0
        var pending = marks.sorted { $0.timer < $1.timer }[...]
        for phase in phases.sorted(by: { $0.index < $1.index }) {
            let end = timer + ms(phase.duration)
            let endDistance = distance + phase.distance
            // The presses within the phase (not at its very ends) split it.
            while let mark = pending.first, ms(mark.timer) <= timer { pending.removeFirst() }
            while let mark = pending.first, ms(mark.timer) < end {
                pending.removeFirst()
                let at = min(max(mark.distance, distance), endDistance)
                out.append(LapSpan(name: phase.name, timerMS: ms(mark.timer) - timer, distance: at - distance,
                                   ending: .lap, repetition: phase.repetition))
                timer = ms(mark.timer)
                distance = at
            }
            out.append(LapSpan(name: phase.name, timerMS: end - timer, distance: endDistance - distance,
                               ending: phase.ending, repetition: phase.repetition))
            timer = end
            distance = endDistance
        }
        return out
    }
}

/// What ended a phase: its time, its distance, a lap press, or the runner's stop (the last
/// phase run, cut short or open-ended). FIT's lap trigger and TCX's trigger method say the same.
public enum PhaseEnding: String, Hashable, Sendable, CaseIterable {
    case time
    case distance
    case lap
    case stop
}

/// How one phase went (R6).
public struct PhaseResult: Hashable, Sendable {
    public var index: Int
    public var name: String
    /// Active (unpaused) time spent in the phase.
    public var duration: Duration
    /// Time run at a speed within the phase's range (leg by leg, from every fix).
    public var timeInBand: Duration
    public var distance: Double
    public var minimumSpeed: Double
    public var maximumSpeed: Double
    /// What ended it.
    public var ending: PhaseEnding
    /// Its pass through a repeated group ("repeat 3 of 6"), when it was in one.
    public var repetition: Repetition?

    public init(index: Int, name: String, duration: Duration, timeInBand: Duration, distance: Double,
                minimumSpeed: Double, maximumSpeed: Double, ending: PhaseEnding = .time, repetition: Repetition? = nil) {
        self.ending = ending
        self.repetition = repetition
        self.index = index
        self.name = name
        self.duration = duration
        self.timeInBand = timeInBand
        self.distance = distance
        self.minimumSpeed = minimumSpeed
        self.maximumSpeed = maximumSpeed
    }

    /// Metres per second over the phase.
    public var averageSpeed: Double {
        duration > .zero ? distance / duration.inSeconds : 0
    }
}

/// A cue as it sounded, for the activity's record.
public struct CueRecord: Hashable, Sendable {
    /// Active time since the workout started.
    public var elapsed: Duration
    public var cue: String
    public var phase: Int?

    public init(elapsed: Duration, cue: String, phase: Int?) {
        self.elapsed = elapsed
        self.cue = cue
        self.phase = phase
    }
}

/// What an activity is when it begins.
public struct ActivityStart: Hashable, Sendable {
    public var name: String
    /// UTC start, from the GPS when it has a fix at the start, else from the system.
    public var startedAt: UTCTimestamp?
    public var plan: String?
    public var workout: String?
    public var profile: String
    /// The plan's identity (`PlanKey`): progress is kept by it, not by the plan's name.
    public var planKey: PlanKey?
    /// The workout's index in the plan (from 0).
    public var workoutIndex: Int?
    /// The ghost raced (`Ghost.name`), when there was one.
    public var ghost: String?

    public init(name: String, startedAt: UTCTimestamp?, plan: String?, workout: String?, profile: String,
                planKey: PlanKey? = nil, workoutIndex: Int? = nil, ghost: String? = nil) {
        self.ghost = ghost
        self.name = name
        self.startedAt = startedAt
        self.plan = plan
        self.workout = workout
        self.planKey = planKey
        self.workoutIndex = workoutIndex
        self.profile = profile
    }
}

/// The runtime's running account of an activity, from every fix the receiver delivered and
/// the device's clock (not from the points it stored): what the runner is told, and what the
/// activity keeps. Written with every commit, so that an activity recovered after a power cut
/// keeps the figures of its last commit.
public struct ActivityTotals: Hashable, Sendable {
    /// UTC of the start: the device's clock, anchored to GPS time at the first fix; nil
    /// before any fix.
    public var startedAt: UTCTimestamp?
    /// Start to now (or stop), pauses included.
    public var elapsed: Duration
    /// The workout's timer: active time, pauses excluded.
    public var timer: Duration
    /// Time spent moving (`Odometer`'s rule).
    public var moving: Duration
    /// Metres (`Odometer`).
    public var distance: Double
    /// The highest Doppler speed while moving (m/s).
    public var maximumSpeed: Double

    public init(startedAt: UTCTimestamp?, elapsed: Duration, timer: Duration, moving: Duration, distance: Double,
                maximumSpeed: Double) {
        self.startedAt = startedAt
        self.elapsed = elapsed
        self.timer = timer
        self.moving = moving
        self.distance = distance
        self.maximumSpeed = maximumSpeed
    }

    /// UTC of the end (start plus elapsed), when the start is known.
    public var endedAt: UTCTimestamp? {
        startedAt.map { UTCTimestamp(millisecondsSince1970: $0.millisecondsSince1970 + elapsed.nanoseconds / 1_000_000) }
    }
}

/// How an activity ended.
public enum ActivityEnd: String, Hashable, Sendable, CaseIterable {
    /// The workout ran to its last phase.
    case completed
    /// The runner stopped it.
    case stopped
    /// The device found it unfinished after a restart or power cut (R28).
    case recovered
    /// The workout's time ran out without a single fix (no receiver, a recording that is not
    /// one): nothing was measured, so it is not completed and the plan offers it again.
    case noFix = "no-fix"
}

/// The storage port of the runtime: where a recording goes as it happens. The SQLite store
/// implements it; tests may use an in-memory one. Points are buffered by the implementation
/// and made durable at `commit()`; the runtime commits at the profile's flush interval.
public protocol ActivityLog: AnyObject, Sendable {
    /// Starts an activity; returns its id.
    func begin(_ start: ActivityStart) throws -> Int64
    func append(_ point: TrackPoint, to activity: Int64) throws
    /// Adds a waypoint; returns its number in the activity, for `revise`.
    @discardableResult
    func add(_ waypoint: Waypoint, to activity: Int64) throws -> Int
    /// Replaces the waypoint `add` numbered `number` (its position refined once the fix after
    /// the press arrived), committed or not: the next commit stores the new one in its place.
    func revise(_ waypoint: Waypoint, number: Int, of activity: Int64) throws
    func add(_ cue: CueRecord, to activity: Int64) throws
    func add(_ result: PhaseResult, to activity: Int64) throws
    /// A lap press that ended no phase; `number` counts the activity's from 0.
    func add(_ lap: LapMark, number: Int, to activity: Int64) throws
    /// The running totals, made durable with the next commit (the latest replaces earlier ones).
    func update(_ totals: ActivityTotals, for activity: Int64) throws
    /// Makes everything added so far durable.
    func commit() throws
    /// Closes the activity (commits).
    func finish(_ activity: Int64, end: ActivityEnd, endedAt: UTCTimestamp?, activeTime: Duration) throws
    /// What failed commits left waiting (kept for the next), and the points given up at the
    /// implementation's bound.
    var uncommitted: (waiting: Int, dropped: Int) { get }
}

extension ActivityLog {
    /// A log that never keeps anything waiting.
    public var uncommitted: (waiting: Int, dropped: Int) { (0, 0) }
}
