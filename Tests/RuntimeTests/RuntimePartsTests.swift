import Coaching
import Foundation
import HAL
import Logging
import PacerCore
@testable import Runtime
import Simulation
import Storage
import Synchronization
import TestSupport
import Testing

/// The runtime's parts, each on its own, on the virtual clock and a real SQLite store.
@Suite("Runtime parts")
struct RuntimePartsTests {
    // MARK: BatteryWatch

    @Test func batteryIsReportedEveryFivePercentAndWarnsOnceWhenLow() {
        var watch = BatteryWatch()
        func seen(_ percent: Double?, charging: Bool = false) -> BatteryWatch.Outcome {
            watch.observe(percent.map { BatteryReading(percent: $0, charging: charging) })
        }
        #expect(seen(100) == .init(changed: true, warnLow: false), "the first reading is reported")
        #expect(seen(99) == .init(changed: true, warnLow: false), "100 % is a step of its own")
        #expect(seen(95.5) == .init(changed: false, warnLow: false), "within the same 5 % step")
        #expect(seen(94.9) == .init(changed: true, warnLow: false))
        #expect(seen(14, charging: true) == .init(changed: true, warnLow: false), "charging is never low")
        #expect(seen(12) == .init(changed: false, warnLow: true), "low, not charging")
        #expect(seen(11) == .init(changed: false, warnLow: false), "the cue sounds once")
        #expect(seen(9) == .init(changed: true, warnLow: false))
        #expect(seen(nil) == .init(changed: true, warnLow: false), "a gauge that stops answering is a change")
        #expect(watch.reading == nil)
        var boundary = BatteryWatch()
        #expect(boundary.observe(BatteryReading(percent: 15, charging: false)).warnLow, "15 % is low")
    }

    // MARK: TrackClock

    static let t0 = UTCTimestamp(millisecondsSince1970: 1_777_705_200_000)

    static func fix(_ secondsAfter: Int64, _ north: Double = 0) -> Fix {
        Fix(time: UTCTimestamp(millisecondsSince1970: t0.millisecondsSince1970 + secondsAfter * 1000),
            position: GeoPoint(latitude: 52 + north / 111_195, longitude: 4.3), altitude: 5, speed: 3)
    }

    @Test func trackPointsKeepOneTimeLineAndOpenSegmentsAfterBreaks() throws {
        var track = TrackClock(logger: Logger(label: "test"))
        let start = Instant.zero + .seconds(100)
        track.anchor(at: start, gpsTime: Self.t0)
        track.anchor(at: start + .seconds(50), gpsTime: Self.fix(999).time)  // the first anchor stays
        #expect(track.utc(at: start + .seconds(10))?.millisecondsSince1970 == Self.t0.millisecondsSince1970 + 10_000)
        #expect(track.utcStart(startedAt: start - .seconds(3))?.millisecondsSince1970
            == Self.t0.millisecondsSince1970 - 3000)

        track.breakSegment()  // before any point: the first segment is still 0
        let firstPlaced = track.place(Self.fix(0), arrival: start)
        let first = try #require(firstPlaced)
        #expect(first.segment == 0 && first.time == Self.t0)
        let again = track.place(Self.fix(0), arrival: start + .seconds(1))
        #expect(again == nil, "a point is stored once")
        let secondPlaced = track.place(Self.fix(1), arrival: start + .seconds(1))
        let second = try #require(secondPlaced)
        #expect(second.segment == 0)
        track.breakSegment()
        let thirdPlaced = track.place(Self.fix(5), arrival: start + .seconds(5))
        let third = try #require(thirdPlaced)
        #expect(third.segment == 1)
        #expect(track.points == 3)

