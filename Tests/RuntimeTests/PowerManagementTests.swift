import Coaching
import Foundation
import HAL
import PacerCore
@testable import Runtime
import Simulation
import Storage
import Synchronization
import TestSupport
import Testing

/// What the runtime tells the energy model, logged with the second it said it.
final class PowerLog: PowerMonitor {
    private let log = Mutex<[(Double, String)]>([])
    func wakeup(at instant: Instant) { add(instant, "wakeup") }
    func gps(_ state: GPSPowerState, at instant: Instant) { add(instant, "gps \(state.rawValue)") }
    func buzzer(sounding duration: Duration, at instant: Instant) { add(instant, "buzzer \(duration.inSeconds)") }
    func boardMaySuspend(_ allowed: Bool, at instant: Instant) { add(instant, "suspend \(allowed)") }
    func settle(at instant: Instant) {}
    private func add(_ i: Instant, _ s: String) { log.withLock { $0.append((i.seconds, s)) } }
    var entries: [(Double, String)] { log.withLock { $0 } }
    var gpsStates: [(Double, String)] { entries.filter { $0.1.hasPrefix("gps ") } }
}

final class SettableBattery: BatteryGauge {
    let level = Mutex(100.0)
    var name: String { "settable" }
    func read() -> BatteryReading? { BatteryReading(percent: level.withLock { $0 }, charging: false) }
}

@Suite("Power management")
struct PowerManagementTests {
    final class Events: Sendable {
        private let log = Mutex<[(Double, RuntimeEvent)]>([])
        func add(_ t: Double, _ e: RuntimeEvent) { log.withLock { $0.append((t, e)) } }
        var all: [(Double, RuntimeEvent)] { log.withLock { $0 } }
    }

    struct Device {
        let clock: VirtualClock
        let source: NMEAFileSource
        let store: PacerStore
        let runtime: TestWorkout
        let events: Events
    }

    static func device(_ seconds: Int, profile: PowerProfile, profiles: [String: PowerProfile] = [:],
                       battery: any BatteryGauge = NoBattery(), power: any PowerMonitor,
                       plan: TrainingPlan, speed: (Int) -> Double? = { _ in 3.0 }) throws -> Device {
        let dir = try makeTemporaryDirectory()
        let path = dir + "/run.nmea"
        try recording(seconds: seconds, speed: speed).write(toFile: path, atomically: true, encoding: .utf8)
        let clock = VirtualClock()
        let source = try NMEAFileSource(path: path, clock: clock, hotStart: .seconds(1))
        let store = try PacerStore(directory: dir)
        let events = Events()
        let runtime = TestWorkout(
            parts: .init(clock: clock, gps: source, buzzer: RecordingBuzzer(clock: clock), battery: battery,
                         profile: profile, cues: testCues, log: store.activities, power: power, profiles: profiles,
                         gpsHotStart: .seconds(1)),
            plan: plan, workoutIndex: 0,
            onEvent: { e, _ in events.add(clock.now.seconds, e) },
            onFinish: { _ in clock.stop() })
        return Device(clock: clock, source: source, store: store, runtime: runtime, events: events)
    }

    static func withMode(_ mode: GPSPowerMode, position: Int, alert: Int, window: Int,
                         stepDown: PowerProfile.StepDown? = nil, name: String = "test") -> PowerProfile {
        var p = profile(position: position, alert: alert, window: window, flush: 30)
        p.name = name
        p.gpsMode = mode
        p.stepDown = stepDown
        return p
    }

    @Test func inBackupModeTheReceiverSleepsBetweenPositionsAndWakesAHotStartEarly() throws {
        let log = PowerLog()
        let d = try Self.device(
            400, profile: Self.withMode(.backup, position: 60, alert: 60, window: 120), power: log,
            plan: plan(("steady", 300, 2.5, 3.5)))
        try d.runtime.start()
        d.clock.run()
        let states = log.gpsStates
        let sleeps = states.filter { $0.1 == "gps backup" }.map(\.0)
        let wakes = states.filter { $0.1 == "gps acquiring" }.map(\.0).filter { $0 > 0 }
        // A position a minute; asleep after each, woken 3 s (1 s hot start + 2 s margin) early.
        #expect(sleeps.count == 5, "\(states)")
        for (sleep, wake) in zip(sleeps, wakes) {
            #expect(wake - sleep == 57, "\(states)")
        }
        // A position a minute, and the receiver's latest fix (299 s, woken for the next one)
        // when the workout ends at 300 s.
        let points = try d.store.activities.activity(1).points
        #expect(points.count == 6)
        for (a, b) in zip(points.prefix(5), points.prefix(5).dropFirst()) {
            #expect(b.time.millisecondsSince1970 - a.time.millisecondsSince1970 == 60_000)
        }
        #expect(points[5].time.millisecondsSince1970 - points[0].time.millisecondsSince1970 == 299_000)
        // The receiver was really quiet: most cycles were never sent.
        #expect(d.source.asleep > 250)
        // Its silence and its hot starts are not losses.
        let events = d.events.all.map(\.1)
        #expect(!events.contains(.cue(.gpsLost, phase: 0)))
        #expect(!events.contains { if case .gps(.fixLost, _) = $0 { true } else { false } })
    }

