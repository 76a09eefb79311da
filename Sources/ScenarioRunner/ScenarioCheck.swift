import Coaching
import Foundation
import PacerCore
import Storage

/// Checks a run against the scenario's stated expectations and its goldens.
public enum ScenarioCheck {
    /// The expectations that do not hold, each as one message naming its line in the file,
    /// then the rules every scenario keeps (`invariantFailures`).
    public static func failedExpectations(_ outcome: ScenarioOutcome) -> [String] {
        outcome.scenario.expectations.compactMap { failure($0, outcome) } + invariantFailures(outcome)
    }

    /// The pace cues (the ones that tell the runner what to do with their speed).
    static let paceCues: Set<String> = [Cue.speedUp.rawValue, Cue.slowDown.rawValue, Cue.onPace.rawValue]
    /// Two different pace cues closer than this, with no phase change between, are noise.
    static let contradictionWindow = Duration.seconds(2)

    /// What every scenario must keep, stated or not, each failure naming the scenario file:
    /// - never two different pace cues within 2 s unless a phase started between them (one
    ///   device life: a power cut starts afresh);
    /// - an activity's elapsed time (start to end, pauses included) is never shorter than its
    ///   timer (pauses excluded);
    /// - a phase run in band all the time reports an average speed inside its band;
    /// - gps-back never sounds within 2 s of a gps-lost cue (a reminder in the second a
    ///   power-save fix comes back tells the runner the GPS is lost as it returns);
    /// - an activity's distance never decreases from one event to the next (through losses of
    ///   fix, pauses and phase ends: a runner's odometer never runs backwards).
    public static func invariantFailures(_ o: ScenarioOutcome) -> [String] {
        var failures: [String] = []
        var last: ScenarioEvent?
        var lastLost: ScenarioEvent?
        var shown: [Int64: ScenarioEvent] = [:]
        for e in o.events {
            if let activity = e.activity, let distance = e.distance {
                if let before = shown[activity], let was = before.distance, distance < was {
                    failures.append("\(o.scenario.file): activity \(activity)'s distance fell from "
                        + "\(String(format: "%.1f", was)) m at \(ScenarioRecorder.clock(before.time)) to "
                        + "\(String(format: "%.1f", distance)) m at \(ScenarioRecorder.clock(e.time))")
                }
                shown[activity] = e
            }
            switch e.kind {
            case "cue" where e.name == Cue.gpsLost.rawValue:
                lastLost = e
            case "cue" where e.name == Cue.gpsBack.rawValue:
                if let l = lastLost, e.time - l.time < contradictionWindow {
                    failures.append("\(o.scenario.file): gps-lost at \(ScenarioRecorder.clock(l.time)) and gps-back at "
                        + "\(ScenarioRecorder.clock(e.time))")
                }
            case "phase-started", "power-cut", "started":
                last = nil
            case "cue" where e.name.map(paceCues.contains) == true:
                if let l = last, l.name != e.name, e.time - l.time < contradictionWindow {
                    failures.append("\(o.scenario.file): contradicting pace cues with no phase change between: "
                        + "\(l.name ?? "") at \(ScenarioRecorder.clock(l.time)), \(e.name ?? "") at \(ScenarioRecorder.clock(e.time))")
                }
                last = e
            default:
                break
            }
        }
        for d in o.activities {
            let a = d.summary
            if let timer = a.activeTime, a.elapsedTime < timer {
                failures.append("\(o.scenario.file): activity \(a.id) elapsed \(ScenarioRecorder.clock(a.elapsedTime)) "
                    + "is shorter than its timer \(ScenarioRecorder.clock(timer))")
            }
            for p in d.phaseResults where p.duration > .zero && p.timeInBand >= p.duration {
                // Printed to 0.01 km/h: a band edge is judged as printed.
                let kmh = (p.averageSpeed * 360).rounded() / 100
                let band = ((p.minimumSpeed * 360).rounded() / 100)...((p.maximumSpeed * 360).rounded() / 100)
                if !band.contains(kmh) {
                    failures.append("\(o.scenario.file): activity \(a.id) phase \(p.index + 1) was in band all "
                        + "its \(ScenarioRecorder.clock(p.duration)) but averaged \(kmh) km/h, outside \(band.lowerBound)–\(band.upperBound)")
                }
            }
        }
        return failures
    }

