import HAL
import NMEA
import PacerCore
import Simulation
import Synchronization
import Testing

final class EventLog: Sendable {
    private let events = Mutex<[GPSEvent]>([])
    func add(_ e: GPSEvent) { events.withLock { $0.append(e) } }
    var all: [GPSEvent] { events.withLock { $0 } }
    var statuses: [GPSStatus] {
        all.compactMap { if case .status(let s, _) = $0 { s } else { nil } }
    }
    var fixes: [Fix] {
        all.compactMap { if case .fix(let f) = $0 { f } else { nil } }
    }
    var readings: [Fix] {
        all.compactMap { if case .reading(let f) = $0 { f } else { nil } }
    }
}

func fix(_ second: Int) -> Fix {
    Fix(time: UTCTimestamp(millisecondsSince1970: Int64(second) * 1000),
        position: GeoPoint(latitude: 52 + Double(second) * 1e-5, longitude: 4.3))
}

@Suite("GPS status and sampling")
struct GPSEventTests {
    @Test func statusFollowsTheReceiver() {
        var t = GPSStatusTracker()
        #expect(t.status == .disconnected)
        #expect(t.opened("ttyACM0") == [.status(.connected, detail: "ttyACM0")])
        #expect(t.noFix() == [.status(.acquiring, detail: nil)])
        #expect(t.noFix().isEmpty)
        #expect(t.fix() == [.status(.fix, detail: nil)])
        #expect(t.fix().isEmpty)
        #expect(t.noFix() == [.status(.fixLost, detail: nil)])
        #expect(t.fix() == [.status(.fix, detail: nil)])
        #expect(t.silent("no data for 5 s") == [.status(.fixLost, detail: "no data for 5 s")])
        #expect(t.silent("again").isEmpty)
        #expect(t.closed("unplugged") == [.status(.disconnected, detail: "unplugged")])
    }

    @Test func aDeviceMissingFromTheStartIsReportedOnceWithItsReason() {
        var t = GPSStatusTracker()
        #expect(t.closed("/dev/gps0: No such file or directory")
            == [.status(.disconnected, detail: "/dev/gps0: No such file or directory")])
        #expect(t.closed("/dev/gps0: No such file or directory").isEmpty)
    }

    @Test func aFixWithoutOpenIsStillConnected() {
        var t = GPSStatusTracker()
        #expect(t.fix() == [.status(.connected, detail: nil), .status(.fix, detail: nil)])
    }

    @Test func afterReconnectTheFirstNoFixIsAcquiringNotLost() {
        var t = GPSStatusTracker()
        _ = t.fix()
        _ = t.closed("gone")
        _ = t.opened(nil)
        #expect(t.noFix() == [.status(.acquiring, detail: nil)])
    }

    @Test func throttleAdmitsOneFixPerInterval() {
        var throttle = FixThrottle(interval: .seconds(10))
        var admitted: [Int] = []
        for s in 0..<35 where throttle.admit(time: fix(s).time) { admitted.append(s) }
        #expect(admitted == [0, 10, 20, 30])
        var open = FixThrottle(interval: nil)
        var all = 0
        for s in 0..<5 where open.admit(time: fix(s).time) { all += 1 }
        #expect(all == 5)
    }

    /// Case 10 of the reliability probe: in real time a 1 Hz receiver's sentences arrive a
    /// little early or late; by arrival a 1 s interval kept 0.58 fixes a second and a 30 s one
    /// kept one every 31 s. By the fixes' own times: every fix, and exactly every 30th.
    @Test func theThrottleFollowsTheReceiversTimeNotTheArrival() {
        let clock = VirtualClock()
        for (interval, expected) in [(1, 120), (30, 4)] {
            let log = EventLog()
            let sink = GPSEventSink(clock: clock, samplingInterval: .seconds(interval)) { log.add($0) }
            var jitter = SeededJitter()
            for s in 0..<120 {
                // Each second's fix arrives 0 to 60 ms after its second, or a little before
                // the next one's expected arrival: what a USB receiver and a loaded board do.
                clock.advance(to: Instant.zero + .seconds(1000 * interval + s) + .milliseconds(jitter.next()))
                sink.fix(fix(s))
            }
            clock.runPending()
            let times = log.fixes.map { Int($0.time.millisecondsSince1970 / 1000) }
            #expect(times.count == expected, "interval \(interval) s: \(times.count) of 120 kept")
            #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 == interval }, "\(times)")
        }
        // A receiver whose time jumps back a week (a rollover bug) starts the grid afresh.
        var throttle = FixThrottle(interval: .seconds(30))
        let kept = [1_000_000, 1_000_000 - 604_800, 1_000_000 - 604_790, 1_000_000 - 604_770].map { throttle.admit(time: fix($0).time) }
        #expect(kept == [true, true, false, true])
    }

    @Test func sinkDeliversOnTheClockLoopInOrder() {
        let clock = VirtualClock()
        let log = EventLog()
        let sink = GPSEventSink(clock: clock) { log.add($0) }
        sink.opened("test")
        sink.epoch(.noFix(nil))
        sink.epoch(.fix(fix(1)))
        sink.epoch(.fix(fix(2)))
        #expect(log.all.isEmpty, "nothing before the loop runs")
        clock.runPending()
        #expect(log.statuses == [.connected, .acquiring, .fix])
        #expect(log.fixes == [fix(1), fix(2)])
    }

    @Test func sinkAppliesTheProfilesSamplingInterval() {
        let clock = VirtualClock()
        let log = EventLog()
        let sink = GPSEventSink(clock: clock, samplingInterval: .seconds(10)) { log.add($0) }
        for s in 0..<25 {
            clock.advance(to: Instant.zero + .seconds(s))
            sink.fix(fix(s))
        }
        clock.runPending()
        #expect(log.fixes.map(\.time.millisecondsSince1970) == [0, 10_000, 20_000])
        // The others still reach the handler, as readings between position updates.
        #expect(log.readings.count == 22)
        sink.samplingInterval = nil
        sink.fix(fix(25))
        sink.fix(fix(26))
        clock.runPending()
        #expect(log.fixes.count == 5)
        // Sampling afresh from a fix: the next update is an interval after it.
        sink.sample(every: .seconds(10), from: fix(26).time)
        for s in 27..<40 { sink.fix(fix(s)) }
        clock.runPending()
        #expect(log.fixes.suffix(2).map(\.time.millisecondsSince1970) == [26_000, 36_000])
    }
}

/// Arrival jitter from a fixed seed: 0 to 990 ms, a different one each second.
struct SeededJitter {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    mutating func next() -> Int64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int64((state >> 33) % 100) * 10 - 20
    }
}
