import Coaching
import HAL
import PacerCore
import Runtime
import Simulation
import Storage
import Synchronization
import TestSupport
import Testing

@Suite("Device runtime")
struct DeviceRuntimeTests {
    /// Two phases against a recording: too slow in the first, on pace in the second. The
    /// cues sound at the coach's times, every sampled fix is stored, and the activity closes
    /// as completed with its phase results.
    @Test func followsAWorkoutAndRecordsIt() throws {
        let rig = try Rig(recording(seconds: 130) { s in s < 60 ? 2.0 : 3.0 },
                          plan: plan(("slow part", 60, 2.5, 3.5), ("steady", 60, 2.5, 3.5)),
                          profile: profile(position: 1, alert: 20, window: 3, flush: 5))
        try rig.run()
        #expect(rig.finished.value == .completed)
        // The first judgement waits the 10 s settle time, then repeats every 20 s. After the
        // phase change at 60 s the first judgement is at 70 s, on the speeds since: on pace.
        #expect(rig.cues(.speedUp) == [10, 30, 50])
        #expect(rig.cues(.onPace).first == 70)
        #expect(rig.cues(.phaseChange) == [60])
        #expect(rig.cues(.workoutComplete) == [120])
        let id = try #require(rig.runtime.status.activityID)
        let detail = try rig.store.activities.activity(id)
        #expect(detail.summary.state == .completed)
        // A fix a second from 0 to 119 s: at 120 s the workout's end comes before that second's fix.
        #expect(detail.points.count == 120)
        #expect(detail.phaseResults.map(\.name) == ["slow part", "steady"])
        #expect(detail.cues.map(\.cue) == rig.buzzer.cues.map(\.rawValue))
        #expect(abs(detail.statistics.distance - (59 * 2.0 + 60 * 3.0)) < 1)
    }

