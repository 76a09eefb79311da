import HAL
import PacerCore
import Simulation
import Synchronization
import Testing

/// The sink's silence watchdog, the one every source relies on, on the virtual clock.
@Suite("GPS silence watchdog")
struct SilenceWatchTests {
    func details(_ log: EventLog) -> [String] {
        log.all.compactMap { if case .status(.fixLost, let d) = $0 { d } else { nil } }
    }

    @Test func aReceiverQuietForTheTimeoutLosesItsFixOncePerSilence() {
        let clock = VirtualClock()
        let log = EventLog()
        let sink = GPSEventSink(clock: clock) { log.add($0) }
        sink.watchSilence(timeout: .seconds(5), detail: "no data from test for 5 s")
        sink.opened("test")
        // One fix a second for 10 s: never silent, however the checks fall.
        for second in 0..<10 {
            clock.advance(to: .zero + .seconds(second))
            sink.fix(fix(second))
        }
        clock.advance(to: .zero + .milliseconds(13_999))
        #expect(log.statuses == [.connected, .fix], "4.999 s after the last fix: not yet")
        clock.advance(to: .zero + .seconds(14))
        #expect(log.statuses == [.connected, .fix, .fixLost])
        #expect(details(log) == ["no data from test for 5 s"])
        clock.advance(to: .zero + .seconds(60))
        #expect(log.statuses.count == 3, "once per silence")
        // Bytes without a cycle count as traffic (a serial port), and a new silence is told again.
        sink.heard()
        clock.advance(to: .zero + .seconds(64))
        sink.fix(fix(64))
        clock.advance(to: .zero + .milliseconds(68_900))
        #expect(log.statuses.last == .fix)
        clock.advance(to: .zero + .seconds(69))
        #expect(log.statuses.suffix(2) == [.fix, .fixLost])
    }

    @Test func aClosedDeviceIsNotSilentAndAStoppedWatchSaysNothing() {
        let clock = VirtualClock()
        let log = EventLog()
        let sink = GPSEventSink(clock: clock) { log.add($0) }
        sink.watchSilence(timeout: .seconds(5), detail: "quiet")
        clock.advance(by: .seconds(30))
        #expect(log.all.isEmpty, "not opened yet: nothing to watch")
        sink.opened("test")
        sink.fix(fix(30))
        clock.advance(by: .seconds(1))
        sink.closed("unplugged")
        clock.advance(by: .seconds(30))
        #expect(log.statuses == [.connected, .fix, .disconnected], "gone is gone, not silent")
        sink.opened("test")
        sink.fix(fix(62))
        sink.stopWatchingSilence()
        clock.advance(by: .seconds(30))
        #expect(log.statuses == [.connected, .fix, .disconnected, .connected, .fix])
    }

    /// In power-save the receiver rests between fixes: the watchdog's silence within the
    /// rest period is no loss; past it, the fix is lost.
    @Test func silenceWithinTheRestPeriodIsNoLoss() {
        let clock = VirtualClock()
        let log = EventLog()
        let sink = GPSEventSink(clock: clock) { log.add($0) }
        sink.restPeriod = .seconds(40)
        sink.watchSilence(timeout: .seconds(5), detail: "quiet")
        sink.opened("test")
        sink.fix(fix(0))
        clock.advance(to: .zero + .seconds(30))
        sink.fix(fix(30))
        clock.advance(to: .zero + .seconds(69))
        #expect(log.statuses == [.connected, .fix])
        clock.advance(to: .zero + .seconds(70))
        #expect(log.statuses == [.connected, .fix, .fixLost])
    }
}
