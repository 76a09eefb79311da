import HAL
import NMEA
import PacerCore
import Simulation
import Testing

/// Scripted receiver faults in a replay, on the virtual clock: which cycles arrive, and the
/// status changes the shared sink reports, at exact instants.
@Suite("Replay faults")
struct ReplayFaultTests {
    typealias F = ReplayFixture
    typealias Faults = NMEAFileSource.Faults
    typealias Window = Faults.Window

    /// 20 s at 1 Hz: the cycle at offset k s is fix k.
    static let recording = F.fixes(seconds: 20)

    /// The UTC time of the recording's first cycle, in ms since 1970.
    static let firstMilliseconds: Int64 = {
        guard case .fix(let first) = F.decode(F.fixes(seconds: 1)).epochs.first else { fatalError("no fix") }
        return first.time.millisecondsSince1970
    }()

    /// A window of whole or fractional seconds.
    static func window(_ from: Double, _ to: Double) -> Window {
        Window(from: .milliseconds(Int64(from * 1000)), to: .milliseconds(Int64(to * 1000)))
    }

    /// Replays `recording` with `faults` from `origin` (the clock moved there first) to the end.
    static func replay(
        _ faults: Faults, recording: String = recording, origin: Duration = .zero, pace: NMEAFileSource.Pace = .clock
    ) throws -> (source: NMEAFileSource, log: ReplayLog, origin: Instant, file: ReplayFile) {
        let file = F.file(recording)
        let clock = VirtualClock()
        clock.advance(by: origin)
        let source = try NMEAFileSource(path: file.path, clock: clock, pace: pace, faults: faults)
        let log = ReplayLog(clock: clock)
        source.start(log.sink())
        clock.runUntilIdle()
        #expect(clock.pendingCount == 0)
        return (source, log, Instant.zero + origin, file)
    }

    /// The recording offset (s) of each fix the handler heard.
    static func offsets(_ log: ReplayLog) -> [Int] {
        log.fixes.map { Int(($0.fix.time.millisecondsSince1970 - firstMilliseconds) / 1000) }
    }

    /// When each fix was heard, in ms from `origin`.
    static func arrivals(_ log: ReplayLog, from origin: Instant) -> [Int64] {
        log.fixes.map { ($0.at - origin).nanoseconds / 1_000_000 }
    }

    /// The status changes only, as "+ms status detail".
    static func statuses(_ log: ReplayLog, from origin: Instant) -> [String] {
        NMEAFileSourceTests.timeline(log, from: origin).filter { !$0.contains(" fix 20") }
    }

