import HAL
import PacerCore
import Simulation
import Testing

/// The recorded heart-rate stream a `sim:` strap replays, and the model that makes one from a
/// synthesized run's speeds.
@Suite("Heart-rate stream and model")
struct HeartRateStreamTests {
    @Test func aStreamReadsItsRowsAndWritesThemBack() throws {
        let text = """
            # a strap
            0,92
            1,93,645 650
            61,lost
            75,battery,80

            75,0
            """
        let stream = try HeartRateStream.parse(text, file: "hr.csv")
        #expect(stream.rows.count == 5)
        #expect(stream.measurements == 3)
        #expect(stream.rows[1].row == .measurement(HeartRateMeasurement(bpm: 93, contact: .detected, rrIntervals: [0.645, 0.65])))
        #expect(stream.rows[2].row == .lost)
        #expect(stream.rows[3].row == .battery(80))
        #expect(try HeartRateStream.parse(stream.text, file: "again.csv") == stream)
    }

    @Test(arguments: [
        ("5,92\n3,90", 2, "before the row above"),
        ("0,abc", 1, "not a heart rate"),
        ("x,90", 1, "not a time"),
        ("0,90,100", 1, "not an RR interval"),
        ("0,battery,120", 1, "PERCENT"),
        ("0,lost,5", 1, "nothing after"),
        ("0", 1, "expected seconds,bpm"),
        ("0,400", 1, "not a heart rate"),
    ])
    func aBrokenStreamNamesItsLineAndReason(text: String, line: Int, reason: String) {
        #expect {
            try HeartRateStream.parse(text, file: "hr.csv")
        } throws: { error in
            let e = error as? HeartRateStreamError
            return e?.line == line && e?.file == "hr.csv" && (e?.reason.contains(reason) ?? false)
        }
    }

    @Test func theModelSettlesAtItsSteadyStateWithTheLagItIsGiven() {
        let model = HeartRateModel(easy: (10, 140), hard: (15, 175), riseSeconds: 25, fallSeconds: 40, driftPerHour: 0, noise: 0)
        // 5 min at 10 km/h, 5 min at 15 km/h.
        let speeds = Array(repeating: 10 / 3.6, count: 300) + Array(repeating: 15 / 3.6, count: 300)
        let stream = model.stream(speeds: speeds)
        func bpm(_ t: Int) -> Int {
            guard case .measurement(let m) = stream.rows[t].row else { return -1 }
            return m.bpm
        }
        #expect(bpm(299) == 140)
        // One time constant after the step: 63 % of the way from 140 to 175 (162).
        #expect(abs(bpm(325) - 162) <= 1, "\(bpm(325))")
        #expect(bpm(599) == 175)
        // The beats in a second at 175 bpm: about 2.9, each 60/175 s.
        guard case .measurement(let m) = stream.rows[599].row else { Issue.record("no measurement"); return }
        #expect((2...3).contains(m.rrIntervals.count))
        #expect(abs(m.rrIntervals[0] - 60.0 / 175) < 0.002)
    }

    @Test func lostAndSilentWindowsLeaveTheirGaps() {
        var model = HeartRateModel(noise: 0)
        model.lost = [100...119]
        model.silent = [200...209]
        let stream = model.stream(speeds: Array(repeating: 3, count: 300))
        let times = stream.rows.map(\.seconds)
        #expect(stream.rows.contains { $0.seconds == 100 && $0.row == .lost })
        #expect(!times.contains(110))
        #expect(times.contains(120))
        #expect(!times.contains(205))
        #expect(stream.measurements == 300 - 20 - 10)
    }

    @Test func theSameSeedMakesTheSameStream() {
        let speeds = (0..<600).map { 2.5 + Double($0 % 60) / 60 }
        #expect(HeartRateModel(seed: 9).stream(speeds: speeds) == HeartRateModel(seed: 9).stream(speeds: speeds))
        #expect(HeartRateModel(seed: 9).stream(speeds: speeds) != HeartRateModel(seed: 10).stream(speeds: speeds))
    }
}
