import Coaching
import HAL
import PacerCore
import Runtime
import Storage
import Testing

/// A test profile with auto-pause (slower than 2 km/h for 5 s; on again above 4 km/h) and an
/// optional split distance.
func autoPauseProfile(position: Int = 1, split: Double? = nil) -> PowerProfile {
    var p = profile(position: position, alert: 60, window: 3)
    p.autoPause = .init(below: 0.55, after: .seconds(5), resumeAbove: 1.1)
    p.splitDistance = split
    return p
}

@Suite("Device runtime: auto-pause and splits")
struct AutoPauseRuntimeTests {
    /// Standing 40 to 70 s in a 100 s workout: paused at 45 s with the timer stopped at 40 s,
    /// resumed by the first moving fix; the paused and resumed cues sound (and are charged to
    /// the energy model), the track gets a new segment, and the workout ends 30 s late. Every
    /// fix is a position update here, so the seconds before the pause would be judged.
    @Test func aStandingRunnerIsPausedFromTheStopAndResumedByMoving() throws {
        let power = PowerLog()
        let rig = try Rig(recording(seconds: 200) { s in (40..<70).contains(s) ? 0.0 : 3.0 },
                          plan: plan(("run", 100, 2.5, 3.5)), profile: autoPauseProfile(), power: power)
        try rig.run()
        #expect(rig.events.times("auto-paused") == [45])
        #expect(rig.events.all.contains { $0.1 == .autoPaused(standing: .seconds(5)) })
        #expect(rig.events.times("auto-resumed") == [70])
        #expect(rig.events.times("paused").isEmpty && rig.events.times("resumed").isEmpty)
        #expect(rig.cues(.paused) == [45])
        #expect(rig.cues(.resumed) == [70])
        #expect(rig.cues(.workoutComplete) == [130], "the 30 s from the stop to the resume are not run time")
        // Standing while auto-pause makes sure, the runner is not told to speed up.
        #expect(rig.cues(.speedUp).isEmpty)
        let detail = try rig.store.activities.activity(#require(rig.runtime.status.activityID))
        #expect(detail.summary.activeTime == .seconds(100))
        #expect(Set(detail.points.map(\.segment)) == [0, 1])
        // 3 m a second for 39 legs before the stop and 59 after the first moving fix.
        #expect(abs(detail.statistics.distance - 294) < 1, "\(detail.statistics.distance)")
        let buzzer = power.entries.filter { $0.1.hasPrefix("buzzer") }
        #expect(buzzer.count == rig.cues.count)
        #expect(buzzer.contains { $0.0 == 45 } && buzzer.contains { $0.0 == 70 })
    }

    /// Paused by hand while running on: moving does not resume it, only the press does.
    @Test func aPauseByHandIsNotResumedByMoving() throws {
        let rig = try Rig(recording(seconds: 200) { _ in 3.0 }, plan: plan(("run", 100, 2.5, 3.5)),
                          profile: autoPauseProfile())
        let runtime = rig.runtime
        rig.clock.schedule(at: Instant.zero + .seconds(30)) { runtime.pause() }
        rig.clock.schedule(at: Instant.zero + .seconds(60)) { runtime.resume() }
        try rig.run()
        #expect(rig.events.times("paused") == [30] && rig.events.times("resumed") == [60])
        #expect(rig.events.times("auto-paused").isEmpty && rig.events.times("auto-resumed").isEmpty)
        #expect(rig.cues(.workoutComplete) == [130])
    }

    /// A press while auto-paused makes the pause the runner's: moving on at 60 s does not end
    /// it; their press at 80 s does. The timer stood from the stop at 40 s.
    @Test func aPressDuringAnAutoPauseMakesItTheRunners() throws {
        let rig = try Rig(recording(seconds: 250) { s in (40..<60).contains(s) ? 0.0 : 3.0 },
                          plan: plan(("run", 100, 2.5, 3.5)), profile: autoPauseProfile())
        let runtime = rig.runtime
        rig.clock.schedule(at: Instant.zero + .seconds(50)) { runtime.pause() }
        rig.clock.schedule(at: Instant.zero + .seconds(80)) { runtime.resume() }
        try rig.run()
        #expect(rig.events.times("auto-paused") == [45])
        #expect(rig.events.times("paused") == [50])
        #expect(rig.events.times("auto-resumed").isEmpty)
        #expect(rig.events.times("resumed") == [80])
        #expect(rig.cues(.paused) == [45, 50])
        #expect(rig.cues(.workoutComplete) == [140])
    }

    /// No fix from 40 to 70 s is no stop: the workout runs on (and says the GPS is lost).
    @Test func aLossOfFixIsNotAStop() throws {
        let rig = try Rig(recording(seconds: 200) { s in (40..<70).contains(s) ? nil : 3.0 },
                          plan: plan(("run", 100, 2.5, 3.5)), profile: autoPauseProfile())
        try rig.run()
        #expect(rig.events.times("auto-paused").isEmpty)
        #expect(rig.cues(.gpsLost).first == 40)
        #expect(rig.cues(.workoutComplete) == [100])
    }

    /// At 3 m/s the distance passes 1 km at 334 s and 2 km at 667 s: a split cue each, once,
    /// and charged to the energy model like every cue.
    @Test func aSplitCueSoundsEachKilometre() throws {
        let power = PowerLog()
        let rig = try Rig(recording(seconds: 800) { _ in 3.0 }, plan: plan(("run", 700, 2.5, 3.5)),
                          profile: autoPauseProfile(split: 1000), power: power)
        try rig.run()
        #expect(rig.cues(.split) == [334, 667])
        let detail = try rig.store.activities.activity(#require(rig.runtime.status.activityID))
        #expect(Int(detail.statistics.distance / 1000) == rig.cues(.split).count)
        #expect(detail.cues.filter { $0.cue == "split" }.count == 2)
        #expect(power.entries.filter { $0.1.hasPrefix("buzzer") }.count == rig.cues.count)
    }

    /// In backup the receiver sleeps between positions (every 30 s) and is woken 3 s before
    /// each: the stop at 100 s is first seen at 118 s (woken for the 120 s position) and is a
    /// pause at the first fix of the next wake (148 s), dated back to 118 s: the 18 s before
    /// the receiver saw the stop are counted. Paused, the receiver stays awake, so the runner
    /// moving on at 200 s resumes at once; then it sleeps again.
    @Test func inBackupTheStopIsSeenAtThePositionsAndTheReceiverWakesForTheResume() throws {
        let log = PowerLog()
        var profile = autoPauseProfile(position: 30)
        profile.gpsMode = .backup
        profile.smoothingWindow = .seconds(60)
        let d = try PowerManagementTests.device(
            400, profile: profile, power: log, plan: plan(("run", 300, 2.5, 3.5)),
            speed: { s in (100..<200).contains(s) ? 0.0 : 3.0 })
        try d.runtime.start()
        d.clock.run()
        let paused = d.events.all.filter { $0.1.kind == "auto-paused" }
        #expect(paused.map(\.0) == [148])
        #expect(paused.map(\.1) == [.autoPaused(standing: .seconds(30))])
        #expect(d.events.all.filter { $0.1.kind == "auto-resumed" }.map(\.0) == [200])
        let sleeps = log.gpsStates.filter { $0.1 == "gps backup" }.map(\.0)
        #expect(!sleeps.contains { $0 > 148 && $0 < 200 }, "\(log.gpsStates)")
        #expect(sleeps.contains { $0 > 200 })
    }
}
