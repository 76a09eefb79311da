import Coaching
import PacerCore
import Testing

/// Phases that end on distance, at a lap press, or at the runner's stop.
@Suite("Pace coach: distance, lap and open ends")
struct PaceCoachEndsTests {
    static func phase(_ name: String, _ end: PhaseEnd, band: (Double, Double)? = (2, 5), lapEnds: Bool = false) -> Phase {
        Phase(name: name, end: end, target: band.map { .speed(minimum: $0.0, maximum: $0.1) } ?? .none, lapEndsEarly: lapEnds)
    }

    /// The instants of the phase changes (and the completion) among a driver's outputs.
    static func ends(_ d: CoachDriver) -> [PhaseResult] {
        d.outputs.compactMap { if case .phaseFinished(let r) = $0 { r } else { nil } }
    }

    /// A runner at 1 Hz, 3 m/s: a 400 m phase ends at 133.3 s, predicted from the speed
    /// between fixes, not at the fix after (134 s); the next phase is measured from there.
    @Test func aDistancePhaseEndsWhereTheRunnerCrossesIt() {
        let w = Workout(name: "d", phases: [Self.phase("fast", .distance(400)), Self.phase("easy", .distance(300))])
        var d = CoachDriver(w)
        d.run(to: 140) { _ in 3.0 }
        let first = Self.ends(d)[0]
        #expect(first.ending == .distance)
        #expect(abs(first.duration.inSeconds - 400.0 / 3) < 0.01, "\(first.duration)")
        #expect(abs(first.distance - 400) < 0.01)
        d.run(to: 240) { _ in 3.0 }
        let results = Self.ends(d)
        #expect(results.count == 2)
        #expect(abs(results[1].duration.inSeconds - 100) < 0.01, "\(results[1].duration)")
        #expect(d.coach.finished)
        #expect(d.cues(.phaseChange) == [133] && d.cues(.workoutComplete) == [233])
    }

    /// Fixes 30 s apart (a duty-cycled receiver): the end falls between two fixes and is
    /// sounded there, from the last fix's speed.
    @Test func onSparseFixesTheEndIsPredictedBetweenThem() {
        let w = Workout(name: "d", phases: [Self.phase("fast", .distance(500)), Self.phase("easy", .time(.seconds(600)))])
        var d = CoachDriver(w)
        d.run(to: 300, every: 30) { _ in 2.5 }
        let end = Self.ends(d)[0]
        #expect(abs(end.duration.inSeconds - 200) < 0.01, "\(end.duration)")
        #expect(d.cues(.phaseChange) == [200])
    }

    /// Between fixes the end is predicted from the last fix's speed (2 m/s from 30 s: 50 s);
    /// a fix whose leg already ran past the end (the first after the start, 150 m in) ends
    /// the phase at once, not at a later prediction.
    @Test func aFixPastTheEndEndsThePhaseAtOnce() {
        let w = Workout(name: "d", phases: [Self.phase("fast", .distance(100)), Self.phase("easy", .time(.seconds(600)))])
        var d = CoachDriver(w)
        d.run(to: 90, every: 30) { s in s <= 30 ? 2 : 5 }
        #expect(abs(Self.ends(d)[0].duration.inSeconds - 50) < 0.01, "\(Self.ends(d)[0].duration)")
        var e = CoachDriver(w)
        e.run(to: 60, every: 30) { _ in 5 }
        let end = Self.ends(e)[0]
        #expect(end.duration == .seconds(30) && end.ending == .distance && abs(end.distance - 150) < 0.01)
        #expect(e.cues(.phaseChange) == [30])
    }

