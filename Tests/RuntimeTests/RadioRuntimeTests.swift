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

/// What the runtime tells the energy model of the radio.
final class RadioPowerLog: PowerMonitor {
    private let log = Mutex<[(Double, Bool)]>([])
    func wakeup(at instant: Instant) {}
    func gps(_ state: GPSPowerState, at instant: Instant) {}
    func buzzer(sounding duration: Duration, at instant: Instant) {}
    func boardMaySuspend(_ allowed: Bool, at instant: Instant) {}
    func settle(at instant: Instant) {}
    func radio(blocked: Bool, at instant: Instant) { log.withLock { $0.append((instant.seconds, blocked)) } }
    var entries: [(Double, Bool)] { log.withLock { $0 } }
}

@Suite("Wi-Fi radio during a workout")
struct RadioRuntimeTests {
    struct Device {
        let clock: VirtualClock
        let runtime: TestWorkout
        let events: PowerManagementTests.Events
        let radio: SimulatedRadio
        let power: RadioPowerLog

        /// The radio events, with their second.
        var radioEvents: [(Double, RuntimeEvent)] {
            events.all.filter { if case .radio = $0.1 { true } else { false } }
        }
    }

    private static func device(
        _ seconds: Int, profile: PowerProfile, profiles: [String: PowerProfile] = [:],
        battery: any BatteryGauge = NoBattery(), radio hard: Bool = false, withRadio: Bool = true
    ) throws -> Device {
        let dir = try makeTemporaryDirectory()
        let path = dir + "/run.nmea"
        try recording(seconds: seconds, speed: { _ in 3.0 }).write(toFile: path, atomically: true, encoding: .utf8)
        let clock = VirtualClock()
        let source = try NMEAFileSource(path: path, clock: clock, hotStart: .seconds(1))
        let store = try PacerStore(directory: dir)
        let events = PowerManagementTests.Events()
        let radio = SimulatedRadio(clock: clock, hard: hard)
        let power = RadioPowerLog()
        var parts = DeviceRuntime.Parts(
            clock: clock, gps: source, buzzer: RecordingBuzzer(clock: clock), battery: battery,
            profile: profile, cues: testCues, log: store.activities, power: power, profiles: profiles, gpsHotStart: .seconds(1))
        if withRadio { parts.radio = radio }
        let runtime = TestWorkout(
            parts: parts, plan: plan(("steady", 200, 2.5, 3.5)), workoutIndex: 0,
            onEvent: { e, _ in events.add(clock.now.seconds, e) },
            onFinish: { _ in clock.stop() })
        return Device(clock: clock, runtime: runtime, events: events, radio: radio, power: power)
    }

    private static func profile(_ name: String, wifiOff: Bool, stepDown: PowerProfile.StepDown? = nil) -> PowerProfile {
        var p = PowerManagementTests.withMode(.tracking, position: 10, alert: 10, window: 20, stepDown: stepDown, name: name)
        p.wifiOffDuringWorkout = wifiOff
        return p
    }

    @Test func offAtTheStartOnAtTheEndOfACompletedWorkout() throws {
        let d = try Self.device(260, profile: Self.profile("medium", wifiOff: true))
        try d.runtime.start()
        d.clock.run()
        #expect(d.radio.changes.map(\.blocked) == [true, false])
        #expect(d.radio.changes.map(\.at.seconds) == [0, 200])
        #expect(d.radioEvents.map(\.1) == [.radio(off: true, failure: nil), .radio(off: false, failure: nil)])
        #expect(d.radio.read()?.isBlocked == false)
        #expect(d.power.entries.map(\.1) == [true, false])
        // The radio's "on" comes before the end's event.
        let kinds = d.events.all.map(\.1.kind)
        #expect(kinds.suffix(2) == ["radio", "finished"], "\(kinds)")
    }

    @Test func onAgainWhenTheRunnerStops() throws {
        let d = try Self.device(260, profile: Self.profile("low", wifiOff: true))
        d.clock.schedule(at: Instant.zero + .seconds(90)) { d.runtime.stop() }
        try d.runtime.start()
        d.clock.run()
        #expect(d.radio.changes.map(\.blocked) == [true, false])
        #expect(d.radio.changes.map(\.at.seconds) == [0, 90])
    }

    @Test func aProfileThatDoesNotAskLeavesTheRadioAlone() throws {
        let d = try Self.device(260, profile: Self.profile("high", wifiOff: false))
        try d.runtime.start()
        d.clock.run()
        #expect(d.radio.changes.isEmpty)
        #expect(d.radioEvents.isEmpty)
        #expect(d.power.entries.isEmpty)
    }

    @Test func noRadioNoEvents() throws {
        let d = try Self.device(260, profile: Self.profile("medium", wifiOff: true), withRadio: false)
        try d.runtime.start()
        d.clock.run()
        #expect(d.radioEvents.isEmpty)
        #expect(d.power.entries.isEmpty)
    }

    @Test func aStepDownToAProfileThatAsksSwitchesItOffThen() throws {
        let battery = SettableBattery()
        let medium = Self.profile("medium", wifiOff: true)
        let high = Self.profile("high", wifiOff: false, stepDown: .init(percent: 30, to: "medium"))
        let d = try Self.device(260, profile: high, profiles: ["medium": medium], battery: battery)
        d.clock.schedule(at: Instant.zero + .seconds(100)) { battery.level.withLock { $0 = 29 } }
        try d.runtime.start()
        d.clock.run()
        // Noticed at the next minute's battery check, switched on at the end.
        #expect(d.radio.changes.map(\.at.seconds) == [120, 200])
        #expect(d.radio.changes.map(\.blocked) == [true, false])
        #expect(d.power.entries.map(\.0) == [120, 200])
    }

    @Test func aHardBlockedRadioIsReportedAndTheWorkoutGoesOn() throws {
        let d = try Self.device(260, profile: Self.profile("medium", wifiOff: true), radio: true)
        try d.runtime.start()
        d.clock.run()
        let events = d.radioEvents.map(\.1)
        #expect(events.count == 2)
        #expect(events.first == .radio(off: true, failure: nil))
        guard case .radio(false, let failure?) = events.last else {
            Issue.record("no failed switch-on: \(events)")
            return
        }
        #expect(failure.contains("hard-blocked"))
        #expect(d.events.all.last.map { if case .finished(.completed) = $0.1 { true } else { false } } == true)
    }
}
