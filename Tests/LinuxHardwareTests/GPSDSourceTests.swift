import Foundation
import HAL
import LinuxHardware
import PacerCore
import TestSupport
import Testing

/// The gpsd source against a real gpsd (see GPSDTestSupport.swift for how it is started).
/// Serialized: each test runs its own gpsd, and the machine has few cores to share.
@Suite("gpsd source", .serialized, .timeLimit(.minutes(1)))
struct GPSDSourceTests {
    /// A source on the fixture's port with a sink whose events go to `log`.
    private func makeSource(
        port: Int, loop: GPSDClockLoop, log: GPSDEventLog, timing: GPSDSource.Timing = .init()
    ) -> (GPSDSource, GPSEventSink) {
        let sink = GPSEventSink(clock: loop.clock) { log.append($0) }
        let source = GPSDSource(host: "127.0.0.1", port: port, timing: timing)
        return (source, sink)
    }

    @Test("reports the same fixes as the NMEA engine decoding the same bytes, one per cycle")
    func sameFixesAsTheNMEAEngine() async throws {
        try await GPSDTest.withGPSD { gpsd in
            let loop = try await GPSDClockLoop()
            defer { loop.stop() }
            let log = GPSDEventLog()
            let (source, sink) = makeSource(port: gpsd.port, loop: loop, log: log)
            #expect(source.name == "gpsd://127.0.0.1:\(gpsd.port)")
            source.start(sink)
            defer { source.stop() }

            let enough = await eventually(within: .seconds(15)) { log.fixes.count >= 12 }
            try #require(enough, "only \(log.fixes.count) fixes; gpsd said:\n\(gpsd.daemonLog)")

            // The receiver stops; the last cycle it wrote must still come out (flushed when
            // gpsd goes quiet), not be held back waiting for a next cycle.
            gpsd.feeder.stop()
            let lastCycle = try #require(gpsd.feeder.lastWrittenCycle)
            let lastTime = GPSDSimulatedReceiver.time(ofCycle: lastCycle)
            let flushed = await eventually(within: .seconds(3)) { log.fixes.last?.time == lastTime }
            #expect(flushed, "last fix \(String(describing: log.fixes.last?.time)), last written \(lastTime)")

            let started = ContinuousClock.now
            source.stop()
            #expect(ContinuousClock.now - started < .seconds(3))

            let fixes = log.fixes
            let reference = GPSDTest.referenceFixes(gpsd.feeder.written)
            #expect(fixes.count >= 10)
            #expect(reference.count >= fixes.count)

            // One fix per cycle: distinct times, one receiver second apart, in order.
            let times = fixes.map(\.time.millisecondsSince1970)
            #expect(Set(times).count == times.count, "a cycle was delivered twice: \(times)")
            for (a, b) in zip(times, times.dropFirst()) {
                #expect(b - a == 1000, "cycles \(a) → \(b): one was skipped or repeated")
            }

            for (index, fix) in fixes.enumerated() {
                guard let expected = reference[fix.time] else {
                    Issue.record("gpsd gave a fix at \(fix.time) that the NMEA engine did not")
                    continue
                }
                #expect(abs(fix.position.latitude - expected.position.latitude) <= 1e-6, "\(fix.time)")
                #expect(abs(fix.position.longitude - expected.position.longitude) <= 1e-6, "\(fix.time)")
                // gpsd starts reading the pseudo-terminal while it hunts for the protocol, so
                // it may have missed part of the first cycle it reports; compare the rest whole.
                guard index > 0 else { continue }
                #expect(fix.mode == expected.mode)
                #expect(fix.quality == expected.quality)
                // The most complete report of each cycle: GGA's altitude and RMC's speed and
                // course are all there, as in the engine's fix of the whole cycle.
                let altitude = try #require(fix.altitude, "\(fix.time) has no altitude")
                let speed = try #require(fix.speed, "\(fix.time) has no speed")
                let course = try #require(fix.course, "\(fix.time) has no course")
                #expect(abs(altitude - (expected.altitude ?? .nan)) < 0.01)
                #expect(abs(speed - (expected.speed ?? .nan)) < 0.01)
                #expect(abs(course - (expected.course ?? .nan)) < 0.01)
            }

            let statuses = log.statuses
            #expect(statuses.first == .connected)
            #expect(statuses.contains(.fix))
            #expect(!statuses.contains(.disconnected))
            let diagnostics = source.diagnostics
            #expect(diagnostics.connections == 1)
            #expect(diagnostics.fixes == fixes.count)
            #expect(diagnostics.reports >= fixes.count)
        }
    }

