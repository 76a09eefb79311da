import Coaching
import PacerCore

/// Two runs side by side (issue 43): a past run and the same run coached again another way
/// (`pacer replay`), or two runs of one route or one workout (`pacer activities compare`).
/// Their figures, the cues each runner heard on one time line, their phases and their
/// kilometre splits as text and as a self-contained page, with their speed and heart rate
/// over the distance together and the gap between them. Pure functions of the records.
public struct RunComparisonInput: Sendable {
    public struct Side: Sendable {
        /// What this side is, in a few words: `as run`, `what if`, `#12 Tuesday`.
        public var label: String
        public var run: ActivityReportInput
        /// The power profile and the build it ran on, when known.
        public var profile: String?
        public var hardware: String?
        /// Battery used over the run (mAh) and what a full battery lasts at that rate (h), when
        /// the run was replayed on the energy model.
        public var batteryMilliampHours: Double?
        public var batteryPercent: Double?
        public var runtimeHours: Double?

        public init(label: String, run: ActivityReportInput, profile: String? = nil, hardware: String? = nil) {
            self.label = label
            self.run = run
            self.profile = profile ?? run.profile
            self.hardware = hardware
        }
    }

    public var title: String
    public var a: Side
    public var b: Side
    /// Lines said under the title (how the two were made, what to trust).
    public var notes: [String] = []

    public init(title: String, a: Side, b: Side) {
        self.title = title
        self.a = a
        self.b = b
    }
}

public enum RunComparison {
    // MARK: - Figures

    /// The rows both sides have: name, side a, side b.
    static func figures(_ c: RunComparisonInput) -> [(String, String, String)] {
        func row(_ name: String, _ f: (RunComparisonInput.Side) -> String?) -> (String, String, String)? {
            let x = f(c.a), y = f(c.b)
            return x == nil && y == nil ? nil : (name, x ?? "-", y ?? "-")
        }
        let rows: [(String, String, String)?] = [
            row("plan") { $0.run.plan },
            row("workout") { $0.run.workout },
            row("profile") { $0.profile },
            row("build") { $0.hardware },
            row("end") { $0.run.state },
            row("distance") { "\(ActivityFormat.kilometres($0.run.distance)) km" },
            row("timer") { ActivityFormat.clock($0.run.timer ?? $0.run.elapsedTime) },
            row("average") { side in
                let t = (side.run.timer ?? side.run.elapsedTime).inSeconds
                return t > 0 && side.run.distance > 0 ? "\(pace(side.run.distance / t)) /km" : nil
            },
            row("cues") { "\($0.run.cues.count)" },
            row("heart rate") { side in
                HeartRateSummary(points: side.run.points, zones: nil).map { "\($0.average) bpm average, \($0.maximum) max" }
            },
            row("battery used") { side in
                side.batteryMilliampHours.map { mAh in
                    "\(ActivityFormat.fixed(mAh, places: 1)) mAh" + (side.batteryPercent.map { " (\(ActivityFormat.fixed($0, places: 1)) %)" } ?? "")
                }
            },
            row("battery lasts") { side in side.runtimeHours.map { "\(ActivityFormat.fixed($0, places: 1)) h" } },
        ]
        return rows.compactMap { $0 }
    }

    /// `5:23` a kilometre at `speed` metres per second.
    static func pace(_ speed: Double) -> String {
        guard speed > 0.05 else { return "-" }
        let seconds = Int((1000 / speed).rounded())
        return "\(seconds / 60):" + (seconds % 60 < 10 ? "0" : "") + "\(seconds % 60)"
    }

    /// Each instant a cue sounded on either side, with what each heard then.
    static func cueRows(_ c: RunComparisonInput) -> [(time: Duration, a: String, b: String)] {
        var at: [Duration: (a: [String], b: [String])] = [:]
        for cue in c.a.run.cues { at[cue.elapsed, default: ([], [])].a.append(cue.cue) }
        for cue in c.b.run.cues { at[cue.elapsed, default: ([], [])].b.append(cue.cue) }
        return at.keys.sorted().map { t in (t, at[t]!.a.joined(separator: ", "), at[t]!.b.joined(separator: ", ")) }
    }

    /// The phases by index: name, and each side's time, distance and time in band.
    static func phaseRows(_ c: RunComparisonInput) -> [[String]] {
        let count = max(c.a.run.phases.count, c.b.run.phases.count)
        return (0..<count).map { i in
            let x = c.a.run.phases.first { $0.index == i }, y = c.b.run.phases.first { $0.index == i }
            func cells(_ p: PhaseResult?) -> [String] {
                guard let p else { return ["-", "-", "-"] }
                return [ActivityFormat.clock(p.duration), "\(ActivityFormat.kilometres(p.distance)) km", ActivityFormat.clock(p.timeInBand)]
            }
            return ["\(i + 1)", (x ?? y)?.name ?? ""] + cells(x) + cells(y)
        }
    }

