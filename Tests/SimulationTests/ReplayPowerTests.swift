import HAL
import NMEA
import PacerCore
import Simulation
import Synchronization
import Testing

/// The replayed receiver obeys the firmware's power commands.
@Suite("Replay power commands")
struct ReplayPowerTests {
    /// A position (update or reading) as "position", a status by its name.
    static func label(_ event: GPSEvent) -> String {
        switch event {
        case .fix, .reading: "position"
        case .status(let s, _): s.rawValue
        }
    }

    @Test func inBackupItSaysNothingAndWokenItHotStartsBeforeItsFixesReturn() throws {
        let fixture = ReplayFixture.file(ReplayFixture.fixes(seconds: 60))
        let clock = VirtualClock()
        let source = try NMEAFileSource(path: fixture.path, clock: clock, hotStart: .seconds(3))
        let heard = Mutex<[(Double, String)]>([])
        let sink = GPSEventSink(clock: clock) { event in heard.withLock { $0.append((clock.now.seconds, Self.label(event))) } }
        source.start(sink)
        clock.schedule(at: Instant.zero + .seconds(10)) { source.setPower(.backup) }
        clock.schedule(at: Instant.zero + .seconds(30)) { source.setPower(.tracking) }
        clock.run()
        let log = heard.withLock { $0 }
        let fixes = log.filter { $0.1 == "position" }.map(\.0)
        // Nothing heard while asleep (10 to 30 s); nothing but "no fix" for the 3 s hot start.
        #expect(!fixes.contains { $0 > 10 && $0 < 33 }, "\(fixes)")
        #expect(fixes.contains { $0 >= 33 && $0 <= 35 })
        #expect(source.asleep >= 19)
        // Asleep, it falls silent as a real receiver in backup does; the source says so after
        // its 5 s silence timeout from the last cycle heard, at 9 s (the runtime knows it put it
        // to sleep and ignores it).
        #expect(log.contains { $0.0 == 14 && $0.1 == "fix-lost" }, "\(log)")
    }

    /// Power-save as a real receiver does it: one cycle per update period. With the sink told
    /// the receiver rests that long (and a grace), its silence between updates is no loss;
    /// an update that does not come is one, once the rest has passed.
    @Test func inPowerSaveItSendsOneCyclePerPeriodAndItsRestIsNoLoss() throws {
        let fixture = ReplayFixture.file(ReplayFixture.fixes(seconds: 100))
        let clock = VirtualClock()
        let source = try NMEAFileSource(
            path: fixture.path, clock: clock, faults: try NMEAFileSource.Faults(query: ["outage": "65-100"]),
            powerSavePeriod: .seconds(20))
        let heard = Mutex<[(Double, String)]>([])
        let sink = GPSEventSink(clock: clock) { event in heard.withLock { $0.append((clock.now.seconds, Self.label(event))) } }
        sink.restPeriod = .seconds(30)
        source.start(sink)
        clock.schedule(at: Instant.zero + .seconds(5)) { source.setPower(.powerSave) }
        clock.run()
        let log = heard.withLock { $0 }
        let fixes = log.filter { $0.1 == "position" }.map(\.0)
        // Every second until told at 5 s, then one cycle per 20 s (25, 45); the one due at 65
        // is in the outage.
        #expect(fixes == [0, 1, 2, 3, 4, 25, 45], "\(fixes)")
        // Lost only when 30 s passed after the last fix (45 + 30), not at the 5 s silences before.
        #expect(log.filter { $0.1 == "fix-lost" }.map(\.0) == [75], "\(log)")
    }
}
