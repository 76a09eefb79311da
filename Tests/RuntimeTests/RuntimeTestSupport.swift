import Coaching
import Foundation
import HAL
import PacerCore
import Runtime
import Simulation
import Storage
import Synchronization
import TestSupport

/// Writes an NMEA recording: one GGA + RMC cycle per second from 2026-05-02T07:00:00Z, the
/// runner heading north at `speed(s)` m/s; `nil` speed means the receiver has no fix that
/// second (RMC `V`, GGA quality 0).
func recording(seconds: Int, speed: (Int) -> Double?) -> String {
    var lines = ["# test recording"]
    var north = 0.0
    for s in 0..<seconds {
        let tod = 7 * 3600 + s
        let hhmmss = nmeaTime(secondOfDay: tod)
        guard let v = speed(s) else {
            lines.append(nmea("GPGGA,\(hhmmss),,,,,0,00,99.9,,M,,M,,"))
            lines.append(nmea("GPRMC,\(hhmmss),V,,,,,,,020526,,,N"))
            continue
        }
        north += v
        let lat = 52.0 + north / 111_195.0
        let deg = Int(lat)
        let minutes = (lat - Double(deg)) * 60
        let latText = String(format: "%02d%09.6f", deg, minutes)
        let knots = v / (1852.0 / 3600.0)
        lines.append(nmea("GPGGA,\(hhmmss),\(latText),N,00418.000000,E,1,08,0.9,5.0,M,46.0,M,,"))
        lines.append(nmea(String(format: "GPRMC,%@,A,%@,N,00418.000000,E,%.3f,0.0,020526,,,A", hhmmss, latText, knots)))
    }
    return lines.joined(separator: "\r\n") + "\r\n"
}

func profile(position: Int = 1, alert: Int = 10, window: Int = 5, flush: Int = 5) -> PowerProfile {
    PowerProfile(
        name: "test", summary: "test", positionInterval: .seconds(position), alertInterval: .seconds(alert),
        cueStyle: .beeps, smoothingWindow: .seconds(window), trackFlushInterval: .seconds(flush))
}

let testCues = CueBook(sounds: Dictionary(uniqueKeysWithValues: Cue.allCases.map {
    ($0, [CueStyle.beeps: [Tone(frequency: 2000, duration: .milliseconds(50))]])
}))

final class NoBattery: BatteryGauge {
    let level: Double?
    init(level: Double? = nil) { self.level = level }
    var name: String { "test" }
    func read() -> BatteryReading? { level.map { BatteryReading(percent: $0, charging: false) } }
}

/// A runtime wired to a replayed recording, the virtual clock, a recording buzzer and a real
/// SQLite store in a temporary folder.
struct Rig {
    let clock = VirtualClock()
    let buzzer: RecordingBuzzer
    let store: PacerStore
    let runtime: TestWorkout
    let finished = Finished()
    /// Every event the runtime reported, with its second.
    let events = EventLog()
    /// What was said, when the rig speaks (`speech`).
    let speaker: RecordingSpeaker

    init(_ text: String, plan: TrainingPlan, profile: PowerProfile = profile(), battery: Double? = nil,
         positioning: Bool = true, power: (any PowerMonitor)? = nil,
         systemTime: ((VirtualClock) -> any SystemTime)? = nil, speech: SpeechSettings? = nil,
         phrases: PhraseBook? = nil) throws {
        let dir = try makeTemporaryDirectory()
        let path = dir + "/run.nmea"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        buzzer = RecordingBuzzer(clock: clock)
        store = try PacerStore(directory: dir)
        let gps: (any GPSSource)? = positioning ? try NMEAFileSource(path: path, clock: clock) : nil
        let finished = self.finished
        let clock = self.clock
        let events = self.events
        speaker = RecordingSpeaker(clock: clock)
        var parts = DeviceRuntime.Parts(
            clock: clock, gps: gps, buzzer: buzzer, battery: NoBattery(level: battery), profile: profile,
            cues: testCues, log: store.activities, power: power, receiverTime: ReceiverTime(system: systemTime?(clock), clock: clock))
        if let speech {
            parts.speaker = speaker
            parts.speech = speech
            parts.phrases = phrases
        }
        runtime = TestWorkout(
            parts: parts,
            plan: plan, workoutIndex: 0,
            onEvent: { event, _ in events.add(clock.now.seconds, event) },
            onFinish: { end in
                finished.set(end)
                clock.stop()
            })
    }