    /// A loss of fix just before the end: the end is still heard where the runner crosses
    /// it, from the last fix's speed carried on, not when fixes return.
    @Test func aLossOfFixDoesNotDelayTheEnd() {
        let w = Workout(name: "d", phases: [Self.phase("fast", .distance(300)), Self.phase("easy", .time(.seconds(600)))])
        var d = CoachDriver(w)
        d.run(to: 90) { _ in 3 }
        d.record(d.coach.fixLost(at: CoachDriver.t(90)))
        d.run(to: 130) { s in s < 125 ? nil : 3 }
        let end = Self.ends(d)[0]
        #expect(abs(end.duration.inSeconds - 100) < 0.01, "\(end.duration)")
    }

    /// Positioning off: a distance phase runs its planned time (its distance at its band's
    /// middle speed).
    @Test func withoutPositioningADistancePhaseRunsItsPlannedTime() {
        let w = Workout(name: "d", phases: [Self.phase("fast", .distance(700), band: (3, 4)), Self.phase("easy", .time(.seconds(60)))])
        var d = CoachDriver(w, positioning: false)
        d.run(to: 400) { _ in nil }
        #expect(d.cues(.phaseChange) == [200])
    }

    /// An open phase ends at the lap press; the press that ends a phase is no lap mark.
    @Test func aLapPressEndsAnOpenPhase() {
        let w = Workout(name: "d", phases: [Self.phase("easy", .lapPress, band: nil), Self.phase("fast", .time(.seconds(60)))])
        var d = CoachDriver(w)
        d.run(to: 500) { _ in 3 }
        #expect(d.cues(.phaseChange).isEmpty, "an open phase never ends by itself")
        #expect(d.coach.nextDeadline == nil)
        d.record(d.coach.lap(at: d.now))
        #expect(d.cues(.phaseChange) == [500])
        let end = Self.ends(d)[0]
        #expect(end.ending == .lap && end.duration == .seconds(500) && abs(end.distance - 1500) < 0.5)
        #expect(!d.outputs.contains { if case .lapMarked = $0 { true } else { false } })
        d.run(to: 561) { _ in 3 }
        #expect(d.cues(.workoutComplete) == [560])
    }

    /// A timed phase goes on after a lap press (a lap is marked); one marked `lap_ends`
    /// ends at it.
    @Test func aLapPressMarksALapOrEndsAPhaseThatAllowsIt() {
        let plain = Workout(name: "d", phases: [Self.phase("steady", .time(.seconds(600)))])
        var d = CoachDriver(plain)
        d.run(to: 100) { _ in 3 }
        d.record(d.coach.lap(at: d.now))
        #expect(d.outputs.contains(.lapMarked(elapsed: .seconds(100), distance: 300)))
        #expect(d.cues(.phaseChange).isEmpty && !d.coach.finished)

        let early = Workout(name: "d", phases: [Self.phase("fast", .time(.seconds(600)), lapEnds: true),
                                                Self.phase("easy", .distance(200))])
        var e = CoachDriver(early)
        e.run(to: 100) { _ in 3 }
        e.record(e.coach.lap(at: e.now))
        #expect(e.cues(.phaseChange) == [100] && Self.ends(e)[0].ending == .lap)
        e.run(to: 200) { _ in 4 }
        #expect(e.cues(.workoutComplete) == [150])
    }

    /// A free run (until: stop) ends only when the runner stops; its result says so.
    @Test func aFreeRunEndsAtTheStop() {
        let w = Workout(name: "free", phases: [Self.phase("run", .stop, band: nil)])
        var d = CoachDriver(w)
        d.run(to: 3600) { _ in 3 }
        #expect(!d.coach.finished && d.coach.nextDeadline == nil)
        d.record(d.coach.stop(at: d.now))
        #expect(Self.ends(d).map(\.ending) == [.stop])
    }

    /// A phase without a target is not judged: no pace cue however slow or fast.
    @Test func aPhaseWithoutATargetIsNotJudged() {
        let w = Workout(name: "d", phases: [Self.phase("jog", .time(.seconds(120)), band: nil),
                                            Self.phase("fast", .time(.seconds(120)), band: (4, 5))])
        var d = CoachDriver(w)
        d.run(to: 240) { _ in 2 }
        #expect(d.cues(.speedUp).allSatisfy { $0 > 120 } && !d.cues(.speedUp).isEmpty)
        #expect(d.cues(.onPace).isEmpty && d.cues(.slowDown).isEmpty)
        #expect(d.coach.status(at: d.now).phase.speedBand == 4...5)
    }

