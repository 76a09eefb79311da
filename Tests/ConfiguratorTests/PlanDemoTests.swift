import Coaching
import Configurator
import Foundation
import TestSupport
import Testing

/// The bundled demo plan is made for the bundled recording (R7): replayed against
/// `Hardware/recordings/track-loop.nmea`, its phases must give on-pace, speed-up, slow-down
/// and on-pace cues. The recording's speed comes from the script that wrote it
/// (scripts/make-sample-recording.py), not from the file: 3.0 + 0.5 sin(s / 60) m/s at second s.
@Suite("Demo plan")
struct PlanDemoTests {
    enum Where { case below, inside, above }

    static func recordingSpeed(at second: Int) -> Double { 3.0 + 0.5 * sin(Double(second) / 60) }
    static let recordingSeconds = 600

    /// Where `speed` falls in `phase`'s range, with `margin` m/s of room on the side that counts.
    static func position(_ speed: Double, in phase: Phase, margin: Double) -> Where? {
        if speed < phase.minimumSpeed - margin { return .below }
        if speed > phase.maximumSpeed + margin { return .above }
        if speed >= phase.minimumSpeed + margin && speed <= phase.maximumSpeed - margin { return .inside }
        return nil  // too close to an edge to be sure of the cue
    }

    @Test func theDemoPlanGivesEveryPaceCueOnTheRecording() throws {
        let plan = try PlanLoader.load(path: PlanLoader.directory(hardwareDir: hardwareDirectory) + "/demo.yaml")
        let workout = try #require(plan.workouts.first)
        #expect(plan.workouts.count == 1)
        #expect(workout.phases.map(\.name) == ["warm-up", "fast", "walk", "steady"])
        let expected: [Where] = [.inside, .below, .above, .inside]
        // Room from the band's edges: 0.85 km/h as the GPS reports, 0.75 km/h smoothed.
        let margin = Pace.metresPerSecond(kilometresPerHour: 0.85)
        let smoothedMargin = Pace.metresPerSecond(kilometresPerHour: 0.75)
        // The workout may start a little after the recording (the first fix, the runner's
        // press): up to 30 s, and it must still end inside the recording.
        for offset in [0, 10, 20, 30] {
            #expect(offset + Int(workout.duration.inSeconds) <= Self.recordingSeconds)
            var start = offset
            for (phase, want) in zip(workout.phases, expected) {
                let end = start + Int(phase.duration.inSeconds)
                for s in start..<end {
                    let speed = Self.recordingSpeed(at: s)
                    #expect(Self.position(speed, in: phase, margin: margin) == want,
                            "offset \(offset) s, \(phase.name) at \(s) s: \(Pace.kilometresPerHour(speed)) km/h")
                    // The same judged on the medium profile's 60 s smoothing window.
                    let window = max(0, s - 59)...s
                    let smoothed = window.map(Self.recordingSpeed(at:)).reduce(0, +) / Double(window.count)
                    #expect(Self.position(smoothed, in: phase, margin: smoothedMargin) == want,
                            "offset \(offset) s, \(phase.name) at \(s) s smoothed: \(Pace.kilometresPerHour(smoothed)) km/h")
                }
                start = end
            }
        }
    }
}
