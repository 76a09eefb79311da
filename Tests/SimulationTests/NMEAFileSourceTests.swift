import HAL
import NMEA
import PacerCore
import Simulation
import Testing

/// Replaying recordings on the virtual clock: when each cycle is released, what the sink
/// reports, and that a replay is the same every time.
@Suite("NMEA file source")
struct NMEAFileSourceTests {
    typealias F = ReplayFixture

    /// A 1 Hz recording with a comment header, crossing midnight into 2025, with a stretch
    /// without a fix (two timed no-fix cycles and a report with no time at all).
    static let recording: String = {
        var text = "# Pacer test recording: synthetic, 1 Hz\n# receiver: none (generated)\n"
        let start = (23 * 3600 + 59 * 60 + 57) * 100  // 23:59:57.00
        for k in 0..<9 {
            let t = start + k * 100
            let date = k < 3 ? "311224" : "010125"
            switch k {
            case 5, 6: text += F.noFixCycle(centiseconds: t, date: date)
            default: text += F.fixCycle(centiseconds: t, date: date, k: k)
            }
            if k == 6 { text += F.timelessNoFix }
        }
        return text
    }()

    static func timeline(_ log: ReplayLog, from origin: Instant) -> [String] {
        log.all.map { entry in
            let at = "+\((entry.at - origin).nanoseconds / 1_000_000)ms"
            switch entry.event {
            case .status(let status, let detail): return "\(at) \(status.rawValue) \(detail ?? "-")"
            case .fix(let fix): return "\(at) fix \(fix.time.iso8601)"
            case .reading(let fix): return "\(at) reading \(fix.time.iso8601)"
            }
        }
    }