    func run(until limit: Int? = nil) throws {
        try runtime.start()
        clock.runUntilIdle(limit: limit.map { Instant.zero + .seconds($0) })
    }

    /// Cues with the second they sounded.
    var cues: [(Int, Cue)] { buzzer.plays.map { (Int($0.instant.seconds.rounded()), $0.cue) } }
    func cues(_ cue: Cue) -> [Int] { cues.filter { $0.1 == cue }.map(\.0) }
}

func plan(_ phases: (String, Int, Double, Double)...) -> TrainingPlan {
    TrainingPlan(name: "test", workouts: [Workout(name: "w", phases: phases.map {
        Phase(name: $0.0, duration: .seconds($0.1), minimumSpeed: $0.2, maximumSpeed: $0.3)
    })])
}

final class EventLog: Sendable {
    private let log = Mutex<[(Double, RuntimeEvent)]>([])
    func add(_ t: Double, _ e: RuntimeEvent) { log.withLock { $0.append((t, e)) } }
    var all: [(Double, RuntimeEvent)] { log.withLock { $0 } }
    /// The seconds at which events of `kind` were reported.
    func times(_ kind: String) -> [Int] { all.filter { $0.1.kind == kind }.map { Int($0.0.rounded()) } }
}

final class Finished: Sendable {
    private let end = Mutex<ActivityEnd?>(nil)
    func set(_ value: ActivityEnd) { end.withLock { $0 = value } }
    var value: ActivityEnd? { end.withLock { $0 } }
}

/// A workout run as `pacer run` runs one: the `Firmware` starting it at power-on over
/// `parts`, opening the receiver and handing the workout's runtime each of its events.
/// `onEvent` hears the runtime's events with the status after each; `onFinish` the end.
final class TestWorkout: Sendable {
    let firmware: Firmware

    init(parts: DeviceRuntime.Parts, plan: TrainingPlan, workoutIndex: Int = 0, route: FollowedRoute? = nil,
         onEvent: @escaping @Sendable (RuntimeEvent, RuntimeStatus) -> Void = { _, _ in },
         onFinish: @escaping @Sendable (ActivityEnd) -> Void = { _ in }) {
        firmware = Firmware(
            parts: parts, agenda: NoAgenda(), settings: .init(route: route),
            start: .workout(plan: plan, index: workoutIndex, key: nil),
            today: { _ in CivilDate(year: 2026, month: 5, day: 2)! },
            onEvent: { event in
                guard case .workout(let event, let status) = event else { return }
                onEvent(event, status)
                if case .finished(let end) = event { onFinish(end) }
            })
    }

    /// The workout's runtime, once started (the last one, once it ended).
    var runtime: DeviceRuntime {
        guard let runtime = firmware.runtime ?? firmware.lastWorkout else { preconditionFailure("not started") }
        return runtime
    }

    func start() throws { try firmware.powerOn() }
    var status: RuntimeStatus { runtime.status }
    func pause() { runtime.pause() }
    func resume() { runtime.resume() }
    func stop() { runtime.stop() }
    func waypoint(_ name: String, reply: @escaping @Sendable (DeviceRuntime.WaypointOutcome) -> Void = { _ in }) {
        runtime.waypoint(name, reply: reply)
    }
    func handle(_ command: ControlCommand, reply: @escaping @Sendable (String) -> Void = { _ in }) {
        runtime.handle(command, reply: reply)
    }
}

/// No plan of its own: a workout at once brings its plan.
struct NoAgenda: WorkoutAgenda {
    func today(on date: CivilDate) -> TodaysWorkout { .unavailable("no plan") }
}