    /// The status tells the metres left in a distance phase, and no time left.
    @Test func theStatusTellsTheMetresLeft() {
        let w = Workout(name: "d", phases: [Self.phase("fast", .distance(1000))])
        var d = CoachDriver(w)
        d.run(to: 100) { _ in 3 }
        let s = d.coach.status(at: d.now)
        #expect(s.phaseDistanceLeft.map { abs($0 - 700) < 0.5 } == true, "\(String(describing: s.phaseDistanceLeft))")
        #expect(s.phaseTimeLeft == .zero && s.neededSpeed == nil)
    }
}

/// "200 metres to go", "30 seconds to go" and the countdown before a phase's end (issue 40,
/// item 3).
@Suite("Pace coach: anticipation")
struct PaceCoachAnticipationTests {
    static func driver(_ w: Workout) -> CoachDriver {
        var d = CoachDriver(w)
        var s = d.coach.settings
        s.toGoMetres = 200
        s.toGoTime = .seconds(30)
        s.countdown = 3
        d.coach = PaceCoach(workout: w, settings: s)
        d.outputs = []
        d.cues = []
        d.record(d.coach.start(at: d.now))
        return d
    }

    @Test func aTimedPhaseHearsThirtySecondsToGoAndTheLastThreeSeconds() {
        let w = Workout(name: "t", phases: [PaceCoachEndsTests.phase("fast", .time(.seconds(120))),
                                            PaceCoachEndsTests.phase("easy", .time(.seconds(20)))])
        var d = Self.driver(w)
        d.run(to: 150) { _ in 3 }
        #expect(d.cues(.toGo) == [90], "the 20 s phase is too short for 30 s to go")
        #expect(d.cues(.countdown) == [117, 118, 119, 137, 138, 139])
        #expect(d.outputs.contains(.toGo(metres: nil, time: .seconds(30))))
    }

    /// On distance the cue sounds where 200 m are left, predicted between fixes 30 s apart;
    /// the countdown follows the predicted end.
    @Test func aDistancePhaseHearsTwoHundredMetresToGoBetweenFixes() {
        let w = Workout(name: "d", phases: [PaceCoachEndsTests.phase("fast", .distance(800)),
                                            PaceCoachEndsTests.phase("jog", .distance(150))])
        var d = Self.driver(w)
        d.run(to: 400, every: 30) { _ in 4 }
        // 600 m at 4 m/s: 150 s; the end at 200 s; the jog (150 m) is shorter than 200 m.
        #expect(d.cues(.toGo) == [150])
        #expect(d.outputs.contains(.toGo(metres: 200, time: nil)))
        #expect(d.cues(.countdown).prefix(3) == [197, 198, 199])
        #expect(d.cues(.phaseChange) == [200])
    }

    /// A fix that jumps past several countdown instants (the runner sped up) gives one tick,
    /// not a burst; nothing is anticipated while paused or after the end.
    @Test func aLateFixGivesOneTickAndAPauseNone() {
        let w = Workout(name: "d", phases: [PaceCoachEndsTests.phase("fast", .distance(400))])
        var d = Self.driver(w)
        d.run(to: 30, every: 30) { _ in 2 }
        d.record(d.coach.pause(at: d.now))
        #expect(d.coach.nextDeadline == nil)
        d.now = CoachDriver.t(60)
        d.record(d.coach.resume(at: d.now))
        d.run(to: 300, every: 30) { _ in 2 }
        #expect(d.cues(.toGo).count == 1 && d.cues(.countdown).count <= 3)
        #expect(d.coach.finished)
    }
}