    /// The kilometre splits side by side: each side's time for the kilometre and the
    /// difference (b less a).
    static func splitRows(_ c: RunComparisonInput) -> [[String]] {
        let x = RunAnalysis(c.a.run).splits, y = RunAnalysis(c.b.run).splits
        return (0..<max(x.count, y.count)).map { i in
            let s = i < x.count ? x[i] : nil, t = i < y.count ? y[i] : nil
            var difference = "-"
            if let s, let t, abs(s.distance - t.distance) < 1 {
                let d = (t.seconds - s.seconds).rounded()
                difference = d == 0 ? "0 s" : (d > 0 ? "+" : "−") + ActivityFormat.fixed(abs(d), places: 0) + " s"
            }
            return ["\(i + 1)", s.map { clock($0.seconds) } ?? "-", t.map { clock($0.seconds) } ?? "-", difference]
        }
    }

    static func clock(_ seconds: Double) -> String {
        ActivityFormat.clock(.milliseconds(Int64((seconds * 1000).rounded())))
    }

    /// Where b stands against a at each whole 100 m of the shorter run: seconds b took more
    /// (+, behind) or less (−, ahead) to get there, on each run's timer.
    public static func gap(_ a: ActivityReportInput, _ b: ActivityReportInput) -> [(distance: Double, seconds: Double)] {
        let x = RunAnalysis(a), y = RunAnalysis(b)
        let far = min(x.along.last ?? 0, y.along.last ?? 0)
        var out: [(Double, Double)] = []
        var d = 100.0
        while d <= far {
            if let s = time(at: d, x), let t = time(at: d, y) { out.append((d, t - s)) }
            d += 100
        }
        return out
    }

    /// The timer when the run reached `distance` metres along.
    static func time(at distance: Double, _ run: RunAnalysis) -> Double? {
        guard let i = run.along.firstIndex(where: { $0 >= distance }) else { return nil }
        guard i > 0 else { return run.seconds[0] }
        let d0 = run.along[i - 1], d1 = run.along[i]
        let f = d1 > d0 ? (distance - d0) / (d1 - d0) : 1
        return run.seconds[i - 1] + f * (run.seconds[i] - run.seconds[i - 1])
    }

    // MARK: - Text

    public static func text(_ c: RunComparisonInput) -> String {
        var out = c.title + "\n"
        for note in c.notes { out += note + "\n" }
        out += "\n" + columns([["", c.a.label, c.b.label]] + figures(c).map { [$0.0, $0.1, $0.2] })
        let cues = cueRows(c)
        if !cues.isEmpty {
            out += "\nCues (timer: \(c.a.label) | \(c.b.label)):\n"
            out += columns(cues.map { [ActivityFormat.clock($0.time), $0.a.isEmpty ? "-" : $0.a, "|", $0.b.isEmpty ? "-" : $0.b] })
        }
        let phases = phaseRows(c)
        if !phases.isEmpty {
            out += "\nPhases (time, distance, in band):\n"
            out += columns([["#", "phase", c.a.label, "", "", c.b.label, "", ""]] + phases)
        }
        let splits = splitRows(c)
        if !splits.isEmpty {
            out += "\nSplits (km):\n"
            out += columns([["km", c.a.label, c.b.label, "difference"]] + splits)
        }
        return out
    }

    /// Rows as columns padded to their widest cell.
    static func columns(_ rows: [[String]]) -> String {
        let n = rows.map(\.count).max() ?? 0
        let widths = (0..<n).map { c in rows.map { c < $0.count ? $0[c].count : 0 }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { c, cell in cell + String(repeating: " ", count: max(0, widths[c] - cell.count)) }
                .joined(separator: "  ").trimmingTrailingSpaces()
        }.joined(separator: "\n") + "\n"
    }

    // MARK: - Page