    @Test("reconnects by itself when gpsd restarts, and fixes resume")
    func reconnectsAfterGPSDRestarts() async throws {
        try await GPSDTest.withGPSD { gpsd in
            let loop = try await GPSDClockLoop()
            defer { loop.stop() }
            let log = GPSDEventLog()
            let (source, sink) = makeSource(port: gpsd.port, loop: loop, log: log)
            source.start(sink)
            defer { source.stop() }

            let flowing = await eventually(within: .seconds(15)) { log.fixes.count >= 3 }
            try #require(flowing, "no fixes before the restart; gpsd said:\n\(gpsd.daemonLog)")

            let killedAt = log.count
            await gpsd.stopDaemon()
            let before = try #require(log.fixes.last).time
            let noticed = await eventually {
                GPSDEventLog.statuses(in: log.all.dropFirst(killedAt)).contains { $0.status == .disconnected }
            }
            try #require(noticed, "no .disconnected after gpsd was stopped: \(log.statuses)")
            let disconnected = try #require(
                GPSDEventLog.statuses(in: log.all.dropFirst(killedAt)).first { $0.status == .disconnected })
            let reason = try #require(disconnected.detail)
            #expect(reason.contains("gpsd at 127.0.0.1:\(gpsd.port)"), "\(reason)")
            #expect(!source.diagnostics.isConnected)

            // Same port, a new pseudo-terminal; the receiver never stopped talking.
            try await gpsd.startDaemon()
            let resumed = await eventually(within: .seconds(15)) {
                log.fixes.contains { $0.time > before }
            }
            try #require(resumed, "no fix after the restart: \(log.statuses); gpsd said:\n\(gpsd.daemonLog)")

            let after = Array(log.all.dropFirst(killedAt))
            // Disconnected, then connected again, then a fix (gpsd may say "no fix" between).
            let statuses = GPSDEventLog.statuses(in: after).map(\.status)
            let reconnected = statuses.firstIndex(of: .connected)
            #expect(statuses.first == .disconnected, "\(statuses)")
            #expect(reconnected != nil, "\(statuses)")
            #expect(statuses[(reconnected ?? statuses.endIndex)...].contains(.fix), "\(statuses)")
            let diagnostics = source.diagnostics
            #expect(diagnostics.connections == 2)
            #expect(diagnostics.connectAttempts >= 2)
            // Still one fix per cycle across the restart.
            let times = log.fixes.map(\.time)
            #expect(Set(times).count == times.count)
            #expect(times == times.sorted())
        }
    }

    @Test("without gpsd: disconnected with a clear reason, retries with backoff, stops promptly")
    func noGPSDOnThePort() async throws {
        let port = try freeLoopbackPort()
        let loop = try await GPSDClockLoop()
        defer { loop.stop() }
        let log = GPSDEventLog()
        let (source, sink) = makeSource(port: port, loop: loop, log: log)
        source.start(sink)

        // Attempts at 0, 0.25 and 0.75 s (the backoff doubles from 0.25 s).
        let retried = await eventually(within: .seconds(5)) {
            source.diagnostics.connectAttempts >= 3
        }
        #expect(retried, "\(source.diagnostics)")
        let diagnostics = source.diagnostics
        #expect(diagnostics.connections == 0)
        #expect(!diagnostics.isConnected)
        let reason = try #require(diagnostics.lastFailure)
        #expect(reason.contains("cannot connect to gpsd at 127.0.0.1:\(port)"), "\(reason)")
        #expect(sink.status == .disconnected)
        // The sink's status starts at .disconnected, so there may be no status event at all;
        // any there is says disconnected, with the reason.
        for (status, detail) in GPSDEventLog.statuses(in: log.all) {
            #expect(status == .disconnected)
            #expect(detail?.contains("cannot connect") == true)
        }
        #expect(log.fixes.isEmpty)

        // stop() interrupts the backoff wait (now 1 s or more) instead of sleeping it out.
        // The bound leaves room for a loaded CI machine and still tells the two apart.
        let started = ContinuousClock.now
        source.stop()
        #expect(ContinuousClock.now - started < .milliseconds(900))
        let attempts = source.diagnostics.connectAttempts
        #expect(await holdsThroughout(.milliseconds(600)) { source.diagnostics.connectAttempts == attempts },
                "it kept retrying after stop()")
    }

    @Test("stop() while waiting for gpsd's next cycle returns at once, not after a poll timeout")
    func stopBetweenCyclesIsPrompt() async throws {
        // At 1 Hz, once a cycle's fix is delivered (gpsd quiet for the settle time), the reader
        // waits about 0.75 s for the next cycle. A reader that polled gpsd with a timeout to
        // look at the stop flag (500 ms before) let stop() wait out that timeout; this one
        // waits on the socket and a wake-up pipe, so stop() is over in a few milliseconds.
        try await GPSDTest.withGPSD(cycleInterval: .seconds(1)) { gpsd in
            let loop = try await GPSDClockLoop()
            defer { loop.stop() }
            let log = GPSDEventLog()
            let (source, sink) = makeSource(port: gpsd.port, loop: loop, log: log)
            source.start(sink)
            defer { source.stop() }

            let flowing = await eventually(within: .seconds(15)) { log.fixes.count >= 2 }
            try #require(flowing, "only \(log.fixes.count) fixes; gpsd said:\n\(gpsd.daemonLog)")
            let seen = log.fixes.count
            let delivered = await eventually(within: .seconds(3)) { log.fixes.count > seen }
            try #require(delivered)

            // Monotonic (ContinuousClock): the wall clock plays no part.
            let (_, took) = elapsed { source.stop() }
            #expect(took < .milliseconds(200), "stop() took \(took)")
            #expect(!source.diagnostics.isConnected)

            // gpsd goes on writing cycles; the stopped source reports none of them. What it
            // handed the loop before the stop is delivered first (the loop runs in order).
            #expect(await loop.drained())
            let reported = log.count
            let cycle = gpsd.feeder.lastWrittenCycle ?? 0
            #expect(await eventually { (gpsd.feeder.lastWrittenCycle ?? 0) >= cycle + 2 }, "gpsd's cycles stopped")
            #expect(await loop.drained())
            #expect(log.count == reported, "\(log.all.suffix(log.count - reported))")
        }
    }

    @Test("a connection cut in the middle of a line: the held fix, then disconnected, then retries")
    func connectionCutMidLine() async throws {
        // What a gpsd killed with SIGKILL while writing leaves behind. With part of a line in
        // libgps's buffer, gps_waiting says "yes" at once whatever the socket holds, and
        // gps_read on the (non-blocking) socket returns 0 until more comes: the source must
        // wait on the socket itself, then notice the close, without spinning or blocking.
        let server = try GPSDFakeServer(lines: [
            #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"# + "\r\n",
            #"{"class":"TPV","device":"/dev/ttyACM0","mode":3,"time":"2024-05-15T10:00:00.000Z","#
                + #""lat":48.137,"lon":11.575,"altMSL":520.3,"speed":3.292,"track":33.0}"# + "\r\n",
            #"{"class":"TPV","device":"/dev/ttyACM0","mode":3,"time":"2024-05-15T10:00:01.0"#,
        ])
        let loop = try await GPSDClockLoop()
        defer { loop.stop() }
        let log = GPSDEventLog()
        let (source, sink) = makeSource(port: server.port, loop: loop, log: log)
        source.start(sink)
        defer { source.stop() }

        let closed = await eventually(within: .seconds(5)) { log.statuses.contains(.disconnected) }
        try #require(closed, "\(log.all)")
        #expect(log.statuses == [.connected, .fix, .disconnected])
        let fix = try #require(log.fixes.first)
        #expect(log.fixes.count == 1)
        #expect(fix.time == GPSDSimulatedReceiver.time(ofCycle: 0))
        #expect(fix.position == GeoPoint(latitude: 48.137, longitude: 11.575))
        #expect(fix.altitude == 520.3)
        #expect(fix.speed == 3.292)
        #expect(fix.course == 33.0)
        #expect(fix.mode == .threeD)
        let reason = GPSDEventLog.statuses(in: log.all).last?.detail ?? ""
        #expect(reason == "gpsd at 127.0.0.1:\(server.port) closed the connection")

        // The server is gone for good: the source keeps trying, without a crash.
        let retried = await eventually(within: .seconds(5)) {
            source.diagnostics.connectAttempts >= 2
        }
        #expect(retried)
        #expect(server.isFinished)
        #expect(source.diagnostics.connections == 1)
    }

    @Test("gpsd quiet after a fix: the fix is lost")
    func silenceLosesTheFix() async throws {
        try await GPSDTest.withGPSD { gpsd in
            let loop = try await GPSDClockLoop()
            defer { loop.stop() }
            let log = GPSDEventLog()
            let timing = GPSDSource.Timing(silence: .seconds(1))
            let (source, sink) = makeSource(port: gpsd.port, loop: loop, log: log, timing: timing)
            source.start(sink)
            defer { source.stop() }

            let flowing = await eventually(within: .seconds(15)) { log.fixes.count >= 2 }
            try #require(flowing, "no fixes; gpsd said:\n\(gpsd.daemonLog)")
            gpsd.feeder.stop()
            let lost = await eventually(within: .seconds(5)) { log.statuses.last == .fixLost }
            #expect(lost, "\(log.statuses)")
            let detail = GPSDEventLog.statuses(in: log.all).last?.detail ?? ""
            #expect(detail.contains("no report from gpsd"), "\(detail)")
            #expect(source.diagnostics.isConnected)
        }
    }

    @Test("stop() before start() is harmless, and start() after it does nothing")
    func stopBeforeStart() async throws {
        let loop = try await GPSDClockLoop()
        defer { loop.stop() }
        let log = GPSDEventLog()
        let (source, sink) = makeSource(port: try freeLoopbackPort(), loop: loop, log: log)
        source.stop()
        source.start(sink)
        #expect(await holdsThroughout(.milliseconds(300)) { source.diagnostics.connectAttempts == 0 })
        source.stop()
    }
}