        // The receiver's clock jumps back 1024 weeks: the point is recorded on the run's clock.
        var jumped = Self.fix(6)
        jumped.time = UTCTimestamp(millisecondsSince1970: jumped.time.millisecondsSince1970 - 1024 * 7 * 86_400_000)
        let fourthPlaced = track.place(jumped, arrival: start + .seconds(6))
        let fourth = try #require(fourthPlaced)
        #expect(track.timeJumped)
        #expect(fourth.time.millisecondsSince1970 == Self.t0.millisecondsSince1970 + 6000)
        // It agrees again: its own time once more.
        let fifthPlaced = track.place(Self.fix(7), arrival: start + .seconds(7) + .milliseconds(300))
        let fifth = try #require(fifthPlaced)
        #expect(!track.timeJumped)
        #expect(fifth.time == Self.fix(7).time)
        #expect(TrackClock.describeJump(-1024 * 7 * 86_400_000) == "-7168 d 0 h")
        #expect(TrackClock.describeJump(3_661_000) == "+1 h 1 min")
    }

    // MARK: Receiver

    /// The device's receiver over a sink, as the firmware makes it: what the sink hands to the
    /// loop passes `admit`, and the statuses admitted are collected.
    private static func receiver(_ clock: VirtualClock, monitor: (any PowerMonitor)?, hotStart: Duration = .seconds(1))
        -> (Receiver, GPSEventSink, Handed)
    {
        let handed = Handed()
        let box = Mutex<Receiver?>(nil)
        let sink = GPSEventSink(clock: clock) { event in
            guard box.withLock({ $0 })?.admit(event) == true else { return }
            if case .status(let status, _) = event { handed.statuses.withLock { $0.append(status) } }
        }
        let receiver = Receiver(clock: clock, source: nil, sink: sink, monitor: monitor, hotStart: hotStart)
        box.withLock { $0 = receiver }
        return (receiver, sink, handed)
    }

    final class Handed: Sendable {
        let statuses = Mutex<[GPSStatus]>([])
        var all: [GPSStatus] { statuses.withLock { $0 } }
    }

    @Test func aReceiverInBackupSleepsBetweenPositionsAndIsWokenBeforeTheNext() {
        let clock = VirtualClock()
        let log = PowerLog()
        let (receiver, sink, handed) = Self.receiver(clock, monitor: log)
        receiver.set(.tracking)
        receiver.set(.tracking)  // no change: nothing said twice
        #expect(log.gpsStates.map(\.1) == ["gps tracking"])
        sink.opened("test")
        sink.fix(Self.fix(0))
        clock.runPending()

        let woke = WakeCount()
        receiver.sleep(positionInterval: .seconds(30)) { woke.add() }
        #expect(receiver.isAsleep && receiver.current == .backup)
        // A sleeping receiver's silence is no loss: the receiver admits it to nobody.
        sink.silent("quiet")
        clock.runPending()
        #expect(handed.all == [.connected, .fix])
        #expect(receiver.status.status == .fix && receiver.hasFix)
        // Woken a hot start (1 s) and a margin (2 s) before the next position, 30 s on.
        clock.advance(to: .zero + .seconds(26))
        #expect(receiver.isAsleep)
        clock.advance(to: .zero + .seconds(27))
        #expect(!receiver.isAsleep && woke.count == 1)
        #expect(log.gpsStates.map(\.1) == ["gps tracking", "gps backup", "gps acquiring"])
        #expect(log.gpsStates.last?.0 == 27)
        // Searching just after the wake is expected, until the hot start and the grace (11 s)
        // are over; a fix ends the wake, and a loss after it counts.
        clock.advance(to: .zero + .seconds(37))
        sink.noFix()
        clock.runPending()
        #expect(handed.all == [.connected, .fix])
        clock.advance(to: .zero + .seconds(38))
        sink.noFix()
        sink.fix(Self.fix(38))
        sink.silent("quiet")
        clock.runPending()
        #expect(handed.all == [.connected, .fix, .fix, .fixLost])
        #expect(receiver.status == .init(status: .fixLost, detail: "quiet", previous: .fix))
        #expect(!receiver.hasFix)
    }

    /// Unplugged is a loss, asleep or not.
    @Test func anUnplugWhileAsleepIsHandedOn() {
        let clock = VirtualClock()
        let (receiver, sink, _) = Self.receiver(clock, monitor: nil)
        sink.opened("test")
        sink.fix(Self.fix(0))
        clock.runPending()
        receiver.sleep(positionInterval: .seconds(30)) {}
        sink.closed("unplugged")
        clock.runPending()
        #expect(receiver.status == .init(status: .disconnected, detail: "unplugged", previous: .fix))
    }

    @Test func aNapShorterThanTheHotStartIsNotTaken() {
        let clock = VirtualClock()
        let log = PowerLog()
        let (receiver, _, _) = Self.receiver(clock, monitor: log, hotStart: .seconds(5))
        receiver.sleep(positionInterval: .seconds(12)) {}
        #expect(!receiver.isAsleep, "12 s - 5 s hot start - 2 s margin leaves 5 s: not worth it")
        receiver.sleep(positionInterval: .seconds(13)) {}
        #expect(receiver.isAsleep)
        receiver.workoutFinished()
        clock.advance(by: .seconds(60))
        #expect(receiver.isAsleep, "finished: no wake comes")
        #expect(Receiver.powerState(after: .fix, mode: .powerSave) == .powerSave)
        #expect(Receiver.powerState(after: .fixLost, mode: .powerSave) == .acquiring)
        #expect(Receiver.powerState(after: .disconnected, mode: .tracking) == .off)
    }

    /// A workout starting on a receiver the device has listened to: its sampling begins
    /// afresh at the profile's interval from the latest fix, which is handed over as the
    /// first position update with the status; a workout on a receiver never heard gets
    /// nothing to act on.
    @Test func aWorkoutStartsFromWhereTheReceiverStands() {
        let clock = VirtualClock()
        let events = Mutex<[GPSEvent]>([])
        let box = Mutex<Receiver?>(nil)
        let sink = GPSEventSink(clock: clock) { event in
            if box.withLock({ $0 })?.admit(event) == true { events.withLock { $0.append(event) } }
        }
        let receiver = Receiver(clock: clock, source: nil, sink: sink, monitor: nil, hotStart: .seconds(1))
        box.withLock { $0 = receiver }
        #expect(receiver.startWorkout(profile(position: 10)).isEmpty)
        sink.opened("test")
        for s in Int64(0)..<3 {
            clock.advance(to: .zero + .seconds(s))
            sink.fix(Self.fix(s))
        }
        clock.runPending()
        let standing = receiver.startWorkout(profile(position: 10))
        #expect(standing == [.status(.fix, detail: nil), .fix(Self.fix(2))])
        events.withLock { $0.removeAll() }
        for s in Int64(3)..<13 {
            clock.advance(to: .zero + .seconds(s))
            sink.fix(Self.fix(s))
        }
        clock.runPending()
        // 10 s after the fix handed over is the next position update; the others are readings.
        let updates = events.withLock { $0 }.compactMap { e -> Int64? in
            if case .fix(let f) = e { f.time.millisecondsSince1970 / 1000 } else { nil }
        }
        #expect(updates == [Self.fix(12).time.millisecondsSince1970 / 1000])
        sink.noFix()
        clock.runPending()
        #expect(receiver.startWorkout(profile(position: 10)) == [.status(.fixLost, detail: nil)])
    }

    // MARK: CuePlayer and StorageWriter

    @Test func aCueSoundsIsChargedAndIsStoredWithTheActivity() throws {
        let folder = TemporaryDirectory()
        let dir = folder.path
        let clock = VirtualClock()
        let store = try PacerStore(directory: dir)
        let log = PowerLog()
        let buzzer = RecordingBuzzer(clock: clock)
        let writer = StorageWriter(log: store.activities, clock: clock, logger: Logger(label: "test"))
        let player = CuePlayer(buzzer: buzzer, cues: testCues, clock: clock, power: log, writer: writer)
        let activity = try writer.begin(ActivityStart(name: "t", startedAt: nil, plan: nil, workout: nil, profile: "test"))
        clock.advance(by: .seconds(3))
        player.play(.speedUp, style: .beeps, phase: 1, activity: activity, elapsed: .seconds(3))
        player.play(.started, style: .beeps, phase: nil, activity: nil, elapsed: .zero)  // not recording: not stored
        #expect(buzzer.cues == [.speedUp, .started])
        #expect(player.lastCue == .started)
        #expect(log.entries.filter { $0.1.hasPrefix("buzzer") }.map(\.0) == [3, 3])
        #expect(writer.commit(nil) == .stored)
        let cues = try store.activities.activity(activity).cues
        #expect(cues == [CueRecord(elapsed: .seconds(3), cue: "speed-up", phase: 1)])
    }

    @Test func aFailingCommitIsReportedOnceAndRecoversWhenStorageWorksAgain() throws {
        let folder = TemporaryDirectory()
        let dir = folder.path + "/data"
        let away = folder.path + "/away"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let clock = VirtualClock()
        let store = try PacerStore(directory: dir)
        let writer = StorageWriter(log: store.activities, clock: clock, logger: Logger(label: "test"))
        let activity = try writer.begin(ActivityStart(name: "t", startedAt: nil, plan: nil, workout: nil, profile: "test"))
        #expect(writer.commit(nil) == .stored)
        // The data folder goes away (a card pulled, a folder moved) and cannot be made again
        // (a file where it was): commits fail, nothing is lost yet.
        #expect(rename(dir, away) == 0)
        #expect(FileManager.default.createFile(atPath: dir, contents: nil))
        writer.append(TrackPoint(segment: 0, time: Self.t0, position: Self.fix(0).position, altitude: 5, speed: 3),
                      to: activity)
        guard case .failed(let reason, first: true) = writer.commit(nil) else {
            Issue.record("the first failed commit is the one to tell")
            return
        }
        #expect(reason.contains("cannot be made again"), "\(reason)")
        guard case .failed(_, first: false) = writer.commit(nil) else {
            Issue.record("told once")
            return
        }
        #expect(store.activities.uncommitted.waiting == 1)
        // The end fails too: what waits is kept, with the close, for `finishAgain`.
        let totals = ActivityTotals(startedAt: Self.t0, elapsed: .seconds(1), timer: .seconds(1), moving: .seconds(1),
                                    distance: 10, maximumSpeed: 3)
        writer.finish(activity, totals: totals, end: .completed, activeTime: .seconds(1))
        #expect(writer.loss?.waiting == 1)
        #expect(!writer.finishAgain())
        // It comes back: the waiting point reaches the disk, and the activity is closed.
        try FileManager.default.removeItem(atPath: dir)
        #expect(rename(away, dir) == 0)
        #expect(writer.finishAgain())
        #expect(writer.loss == nil)
        let stored = try store.activities.activity(activity)
        #expect(stored.points.count == 1)
        #expect(stored.summary.state == .completed)
    }
}

final class WakeCount: Sendable {
    private let n = Mutex(0)
    func add() { n.withLock { $0 += 1 } }
    var count: Int { n.withLock { $0 } }
}
