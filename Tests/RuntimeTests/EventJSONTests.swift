import Coaching
import Foundation
import HAL
import PacerCore
import Runtime
import Simulation
import Storage
import Synchronization
import TestSupport
import Testing

/// The event lines `pacer ctl watch` streams, read back with Foundation's JSON reader.
@Suite("Event JSON lines")
struct EventJSONTests {
    static func object(_ line: String) throws -> [String: Any] {
        let data = try #require(line.data(using: .utf8))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(line)")
    }

    @Test("the strict reader finds a key given twice, at any depth, and nothing in a clean line")
    func strictReaderFindsDuplicates() throws {
        #expect(try StrictJSON.duplicateKeys(#"{"a":1,"b":{"c":[1,{"d":2,"d":3}],"c":"x"},"a":"}\","}"#)
                == ["$.b.c[1].d", "$.b.c", "$.a"])
        #expect(try StrictJSON.duplicateKeys(#"{"event":"gps","gps":"fix","detail":"a \"quoted\" word"}"#) == [])
        #expect(throws: StrictJSON.Malformed.self) { try StrictJSON.duplicateKeys(#"{"a":1"#) }
    }

    @Test("every bundled scenario's events.jsonl and summary.json give each key once")
    func goldenLinesHaveEachKeyOnce() throws {
        let scenarios = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Scenarios").path
        var files = 0, lines = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: scenarios).sorted() {
            for file in ["events.jsonl", "summary.json"] {
                let path = "\(scenarios)/\(name)/golden/\(file)"
                guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
                files += 1
                let texts = file == "summary.json" ? [text] : text.split(separator: "\n").map(String.init)
                for json in texts {
                    lines += 1
                    #expect(try StrictJSON.duplicateKeys(json) == [], "\(name)/\(file): \(json.prefix(300))")
                }
            }
        }
        #expect(files >= 60 && lines > 1000, "\(files) files, \(lines) lines")
    }

    @Test("the generic line: event first, then the fields in order")
    func genericLine() throws {
        #expect(EventJSON.line(kind: "state", fields: [("state", .text("ready"))]) == #"{"event":"state","state":"ready"}"#)
        let time = UTCTimestamp(millisecondsSince1970: 1_777_705_951_250)
        let line = EventJSON.line(kind: "x", time: time, fields: [
            ("n", .int(-3)), ("v", .number(2.5, places: 2)), ("ok", .bool(true)), ("none", .null),
            ("list", .array([.int(1), .text("a")])), ("obj", .object([("k", .number(0.125, places: 3))])),
        ])
        #expect(line == #"{"event":"x","time":"2026-05-02T07:12:31.250Z","n":-3,"v":2.5,"ok":true,"none":null,"#
                + #""list":[1,"a"],"obj":{"k":0.125}}"#)
        let o = try Self.object(line)
        #expect(o["time"] as? String == "2026-05-02T07:12:31.250Z")
        #expect((o["obj"] as? [String: Any])?["k"] as? Double == 0.125)
    }

    /// Whatever a waypoint's name or a GPS detail holds, the line stays one line of valid
    /// JSON and reads back to the same text.
    @Test("strings are escaped: quotes, backslashes, control characters, non-ASCII")
    func escaping() throws {
        let nasty = "Water \"🚰\" \\ tab\there\nnew line\r\u{0}\u{1}\u{1F}\u{7F} Café — \u{2028}\u{2029} 日本"
        let line = EventJSON.line(kind: "waypoint", fields: [("name", .text(nasty))])
        #expect(!line.contains("\n") && !line.contains("\r") && !line.contains("\u{2028}"))
        #expect(line.contains(#"\"🚰\" \\ tab\there\nnew line\r\u0000\u0001\u001f\u007f Café — \u2028\u2029 日本"#))
        #expect(try Self.object(line)["name"] as? String == nasty)
    }

    @Test("numbers are finite: NaN and infinities are null")
    func finiteNumbers() throws {
        let line = EventJSON.line(kind: "n", fields: [
            ("nan", .number(.nan, places: 1)), ("inf", .number(-.infinity, places: 3)), ("big", .number(1e300, places: 1)),
            ("small", .number(-0.00004, places: 3)), ("max", .int(.max)), ("min", .int(.min)),
        ])
        #expect(line == #"{"event":"n","nan":null,"inf":null,"big":null,"small":0.0,"max":9223372036854775807,"#
                + #""min":-9223372036854775808}"#)
        let o = try Self.object(line)
        #expect(o["nan"] is NSNull)
        #expect(o["small"] as? Double == 0)
    }

    /// A real runtime on a replayed recording with an outage, a waypoint, a pause: every
    /// event it reports makes a line that parses, with its kind, its own fields and the status.
    @Test("every runtime event makes a line that parses, with its fields and the status")
    func runtimeEvents() throws {
        let clock = VirtualClock()
        let dir = try makeTemporaryDirectory()
        let path = dir + "/run.nmea"
        try recording(seconds: 200) { s in (60..<75).contains(s) ? nil : 3.0 }.write(toFile: path, atomically: true, encoding: .utf8)
        let events = Mutex<[(RuntimeEvent, String)]>([])
        let runtime = TestWorkout(
            parts: .init(clock: clock, gps: try NMEAFileSource(path: path, clock: clock), buzzer: RecordingBuzzer(clock: clock),
                         battery: NoBattery(level: 80), profile: profile(position: 1, alert: 10, window: 3),
                         cues: testCues, log: try PacerStore(directory: dir).activities),
            plan: plan(("Fast \"one\"", 50, 3.5, 4.5), ("easy", 50, 2.5, 3.5)), workoutIndex: 0,
            onEvent: { event, status in
                events.withLock { $0.append((event, event.jsonLine(status: status))) }
            },
            onFinish: { _ in clock.stop() })
        clock.schedule(at: Instant.zero + .seconds(30)) { runtime.waypoint("Bridge \"B\"") }
        clock.schedule(at: Instant.zero + .seconds(40)) { runtime.pause() }
        clock.schedule(at: Instant.zero + .seconds(45)) { runtime.resume() }
        try runtime.start()
        clock.runUntilIdle(limit: Instant.zero + .seconds(300))

        let all = events.withLock { $0 }
        let kinds = Set(all.map { $0.0.kind })
        for kind in ["started", "phase-started", "phase-finished", "cue", "gps", "waypoint", "paused", "resumed", "battery", "finished"] {
            #expect(kinds.contains(kind), "no \(kind) event")
        }
        var batteryRead = false
        for (event, line) in all {
            #expect(line.hasPrefix(#"{"event":""# + event.kind + #"""#), "\(line)")
            let o = try Self.object(line)
            let status = try #require(o["status"] as? [String: Any], "\(line)")
            for key in ["elapsed_s", "distance_m", "phase", "phases", "phase_name", "phase_left_s", "pace", "gps", "activity", "state"] {
                #expect(status[key] != nil, "no status.\(key) in \(line)")
            }
            // The gauge is first read just after the start: from then on every status has it.
            if case .battery = event { batteryRead = true }
            #expect(status["battery_pct"] as? Double == (batteryRead ? 80 : nil), "\(line)")
            switch event {
            case .cue(let cue, let phase):
                #expect(o["cue"] as? String == cue.rawValue)
                #expect(o["phase"] as? Int == phase.map { $0 + 1 })
            case .gps(let gps, let detail):
                #expect(o["gps"] as? String == gps.rawValue)
                #expect(o["detail"] as? String == detail)
            case .waypoint:
                #expect(o["name"] as? String == "Bridge \"B\"")
                #expect(o["outcome"] as? String == "stored")
                #expect((o["lat"] as? Double).map { abs($0 - 52) < 0.01 } == true)
                #expect(o["lon"] is Double)
            case .phaseStarted(let index):
                #expect(o["phase"] as? Int == index + 1)
                #expect((o["band_kmh"] as? [Double])?.count == 2)
            case .phaseFinished(let r):
                #expect(o["name"] as? String == r.name)
                #expect(o["duration_s"] as? Double == r.duration.inSeconds)
            case .finished(let end):
                #expect(o["end"] as? String == end.rawValue)
                #expect(status["state"] as? String == "finished")
                #expect((status["distance_m"] as? Double).map { $0 > 200 } == true)
            case .paused:
                #expect(status["state"] as? String == "paused")
            default:
                break
            }
        }
        #expect(all.last.map { $0.0.kind } == "finished")

        // The status a watcher hears first.
        let status = try Self.object(runtime.status.jsonLine(time: UTCTimestamp(millisecondsSince1970: 0)))
        #expect(status["event"] as? String == "status")
        #expect(status["time"] as? String == "1970-01-01T00:00:00.000Z")
        #expect(status["plan"] as? String == "test")
        #expect((status["status"] as? [String: Any])?["phases"] as? Int == 2)
    }
}
