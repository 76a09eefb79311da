import Coaching
import Foundation
import FoundationXML
import PacerCore
import Storage
import TestSupport
import Testing

/// Laps by button (issue 40, item 4): a free run split by lap presses (`Scenarios/lap-splits`:
/// four presses, then the stop) and a session whose phases end on distance
/// (`Scenarios/repeats-800`), exported as FIT (read back by Garmin's FIT SDK) and TCX
/// (checked against Garmin's schema), each lap's time and distance the report's.
@Suite("Laps end to end", .serialized)
struct LapsEndToEndTests {
    /// The report's laps table: (time in seconds, kilometres, ended by) per lap.
    static func reportLaps(_ dir: String) async throws -> [(seconds: Double, km: Double, endedBy: String)] {
        let show = try await Pacer.runOffThePool(["activities", "show", "1", "--data-dir", "\(dir)/data"])
        try #require(show.status == 0, "\(show.stderr)")
        let lines = show.stdout.components(separatedBy: "\n")
        let header = try #require(lines.firstIndex(of: "Laps"), "no Laps table in:\n\(show.stdout)")
        return try lines[(header + 2)...].prefix { !$0.isEmpty }.map { line in
            let cells = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            let clock = cells[2].split(separator: ":").compactMap { Double($0) }
            try #require(clock.count == 3, "\(line)")
            let endedBy = cells.suffix(from: 5).joined(separator: " ")
            return (clock[0] * 3600 + clock[1] * 60 + clock[2], try #require(Double(cells[4])), endedBy)
        }
    }

    /// Activity 1 of the data folder in `dir` exported as FIT and read by Garmin's SDK (its
    /// check and no error), and as TCX, valid against the schema: the FIT laps, the TCX laps.
    static func exportedLaps(_ dir: String) async throws -> (fit: [[String: Any]], tcx: [XMLElement]) {
        let fit = "\(dir)/laps.fit", tcx = "\(dir)/laps.tcx"
        for (format, file) in [("--fit", fit), ("--tcx", tcx)] {
            let export = try await Pacer.runOffThePool(["activities", "export", "1", format, file, "--data-dir", "\(dir)/data"])
            try #require(export.status == 0, "\(export.stderr)")
        }
        let dump = try await FITEndToEndTests.dump(fit)
        #expect(dump.integrity && dump.errors.isEmpty, "\(dump.errors)")
        let lint = try await TCXEndToEndTests.validate(tcx)
        #expect(lint.status == 0, "xmllint: \(lint.stderr)")
        return (dump.of("lap"), try TCXEndToEndTests.elements(tcx).filter { $0.localName == "Lap" })
    }

    @Test func aFreeRunSplitByPressesGivesManualLapsInFITAndTCX() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let detail = try await TCXEndToEndTests.record("lap-splits", in: dir)
        #expect(detail.lapMarks.count == 4)
        let report = try await Self.reportLaps(dir)
        #expect(report.map(\.endedBy) == ["lap press", "lap press", "lap press", "lap press", "stop"])
        // The page report lists the same laps.
        let page = "\(dir)/report.html"
        let made = try await Pacer.runOffThePool(["activities", "report", "1", "--out", page, "--data-dir", "\(dir)/data"])
        try #require(made.status == 0, "\(made.stderr)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        let table = try #require(html.components(separatedBy: "<h2>Laps</h2>").dropFirst().first?.components(separatedBy: "</table>").first)
        #expect(table.components(separatedBy: "<td>lap press</td>").count - 1 == 4 && table.contains("<td>stop</td>"))
        let spans = LapSpan.spans(phases: detail.phaseResults, marks: detail.lapMarks)
        #expect(abs(spans.reduce(0) { $0 + $1.distance } - detail.summary.distance) < 0.01)

        // FIT, through Garmin's SDK; TCX, against the schema.
        let (laps, tcxLaps) = try await Self.exportedLaps(dir)
        try #require(laps.count == 5)
        for (lap, (span, shown)) in zip(laps, zip(spans, report)) {
            let timer = try #require(FITEndToEndTests.number(lap, "total_timer_time"))
            let metres = try #require(FITEndToEndTests.number(lap, "total_distance"))
            #expect(abs(timer - Double(span.timerMS) / 1000) <= 0.001)
            #expect(abs(metres - span.distance) <= 0.01)
            // The report's figures, as it rounds them (seconds, hundredths of a km).
            #expect(abs(timer - shown.seconds) < 1 && abs(metres / 1000 - shown.km) <= 0.005 + 1e-9, "\(timer) s \(metres) m")
        }
        #expect(laps.map { $0["lap_trigger"] as? String } == ["manual", "manual", "manual", "manual", "session_end"])
        try #require(tcxLaps.count == 5)
        for (lap, span) in zip(tcxLaps, spans) {
            #expect(abs((TCXEndToEndTests.number(lap, "TotalTimeSeconds") ?? -1) - Double(span.timerMS) / 1000) < 0.001)
            #expect(abs((TCXEndToEndTests.number(lap, "DistanceMeters") ?? -1) - span.distance) < 0.1)
            #expect(TCXEndToEndTests.children(lap, "TriggerMethod").first?.stringValue == "Manual")
        }
    }

    /// Phases that end on distance are Distance laps (FIT lap_trigger distance, TCX
    /// TriggerMethod Distance), a lap per phase, each the report's phase.
    @Test func phasesEndedByDistanceAreDistanceLaps() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let detail = try await TCXEndToEndTests.record("repeats-800", in: dir)
        #expect(detail.phaseResults.count == 14 && detail.phaseResults.allSatisfy { $0.ending == .distance })
        let (laps, tcxLaps) = try await Self.exportedLaps(dir)
        try #require(laps.count == 14)
        #expect(laps.dropLast().allSatisfy { $0["lap_trigger"] as? String == "distance" })
        for (lap, phase) in zip(laps, detail.phaseResults) {
            #expect(abs((FITEndToEndTests.number(lap, "total_distance") ?? -1) - phase.distance) <= 0.01)
        }
        // The repeat's number: FIT's repetition_num on the repeats' laps (six passes of fast
        // and jog), none on the warm-up and the cool-down.
        let passes: [Int?] = laps.map { lap -> Int? in FITEndToEndTests.number(lap, "repetition_num").map { Int($0) } }
        var expected: [Int?] = [nil]
        for n in 1...6 { expected += [n, n] }
        expected.append(nil)
        #expect(passes == expected, "\(passes)")
        let triggers = tcxLaps.map { TCXEndToEndTests.children($0, "TriggerMethod").first?.stringValue }
        #expect(triggers == Array(repeating: "Distance", count: 14))
        // And TCX's lap notes.
        let notes = tcxLaps.map { TCXEndToEndTests.children($0, "Notes").first?.stringValue }
        #expect(notes[0] == nil && notes[13] == nil)
        #expect(notes[5] == "fast, repeat 3 of 6" && notes[6] == "jog, repeat 3 of 6", "\(notes)")
    }
}