    static func failure(_ e: Expectation, _ o: ScenarioOutcome) -> String? {
        let place = "\(o.scenario.file)\(e.line.map { ":\($0)" } ?? "")"
        func times(_ events: [ScenarioEvent]) -> String {
            events.isEmpty ? "none" : events.prefix(12).map { ScenarioRecorder.clock($0.time) }.joined(separator: ", ")
                + (events.count > 12 ? ", … (\(events.count))" : "")
        }
        func check(_ what: String, _ events: [ScenarioEvent], near: Expectation.Near?, count: Expectation.CountBound?)
            -> String?
        {
            if let near {
                let hit = events.contains { abs(($0.time - near.at).inSeconds) <= near.tolerance.inSeconds }
                if !hit {
                    return "\(place): expected \(what) at \(ScenarioRecorder.clock(near.at)) "
                        + "± \(ScenarioRecorder.clock(near.tolerance)); got: \(times(events))"
                }
            }
            if let count, !count.contains(events.count) {
                return "\(place): expected \(count.text) \(what); got \(events.count): \(times(events))"
            }
            return nil
        }
        func within(_ window: ClosedRange<Duration>?, _ what: String, _ events: [ScenarioEvent]) -> (String, [ScenarioEvent]) {
            guard let window else { return (what, events) }
            return (what + " between \(ScenarioRecorder.clock(window.lowerBound)) and \(ScenarioRecorder.clock(window.upperBound))",
                    events.filter { window.contains($0.time) })
        }
        func activity(_ n: Int?) -> ActivityDetail? {
            guard let n else { return o.activities.last }
            return o.activities.first { $0.summary.id == Int64(n) }
        }
        func missing(_ n: Int?) -> String {
            "\(place): no activity \(n.map(String.init) ?? "at all") (the run stored \(o.activities.count))"
        }
        switch e.check {
        case .cue(let cue, let near, let count, let window):
            let (what, events) = within(window, "\(cue.rawValue) cue(s)", o.events.filter { $0.kind == "cue" && $0.name == cue.rawValue })
            return check(what, events, near: near, count: count)
        case .gps(let status, let near, let count):
            return check("gps \(status)", o.events.filter { $0.kind == "gps" && $0.name == status }, near: near, count: count)
        case .event(let kind, let name, let near, let count, let window):
            let (what, events) = within(
                window, "\(kind) event(s)" + (name.map { " named '\($0)'" } ?? ""),
                o.events.filter { $0.kind == kind && (name == nil || $0.name == name) })
            return check(what, events, near: near, count: count)
        case .distance(let n, let km, let tolerance):
            guard let a = activity(n) else { return missing(n) }
            let got = a.summary.distance / 1000
            return abs(got - km) <= tolerance ? nil
                : "\(place): expected activity \(a.summary.id) to cover \(km) ± \(tolerance) km; it covered \(fixed(got)) km"
        case .times(let n, let timer, let elapsed, let moving, let tolerance):
            guard let a = activity(n) else { return missing(n) }
            let clock = ScenarioLoader.clock
            guard let active = a.summary.activeTime else {
                return "\(place): expected activity \(a.summary.id)'s timer at \(clock(timer)); it has no timer"
            }
            for (what, want, got) in [("timer", timer, active), ("elapsed time", elapsed, a.summary.elapsedTime),
                                      ("moving time", moving, a.summary.movingTime)] {
                guard let want, abs((got - want).inSeconds) > tolerance.inSeconds else { continue }
                return "\(place): expected activity \(a.summary.id)'s \(what) at \(clock(want)) ± \(clock(tolerance)); "
                    + "it is \(clock(got))"
            }
            return nil
        case .end(let n, let state):
            guard let a = activity(n) else { return missing(n) }
            return a.summary.state.rawValue == state ? nil
                : "\(place): expected activity \(a.summary.id) \(state); it is \(a.summary.state.rawValue)"
        case .activities(let n):
            return o.activities.count == n ? nil : "\(place): expected \(n) activities; the run stored \(o.activities.count)"
        case .waypoints(let n, let count):
            guard let a = activity(n) else { return missing(n) }
            return a.waypoints.count == count ? nil
                : "\(place): expected \(count) waypoints in activity \(a.summary.id); it has \(a.waypoints.count)"
        case .segments(let n, let count):
            guard let a = activity(n) else { return missing(n) }
            return a.segments.count == count ? nil
                : "\(place): expected \(count) track segments in activity \(a.summary.id); it has \(a.segments.count)"
        case .phases(let n, let count):
            guard let a = activity(n) else { return missing(n) }
            return a.phaseResults.count == count ? nil
                : "\(place): expected \(count) phase results in activity \(a.summary.id); it has \(a.phaseResults.count)"
        }
    }