    @Test("paced: nothing before the clock moves, then each cycle exactly at its UTC offset")
    func paced() throws {
        let file = F.file(Self.recording)
        let clock = VirtualClock()
        clock.advance(by: .seconds(100))
        let origin = clock.now
        let source = try NMEAFileSource(path: file.path, clock: clock, pace: .clock)
        #expect(source.name == "file://\(file.path)")
        let log = ReplayLog(clock: clock)
        source.start(log.sink())
        #expect(log.all.isEmpty)

        clock.runPending()  // the first cycle is due at the start instant
        #expect(Self.timeline(log, from: origin) == [
            "+0ms connected file://\(file.path)", "+0ms fix -", "+0ms fix 2024-12-31T23:59:57.000Z",
        ])
        clock.advance(by: .milliseconds(999))
        #expect(log.all.count == 3)
        clock.advance(by: .milliseconds(1))
        #expect(log.all.count == 4)
        #expect(log.fixes.last?.at == origin + .seconds(1))

        clock.runUntilIdle()
        #expect(Self.timeline(log, from: origin) == [
            "+0ms connected file://\(file.path)",
            "+0ms fix -",
            "+0ms fix 2024-12-31T23:59:57.000Z",
            "+1000ms fix 2024-12-31T23:59:58.000Z",
            "+2000ms fix 2024-12-31T23:59:59.000Z",
            "+3000ms fix 2025-01-01T00:00:00.000Z",
            "+4000ms fix 2025-01-01T00:00:01.000Z",
            "+5000ms fix-lost -",
            // 00:00:03 (no fix) and the timeless report at +6 s change nothing.
            "+7000ms fix -",
            "+7000ms fix 2025-01-01T00:00:04.000Z",
            "+8000ms fix 2025-01-01T00:00:05.000Z",
            "+8000ms disconnected end of recording",
        ])
        #expect(log.statuses == [.connected, .fix, .fixLost, .fix, .disconnected])

        // The fixes are exactly what the NMEA engine decodes from the file.
        let decoded = F.decode(Self.recording)
        let expected = decoded.epochs.compactMap { if case .fix(let f) = $0 { f } else { nil } }
        #expect(log.fixes.map(\.fix) == expected)
        #expect(source.statistics == decoded.statistics)
        #expect(source.delivered == decoded.epochs.count)
        #expect(decoded.epochs.count == 10)
        #expect(clock.pendingCount == 0)
    }

    @Test("a cycle without a time is released with the cycle before it")
    func timelessCycle() throws {
        let file = F.file(Self.recording)
        let clock = VirtualClock()
        let source = try NMEAFileSource(path: file.path, clock: clock, pace: .clock)
        source.start(GPSEventSink(clock: clock) { _ in })
        // Cycles handed to the sink by each second of the replay: the timeless report
        // (the 8th) goes at +6 s with the 00:00:03 cycle before it.
        var deliveredBy: [Int64: Int] = [:]
        var last = 0
        while let next = clock.nextDeadline {
            clock.advance(to: next)
            // Seconds in which cycles went out (the sink's silence check also wakes the clock).
            guard source.delivered > last else { continue }
            last = source.delivered
            deliveredBy[clock.now.nanoseconds / 1_000_000_000] = source.delivered
        }
        #expect(deliveredBy == [0: 1, 1: 2, 2: 3, 3: 4, 4: 5, 5: 6, 6: 8, 7: 9, 8: 10])
    }

    @Test("a 10 Hz recording sampled every 10 s gives one fix per 10 s")
    func sampled10Hz() throws {
        var text = "# 10 Hz, 35 s\n"
        let start = 8 * 3600 * 100  // 08:00:00.00
        for k in 0..<350 {
            text += F.fixCycle(centiseconds: start + k * 10, date: "010624", k: k)
        }
        let file = F.file(text)
        let clock = VirtualClock()
        let origin = clock.now
        let source = try NMEAFileSource(path: file.path, clock: clock, pace: .clock)
        let log = ReplayLog(clock: clock)
        source.start(log.sink(samplingInterval: .seconds(10)))
        clock.runUntilIdle()

        let fixes = log.fixes
        #expect(fixes.map(\.at) == [0, 10, 20, 30].map { origin + .seconds($0) })
        #expect(fixes.map(\.fix.time.iso8601) == [
            "2024-06-01T08:00:00.000Z", "2024-06-01T08:00:10.000Z",
            "2024-06-01T08:00:20.000Z", "2024-06-01T08:00:30.000Z",
        ])
        #expect(log.all.last?.at == origin + .milliseconds(34_900))
        #expect(log.statuses.last == .disconnected)
        #expect(source.delivered == 350)
    }

    @Test("as fast as possible: every cycle, in order, at the start instant")
    func asFastAsPossible() throws {
        let file = F.file(Self.recording)
        let clock = VirtualClock()
        clock.advance(by: .seconds(42))
        let origin = clock.now
        let source = try NMEAFileSource(path: file.path, clock: clock, pace: .asFastAsPossible)
        #expect(source.name == "file://\(file.path)?pace=fast")
        let log = ReplayLog(clock: clock)
        source.start(log.sink())
        #expect(log.all.isEmpty)
        clock.runPending()

        #expect(clock.now == origin)
        #expect(log.all.allSatisfy { $0.at == origin })
        #expect(log.fixes.count == 7)
        #expect(log.fixes.map(\.fix.time) == log.fixes.map(\.fix.time).sorted())
        #expect(log.statuses == [.connected, .fix, .fixLost, .fix, .disconnected])
        // Only the sink's silence check, cancelled at the end of the recording, is left in the
        // queue until its deadline; nothing runs there.
        #expect(clock.pendingCount <= 1)
        let before = log.all.count
        clock.runUntilIdle()
        #expect(log.all.count == before)
    }

    @Test("speed N replays N times faster")
    func speed() throws {
        let file = F.file(Self.recording)
        let clock = VirtualClock()
        let source = try NMEAFileSource(path: file.path, clock: clock, pace: .clock, speed: 4)
        #expect(source.name == "file://\(file.path)?speed=4")
        let log = ReplayLog(clock: clock)
        source.start(log.sink())
        clock.runUntilIdle()
        #expect(log.fixes.map { $0.at.nanoseconds / 1_000_000 } == [0, 250, 500, 750, 1000, 1750, 2000])
        #expect(log.all.last?.at == Instant.zero + .seconds(2))
    }

    @Test("two replays give identical event lists")
    func deterministic() throws {
        let file = F.file(Self.recording)
        func replay() throws -> [ReplayLog.Entry] {
            let clock = VirtualClock()
            let source = try NMEAFileSource(path: file.path, clock: clock, pace: .clock)
            let log = ReplayLog(clock: clock)
            source.start(log.sink())
            clock.runUntilIdle()
            return log.all
        }
        let first = try replay()
        #expect(first.count == 12)
        #expect(try replay() == first)
    }

    @Test("stop cancels what is scheduled; nothing is reported after it")
    func stop() throws {
        let file = F.file(Self.recording)
        let clock = VirtualClock()
        let source = try NMEAFileSource(path: file.path, clock: clock, pace: .clock)
        let log = ReplayLog(clock: clock)
        source.start(log.sink())
        clock.advance(by: .seconds(2))
        #expect(log.fixes.count == 3)
        source.stop()
        let heard = log.all
        clock.runUntilIdle()
        #expect(log.all == heard)
        #expect(clock.pendingCount == 0)
        source.stop()
    }

    @Test("a long recording is read and scheduled one cycle at a time")
    func streaming() throws {
        var text = ""
        for k in 0..<2000 {
            text += F.fixCycle(centiseconds: 6 * 3600 * 100 + k * 100, date: "150624", k: k)
        }
        let file = F.file(text)
        let clock = VirtualClock()
        let source = try NMEAFileSource(path: file.path, clock: clock, pace: .clock)
        let log = ReplayLog(clock: clock)
        source.start(log.sink())
        // The opened event, the first cycle and the sink's silence check.
        #expect(clock.pendingCount <= 3)
        #expect(source.statistics.bytes < text.utf8.count / 4)  // read ahead one chunk only
        var most = 0
        for _ in 0..<100 {
            clock.advance(by: .seconds(1))
            most = max(most, clock.pendingCount)
        }
        // The next cycle, the silence check, and the last check cancelled by the one after it
        // (a cancelled timer leaves the queue at its deadline): not the whole recording.
        #expect(most <= 4)
        #expect(log.fixes.count == 101)  // at 0, 1, …, 100 s
        clock.runUntilIdle()
        #expect(log.fixes.count == 2000)
        #expect(source.statistics.bytes == text.utf8.count)
    }

    @Test("a recording of comments only opens and ends at once")
    func empty() throws {
        let file = F.file("# nothing recorded\n")
        let clock = VirtualClock()
        let source = try NMEAFileSource(path: file.path, clock: clock, pace: .clock)
        let log = ReplayLog(clock: clock)
        source.start(log.sink())
        clock.runUntilIdle()
        #expect(log.statuses == [.connected, .disconnected])
        #expect(log.all.allSatisfy { $0.at == .zero })
    }

    @Test("a missing file or a directory is refused at init, naming the path and the reason")
    func unreadable() throws {
        let file = F.file("")
        let clock = VirtualClock()
        let missing = file.directory + "/missing.nmea"
        let error = #expect(throws: RecordingError.self) {
            _ = try NMEAFileSource(path: missing, clock: clock, pace: .clock)
        }
        #expect(error?.description == "\(missing): No such file or directory")

        let directory = #expect(throws: RecordingError.self) {
            _ = try NMEAFileSource(path: file.directory, clock: clock, pace: .clock)
        }
        #expect(directory?.description == "\(file.directory): Is a directory")
    }
}
