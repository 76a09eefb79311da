import Foundation
#if canImport(Glibc)
import Glibc
#endif
import PacerCore
import Synchronization
import TestSupport
import Testing

/// Time from a faulty receiver. A receiver with a week-rollover fault from
/// its first fix reports every date 1024 weeks (7168 days) early: 2006-09-16 for 2026-05-02.
/// The activity must be dated by the corrected time, and a plan whose deadline has passed
/// must be refused, through the `pacer` binary: replays on a scripted system clock, and a
/// serial receiver on a pseudo-terminal against the machine's own clock (the board's adapter).
@Suite("A receiver 1024 weeks early", .serialized)
struct RolloverEndToEndTests {
    static let week: Int64 = 7 * 86_400_000
    static let era: Int64 = 1024 * week

    /// The bundled recording (2026-05-02) with every RMC date 1024 weeks early (2006-09-16).
    static func rolloverRecording(in dir: String) throws -> String {
        let text = try String(contentsOfFile: Pacer.trackLoop, encoding: .utf8)
        var changed = 0
        // Swift takes "\r\n" for one character: lines are cut on either ending.
        let lines = text.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n").map { line -> String in
            guard line.hasPrefix("$"), line.contains("RMC,"), let star = line.firstIndex(of: "*") else { return line }
            var fields = line[line.index(after: line.startIndex)..<star].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard fields[9] == "020526" else { return line }
            fields[9] = "160906"
            changed += 1
            return nmea(fields.joined(separator: ","))
        }
        #expect(changed == 600, "the recording's RMC sentences, one a second for ten minutes")
        return try write(lines.joined(separator: "\n"), to: "rollover.nmea", in: dir)
    }

    /// `pacer run --fast` on the rollover recording with `--system-clock CLOCK`: the run's
    /// output, and `pacer activities list`.
    static func run(_ clock: String, recording: String? = nil, in dir: String) throws -> (ProcessResult, String) {
        let source = try recording ?? rolloverRecording(in: dir)
        let run = try Pacer.run([
            "run", "--plan", "easy-run", "--source", "file:\(source)", "--fast", "--buzzer", "null",
            "--data-dir", "\(dir)/data", "--socket", "\(dir)/control.sock", "--system-clock", clock,
        ])
        let list = try Pacer.run(["activities", "list", "--data-dir", "\(dir)/data"])
        return (run, list.stdout)
    }

    static func occurrences(of needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }

    /// With a set system clock, the correction lands near it: the activity, its points and
    /// the GPX export are dated 2026-05-02; the fault is logged once, with both dates.
    @Test func aSetSystemClockCorrectsTheDateByOneEra() throws {
        let dir = try makeTemporaryDirectory()
        let (run, list) = try Self.run("sim?at=2026-05-02T06:59:00Z", in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(list.contains("2026-05-02 07:00  Easy run: Easy 40"), "\(list)")
        #expect(!list.contains("2006"), "\(list)")
        let warning = "GPS time 2006-09-16T07:00:00.000Z is 1024 weeks early"
        #expect(Self.occurrences(of: warning, in: run.output) == 1, "logged once: \(run.output)")
        #expect(run.output.contains("corrected to 2026-05-02T07:00:00.000Z"), "\(run.output)")
        #expect(run.output.contains("system clock 2026-05-02T06:59:00.000Z"), "both dates in the log: \(run.output)")
        #expect(Self.occurrences(of: "1024 weeks early", in: run.output) == 1, "\(run.output)")

        let gpx = "\(dir)/run.gpx"
        let export = try Pacer.run(["activities", "export", "1", "--gpx", gpx, "--data-dir", "\(dir)/data"])
        #expect(export.status == 0, "\(export.stderr)")
        let text = try String(contentsOfFile: gpx, encoding: .utf8)
        #expect(text.contains("<time>2026-05-02T07:00:"), "the track's times")
        #expect(!text.contains("2006-"), "no point of 2006 in the export")
    }

    /// With no set system clock (a board without a real-time clock, at 1970), the smallest
    /// correction that brings the date past the earliest plausible one (2026-01-01).
    @Test func noSetSystemClockTakesTheSmallestCorrectionPastTheEarliestDate() throws {
        let dir = try makeTemporaryDirectory()
        let (run, list) = try Self.run("sim", in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(list.contains("2026-05-02 07:00  Easy run: Easy 40"), "\(list)")
        #expect(run.output.contains("system clock not set"), "\(run.output)")
    }

    /// A synchronized clock far from the receiver's date, with no rollover to explain the
    /// difference: the activity is dated by the system clock.
    @Test func farFromASynchronizedClockTheSystemClockDatesTheActivity() throws {
        let dir = try makeTemporaryDirectory()
        let (run, list) = try Self.run(
            "sim?at=2026-08-01T10:00:00Z&synchronized=yes", recording: Pacer.trackLoop, in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(list.contains("2026-08-01 10:00  Easy run: Easy 40"), "\(list)")
        #expect(run.output.contains("no week rollover explains it"), "\(run.output)")
    }

    /// Without a system clock (`none`, and the default for a replay) a recording keeps its
    /// own dates, as every recording and scenario golden did before.
    @Test func aReplayWithoutASystemClockKeepsItsDates() throws {
        let dir = try makeTemporaryDirectory()
        let (run, list) = try Self.run("none", in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(list.contains("2006-09-16 07:00"), "\(list)")
    }

    @Test(arguments: [
        ("rtc", "unknown system clock 'rtc'"),
        ("sim?at=yesterday", "at=yesterday is not a UTC time like 2026-05-02T07:00:00Z"),
        ("sim?at=2026-05-02T07:00:00Z&synchronized=maybe", "synchronized=maybe is not one of yes, no"),
        ("sim?synchronized=yes", "synchronized= needs a time"),
        ("sim?offset=3", "unknown query item 'offset'"),
        ("system?x=1", "'system' takes nothing after it"),
    ])
    func aBadSystemClockIsRefusedWithItsReason(clock: String, reason: String) throws {
        let dir = try makeTemporaryDirectory()
        let (run, _) = try Self.run(clock, recording: Pacer.trackLoop, in: dir)
        #expect(run.status != 0)
        #expect(run.stderr.contains(reason), "\(run.stderr)")
    }

    // MARK: A serial receiver against the machine's clock (the board's adapter)

    /// Writes a 1 Hz receiver's RMC and GGA into a pseudo-terminal, dated 1024 weeks before
    /// the machine's clock, until stopped; `first` is the first fix's true time.
    final class FaultyReceiver: @unchecked Sendable {
        let pty: PseudoTerminal
        private let stopped = Atomic<Bool>(false)
        private let done = DispatchSemaphore(value: 0)
        let first = Mutex<UTCTimestamp?>(nil)

        init() throws {
            pty = try PseudoTerminal(raw: true)
            let thread = Thread { [self] in
                var n = 0
                while !stopped.load(ordering: .relaxed) {
                    let now = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) / 1000 * 1000
                    first.withLock { if $0 == nil { $0 = UTCTimestamp(millisecondsSince1970: now) } }
                    let sent = UTCTimestamp(millisecondsSince1970: now - RolloverEndToEndTests.era)
                    let d = sent.date
                    let date = padded(d.day, 2) + padded(d.month, 2) + padded(d.year % 100, 2)
                    let hhmmss = nmeaTime(secondOfDay: Int(sent.millisecondOfDay / 1000))
                    let lat = String(format: "5204.%04d", 2316 + n * 3)
                    let text = nmeaLine("GPRMC,\(hhmmss),A,\(lat),N,00418.0978,E,5.8,0.0,\(date),,,A")
                        + nmeaLine("GPGGA,\(hhmmss),\(lat),N,00418.0978,E,1,08,0.9,2.0,M,47.0,M,,")
                    let bytes = Array(text.utf8)
                    _ = bytes.withUnsafeBytes { write(self.pty.master, $0.baseAddress, $0.count) }
                    n += 1
                    usleep(1_000_000)  // the stimulus: a receiver's cycle a second
                }
                done.signal()
            }
            thread.start()
        }

        func stop() {
            stopped.store(true, ordering: .relaxed)
            done.wait()
            pty.close()
        }
    }

    /// Polls `pacer ctl status` until it says `what`, for up to `seconds`.
    static func waitForStatus(_ socket: String, containing what: String, seconds: Int = 30) -> String {
        polledBlocking(within: .seconds(seconds), every: .milliseconds(100), {
            (try? Pacer.run(["ctl", "status", "--socket", socket]))?.stdout ?? ""
        }, until: { $0.contains(what) })
    }

    /// `pacer run` on a serial receiver 1024 weeks early, the system clock the machine's
    /// (set, after 2026-01-01): the activity is dated today, the receiver's time corrected.
    @Test func pacerRunOnASerialReceiverIsDatedToday() throws {
        let dir = try makeTemporaryDirectory()
        let socket = "/tmp/pacer-rollover-\(UUID().uuidString.prefix(8)).sock"
        defer { unlink(socket) }
        let receiver = try FaultyReceiver()
        defer { receiver.stop() }
        let run = try Pacer.start([
            "run", "--plan", "easy-run", "--source", "serial://\(receiver.pty.path)?baud=9600", "--buzzer", "null",
            "--data-dir", "\(dir)/data", "--socket", socket,
        ])
        let watchdog = DispatchWorkItem { if run.process.isRunning { kill(run.process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
        defer { watchdog.cancel() }
        let status = Self.waitForStatus(socket, containing: "  fix")
        #expect(status.contains("  fix"), "\(status)")
        // A few fixes after the first, each corrected: the status shows a distance run.
        let ran = polledBlocking(within: .seconds(30), every: .milliseconds(100), {
            (try? Pacer.run(["ctl", "status", "--socket", socket]))?.stdout ?? ""
        }, until: { $0.contains(" km ") && !$0.contains(" 0.000 km ") })
        #expect(ran.contains(" km ") && !ran.contains(" 0.000 km "), "\(ran)")
        let stop = try Pacer.run(["ctl", "stop", "--socket", socket])
        #expect(stop.status == 0, "\(stop.stderr)")
        let result = run.finish()
        #expect(result.status == 0, "\(result.output)")
        #expect(Self.occurrences(of: "1024 weeks early", in: result.output) == 1, "\(result.output)")

        let first = try #require(receiver.first.withLock { $0 })
        let list = try Pacer.run(["activities", "list", "--data-dir", "\(dir)/data"])
        let faulty = UTCTimestamp(millisecondsSince1970: first.millisecondsSince1970 - Self.era).date
        #expect(list.stdout.contains("\(first.date) "), "dated \(first.date): \(list.stdout)")
        #expect(!list.stdout.contains("\(faulty)"), "not \(faulty): \(list.stdout)")
    }

    /// `pacer device` with a plan whose deadline was yesterday, on a serial receiver 1024
    /// weeks early: once the fix gives the (corrected) date the plan is still expired, a
    /// start is refused with the plan-expired cue, and nothing is recorded.
    @Test func pacerDeviceRefusesAnExpiredPlan() throws {
        let dir = try makeTemporaryDirectory()
        let data = "\(dir)/data"
        let socket = "/tmp/pacer-rollover-\(UUID().uuidString.prefix(8)).sock"
        defer { unlink(socket) }
        let today = UTCTimestamp(millisecondsSince1970: Int64(Date().timeIntervalSince1970 * 1000)).date
        let deadline = today.adding(days: -1)
        let plan = try write("""
            name: Rollover
            deadline: \(deadline)
            workouts:
              - name: Too late
                phases:
                  - {name: steady, minutes: 5, speed_kmh: [9, 12]}
            """, to: "rollover-plan.yaml", in: dir)
        let activate = try Pacer.run(["plan", "activate", plan, "--data-dir", data])
        #expect(activate.status == 0, "\(activate.stderr)")

        let receiver = try FaultyReceiver()
        defer { receiver.stop() }
        let device = try Pacer.start([
            "device", "--data-dir", data, "--source", "serial://\(receiver.pty.path)?baud=9600", "--buzzer", "null",
            "--socket", socket,
        ])
        let watchdog = DispatchWorkItem { if device.process.isRunning { kill(device.process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
        defer { watchdog.cancel() }

        let status = Self.waitForStatus(socket, containing: "ready  ")
        #expect(status.hasPrefix("ready  plan 'Rollover' expired on \(deadline)"), "\(status)")
        let start = try Pacer.run(["ctl", "start", "--socket", socket])
        #expect(start.status != 0, "an expired plan started: \(start.stdout)")
        #expect(start.stderr.contains("plan 'Rollover' ended on \(deadline)"), "\(start.stderr)")
        kill(device.process.processIdentifier, SIGTERM)
        let result = device.finish()
        #expect(result.status == 0, "\(result.output)")
        #expect(result.stdout.contains("start refused: plan 'Rollover' ended on \(deadline)"), "\(result.stdout)")
        #expect(Self.occurrences(of: "cue plan-expired", in: result.stdout) >= 2, "at the fix and at the refused start: \(result.stdout)")
        #expect(Self.occurrences(of: "1024 weeks early", in: result.output) == 1, "\(result.output)")
        let list = try Pacer.run(["activities", "list", "--data-dir", data])
        #expect(!list.stdout.contains("Rollover"), "nothing recorded: \(list.stdout)")
    }
}
