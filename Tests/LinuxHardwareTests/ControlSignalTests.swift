#if canImport(Glibc)
import Glibc
#endif
import HAL
import LinuxHardware
import Synchronization
import TestSupport
import Testing

/// Signals as controls. Dispositions are process-wide, so these tests run one at a time,
/// use only SIGUSR1 and SIGUSR2 (never SIGINT or SIGTERM in the test process), check that the
/// handler is installed before sending anything (an uncaught SIGUSR would end the run), and
/// check that the previous disposition is back afterwards.
@Suite("Control signals", .serialized)
struct ControlSignalTests {
    /// The handler address a signal has now (0: SIG_DFL, 1: SIG_IGN).
    static func disposition(_ signal: Int32) -> UInt {
        var current = sigaction()
        _ = sigaction(signal, nil, &current)
        return unsafeBitCast(current.__sigaction_handler.sa_handler, to: UInt.self)
    }

    @Test("SIGUSR1 marks a waypoint for the device to name; the reply is logged; the disposition is restored")
    func waypoint() async throws {
        let before = Self.disposition(SIGUSR1)
        let log = LogRecorder()
        let numbered = Mutex(0)
        let recorder = ControlRecorder { command in
            guard command == .markWaypoint else { return "?" }
            return "waypoint 'Waypoint \(numbered.withLock { $0 += 1; return $0 })' stored"
        }
        let controls = SignalControls(waypointSignal: SIGUSR1, stopSignals: [], logger: log.logger)
        controls.start(recorder.handler)
        defer { controls.stop() }
        try #require(controls.isActive)
        try #require(Self.disposition(SIGUSR1) != before, "the handler is installed")

        kill(getpid(), SIGUSR1)
        #expect(await eventually { recorder.commands == [.markWaypoint] })
        kill(getpid(), SIGUSR1)
        #expect(await eventually { recorder.commands.count == 2 })
        #expect(recorder.commands == [.markWaypoint, .markWaypoint])
        #expect(await eventually {
            log.messages.contains("SIGUSR1 waypoint: waypoint 'Waypoint 2' stored")
        })

        controls.stop()
        #expect(!controls.isActive)
        #expect(Self.disposition(SIGUSR1) == before)
    }

    @Test("a stop signal stops, once: its previous disposition is back at once")
    func stop() async throws {
        let before = Self.disposition(SIGUSR2)
        let log = LogRecorder()
        let recorder = ControlRecorder { _ in "stopping" }
        let controls = SignalControls(waypointSignal: nil, stopSignals: [SIGUSR2], logger: log.logger)
        controls.start(recorder.handler)
        defer { controls.stop() }
        try #require(controls.isActive)
        try #require(Self.disposition(SIGUSR2) != before, "the handler is installed")

        kill(getpid(), SIGUSR2)
        // A stop signal asks the process to end: the workout is stopped and stored (`pacer run`),
        // and `pacer device` switches off after it.
        #expect(await eventually { recorder.commands == [.shutdown] })
        // A second one would act as before (here: end the process), so it is not sent.
        #expect(Self.disposition(SIGUSR2) == before)
        #expect(await eventually { log.messages.contains("SIGUSR2 stop: stopping") })
        controls.stop()
        #expect(Self.disposition(SIGUSR2) == before)
    }

    @Test("one SignalControls at a time; the next may start once the first has stopped")
    func oneAtATime() async throws {
        let before = Self.disposition(SIGUSR1)
        let recorder = ControlRecorder()
        let first = SignalControls(waypointSignal: SIGUSR1, stopSignals: [], logger: LogRecorder().logger)
        first.start(recorder.handler)
        #expect(first.isActive)
        let second = SignalControls(waypointSignal: SIGUSR1, stopSignals: [], logger: LogRecorder().logger)
        second.start(recorder.handler)
        #expect(!second.isActive)
        second.stop()
        #expect(Self.disposition(SIGUSR1) != before, "the second one's stop leaves the first's handler")
        first.stop()
        #expect(Self.disposition(SIGUSR1) == before)

        let third = SignalControls(waypointSignal: SIGUSR1, stopSignals: [], logger: LogRecorder().logger)
        third.start(recorder.handler)
        defer { third.stop() }
        try #require(third.isActive)
        try #require(Self.disposition(SIGUSR1) != before)
        kill(getpid(), SIGUSR1)
        #expect(await eventually { recorder.commands == [.markWaypoint] })
        third.stop()
        #expect(Self.disposition(SIGUSR1) == before)
    }

    @Test("name says which signal does what")
    func name() {
        #expect(SignalControls(logger: LogRecorder().logger).name
                == "signals (SIGUSR1: waypoint; SIGTERM, SIGINT, SIGHUP: stop)")
        #expect(SignalControls(waypointSignal: nil, stopSignals: [], logger: LogRecorder().logger).name
                == "signals (none)")
    }
}
