import HAL
import PacerCore
import Simulation
import Synchronization
import Testing

/// Feeds a decoder edges at their milliseconds and ticks it at its deadlines, as the sink
/// does; returns each pattern with the millisecond it was told.
func decode(_ edges: [(Int, Bool)], until end: Int = 10_000, timing: ButtonTiming = ButtonTiming()) -> [(Int, PressPattern)] {
    var d = PressDecoder(timing: timing)
    var out: [(Int, PressPattern)] = []
    func ms(_ t: Instant) -> Int { Int(t.nanoseconds / 1_000_000) }
    func at(_ m: Int) -> Instant { Instant.zero + .milliseconds(m) }
    func runDeadlines(before limit: Int) {
        while let deadline = d.nextDeadline, ms(deadline) < limit {
            out += d.tick(at: deadline).map { (ms(deadline), $0) }
        }
    }
    for (m, down) in edges {
        runDeadlines(before: m)
        out += (down ? d.press(at: at(m)) : d.release(at: at(m))).map { (m, $0) }
    }
    runDeadlines(before: end)
    return out
}

func patterns(_ decoded: [(Int, PressPattern)]) -> [String] { decoded.map { "\($0.1.rawValue)@\($0.0)" } }

@Suite("Button press patterns")
struct PressDecoderTests {
    /// Default timing: 30 ms debounce, 400 ms double window, long from 1 s, very long at 3 s.
    @Test func aShortPressIsToldOnceTheDoubleWindowHasPassed() {
        #expect(patterns(decode([(0, true), (100, false)])) == ["short@500"])
    }

    @Test func twoShortPressesWithinTheWindowAreADouble() {
        #expect(patterns(decode([(0, true), (100, false), (300, true), (400, false)])) == ["double@430"])
    }

    @Test func aSecondPressAfterTheWindowIsAnotherShort() {
        #expect(patterns(decode([(0, true), (100, false), (600, true), (700, false)])) == ["short@500", "short@1100"])
    }

    @Test func aHoldOfASecondIsLong() {
        #expect(patterns(decode([(0, true), (1500, false)])) == ["long@1530"])
    }

    @Test func aHoldOfThreeSecondsIsVeryLongWhileStillHeldAndItsReleaseSaysNothing() {
        #expect(patterns(decode([(0, true), (4200, false)])) == ["very-long@3000"])
    }

    @Test func chatterAtThePressAndAtTheReleaseIsOnePress() {
        // Bounces 5 ms apart at the press, and 10 ms after the release: one short press.
        #expect(patterns(decode([(0, true), (5, false), (10, true), (200, false), (210, true), (215, false)]))
                    == ["short@615"])
    }

    @Test func aShortThenALongAreToldInOrder() {
        #expect(patterns(decode([(0, true), (100, false), (300, true), (1500, false)])) == ["short@1530", "long@1530"])
    }

    @Test func edgesThatChangeNothingAreIgnored() {
        // A release while up, a press while down (a lost release event): one long press.
        #expect(patterns(decode([(0, false), (100, true), (200, true), (1300, false)])) == ["long@1330"])
    }

    @Test func theTimingIsTheSettings() {
        let quick = ButtonTiming(debounce: .milliseconds(10), doubleWindow: .milliseconds(200),
                                 long: .milliseconds(500), veryLong: .seconds(2))
        #expect(patterns(decode([(0, true), (600, false)], timing: quick)) == ["long@610"])
        #expect(patterns(decode([(0, true), (100, false)], timing: quick)) == ["short@300"])
    }

    /// The sink decodes each button on its own, on the clock's loop, with its deadlines on
    /// the clock's timer; a device that goes away drops a held button without a pattern.
    @Test func theSinkTellsPatternsOnTheClockPerButton() {
        let clock = VirtualClock()
        let heard = Mutex<[String]>([])
        let sink = ButtonSink(clock: clock) { event in
            let text = switch event {
            case .pressed(let p, let button): "\(p.rawValue) \(button)@\(clock.now.nanoseconds / 1_000_000)"
            case .connected(let d): "connected \(d)"
            case .gone(let d): "gone \(d)"
            }
            heard.withLock { $0.append(text) }
        }
        let t = { (ms: Int) in Instant.zero + .milliseconds(ms) }
        sink.edge(28, down: true, at: t(0))
        sink.edge(29, down: true, at: t(50))
        sink.edge(28, down: false, at: t(100))
        sink.edge(29, down: false, at: t(1200))
        clock.runUntilIdle()
        #expect(heard.withLock { $0 } == ["short 28@500", "long 29@1230"])
        sink.edge(28, down: true, at: t(2000))
        sink.gone("unplugged")
        clock.runUntilIdle()
        #expect(heard.withLock { $0 }.suffix(1) == ["gone unplugged"])
    }
}

/// A button source a test drives: its sink is there to press.
final class DrivenButtons: ButtonSource {
    let name = "script"
    private let current = Mutex<ButtonSink?>(nil)
    var sink: ButtonSink? { current.withLock { $0 } }
    func start(_ sink: ButtonSink) { current.withLock { $0 = sink } }
    func stop() { current.withLock { $0 = nil } }
}

@Suite("Buttons as controls")
struct ButtonActionsTests {
    /// While running: short marks a waypoint, long pauses (and resumes when paused), very
    /// long stops, double does nothing; as the settings may say otherwise.
    @Test func eachPatternBecomesItsCommand() {
        let actions = ButtonActions.defaults
        let counter = Mutex(0)
        let name: () -> String = { "Waypoint \(counter.withLock { $0 += 1; return $0 })" }
        #expect(actions.runningCommand(for: .short, name: name, isPaused: false) == .waypoint("Waypoint 1"))
        #expect(actions.runningCommand(for: .long, name: name, isPaused: false) == .pause)
        #expect(actions.runningCommand(for: .long, name: name, isPaused: true) == .resume)
        #expect(actions.runningCommand(for: .double, name: name, isPaused: false) == nil)
        #expect(actions.runningCommand(for: .veryLong, name: name, isPaused: false) == .stop)
        // A name is taken only for a waypoint.
        #expect(counter.withLock { $0 } == 1)
        let custom = ButtonActions(running: [.short: .none, .double: .waypoint])
        #expect(custom.runningCommand(for: .short, name: { "W" }, isPaused: false) == nil)
        #expect(custom.runningCommand(for: .double, name: { "W" }, isPaused: false) == .waypoint("W"))
    }
}