    /// The profile's position interval decides how many points are stored.
    @Test func theProfileSamplesTheTrack() throws {
        let rig = try Rig(recording(seconds: 200) { _ in 3.0 },
                          plan: plan(("run", 180, 2.5, 3.5)),
                          profile: profile(position: 10, alert: 60, window: 20, flush: 30))
        try rig.run()
        let detail = try rig.store.activities.activity(#require(rig.runtime.status.activityID))
        // 0, 10, …, 170 s, and the receiver's latest fix (179 s) when the workout ends at 180 s.
        #expect(detail.points.count == 19)
        #expect(detail.points.last?.time.millisecondsSince1970 == detail.points.first!.time.millisecondsSince1970 + 179_000)
        #expect(rig.cues(.onPace) == [10, 70, 130])
    }

    /// A fix loss: a gps-lost cue, a reminder, gps-back; the track splits into segments.
    @Test func gpsOutageCuesAndSplitsTheTrack() throws {
        let rig = try Rig(recording(seconds: 100) { s in (30..<55).contains(s) ? nil : 3.0 },
                          plan: plan(("run", 90, 2.5, 3.5)), profile: profile(position: 1, alert: 10, window: 3))
        try rig.run()
        #expect(rig.cues(.gpsLost) == [30, 42, 54])  // reminders: the alert interval and 2 s
        // The fix is back at 55 s, a second after the reminder: gps-back waits until 2 s after
        // it (issue 39, item 1), never "lost" and "back" together.
        #expect(rig.cues(.gpsBack) == [56])
        let detail = try rig.store.activities.activity(#require(rig.runtime.status.activityID))
        #expect(Set(detail.points.map(\.segment)) == [0, 1])
        #expect(detail.points.filter { $0.segment == 0 }.count == 30)
    }

    /// The live distance (what `pacer ctl status` shows) never runs backwards: looked at every
    /// 0.1 s through a slow-down (a leg shorter than what was carried on), a fix loss (30 to
    /// 55 s) and the end; the last figure is the stored activity's.
    @Test func theLiveDistanceNeverRunsBackwards() throws {
        let rig = try Rig(recording(seconds: 100) { s in (30..<55).contains(s) ? nil : s >= 70 ? 2.0 : 3.0 },
                          plan: plan(("run", 90, 1.5, 3.5)), profile: profile(position: 1, alert: 10, window: 3))
        try rig.runtime.start()
        var shown: [(Double, Double)] = []
        for tenth in 0...1000 {
            rig.clock.advance(to: Instant.zero + .milliseconds(100 * Int64(tenth)))
            shown.append((Double(tenth) / 10, rig.runtime.status.coach.distance))
        }
        let falls = zip(shown, shown.dropFirst()).filter { $1.1 < $0.1 }
        #expect(falls.isEmpty, "\(falls.prefix(5))")
        #expect(rig.finished.value == .completed)
        let detail = try rig.store.activities.activity(#require(rig.runtime.status.activityID))
        #expect(abs(detail.summary.distance - rig.runtime.status.coach.distance) < 0.05)
        #expect(shown.last!.1 > 200)
    }

    @Test func positioningOffRunsOnTimeAlone() throws {
        let rig = try Rig(recording(seconds: 10) { _ in 3.0 }, plan: plan(("a", 30, 2, 3), ("b", 30, 2, 3)),
                          positioning: false)
        try rig.run()
        #expect(rig.cues.map(\.1) == [.started, .phaseChange, .workoutComplete])
        #expect(rig.cues.map(\.0) == [0, 30, 60])
    }

    @Test func waypointsAtTheCurrentOrLastKnownPosition() throws {
        let rig = try Rig(recording(seconds: 100) { s in s < 10 || (40..<60).contains(s) ? nil : 3.0 },
                          plan: plan(("run", 90, 2.5, 3.5)), profile: profile(position: 1, alert: 60, window: 3))
        let outcomes = OutcomeLog()
        let clock = rig.clock
        let runtime = rig.runtime
        clock.schedule(at: Instant.zero + .seconds(5)) { runtime.waypoint("too early") { outcomes.add($0) } }
        clock.schedule(at: Instant.zero + .seconds(20)) { runtime.waypoint("Water") { outcomes.add($0) } }
        clock.schedule(at: Instant.zero + .milliseconds(20_500)) { runtime.waypoint("Water") { outcomes.add($0) } }
        clock.schedule(at: Instant.zero + .seconds(50)) { runtime.waypoint("Bridge") { outcomes.add($0) } }
        try rig.run()
        let all = outcomes.all
        #expect(all.count == 4)
        #expect(all[0] == .noPositionYet)
        guard case .stored(let water) = all[1] else { Issue.record("\(all[1])"); return }
        #expect(all[2] == .duplicate, "a second press within a second is the same press")
        guard case .storedAtLastKnownPosition(let bridge) = all[3] else { Issue.record("\(all[3])"); return }
        #expect(bridge.atLastKnownPosition)
        let detail = try rig.store.activities.activity(#require(rig.runtime.status.activityID))
        #expect(detail.waypoints.map(\.name) == ["Water", "Bridge"])
        // The press at 20 s comes before that second's fix: stored where the runner was, dead
        // reckoned from the previous fix, then placed between the two fixes when the next one
        // comes (`WaypointPlacer`): the same place within centimetres.
        #expect(Geodesy.distance(detail.waypoints[0].position, water.position) < 0.05)
        #expect(rig.cues(.waypointSaved) == [20, 50])
    }

    /// On a slow profile the waypoint is taken at the receiver's latest fix, not at the last
    /// sampled one (up to a minute old on low).
    @Test func waypointsUseTheLatestFixNotTheLastSample() throws {
        let rig = try Rig(recording(seconds: 100) { _ in 3.0 }, plan: plan(("run", 90, 2.5, 3.5)),
                          profile: profile(position: 60, alert: 60, window: 60))
        let outcomes = OutcomeLog()
        let runtime = rig.runtime
        rig.clock.schedule(at: Instant.zero + .seconds(45)) { runtime.waypoint("Gate") { outcomes.add($0) } }
        try rig.run()
        guard case .stored(let gate) = outcomes.all.first else { Issue.record("\(outcomes.all)"); return }
        #expect(gate.time.millisecondOfDay == Int32((7 * 3600 + 45) * 1000))
    }

    @Test func pauseStopsTimeAndStartsANewSegment() throws {
        let rig = try Rig(recording(seconds: 200) { _ in 3.0 }, plan: plan(("run", 100, 2.5, 3.5)),
                          profile: profile(position: 1, alert: 60, window: 3))
        let clock = rig.clock
        let runtime = rig.runtime
        clock.schedule(at: Instant.zero + .seconds(30)) { runtime.pause() }
        clock.schedule(at: Instant.zero + .seconds(60)) { runtime.resume() }
        try rig.run()
        #expect(rig.cues(.workoutComplete) == [130], "30 paused seconds move the end from 100 to 130 s")
        let detail = try rig.store.activities.activity(#require(rig.runtime.status.activityID))
        #expect(Set(detail.points.map(\.segment)) == [0, 1])
        #expect(!detail.points.contains { (31..<60).contains(Int($0.time.millisecondOfDay / 1000) - 7 * 3600) })
    }

    @Test func stopEndsTheActivityAsStopped() throws {
        let rig = try Rig(recording(seconds: 200) { _ in 3.0 }, plan: plan(("run", 150, 2.5, 3.5)))
        let runtime = rig.runtime
        rig.clock.schedule(at: Instant.zero + .seconds(45)) { runtime.stop() }
        try rig.run()
        #expect(rig.finished.value == .stopped)
        let detail = try rig.store.activities.activity(#require(rig.runtime.status.activityID))
        #expect(detail.summary.state == .stopped)
        #expect(detail.phaseResults.first?.duration == .seconds(45))
        #expect(rig.cues(.workoutComplete).isEmpty)
    }

    @Test func lowBatteryCuesOnce() throws {
        let rig = try Rig(recording(seconds: 200) { _ in 3.0 }, plan: plan(("run", 150, 2.5, 3.5)),
                          profile: profile(alert: 60), battery: 12)
        try rig.run()
        #expect(rig.cues(.lowBattery) == [0])
    }
}

final class OutcomeLog: Sendable {
    private let items = Mutex<[DeviceRuntime.WaypointOutcome]>([])
    func add(_ o: DeviceRuntime.WaypointOutcome) { items.withLock { $0.append(o) } }
    var all: [DeviceRuntime.WaypointOutcome] { items.withLock { $0 } }
}

final class Replies: Sendable {
    private let items = Mutex<[String]>([])
    func add(_ s: String) { items.withLock { $0.append(s) } }
    var all: [String] { items.withLock { $0 } }
}

@Suite("Device runtime controls")
struct DeviceRuntimeControlTests {
    /// Each command is answered with one line; refusals start with `error:` so that
    /// `pacer ctl` exits non-zero.
    @Test func commandsAreAnsweredInOneLine() throws {
        let rig = try Rig(recording(seconds: 100) { s in s < 10 ? nil : 3.0 }, plan: plan(("run", 90, 2.5, 3.5)),
                          profile: profile(position: 1, alert: 60, window: 3))
        let replies = Replies()
        let runtime = rig.runtime
        let at = { (s: Int, c: ControlCommand) in
            _ = rig.clock.schedule(at: Instant.zero + .seconds(s)) { runtime.handle(c) { replies.add($0) } }
        }
        at(5, .waypoint("Early"))
        at(20, .status)
        at(21, .waypoint("Water"))
        at(30, .pause)
        at(40, .resume)
        at(50, .stop)
        try rig.run()
        let all = replies.all
        try #require(all.count == 6, "\(all)")
        #expect(all[0] == "error: no position yet: the GPS has had no fix since the start")
        #expect(all[1].hasPrefix("00:00:20  phase 1/1 run"))
        #expect(all[2].hasPrefix("waypoint 'Water' stored at 52.0"))
        #expect(all[3].hasSuffix("PAUSED"))
        #expect(!all[4].contains("PAUSED"))
        #expect(all[5].hasPrefix("stopping: "))
        #expect(rig.finished.value == .stopped)
    }
}

/// Case 6 of the reliability probe: a receiver whose clock jumps (−1 h, +1 day, −1024 weeks:
/// a week-rollover bug) mid-run. Coaching goes on; the record keeps one time line: the
/// activity's start and end, every point and waypoint, in order, the receiver's times where
/// they agree with the run's clock and the clock's where they jumped.
@Suite("GPS time jumps")
struct GPSTimeJumpTests {
    /// The test recording with its RMC/GGA times shifted by `shift(s)` seconds from second `s`.
    static func jumping(seconds: Int, shift: (Int) -> Int) -> String {
        var lines: [String] = []
        for (s, pair) in recordingLines(seconds: seconds).enumerated() {
            for line in pair { lines.append(retime(line, by: shift(s))) }
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    static func recordingLines(seconds: Int) -> [[String]] {
        let text = recording(seconds: seconds) { _ in 3.0 }
        let lines = text.split(separator: "\r\n").map(String.init).filter { $0.hasPrefix("$") }
        return stride(from: 0, to: lines.count, by: 2).map { [lines[$0], lines[$0 + 1]] }
    }

    /// A sentence with its time (and RMC date) moved by `shift` seconds, checksum redone.
    static func retime(_ line: String, by shift: Int) -> String {
        guard shift != 0 else { return line }
        var fields = line.dropFirst().split(separator: "*")[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let t = fields[1]
        let base = Int(t.prefix(2))! * 3600 + Int(t.dropFirst(2).prefix(2))! * 60 + Int(t.dropFirst(4).prefix(2))!
        var total = base + shift
        var days = Int((Double(total) / 86_400).rounded(.down))
        total -= days * 86_400
        fields[1] = nmeaTime(secondOfDay: total)
        if fields[0].hasSuffix("RMC") {
            let date = CivilDate(year: 2026, month: 5, day: 2)!.adding(days: days)
            fields[9] = String(format: "%02d%02d%02d", date.day, date.month, date.year % 100)
            days = 0
        }
        return nmea(fields.joined(separator: ","))
    }

    @Test(arguments: [("-1 h", -3600), ("+1 day", 86_400), ("-1024 weeks", -1024 * 604_800)])
    func theRecordKeepsOneTimeLine(name: String, jump: Int) throws {
        let text = Self.jumping(seconds: 130) { s in s >= 60 ? jump : 0 }
        let rig = try Rig(text, plan: plan(("run", 120, 2.5, 3.5)), profile: profile(position: 1, alert: 20, window: 3, flush: 5))
        try rig.run()
        #expect(rig.finished.value == .completed, "\(name)")
        let detail = try rig.store.activities.activity(#require(rig.runtime.status.activityID))
        let times = detail.points.map(\.time.millisecondsSince1970)
        #expect(times.count >= 118, "\(name): \(times.count) points: the ones after the jump were dropped?")
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 > $0 }, "\(name): time goes backwards in the track")
        let start = try #require(detail.summary.startedAt), end = try #require(detail.summary.endedAt)
        #expect(end.millisecondsSince1970 - start.millisecondsSince1970 == 120_000, "\(name): \(start) to \(end)")
        #expect(times.last.map { $0 <= end.millisecondsSince1970 } == true, "\(name): a point after the end")
        #expect(abs(detail.summary.elapsedTime.inSeconds - 120) < 1, "\(name)")
        #expect(detail.summary.averageSpeed <= detail.summary.maximumSpeed + 0.01, "\(name)")
        #expect(abs(detail.summary.distance - 360) < 4, "\(name): \(detail.summary.distance)")
        #expect(Set(detail.points.map(\.segment)).count == 1, "\(name)")
    }
}

/// A receiver with a week-rollover fault from its first fix (every date
/// 1024 weeks early, 2006-09-16 for 2026-05-02). The track clock's anchor is the corrected
/// time, so the activity, its points and its waypoints are dated 2026-05-02; the time line
/// is the receiver's (to the millisecond), only its era corrected.
@Suite("GPS time from a faulty receiver")
struct ReceiverTimeRuntimeTests {
    static let early = GPSTimeJumpTests.jumping(seconds: 130) { _ in -1024 * 604_800 }
    static let runStart = UTCTimestamp(date: CivilDate(year: 2026, month: 5, day: 2)!, millisecondOfDay: 7 * 3_600_000)

    @Test(arguments: [
        ("a set system clock", UTCTimestamp?.some(UTCTimestamp(millisecondsSince1970: runStart.millisecondsSince1970 - 30_000))),
        ("no set system clock", UTCTimestamp?.none),
    ])
    func theActivityIsDatedByTheCorrectedTime(name: String, system: UTCTimestamp?) throws {
        let rig = try Rig(Self.early, plan: plan(("run", 120, 2.5, 3.5)),
                          profile: profile(position: 1, alert: 20, window: 3, flush: 5),
                          systemTime: { SimulatedSystemTime(clock: $0, start: system) })
        let runtime = rig.runtime
        _ = rig.clock.schedule(at: Instant.zero + .seconds(30)) { runtime.waypoint("Gate") }
        try rig.run()
        let detail = try rig.store.activities.activity(#require(rig.runtime.status.activityID))
        let start = try #require(detail.summary.startedAt)
        #expect(start == Self.runStart, "\(name): the activity starts at \(start)")
        #expect(detail.points.count >= 118, "\(name)")
        #expect(detail.points.allSatisfy { $0.time.date == CivilDate(year: 2026, month: 5, day: 2)! }, "\(name)")
        // The receiver's own times, one a second from 07:00:00, moved by 1024 weeks only.
        #expect(detail.points.first?.time == Self.runStart, "\(name)")
        let waypoint = try #require(detail.waypoints.first)
        #expect(waypoint.time.date == CivilDate(year: 2026, month: 5, day: 2)!, "\(name): waypoint at \(waypoint.time)")
    }

    /// Without a system clock (a replayed recording), the receiver's time is taken as it
    /// is: the recording's own date, as before.
    @Test func withoutASystemClockTheReceiverIsTakenAsItIs() throws {
        let rig = try Rig(Self.early, plan: plan(("run", 120, 2.5, 3.5)),
                          profile: profile(position: 1, alert: 20, window: 3, flush: 5))
        try rig.run()
        let detail = try rig.store.activities.activity(#require(rig.runtime.status.activityID))
        #expect(detail.summary.startedAt?.date == CivilDate(year: 2006, month: 9, day: 16)!)
    }
}