    @Test func inPowerSaveModeTheReceiverIsToldOnceItHasAFix() throws {
        let log = PowerLog()
        let d = try Self.device(
            120, profile: Self.withMode(.powerSave, position: 30, alert: 30, window: 60), power: log,
            plan: plan(("steady", 100, 2.5, 3.5)))
        try d.runtime.start()
        d.clock.run()
        #expect(log.gpsStates.map(\.1) == ["gps acquiring", "gps power-save"])
        #expect(log.entries.contains { $0.1 == "suspend false" })
    }

    @Test func everyCycleTimerAndCueIsCounted() throws {
        let log = PowerLog()
        let d = try Self.device(
            120, profile: Self.withMode(.tracking, position: 10, alert: 10, window: 20), power: log,
            plan: plan(("steady", 100, 2.5, 3.5)))
        try d.runtime.start()
        d.clock.run()
        let wakeups = log.entries.filter { $0.1 == "wakeup" }.count
        // 100 cycles heard (one a second) plus ticks, commits and battery checks.
        #expect(wakeups > 100 && wakeups < 140, "\(wakeups)")
        let buzzer = log.entries.filter { $0.1.hasPrefix("buzzer") }
        let cues = d.events.all.filter { if case .cue = $0.1 { true } else { false } }
        #expect(buzzer.count == cues.count)
        #expect(buzzer.allSatisfy { $0.1 == "buzzer 0.05" })
    }

    @Test func theDeviceStepsDownAtTheBatteryLevelAndTheNewProfileTakesOver() throws {
        let battery = SettableBattery()
        let low = Self.withMode(.backup, position: 60, alert: 60, window: 120, name: "low")
        let high = Self.withMode(.tracking, position: 10, alert: 10, window: 20,
                                 stepDown: .init(percent: 30, to: "low"), name: "high")
        let log = PowerLog()
        // Too slow all along (3 m/s in a 3.5-4 m/s band): speed-up every alert interval.
        let d = try Self.device(
            600, profile: high, profiles: ["low": low], battery: battery, power: log,
            plan: plan(("steady", 500, 3.5, 4.0)))
        d.clock.schedule(at: Instant.zero + .seconds(150)) { battery.level.withLock { $0 = 29 } }
        try d.runtime.start()
        d.clock.run()
        let events = d.events.all
        let change = try #require(events.first { if case .profileChanged = $0.1 { true } else { false } })
        // Noticed at the next minute's battery check.
        #expect(change.0 == 180)
        #expect(change.1 == .profileChanged(from: "high", to: "low", percent: 29))
        let speedUps = events.filter { $0.1 == .cue(.speedUp, phase: 0) }.map(\.0)
        let before = speedUps.filter { $0 < 180 }, after = speedUps.filter { $0 > 180 }
        #expect(zip(before, before.dropFirst()).allSatisfy { $1 - $0 == 10 }, "\(before)")
        #expect(zip(after, after.dropFirst()).allSatisfy { $1 - $0 == 60 }, "\(after)")
        // The receiver rests from then on.
        #expect(log.gpsStates.contains { $0.0 >= 180 && $0.1 == "gps backup" })
        #expect(d.runtime.status.profile == "low")
        // Positions every 10 s before the step down, every 60 s after it.
        let points = try d.store.activities.activity(1).points.map { Int($0.time.millisecondsSince1970 / 1000) }
        let gaps = zip(points, points.dropFirst()).map { $1 - $0 }
        #expect(gaps.prefix(10).allSatisfy { $0 == 10 }, "\(gaps)")
        #expect(gaps.suffix(3).allSatisfy { $0 == 60 }, "\(gaps)")
    }

    @Test func theSimulatedSupplyDrainsTheBatteryByTheLedger() throws {
        let model = HardwareModel(
            name: "m", summary: "",
            board: .init(name: "b", supplyVolts: 5, idleMilliamps: 100, busyMilliamps: 300, busyPerWakeup: .milliseconds(10)),
            gps: .init(name: "g", supplyVolts: 3.3, milliamps: [.acquiring: 30, .tracking: 25, .powerSave: 10, .backup: 0.02, .off: 0],
                       hotStart: .seconds(1), commands: .none),
            buzzer: .init(name: "z", supplyVolts: 5, soundingMilliamps: 30),
            battery: .init(name: "c", capacityMilliampHours: 100, volts: 3.7, converterEfficiency: 0.9))
        let battery = SimulatedBattery(capacityMilliampHours: 100)
        let supply = SimulatedPowerSupply(model: model, battery: battery, start: .zero)
        let d = try Self.device(
            300, profile: Self.withMode(.tracking, position: 10, alert: 10, window: 20), battery: battery,
            power: supply, plan: plan(("steady", 240, 2.5, 3.5)))
        try d.runtime.start()
        d.clock.run()
        let account = supply.account
        #expect(abs((100 - battery.remainingMilliampHours) - account.totalMilliampHours) < 1e-9)
        // Four minutes idle (100 mA x 5 V / (3.7 V x 0.9) = 150.2 mA at the cell) and tracking
        // (25 mA x 3.3 V / 3.33 V = 24.8 mA): 11.67 mAh, plus wakeups and beeps.
        #expect(account.totalMilliampHours > 11.67 && account.totalMilliampHours < 12.2, "\(account.totalMilliampHours)")
        #expect(account.gpsTime[.tracking, default: .zero] > .seconds(230))
    }
}
