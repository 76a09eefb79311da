import Coaching
import Configurator
import Foundation
import HAL
import PacerCore
@testable import ScenarioRunner
import Simulation
import Storage
import TestSupport
import Testing

/// The heart-rate scenarios judged against the truth: the model's heart rate without its
/// noise, second by second, is what the runner's heart did; the coach's cues must follow it
/// within its window, never before it.
@Suite("Heart-rate scenarios against the truth")
struct HeartRateScenarioTests {
    static let scenarios = repositoryRoot + "/Scenarios"

    /// The scenario runs' simulated settings, as `ScenarioRunnerTests` has them.
    var options: ScenarioOptions {
        get throws { try ScenarioRunnerTests().options }
    }

    /// Runs `name`; its outcome, output folder and the true heart rate (noise 0), a value a second.
    func run(_ name: String) throws -> (ScenarioOutcome, String, [Int]) {
        let scenario = try ScenarioLoader.load(directory: "\(Self.scenarios)/\(name)", plansDir: plansDirectory)
        let out = try makeTemporaryDirectory(name)
        let outcome = try ScenarioRunner.run(scenario, out: out, options: try options)
        guard case .synth(var model) = scenario.heartRate else { throw ScenarioError("\(name): no synthesized heart rate") }
        model.noise = 0
        var truthScenario = scenario
        truthScenario.heartRate = .synth(model)
        let truthDir = try makeTemporaryDirectory(name + "-truth")
        let path = try #require(try ScenarioRecordings.heartRate(for: truthScenario, scratch: truthDir))
        let stream = try HeartRateStream.parse(String(contentsOfFile: path, encoding: .utf8), file: path)
        var truth: [Int] = []
        for (seconds, row) in stream.rows {
            guard case .measurement(let m) = row else { continue }
            while truth.count < Int(seconds) { truth.append(truth.last ?? 0) }
            truth.append(m.bpm)
        }
        return (outcome, out, truth)
    }

    static func cues(_ outcome: ScenarioOutcome, _ cue: Cue) -> [Double] {
        outcome.events.filter { $0.kind == "cue" && $0.name == cue.rawValue }.map { $0.time.inSeconds }
    }

    /// Easy under the top of zone 2 (146 bpm, Karvonen from 188 and 52): hr-high once the
    /// heart has been over 146 for part of the 20 s window, not before it crossed; hr-in-zone
    /// once it is 3 bpm under, within a window of the truth's own return.
    @Test func theCeilingFollowsTheTrueHeartRate() throws {
        let (outcome, _, truth) = try run("hr-easy-ceiling")
        let over = try #require(truth.firstIndex { $0 > 146 })
        let high = try #require(Self.cues(outcome, .hrHigh).first)
        #expect(high >= Double(over) && high <= Double(over) + 20, "hr-high at \(high) s, the heart over 146 from \(over) s")
        let under = try #require(truth.indices.first { $0 > over + 60 && truth[$0] <= 143 })
        let back = try #require(Self.cues(outcome, .hrInZone).first)
        #expect(back >= Double(under) - 20 && back <= Double(under) + 20, "hr-in-zone at \(back) s, the heart 143 or under from \(under) s")
        // While over the ceiling no pace cue asks for anything.
        let paceWhileHigh = outcome.events.filter {
            $0.kind == "cue" && ["on-pace", "speed-up", "slow-down"].contains($0.name ?? "")
                && $0.time.inSeconds > high && $0.time.inSeconds < back
        }
        #expect(paceWhileHigh.isEmpty, "\(paceWhileHigh.map { ($0.time, $0.name ?? "") })")
    }

    /// Each 3-minute effort's first heart-rate cue says where the true heart rate settled in
    /// it (its mean from the 60th second to the end) against zone 4 (161-173).
    @Test func eachEffortIsJudgedAsTheTrueHeartRateSettled() throws {
        let (outcome, _, truth) = try run("hr-zone-intervals")
        let heartCues: [Cue] = [.hrHigh, .hrLow, .hrInZone]
        for effort in 0..<5 {
            let start = 600 + effort * 300, end = start + 180
            let settled = truth[(start + 60)..<end]
            let mean = Double(settled.reduce(0, +)) / Double(settled.count)
            let expected: Cue = mean > 173 ? .hrHigh : mean < 161 ? .hrLow : .hrInZone
            let first = outcome.events.first {
                $0.kind == "cue" && heartCues.map(\.rawValue).contains($0.name ?? "")
                    && $0.time.inSeconds >= Double(start) && $0.time.inSeconds < Double(end)
            }
            #expect(first?.name == expected.rawValue, "effort \(effort + 1): true mean \(mean), heard \(first?.name ?? "nothing")")
        }
    }

    /// A watch's FIT with heart rate feeds the strap: the stream written into a FIT activity at
    /// one record a second (through Pacer's GPX import and FIT export, heart rate kept), then
    /// replayed from the FIT, coaches exactly as the stream itself did.
    @Test func aFITWithHeartRateFeedsTheStrapAsItsStreamDid() throws {
        let (outcome, out, _) = try run("hr-zone-intervals")
        let csv = "\(out)/recording.hr.csv"
        let stream = try HeartRateStream.parse(String(contentsOfFile: csv, encoding: .utf8), file: csv)
        let dir = try makeTemporaryDirectory("fit-strap")
        var gpx = GPXWriter(name: "strap", heartRates: true)
        gpx.beginTrack(name: "strap", type: "running")
        gpx.beginSegment()
        let start = UTCTimestamp(millisecondsSince1970: 1_782_111_600_000)
        for (seconds, row) in stream.rows {
            guard case .measurement(let m) = row else { continue }
            let along = seconds * 3
            gpx.trackPoint(GeoPoint(latitude: 52 + along / 111_000, longitude: 4.3), altitude: nil,
                           time: UTCTimestamp(millisecondsSince1970: start.millisecondsSince1970 + Int64(seconds * 1000)),
                           speed: 3, heartRate: m.bpm)
        }
        try Data(gpx.finish()).write(to: URL(fileURLWithPath: "\(dir)/strap.gpx"))
        let store = try PacerStore(directory: "\(dir)/data")
        let imported = try store.gpx.importGPX(file: "\(dir)/strap.gpx", as: .activity)
        _ = try store.fit.exportFIT(activity: imported.id, to: "\(dir)/strap.fit")

        var scenario = try ScenarioLoader.load(directory: "\(Self.scenarios)/hr-zone-intervals", plansDir: plansDirectory)
        scenario.heartRate = .file("\(dir)/strap.fit")
        let replayed = try ScenarioRunner.run(scenario, out: try makeTemporaryDirectory("fit-out"), options: try options)
        let heart: Set<String> = ["hr-high", "hr-low", "hr-in-zone", "strap-lost", "strap-back"]
        func heard(_ o: ScenarioOutcome) -> [String] {
            o.events.filter { $0.kind == "cue" && heart.contains($0.name ?? "") }.map { "\($0.name ?? "") \(Int($0.time.inSeconds))" }
        }
        #expect(!heard(outcome).isEmpty)
        #expect(heard(replayed) == heard(outcome))
    }
}
