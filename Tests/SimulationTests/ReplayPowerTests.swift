import HAL
import NMEA
import PacerCore
import Simulation
import Synchronization
import Testing

/// The replayed receiver obeys the firmware's power commands.
@Suite("Replay power commands")
struct ReplayPowerTests {
    @Test func inBackupItSaysNothingAndWokenItHotStartsBeforeItsFixesReturn() throws {
        let fixture = ReplayFixture.file(ReplayFixture.fixes(seconds: 60))
        let clock = VirtualClock()
        let source = try NMEAFileSource(path: fixture.path, clock: clock, hotStart: .seconds(3))
        let heard = Mutex<[(Double, String)]>([])
        let sink = GPSEventSink(clock: clock) { event in
            let label: String = switch event {
            case .fix: "fix"
            case .status(let s, _): s.rawValue
            }
            heard.withLock { $0.append((clock.now.seconds, label)) }
        }
        source.start(sink)
        clock.schedule(at: Instant.zero + .seconds(10)) { source.setPower(.backup) }
        clock.schedule(at: Instant.zero + .seconds(30)) { source.setPower(.tracking) }
        clock.run()
        let log = heard.withLock { $0 }
        let fixes = log.filter { $0.1 == "fix" }.map(\.0)
        // Nothing heard while asleep (10 to 30 s); nothing but "no fix" for the 3 s hot start.
        #expect(!fixes.contains { $0 > 10 && $0 < 33 }, "\(fixes)")
        #expect(fixes.contains { $0 >= 33 && $0 <= 35 })
        #expect(source.asleep >= 19)
        // Asleep, it falls silent as a real receiver in backup does; the source says so after
        // its 5 s silence timeout from the last cycle heard, at 9 s (the runtime knows it put it
        // to sleep and ignores it).
        #expect(log.contains { $0.0 == 14 && $0.1 == "fix-lost" }, "\(log)")
    }
}
