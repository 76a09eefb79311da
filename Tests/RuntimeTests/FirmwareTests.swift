import Coaching
import HAL
import PacerCore
import Runtime
import Simulation
import Storage
import Synchronization
import TestSupport
import Testing

/// The plan's progress from the store, as the configurator's `PlanAgenda` keeps it (that one
/// reads the plan file; this one is given the plan).
struct StoreAgenda: WorkoutAgenda {
    let store: PacerStore
    let plan: TrainingPlan
    let key = PlanKey(contents: Array("test plan".utf8))

    /// Another plan made the device's since power-on (`pacer plan activate`, the page).
    let activated = Locked<TrainingPlan?>(nil)

    func today(on date: CivilDate) -> TodaysWorkout {
        let plan = activated.value ?? plan
        let done = (try? store.plans.workoutsDone(plan: key)) ?? []
        switch plan.nextWorkout(done: done, on: date) {
        case .workout(let i): return .workout(plan: plan, key: key, index: i, again: false)
        case .allDone: return .workout(plan: plan, key: key, index: 0, again: true)
        case .expired(let d): return .expired(plan: plan.name, deadline: d)
        }
    }

    /// The route chosen in the store (`pacer routes follow`, the companion page), as the
    /// configurator's `DeviceStorage` reads it.
    func chosenRoute() throws -> FollowedRoute? { try store.routes.chosenFollowedRoute() }

    /// What the runner chose since power-on (`device.yaml`), as a test sets it.
    let chosen = Locked<WorkoutSettings?>(nil)
    func workoutSettings() -> WorkoutSettings? { chosen.value }
}

/// The firmware of `pacer device` on a replayed recording, the virtual clock, a recording
/// buzzer and a real SQLite store.
final class DeviceRig: Sendable {
    let clock = VirtualClock()
    let buzzer: RecordingBuzzer
    let store: PacerStore
    let controller: Firmware
    let events = Locked<[DeviceEvent]>([])
    let off = Locked(false)
    let agenda: StoreAgenda

    init(_ text: String?, plan: TrainingPlan, gps: (any GPSSource)? = nil,
         systemTime: ((VirtualClock) -> any SystemTime)? = nil, start: Firmware.Start = .waiting) throws {
        let dir = try makeTemporaryDirectory()
        buzzer = RecordingBuzzer(clock: clock)
        store = try PacerStore(directory: dir)
        var source = gps
        if let text {
            try text.write(toFile: dir + "/run.nmea", atomically: true, encoding: .utf8)
            source = try NMEAFileSource(path: dir + "/run.nmea", clock: clock)
        }
        // Distinct lengths for the two counting beeps, so that a count can be read back.
        var sounds = Dictionary(uniqueKeysWithValues: Cue.allCases.map {
            ($0, [CueStyle.beeps: [Tone(frequency: 2000, duration: .milliseconds(50))]])
        })
        sounds[.countFive] = [.beeps: [Tone(frequency: 2000, duration: .milliseconds(300))]]
        let events = self.events
        let off = self.off
        let clock = self.clock
        let agenda = StoreAgenda(store: store, plan: plan)
        self.agenda = agenda
        self.controller = Firmware(
            parts: .init(clock: clock, gps: source, buzzer: buzzer, battery: NoBattery(), profile: profile(alert: 30),
                         cues: CueBook(sounds: sounds), log: store.activities,
                         receiverTime: ReceiverTime(system: systemTime?(clock), clock: clock)),
            agenda: agenda, start: start,
            today: { $0?.date ?? CivilDate(year: 2026, month: 5, day: 2)! },
            onEvent: { e in events.update { $0.append(e) } },
            onOff: {
                off.update { $0 = true }
                clock.stop()
            })
    }

    private let powered = Locked(false)

    /// Presses at these seconds (patterns straight to the controller), then runs to `until`
    /// (powering on the first time).
    func run(until: Int, presses: [(Int, PressPattern)] = [], commands: [(Int, ControlCommand)] = []) {
        for (at, pattern) in presses {
            clock.schedule(at: Instant.zero + .seconds(at)) { [controller] in controller.handle(.press(pattern)) }
        }
        for (at, command) in commands {
            clock.schedule(at: Instant.zero + .seconds(at)) { [controller] in controller.handle(command) { _ in } }
        }
        if !powered.value {
            powered.update { $0 = true }
            try? controller.powerOn()
        }
        clock.runUntilIdle(limit: Instant.zero + .seconds(until))
    }

    func cues(_ cue: Cue) -> [Int] {
        buzzer.plays.filter { $0.cue == cue }.map { Int($0.instant.seconds.rounded()) }
    }