    @Test("no faults: every cycle, as before")
    func clean() throws {
        let (source, log, origin, file) = try Self.replay(Faults())
        #expect(source.name == "file://\(file.path)")
        #expect(Self.offsets(log) == Array(0..<20))
        #expect(Self.statuses(log, from: origin) == [
            "+0ms connected file://\(file.path)", "+0ms fix -", "+19000ms disconnected end of recording",
        ])
        #expect(source.withheld == 0 && source.skipped == 0 && source.delivered == 20)
    }

    @Test("outage: the window's cycles are withheld; silence loses the fix 5 s after the last one")
    func outage() throws {
        let faults = try Faults(outages: [Self.window(5, 10)])
        let (source, log, origin, file) = try Self.replay(faults, origin: .seconds(100))
        #expect(source.name == "file://\(file.path)?outage=5-10")
        #expect(Self.offsets(log) == Array(0..<5) + Array(10..<20))
        #expect(Self.arrivals(log, from: origin) == (Array(0..<5) + Array(10..<20)).map { Int64($0) * 1000 })
        #expect(Self.statuses(log, from: origin) == [
            "+0ms connected file://\(file.path)?outage=5-10",
            "+0ms fix -",
            "+9000ms fix-lost no data from \(file.path) for 5.0 seconds",  // last heard at +4 s
            "+10000ms fix -",
            "+19000ms disconnected end of recording",
        ])
        #expect(source.withheld == 5)
        #expect(source.delivered == 15)
    }

    @Test("an outage shorter than the silence timeout loses no fix")
    func shortOutage() throws {
        let (source, log, origin, _) = try Self.replay(try Faults(outages: [Self.window(5, 9)]))
        #expect(Self.offsets(log) == Array(0..<5) + Array(9..<20))
        #expect(log.statuses == [.connected, .fix, .disconnected])
        #expect(log.all.last?.at == origin + .seconds(19))
        #expect(source.withheld == 4)
    }

    @Test("an outage to the end: silent, then the recording ends when it would have")
    func outageToTheEnd() throws {
        let (_, log, origin, file) = try Self.replay(try Faults(outages: [Self.window(12, 1000)]))
        #expect(Self.offsets(log) == Array(0..<12))
        #expect(Self.statuses(log, from: origin).suffix(2) == [
            "+16000ms fix-lost no data from \(file.path) for 5.0 seconds",
            "+19000ms disconnected end of recording",
        ])
    }

    @Test("a gap in the recording itself is silence too, as from a quiet serial port")
    func gapInTheRecording() throws {
        var text = ""
        for k in [0, 1, 2, 10, 11] {
            text += F.fixCycle(centiseconds: (8 * 3600 + k) * 100, date: "010624", k: k)
        }
        let (_, log, origin, file) = try Self.replay(Faults(), recording: text)
        #expect(Self.statuses(log, from: origin) == [
            "+0ms connected file://\(file.path)",
            "+0ms fix -",
            "+7000ms fix-lost no data from \(file.path) for 5.0 seconds",
            "+10000ms fix -",
            "+11000ms disconnected end of recording",
        ])
    }

    @Test("invalid: the window's cycles arrive without a fix; fix lost, then back")
    func invalid() throws {
        let file = F.file(Self.recording)
        let clock = VirtualClock()
        let source = try NMEAFileSource(path: file.path, clock: clock, faults: try Faults(invalid: [Self.window(5, 8)]))
        #expect(source.name == "file://\(file.path)?invalid=5-8")
        let log = ReplayLog(clock: clock)
        let sink = log.sink()
        source.start(sink)
        clock.advance(to: Instant.zero + .seconds(6))
        #expect(sink.status == .fixLost)
        #expect(sink.latestFix == nil)
        clock.runUntilIdle()
        #expect(Self.offsets(log) == Array(0..<5) + Array(8..<20))
        #expect(Self.statuses(log, from: .zero) == [
            "+0ms connected file://\(file.path)?invalid=5-8",
            "+0ms fix -",
            "+5000ms fix-lost -",
            "+8000ms fix -",
            "+19000ms disconnected end of recording",
        ])
        #expect(source.delivered == 20, "the receiver kept talking")
        #expect(source.withheld == 0)
    }

    @Test("unplug: disconnected at AT, cycles lost until BACK, connected and fixing again at BACK")
    func unplug() throws {
        let (source, log, origin, file) = try Self.replay(try Faults(unplugs: [Self.window(4.5, 7.5)]), origin: .seconds(3))
        let name = "file://\(file.path)?unplug=4.5-7.5"
        #expect(source.name == name)
        #expect(Self.offsets(log) == Array(0..<5) + Array(8..<20))
        #expect(Self.arrivals(log, from: origin) == (Array(0..<5) + Array(8..<20)).map { Int64($0) * 1000 })
        #expect(Self.statuses(log, from: origin) == [
            "+0ms connected \(name)",
            "+0ms fix -",
            "+4500ms disconnected unplugged",
            "+7500ms connected \(name)",
            "+8000ms fix -",
            "+19000ms disconnected end of recording",
        ])
        #expect(source.withheld == 3)
    }

    @Test("a cycle at an unplug's start is lost; one at its end is the first heard again")
    func unplugOnACycle() throws {
        let (_, log, origin, _) = try Self.replay(try Faults(unplugs: [Self.window(5, 12), Self.window(15, 16)]))
        #expect(Self.offsets(log) == Array(0..<5) + [12, 13, 14] + Array(16..<20))
        #expect(Self.statuses(log, from: origin).dropFirst(2).map { $0.split(separator: " ").prefix(2).joined(separator: " ") } == [
            "+5000ms disconnected", "+12000ms connected", "+12000ms fix",
            "+15000ms disconnected", "+16000ms connected", "+16000ms fix",
            "+19000ms disconnected",
        ])
        #expect(log.statuses.filter { $0 == .fixLost }.isEmpty, "an unplugged receiver is not silent, it is gone")
    }

    @Test("skip: starts S seconds in; fault windows stay recording offsets")
    func skipWithOutage() throws {
        let faults = try Faults(outages: [Self.window(10, 15)], skip: .seconds(8))
        let (source, log, origin, file) = try Self.replay(faults, origin: .seconds(50))
        #expect(source.name == "file://\(file.path)?outage=10-15&skip=8")
        #expect(source.skipped == 8)
        #expect(Self.offsets(log) == [8, 9] + Array(15..<20))
        #expect(Self.arrivals(log, from: origin) == [0, 1, 7, 8, 9, 10, 11].map { Int64($0) * 1000 })
        #expect(Self.statuses(log, from: origin) == [
            "+0ms connected file://\(file.path)?outage=10-15&skip=8",
            "+0ms fix -",
            "+6000ms fix-lost no data from \(file.path) for 5.0 seconds",
            "+7000ms fix -",
            "+11000ms disconnected end of recording",
        ])
    }

    @Test("skip into an unplug: the device starts unplugged and is plugged in at BACK")
    func skipIntoAnUnplug() throws {
        let faults = try Faults(invalid: [Self.window(0, 12)], unplugs: [Self.window(4, 9)], skip: .seconds(6))
        let (source, log, origin, file) = try Self.replay(faults)
        #expect(source.skipped == 6)
        #expect(source.withheld == 3)  // offsets 6, 7, 8
        #expect(Self.offsets(log) == Array(12..<20))
        #expect(Self.statuses(log, from: origin).map { $0.split(separator: " ").prefix(3).joined(separator: " ") } == [
            "+0ms disconnected unplugged",
            "+3000ms connected file://\(file.path)?invalid=0-12&unplug=4-9&skip=6",
            "+3000ms acquiring -",  // offset 9 is still invalid
            "+6000ms fix -",
            "+13000ms disconnected end",
        ])
    }

    @Test("skip past the end: opened and ended at once")
    func skipPastTheEnd() throws {
        let (source, log, _, _) = try Self.replay(try Faults(skip: .seconds(100)))
        #expect(source.skipped == 20)
        #expect(log.statuses == [.connected, .disconnected])
        #expect(log.all.allSatisfy { $0.at == .zero })
    }

    @Test("a fractional skip starts at the first cycle at or after it")
    func fractionalSkip() throws {
        let (source, log, origin, _) = try Self.replay(try Faults(skip: .milliseconds(3500)))
        #expect(source.skipped == 4)
        #expect(Self.offsets(log).first == 4)
        #expect(log.fixes.first?.at == origin)
        #expect(log.fixes.last?.at == origin + .seconds(15))
    }

    @Test("every fault together replays the same every time")
    func deterministic() throws {
        let faults = try Faults(
            outages: [Self.window(2, 9)], invalid: [Self.window(10, 11.5)], unplugs: [Self.window(13, 15.25)],
            skip: .seconds(1))
        let first = try Self.replay(faults)
        let second = try Self.replay(faults)
        let timeline = { (r: (source: NMEAFileSource, log: ReplayLog, origin: Instant, file: ReplayFile)) in
            NMEAFileSourceTests.timeline(r.log, from: r.origin)
                .map { $0.replacingOccurrences(of: r.file.path, with: "PATH") }
        }
        #expect(timeline(first) == timeline(second))
        #expect(first.log.statuses == [
            .connected, .fix, .fixLost, .fix, .fixLost, .fix, .disconnected, .connected, .fix, .disconnected,
        ])
    }

    @Test("as fast as possible: the same cycles arrive, all at the start instant, no time to be silent")
    func asFastAsPossible() throws {
        let faults = try Faults(outages: [Self.window(5, 10)], unplugs: [Self.window(12, 14)])
        let (_, log, origin, _) = try Self.replay(faults, pace: .asFastAsPossible)
        #expect(Self.offsets(log) == Array(0..<5) + Array(10..<12) + Array(14..<20))
        #expect(log.all.allSatisfy { $0.at == origin })
        #expect(log.statuses == [.connected, .fix, .disconnected, .connected, .fix, .disconnected])
    }

    @Test("stop also cancels a pending silence watch")
    func stopBeforeSilence() throws {
        var text = ""
        for k in [0, 1, 2, 10, 11] {
            text += F.fixCycle(centiseconds: (8 * 3600 + k) * 100, date: "010624", k: k)
        }
        let file = F.file(text)
        let clock = VirtualClock()
        let source = try NMEAFileSource(path: file.path, clock: clock)
        let log = ReplayLog(clock: clock)
        source.start(log.sink())
        clock.advance(to: Instant.zero + .seconds(3))
        #expect(clock.pendingCount == 2, "the cycle at +10 s and the silence watch at +7 s")
        source.stop()
        clock.runUntilIdle()
        #expect(log.statuses == [.connected, .fix])
        #expect(clock.pendingCount == 0)
    }

    // MARK: - The fault values

    @Test("windows are sorted, written back as given, with exact fractions")
    func parsingAndNames() throws {
        let faults = try Faults(query: [
            "outage": "60-90.25,10-20", "invalid": "0.1-0.2", "unplug": "100-200", "skip": "7.000000001",
        ])
        #expect(faults.outages == [Self.window(10, 20), Self.window(60, 90.25)])
        #expect(faults.invalid == [Window(from: .milliseconds(100), to: .milliseconds(200))])
        #expect(faults.skip == .nanoseconds(7_000_000_001))
        #expect(faults.queryItems == ["outage=10-20,60-90.25", "invalid=0.1-0.2", "unplug=100-200", "skip=7.000000001"])
        #expect(try Faults(query: ["pace": "fast"]).isEmpty)
        #expect(try Faults(outages: [Self.window(10, 20), Self.window(20, 30)]).outages.count == 2, "touching is fine")
    }

    @Test(arguments: [
        ("outage", "20-10", "window 20-10 does not end after it starts"),
        ("invalid", "10-10", "window 10-10 does not end after it starts"),
        ("unplug", "-5-10", "'-5-10' has a negative time"),
        ("skip", "-3", "'-3' is negative"),
        ("outage", "abc-10", "'abc' is not a number of seconds"),
        ("outage", "10", "'10' is not a window FROM-TO"),
        ("outage", "10-20-30", "'10-20-30' is not a window FROM-TO"),
        ("outage", "10-20,", "'' is not a window FROM-TO"),
        ("invalid", "1e3-2e3", "'1e3' is not a number of seconds"),
        ("unplug", "5-", "'' is not a number of seconds"),
        ("skip", "inf", "'inf' is not a number of seconds"),
        ("skip", ".5", "'.5' is not a number of seconds"),
        ("skip", "1.0000000001", "finer than a nanosecond"),
        ("skip", "99999999999", "too large"),
        ("outage", "10-20,15-30", "windows 10-20 and 15-30 overlap"),
        ("unplug", "50-60,0-55", "windows 0-55 and 50-60 overlap"),
    ])
    func malformed(key: String, value: String, reason: String) {
        let error = #expect(throws: NMEAFileSource.FaultError.self) { try Faults(query: [key: value]) }
        #expect(error?.key == key)
        #expect(error?.value == value)
        #expect(error?.description.hasPrefix("\(key)=\(value): ") == true)
        #expect(error?.reason.contains(reason) == true, "\(String(describing: error))")
    }
}