    public static func html(_ c: RunComparisonInput) -> String {
        var body = "<header>\n<h1>\(Markup.escape(c.title))</h1>\n"
        for note in c.notes { body += HTMLPage.paragraph(note, class: "meta") }
        body += "</header>\n"
        body += HTMLPage.section("The two runs", HTMLPage.table(["", c.a.label, c.b.label], figures(c).map { [$0.0, $0.1, $0.2] }))

        let x = RunAnalysis(c.a.run), y = RunAnalysis(c.b.run)
        var speed = OverlayChart(xTitle: "distance (km)", yTitle: "speed (km/h)")
        speed.add(c.a.label, colour: colourA, x.along.indices.map { (x.along[$0] / 1000, x.speeds[$0] * 3.6) })
        speed.add(c.b.label, colour: colourB, y.along.indices.map { (y.along[$0] / 1000, y.speeds[$0] * 3.6) }, dashed: true)
        body += HTMLPage.section("Speed", HTMLPage.figure(
            speed.render(title: "Speed over the distance: \(c.a.label) and \(c.b.label)", id: "speed"),
            caption: "The receiver's speed at each stored point against the distance run, the two runs together."))

        let rates = [c.a.run, c.b.run].map { run in run.points.compactMap { p -> Int? in p.heartRate.flatMap { $0 > 0 ? $0 : nil } } }
        if rates.contains(where: { !$0.isEmpty }) {
            var heart = OverlayChart(xTitle: "distance (km)", yTitle: "heart rate (bpm)")
            for (side, analysis, colour, dashed) in [(c.a, x, colourA, false), (c.b, y, colourB, true)] {
                let points = zip(analysis.along, side.run.points).compactMap { d, p -> (Double, Double)? in
                    guard let bpm = p.heartRate, bpm > 0 else { return nil }
                    return (d / 1000, Double(bpm))
                }
                heart.add(side.label, colour: colour, points, dashed: dashed)
            }
            body += HTMLPage.section("Heart rate", HTMLPage.figure(
                heart.render(title: "Heart rate over the distance: \(c.a.label) and \(c.b.label)", id: "heart-rate"),
                caption: "The heart rate at each stored point against the distance run."))
        }

        let gaps = gap(c.a.run, c.b.run)
        if gaps.count >= 2 {
            var chart = OverlayChart(xTitle: "distance (km)", yTitle: "\(c.b.label) behind (+) or ahead (−) of \(c.a.label), s")
            chart.add("gap", colour: colourGap, gaps.map { ($0.distance / 1000, $0.seconds) })
            chart.zeroLine = true
            body += HTMLPage.section("The gap", HTMLPage.figure(
                chart.render(title: "The gap between \(c.b.label) and \(c.a.label) over the distance", id: "gap"),
                caption: "Seconds \(c.b.label) took more (above the line: behind) or less (below: ahead) than "
                    + "\(c.a.label) to reach each 100 m, on each run's timer: judged on the distance run, not on where."))
        }

        let cues = cueRows(c)
        if !cues.isEmpty {
            body += HTMLPage.section("Cues", HTMLPage.table(
                ["timer", c.a.label, c.b.label], cues.map { [ActivityFormat.clock($0.time), $0.a, $0.b] }, numeric: [0]))
        }
        let phases = phaseRows(c)
        if !phases.isEmpty {
            let header = ["#", "phase"] + [c.a.label, c.b.label].flatMap { ["\($0): time", "distance", "in band"] }
            body += HTMLPage.section("Phases", HTMLPage.table(header, phases, numeric: [0, 2, 3, 4, 5, 6, 7]))
        }
        let splits = splitRows(c)
        if !splits.isEmpty {
            body += HTMLPage.section("Splits", HTMLPage.table(["km", c.a.label, c.b.label, "difference"], splits, numeric: [0, 1, 2, 3]))
        }
        return HTMLPage.document(title: c.title, body: body)
    }

    static let colourA = "#1f6fc5"
    static let colourB = "#e8590c"
    static let colourGap = "#5f3dc4"
}

/// Lines over a shared x axis, each with its name in the key: two runs' speeds, heart rates,
/// or the gap between them.
struct OverlayChart {
    var xTitle: String
    var yTitle: String
    var series: [(name: String, colour: String, points: [(Double, Double)], dashed: Bool)] = []
    /// Draws y = 0 across (a gap: who is ahead).
    var zeroLine = false

    mutating func add(_ name: String, colour: String, _ points: [(Double, Double)], dashed: Bool = false) {
        series.append((name, colour, points, dashed))
    }

    func render(title: String, id: String, width: Double = 960) -> String {
        let height = 300.0
        let all = series.flatMap(\.points)
        guard let xMax = all.map(\.0).max(), let yMin = all.map(\.1).min(), let yMax = all.map(\.1).max() else {
            var svg = SVG(width: width, height: 70)
            svg.text("Nothing to draw.", x: 20, y: 40, size: 14, fill: Palette.muted)
            return svg.render(title: title, id: id)
        }
        var key = Legend()
        for s in series where series.count > 1 {
            let colour = s.colour, dashed = s.dashed
            key.add(s.name) { svg, x, y in svg.line(x, y, x + 16, y, stroke: colour, width: 2.5, dash: dashed ? "6 3" : nil) }
        }
        let xs = NiceScale(low: 0, high: max(xMax, 0.1), ticks: 10)
        let ys = NiceScale(low: zeroLine ? min(yMin, 0) : yMin, high: zeroLine ? max(yMax, 0) : yMax, ticks: 6, minimumSpan: 1)
        let frame = ChartFrame(width: width, height: height, x: xs, y: ys, xTitle: xTitle, yTitle: yTitle,
                               above: key.height(width: width) + 6)
        var svg = SVG(width: width, height: height)
        frame.drawAxes(into: &svg)
        if zeroLine { svg.line(frame.left, frame.py(0), frame.right, frame.py(0), stroke: "#555", width: 1.5) }
        for s in series {
            let path = SVG.pathData(s.points.map { (frame.px($0.0), frame.py($0.1)) })
            var attributes = [("d", path), ("fill", "none"), ("stroke", s.colour), ("stroke-width", "2")]
            if s.dashed { attributes.append(("stroke-dasharray", "6 3")) }
            svg.element("path", attributes)
        }
        key.draw(into: &svg, top: 0, width: width)
        return svg.render(title: title, id: id)
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var s = self
        while s.last == " " { s.removeLast() }
        return s
    }
}