    /// The numbers counted, in order: a 300 ms beep is five, a 50 ms one is one.
    var counts: [Int] {
        buzzer.plays.filter { $0.cue == .count || $0.cue == .countFive }.map { play in
            play.tones.filter { !$0.isRest }.reduce(0) { $0 + ($1.duration > .milliseconds(100) ? 5 : 1) }
        }
    }
}

func twoWorkouts(deadline: CivilDate? = nil) -> TrainingPlan {
    TrainingPlan(name: "two", deadline: deadline, workouts: [
        Workout(name: "A", phases: [Phase(name: "a", duration: .seconds(60), minimumSpeed: 2.5, maximumSpeed: 3.5)]),
        Workout(name: "B", phases: [Phase(name: "b", duration: .seconds(90), minimumSpeed: 2.5, maximumSpeed: 3.5)]),
    ])
}

@Suite("Device mode")
struct FirmwareTests {
    /// `pacer run`: the workout starts at power-on, with no checks and no sounds of the
    /// device's own, and the device is off at its end; a key's waypoint is named by the
    /// device, and a press does what the button's actions say while running.
    @Test func aWorkoutAtOnceStartsAtPowerOnAndIsOffAtItsEnd() throws {
        let rig = try DeviceRig(recording(seconds: 200) { _ in 3.0 }, plan: twoWorkouts(),
                                start: .workout(plan: twoWorkouts(), index: 1, key: nil))
        rig.run(until: 300, presses: [(20, .short), (40, .double)], commands: [(30, .markWaypoint), (50, .markWaypoint)])
        #expect(rig.off.value)
        #expect(rig.controller.phase == .off)
        #expect(rig.cues(.powerOn).isEmpty && rig.cues(.ready).isEmpty && rig.cues(.searching).isEmpty)
        #expect(rig.cues(.started) == [0])
        #expect(rig.cues(.workoutComplete) == [90], "workout B, 90 s")
        let device = rig.events.value.filter { if case .workout = $0 { false } else { true } }
        #expect(device == [.pressed(.short, action: "waypoint Waypoint 1"), .pressed(.double, action: "none")])
        let workout = try #require(rig.controller.lastWorkout)
        let detail = try rig.store.activities.activity(#require(workout.status.activityID))
        #expect(detail.summary.workout == "B")
        #expect(detail.waypoints.map(\.name) == ["Waypoint 1", "Waypoint 2", "Waypoint 3"])
    }

    /// Power-on, 20 s without a fix, ready; nothing is recorded until the press at 100 s,
    /// where the timer starts; at the workout's end the next one is offered.
    /// A route chosen in the store before a workout starts is the one it follows (the
    /// runtime's status names it); cleared, the next workout follows none.
    @Test func aWorkoutStartedAfterARouteIsChosenFollowsIt() throws {
        let rig = try DeviceRig(recording(seconds: 400) { _ in 3.0 }, plan: twoWorkouts())
        let dir = try makeTemporaryDirectory()
        var gpx = "<?xml version=\"1.0\"?><gpx version=\"1.1\" creator=\"t\" xmlns=\"http://www.topografix.com/GPX/1/1\">"
            + "<rte><name>North line</name>"
        for i in 0..<40 { gpx += "<rtept lat=\"\(52.0 + Double(i) * 25 / 111_195)\" lon=\"4.3\"/>" }
        gpx += "</rte></gpx>"
        try gpx.write(toFile: dir + "/north.gpx", atomically: true, encoding: .utf8)
        let route = try rig.store.gpx.importGPX(file: dir + "/north.gpx", as: .route).id
        try rig.store.routes.chooseRoute(route, at: UTCTimestamp(millisecondsSince1970: 0))
        rig.run(until: 40, presses: [(30, .short)])
        #expect(rig.controller.phase == .running)
        #expect(rig.controller.runtime?.status.route?.route == "North line")
        rig.run(until: 120)
        #expect(rig.controller.phase != .running, "the 60 s workout ended")
        try rig.store.routes.chooseRoute(nil, at: UTCTimestamp(millisecondsSince1970: 0))
        rig.run(until: 140, presses: [(125, .short)])
        #expect(rig.controller.phase == .running)
        #expect(rig.controller.runtime != nil && rig.controller.runtime?.status.route == nil, "no route chosen: none followed")
    }

    /// A profile and announcements chosen since power-on (the companion page, `pacer
    /// settings set`) hold from the next workout: the runtime runs with them.
    @Test func aWorkoutStartsWithTheProfileChosenSincePowerOn() throws {
        let rig = try DeviceRig(recording(seconds: 400) { _ in 3.0 }, plan: twoWorkouts())
        rig.run(until: 40, presses: [(30, .short)])
        #expect(rig.controller.runtime?.status.profile == profile(alert: 30).name)
        rig.run(until: 120)
        var low = profile(position: 5, alert: 60)
        low.name = "low"
        var speech = SpeechSettings()
        speech.splitEvery = 500
        rig.agenda.chosen.update { $0 = WorkoutSettings(profile: low, profiles: ["low": low], speech: speech) }
        rig.run(until: 140, presses: [(125, .short)])
        #expect(rig.controller.phase == .running)
        #expect(rig.controller.runtime?.status.profile == "low")
        #expect(rig.controller.runtime?.parts.speech.splitEvery == 500)
    }

    @Test func waitsForAPressAndOffersTheNextWorkoutAfterIt() throws {
        let rig = try DeviceRig(recording(seconds: 400) { s in s < 20 ? nil : 3.0 }, plan: twoWorkouts())
        rig.run(until: 50)
        #expect(rig.cues(.powerOn) == [3])
        #expect(rig.cues(.ready) == [20])
        #expect(rig.counts == [1])
        #expect(try rig.store.activities.activities().isEmpty, "nothing recorded before the press")
        #expect(rig.controller.phase == .ready)
        rig.run(until: 300, presses: [(100, .short)])
        #expect(rig.cues(.started) == [100])
        #expect(rig.cues(.workoutComplete) == [160])
        #expect(rig.cues(.ready) == [20, 160])
        #expect(rig.counts == [1, 2], "workout 2 offered after workout 1 completed")
        let activities = try rig.store.activities.activities()
        #expect(activities.count == 1)
        let detail = try rig.store.activities.activity(activities[0].id)
        #expect(detail.summary.state == .completed)
        // The track starts at the press, not at power-on: at the receiver's fix when the press
        // came (07:01:39; the press at 100 s is taken before that second's cycle).
        #expect(detail.points.first?.time == UTCTimestamp(millisecondsSince1970: 1_777_705_299_000))
        // 60 s at 3 m/s from the press: the distance is the runner's, to a metre.
        #expect(abs(detail.summary.distance - 180) < 1, "\(detail.summary.distance)")
    }

    /// A start pressed during power-on waits for the checks, then starts: the workout is the
    /// one the device runs, answers for and stores, not one it forgets (a device that says
    /// ready and a stop that finds "no workout running").
    /// A plan activated while the device waits (the page, `pacer plan activate`) is offered
    /// at the next status asked for (the page asks when it activates one), not only after the
    /// next workout: the page showed the old plan's workout until a press (issue 39, item 18).
    @Test func aPlanActivatedWhileWaitingIsOfferedAtTheNextStatus() throws {
        let rig = try DeviceRig(recording(seconds: 400) { s in s < 20 ? nil : 3.0 }, plan: twoWorkouts())
        rig.run(until: 30)
        #expect(rig.controller.offer?.plan == "two")
        rig.agenda.activated.update { $0 = TrainingPlan(name: "other", workouts: [
            Workout(name: "Long", phases: [Phase(name: "l", duration: .seconds(60), minimumSpeed: 2.5, maximumSpeed: 3.5)]),
        ]) }
        rig.run(until: 40)
        #expect(rig.controller.offer?.plan == "two", "nothing asked yet")
        rig.run(until: 60, commands: [(50, .status)])
        #expect(rig.controller.offer?.plan == "other" && rig.controller.offer?.workout == "1/1 Long",
                "\(String(describing: rig.controller.offer))")
        #expect(rig.events.value.contains { if case .offered(plan: "other", workout: 1, of: 1, name: "Long", again: false) = $0 { true } else { false } })
        // And the press starts the new plan's workout.
        rig.run(until: 200, presses: [(70, .short)])
        #expect(rig.cues(.started) == [70])
        let activities = try rig.store.activities.activities()
        #expect(activities.first?.workout == "Long")
    }