    static func fixed(_ v: Double) -> String {
        var out: [UInt8] = []
        out.appendDecimal(v, places: 3)
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: - Goldens

    /// The golden files of a scenario: `DIR/golden/<result file>`.
    public static func goldenDirectory(_ scenario: Scenario) -> String { "\(scenario.directory)/golden" }

    /// Compares each result file in `out` with its golden; returns a readable diff per file
    /// that differs (or is missing), empty when all match.
    public static func compareGoldens(_ scenario: Scenario, out: String) -> [String] {
        var diffs: [String] = []
        for name in ScenarioOutcome.resultFiles {
            let golden = "\(goldenDirectory(scenario))/\(name)"
            let actual = "\(out)/\(name)"
            guard let expected = FileManager.default.contents(atPath: golden) else {
                diffs.append("\(golden): missing (run `pacer scenario test --update \(scenario.directory)` to write it)")
                continue
            }
            guard let got = FileManager.default.contents(atPath: actual) else {
                diffs.append("\(actual): not written")
                continue
            }
            if expected != got {
                diffs.append(LineDiff.unified(
                    old: String(decoding: expected, as: UTF8.self), new: String(decoding: got, as: UTF8.self),
                    oldName: golden, newName: actual))
            }
        }
        return diffs
    }

    /// Copies the result files over the goldens.
    public static func updateGoldens(_ scenario: Scenario, out: String) throws {
        let fm = FileManager.default
        let dir = goldenDirectory(scenario)
        try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for name in ScenarioOutcome.resultFiles {
            let golden = "\(dir)/\(name)"
            try? fm.removeItem(atPath: golden)
            try fm.copyItem(atPath: "\(out)/\(name)", toPath: golden)
        }
    }
}

/// A unified diff of two texts by lines (the standard library's `difference(from:)`, a
/// Myers diff), with three lines of context, as `diff -u` prints it.
enum LineDiff {
    static func unified(old: String, new: String, oldName: String, newName: String, context: Int = 3,
                        maxLines: Int = 200) -> String {
        let a = old.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let b = new.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let diff = b.difference(from: a)
        var removed = Set<Int>(), inserted = Set<Int>()
        for change in diff {
            switch change {
            case .remove(let offset, _, _): removed.insert(offset)
            case .insert(let offset, _, _): inserted.insert(offset)
            }
        }
        // Walk both sides, producing (kind, text, oldLine, newLine) rows.
        var rows: [(Character, String)] = []
        var i = 0, j = 0
        while i < a.count || j < b.count {
            if i < a.count, removed.contains(i) {
                rows.append(("-", a[i])); i += 1
            } else if j < b.count, inserted.contains(j) {
                rows.append(("+", b[j])); j += 1
            } else {
                rows.append((" ", i < a.count ? a[i] : "")); i += 1; j += 1
            }
        }
        var out = ["--- \(oldName)", "+++ \(newName)"]
        var lastPrinted = -1
        var printed = 0
        for (k, row) in rows.enumerated() where row.0 != " " {
            let from = max(k - context, lastPrinted + 1)
            if from > lastPrinted + 1 { out.append("@@ line \(from + 1) @@") }
            for m in from...min(k + context, rows.count - 1) where m > lastPrinted {
                // Context after this change stops at the next change, which prints itself.
                if m > k, rows[m].0 != " " { break }
                out.append("\(rows[m].0)\(rows[m].1)")
                lastPrinted = m
                printed += 1
            }
            if printed >= maxLines {
                out.append("… (diff cut at \(maxLines) lines)")
                break
            }
        }
        return out.joined(separator: "\n")
    }
}
