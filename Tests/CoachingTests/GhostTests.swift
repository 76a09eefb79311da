import Coaching
import PacerCore
import Testing

/// The ghost (issue 43, R39): a run or a target as distance over the timer, and the race
/// against it judged on distance run.
@Suite("Ghost")
struct GhostTests {
    /// An even target: metres in proportion to the timer; the time at a distance its inverse;
    /// past its finish it runs on at its pace.
    @Test func anEvenTargetRunsAtItsPace() throws {
        let ghost = try #require(Ghost.target(metres: 5000, time: .seconds(1500), name: "5km@25:00"))
        #expect(ghost.metres(at: 750) == 2500)
        #expect(ghost.metres(at: 0) == 0 && ghost.metres(at: -5) == 0)
        #expect(ghost.seconds(at: 1000) == 300)
        #expect(ghost.metres(at: 1800) == 6000)
        #expect(ghost.seconds(at: 6000) == 1800)
    }

    /// A negative split: the second half `split` faster than the first, the total kept.
    @Test func aNegativeSplitRunsTheSecondHalfFaster() throws {
        let ghost = try #require(Ghost.target(metres: 10_000, time: .seconds(3000), negativeSplit: 0.02, name: "t"))
        let first = ghost.seconds(at: 5000), second = 3000 - first
        #expect(abs(first - 3000 / 1.98) < 1e-9)
        #expect(abs(second - first * 0.98) < 1e-9)
        #expect(ghost.finish == Ghost.Mark(seconds: 3000, metres: 10_000))
        #expect(Ghost.target(metres: 10_000, time: .seconds(3000), negativeSplit: 0.6, name: "t") == nil)
    }

    /// A run's marks: out of order or standing ones are made rising; a run that does not move
    /// is no ghost.
    @Test func aRunsMarksRise() throws {
        let ghost = try #require(Ghost(name: "run", marks: [
            .init(seconds: 10, metres: 30), .init(seconds: 5, metres: 12), .init(seconds: 20, metres: 25), .init(seconds: 30, metres: 90),
        ]))
        #expect(ghost.marks.map(\.seconds) == [0, 10, 20, 30])
        #expect(ghost.marks.map(\.metres) == [0, 30, 30, 90])
        #expect(ghost.seconds(at: 30) == 10)
        #expect(Ghost(name: "still", marks: [.init(seconds: 10, metres: 0)]) == nil)
    }

    static func race(_ coach: inout GhostCoach, speed: (Double) -> Double, until: Int, every: Int = 10) -> [(Int, GhostOutput)] {
        var out: [(Int, GhostOutput)] = []
        var metres = 0.0
        var t = 0
        while t < until {
            for s in t..<(t + every) { metres += speed(Double(s)) }
            t += every
            for o in coach.update(timer: .seconds(t), metres: metres) { out.append((t, o)) }
        }
        return out
    }

    /// Level with the ghost throughout: told "level" every interval, never a beep.
    @Test func levelWithTheGhostHearsNoBeep() throws {
        var coach = GhostCoach(ghost: try #require(Ghost.target(metres: 5000, time: .seconds(1500), name: "t")),
                               settings: .init(interval: .seconds(60)))
        let out = Self.race(&coach, speed: { _ in 5000 / 1500 }, until: 600)
        #expect(out.allSatisfy { if case .tell(let g) = $0.1 { g.standing == .level && abs(g.metres) < 1e-6 } else { false } })
        #expect(out.map(\.0) == [60, 120, 180, 240, 300, 360, 420, 480, 540, 600])
    }

    /// Falling behind: the beep once 5 m down, again at a telling once the gap has grown by
    /// 10 m; taking the lead back (through level) beeps ghost-ahead once.
    @Test func fallingBehindAndTakingTheLeadBack() throws {
        var coach = GhostCoach(ghost: try #require(Ghost.target(metres: 5000, time: .seconds(1500), name: "t")),
                               settings: .init(interval: .seconds(60)))
        // 0.11 m/s slower for 300 s (33 m down), then 0.2 m/s faster.
        let out = Self.race(&coach, speed: { t in t < 300 ? 5000 / 1500 - 0.11 : 5000 / 1500 + 0.2 }, until: 600)
        let behind = out.filter { $0.1 == .cue(.ghostBehind) }.map(\.0)
        let ahead = out.filter { $0.1 == .cue(.ghostAhead) }.map(\.0)
        #expect(behind.first == 50, "5 m down at 45.5 s: heard at the first update past it, \(behind)")
        // 5.5 m at 50 s; told again at the minute's tellings once 15.5 m (19.8 at 180 s), then
        // 29.8 m (33 at 300 s), down.
        #expect(behind == [50, 180, 300], "\(behind)")
        #expect(ahead.count == 1 && ahead[0] > 450 && ahead[0] <= 500, "5 m ahead at 490 s: \(ahead)")
        let last = try #require(coach.gap)
        #expect(last.standing == .ahead && abs(last.metres - 27) < 1e-6, "\(last)")
        #expect(abs(last.seconds - 27 / (5000.0 / 1500)) < 1e-6)
    }

    /// On the ghost's heels: 5 m is level, leaving level needs more, coming back needs 2 m
    /// inside; no beep flips at the edge.
    @Test func theEdgeOfLevelHasHysteresis() throws {
        let ghost = try #require(Ghost.target(metres: 5000, time: .seconds(1000), name: "t"))
        var coach = GhostCoach(ghost: ghost, settings: .init(interval: .seconds(600)))
        func at(_ t: Int, behindBy gap: Double) -> [GhostOutput] { coach.update(timer: .seconds(t), metres: Double(t) * 5 - gap) }
        #expect(at(10, behindBy: 5).isEmpty)
        #expect(coach.gap?.standing == .level)
        #expect(at(20, behindBy: 5.5) == [.cue(.ghostBehind)])
        #expect(at(30, behindBy: 4).isEmpty)
        #expect(coach.gap?.standing == .behind, "4 m is not 2 m inside")
        #expect(at(40, behindBy: 2.5).isEmpty)
        #expect(coach.gap?.standing == .level)
        #expect(at(50, behindBy: 5.5).isEmpty, "behind again after level: no second beep")
    }
}