    @Test(arguments: [true, false])
    func aStartDuringPowerOnStartsAfterTheChecks(byButton: Bool) throws {
        let rig = try DeviceRig(recording(seconds: 400) { _ in 3.0 }, plan: twoWorkouts())
        rig.run(until: 100, presses: byButton ? [(1, .short)] : [], commands: (byButton ? [] : [(1, .start)]) + [(20, .stop)])
        #expect(rig.cues(.powerOn) == [3])
        #expect(rig.cues(.started) == [3], "started once the checks were done")
        #expect(rig.cues(.stopped) == [20], "the running workout heard the stop")
        #expect(rig.controller.phase == .ready)
        let activities = try rig.store.activities.activities()
        #expect(activities.count == 1)
        let detail = try rig.store.activities.activity(try #require(activities.first).id)
        #expect(detail.summary.state == .stopped)
        #expect(abs(detail.summary.distance - 51) < 1, "17 s at 3 m/s: \(detail.summary.distance)")
    }

    @Test func searchingTicksUntilAFixAndPressesStepThroughTheWorkouts() throws {
        let plan = TrainingPlan(name: "twelve", workouts: (1...12).map { i in
            Workout(name: "W\(i)", phases: [Phase(name: "p", duration: .seconds(60), minimumSpeed: 2, maximumSpeed: 4)])
        })
        let rig = try DeviceRig(recording(seconds: 200) { s in s < 70 ? nil : 3.0 }, plan: plan)
        rig.run(until: 150, presses: [(80, .double), (90, .long), (100, .long), (110, .veryLong)])
        #expect(rig.cues(.searching) == [23, 43, 63])
        #expect(rig.cues(.ready) == [70, 110])
        // 1 at ready; 2 (double); 1 (long: back); 12 (long again: around to the last); 12 again.
        #expect(rig.counts == [1, 2, 1, 12, 12])
        #expect(try rig.store.activities.activities().isEmpty)
    }

    @Test func anExpiredPlanIsRefusedByEarAndRecordsNothing() throws {
        let rig = try DeviceRig(recording(seconds: 100) { _ in 3.0 }, plan: twoWorkouts(deadline: CivilDate(year: 2026, month: 5, day: 1)))
        rig.run(until: 60, presses: [(30, .short)], commands: [(40, .start)])
        #expect(rig.cues(.planExpired) == [3, 3, 30, 40])  // boot, ready, the press, ctl start
        #expect(rig.cues(.started).isEmpty)
        #expect(try rig.store.activities.activities().isEmpty)
        let refusals = rig.events.value.filter { if case .refused = $0 { true } else { false } }
        #expect(refusals.count == 2)
    }

    /// A receiver 1024 weeks early from its first fix (2006-09-16 for
    /// 2026-05-02), the system clock set: the deadline (2026-05-01) is judged by the corrected
    /// date, so the plan is expired, by ear, at the press and at `ctl start`, as above.
    @Test func aReceiver1024WeeksEarlyDoesNotStartAnExpiredPlan() throws {
        let early = GPSTimeJumpTests.jumping(seconds: 100) { _ in -1024 * 604_800 }
        let clockSet = UTCTimestamp(date: CivilDate(year: 2026, month: 5, day: 2)!, millisecondOfDay: 7 * 3_600_000 - 60_000)
        let rig = try DeviceRig(early, plan: twoWorkouts(deadline: CivilDate(year: 2026, month: 5, day: 1)),
                                systemTime: { SimulatedSystemTime(clock: $0, start: clockSet) })
        rig.run(until: 60, presses: [(30, .short)], commands: [(40, .start)])
        #expect(rig.cues(.planExpired) == [3, 3, 30, 40])
        #expect(rig.cues(.started).isEmpty)
        #expect(try rig.store.activities.activities().isEmpty)
        #expect(rig.controller.statusLine.hasPrefix("ready  plan 'two' expired on 2026-05-01"), "\(rig.controller.statusLine)")
    }

    @Test func aMissingGPSIsAFaultAtPowerOn() throws {
        let rig = try DeviceRig(nil, plan: twoWorkouts(), gps: MissingSource())
        rig.run(until: 30)
        #expect(rig.cues(.fault) == [3])
        #expect(rig.cues(.powerOn).isEmpty)
        let faults = rig.events.value.compactMap { if case .fault(let f) = $0 { f } else { nil } }
        #expect(faults == ["GPS missing: missing: no such device"])
        #expect(rig.cues(.searching) == [23])
    }

    /// SIGTERM (`systemctl stop`) while running: the workout is stopped and stored, then the
    /// device switches off.
    @Test func switchingOffStopsAndStoresTheWorkout() throws {
        let rig = try DeviceRig(recording(seconds: 200) { _ in 3.0 }, plan: twoWorkouts())
        rig.run(until: 200, presses: [(10, .short)], commands: [(40, .waypoint("Gate")), (50, .shutdown)])
        #expect(rig.off.value)
        #expect(rig.controller.phase == .off)
        #expect(rig.cues(.stopped) == [50])
        let detail = try rig.store.activities.activity(try #require(rig.store.activities.activities().first).id)
        #expect(detail.summary.state == .stopped)
        #expect(detail.waypoints.map(\.name) == ["Gate"])
        #expect(abs(detail.summary.distance - 120) < 1, "\(detail.summary.distance)")
    }
}

/// A receiver that is not there: the device is told so with a reason.
final class MissingSource: GPSSource {
    var name: String { "missing" }
    func start(_ sink: GPSEventSink) { sink.closed("no such device") }
    func stop() {}
}

/// A value shared with the device's closures.
final class Locked<T: Sendable>: Sendable {
    private let mutex: Mutex<T>
    init(_ value: T) { mutex = Mutex(value) }
    var value: T { mutex.withLock { $0 } }
    func update(_ change: (inout T) -> Void) { mutex.withLock { change(&$0) } }
}
