import Coaching
import PacerCore

/// Speed over the run against each phase's band: the bands as shaded boxes, one per phase,
/// with the phases' names; the speed at each stored point as a line coloured like the map
/// (below, in or above the band); the pace cues marked on the line where they sounded, every
/// other cue on a rail above the plot.
public enum SpeedChart {
    /// Round steps for a time axis, in minutes.
    static let minuteSteps: [Double] = [0.25, 0.5, 1, 2, 5, 10, 15, 20, 30, 60, 120, 180, 240, 360, 480, 720]

    /// `12` (minutes) on a short axis, `1:30` (hours and minutes) on a long one.
    static func timeLabel(_ minutes: Double, hours: Bool) -> String {
        guard hours else {
            return minutes == minutes.rounded() ? "\(Int(minutes))" : NiceScale.fixed(minutes, places: minutes * 4 == (minutes * 4).rounded() ? 2 : 1)
        }
        let m = Int(minutes.rounded())
        return "\(m / 60):" + (m % 60 < 10 ? "0" : "") + "\(m % 60)"
    }

    /// The cues drawn on the line, with their mark and colour.
    static let paceCues: [(cue: String, shape: String, colour: String)] = [
        (Cue.speedUp.rawValue, "up", Palette.colour(.slow)),
        (Cue.slowDown.rawValue, "down", Palette.colour(.fast)),
        (Cue.onPace.rawValue, "dot", Palette.colour(.inBand)),
    ]

    public static func render(_ run: RunAnalysis, cues: [CueRecord], title: String, id: String, width: Double = 960)
        -> String
    {
        let height = 360.0
        guard let lastSecond = run.seconds.last, run.points.count > 1 || !run.phases.isEmpty else {
            var svg = SVG(width: width, height: 80)
            svg.text("Too few points for a speed chart.", x: 20, y: 45, size: 14, fill: Palette.muted)
            return svg.render(title: title, id: id)
        }
        let totalMinutes = max(lastSecond, run.phases.last?.end ?? 0, 60) / 60
        let hours = totalMinutes > 120
        let xs = NiceScale(low: 0, high: totalMinutes, ticks: 10, steps: minuteSteps)
        // The top: the bands and the speeds, but not a GPS spike (the 99th percentile).
        let kmh = run.speeds.map { $0 * 3.6 }
        let sorted = kmh.sorted()
        let typical = sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
        let bandTop = (run.phases.map { $0.band.upperBound * 3.6 }.max() ?? 0)
        let ys = NiceScale(low: 0, high: max(typical * 1.08, bandTop * 1.1, 5), ticks: 6)
        let otherCues = cues.filter { c in !paceCues.contains { $0.cue == c.cue } }
        let key = key(run, cues: cues)
        let legendHeight = key.height(width: width) + 6, railHeight = otherCues.isEmpty ? 0.0 : 22.0
        let frame = ChartFrame(
            width: width, height: height, x: xs, y: ys,
            xTitle: run.onTimer ? (hours ? "timer (h:mm), pauses excluded" : "timer (minutes), pauses excluded")
                : (hours ? "time since the first point (h:mm)" : "time since the first point (minutes)"),
            yTitle: "speed (km/h)", above: legendHeight + railHeight,
            xLabel: { timeLabel($0, hours: hours) })
        var svg = SVG(width: width, height: height)
        drawBands(run, frame: frame, into: &svg)
        frame.drawAxes(into: &svg)
        drawSpeed(run, frame: frame, into: &svg)
        drawCues(run, cues: cues, others: otherCues, frame: frame, railTop: legendHeight + 12, into: &svg)
        key.draw(into: &svg, top: 0, width: width)
        return svg.render(title: title, id: id)
    }

    static func drawBands(_ run: RunAnalysis, frame: ChartFrame, into svg: inout SVG) {
        svg.group([("class", "bands")])
        for (k, p) in run.phases.enumerated() {
            let x0 = frame.px(p.start / 60), x1 = frame.px(p.end / 60)
            let yTop = frame.py(min(p.band.upperBound * 3.6, frame.y.upper))
            let yBottom = frame.py(max(p.band.lowerBound * 3.6, frame.y.lower))
            svg.rect(x: x0, y: frame.top, width: x1 - x0, height: frame.plotHeight,
                     fill: k % 2 == 0 ? "#f1f3f5" : "#ffffff")
            svg.rect(x: x0, y: yTop, width: x1 - x0, height: yBottom - yTop, fill: Palette.band,
                     extra: [("fill-opacity", "0.2")])
            svg.line(x0, yTop, x1, yTop, stroke: Palette.band, width: 1)
            svg.line(x0, yBottom, x1, yBottom, stroke: Palette.band, width: 1)
            // The phase's name where it fits, else its number, else nothing.
            let room = x1 - x0 - 6
            let name = "\(p.index + 1) \(p.name)"
            let label = TextMetrics.width(name, size: 11) <= room ? name
                : TextMetrics.width("\(p.index + 1)", size: 11) <= room ? "\(p.index + 1)" : nil
            if let label {
                svg.text(label, x: (x0 + x1) / 2, y: frame.top + 14, size: 11, anchor: .middle, fill: "#495057")
            }
            if k > 0 { svg.line(x0, frame.top, x0, frame.bottom, stroke: "#adb5bd", dash: "3 3") }
        }
        svg.close()
    }

    static func drawSpeed(_ run: RunAnalysis, frame: ChartFrame, into svg: inout SVG) {
        func at(_ i: Int) -> (x: Double, y: Double) {
            (frame.px(run.seconds[i] / 60), frame.py(min(run.speeds[i] * 3.6, frame.y.upper)))
        }
        svg.group([("fill", "none"), ("stroke-width", "2.5"), ("stroke-linejoin", "round"), ("stroke-linecap", "round")])
        var run0: [(x: Double, y: Double)] = []
        var pace: PaceClass?
        func flush() {
            if let pace, run0.count > 1 {
                svg.element("path", [("d", SVG.pathData(run0)), ("stroke", Palette.colour(pace))])
            }
        }
        for i in run.points.indices {
            let startsSegment = i == 0 || run.points[i - 1].segment != run.points[i].segment
            if startsSegment {
                flush()
                run0 = [at(i)]
                pace = nil
                continue
            }
            let c = run.legClasses[i]
            if let current = pace, current != c {
                flush()
                run0 = [run0[run0.count - 1]]
            }
            pace = c
            run0.append(at(i))
        }
        flush()
        svg.close()
    }

    /// The speed on the line at `second` (between the points either side).
    static func speed(at second: Double, _ run: RunAnalysis) -> Double {
        guard let j = run.seconds.firstIndex(where: { $0 >= second }) else { return run.speeds.last ?? 0 }
        guard j > 0 else { return run.speeds[0] }
        let a = run.seconds[j - 1], b = run.seconds[j]
        let f = b > a ? (second - a) / (b - a) : 1
        return run.speeds[j - 1] + (run.speeds[j] - run.speeds[j - 1]) * f
    }

    static func mark(_ shape: String, x: Double, y: Double, colour: String, into svg: inout SVG) {
        let stroke: [(String, String)] = [("stroke", "white"), ("stroke-width", "1.5")]
        switch shape {
        case "up":
            svg.element("path", [("d", "M\(Markup.number(x)) \(Markup.number(y - 7)) l6.5 11 h-13 Z"), ("fill", colour)] + stroke)
        case "down":
            svg.element("path", [("d", "M\(Markup.number(x)) \(Markup.number(y + 7)) l6.5 -11 h-13 Z"), ("fill", colour)] + stroke)
        default:
            // The confirming cue is the common one: a small dot, so the line stays readable.
            svg.circle(cx: x, cy: y, r: 3.5, fill: colour, extra: [("stroke", "white"), ("stroke-width", "1")])
        }
    }

    static func drawCues(_ run: RunAnalysis, cues: [CueRecord], others: [CueRecord], frame: ChartFrame,
                         railTop: Double, into svg: inout SVG) {
        svg.group([("class", "cues")])
        if !others.isEmpty {
            let y = railTop + 6
            svg.line(frame.left, y, frame.right, y, stroke: "#dee2e6")
            for c in others {
                let x = frame.px(min(c.elapsed.inSeconds / 60, frame.x.upper))
                svg.line(x, y - 6, x, y + 6, stroke: "#495057", width: 2)
            }
        }
        for c in cues {
            guard let style = paceCues.first(where: { $0.cue == c.cue }) else { continue }
            let t = c.elapsed.inSeconds
            let x = frame.px(min(t / 60, frame.x.upper))
            let y = frame.py(min(speed(at: t, run) * 3.6, frame.y.upper))
            mark(style.shape, x: x, y: y, colour: style.colour, into: &svg)
        }
        svg.close()
    }

    static func key(_ run: RunAnalysis, cues: [CueRecord]) -> Legend {
        var legend = Legend()
        let used = Set(run.legClasses.enumerated().compactMap { i, c in
            i > 0 && run.points[i - 1].segment == run.points[i].segment ? c : nil
        })
        for pace in PaceClass.allCases where used.contains(pace) {
            legend.add(pace == .unbanded ? "speed" : "speed " + Palette.meaning(pace)) { svg, x, y in
                svg.line(x, y, x + 16, y, stroke: Palette.colour(pace), width: 3)
            }
        }
        if !run.phases.isEmpty {
            legend.add("the phase's band") { svg, x, y in
                svg.rect(x: x, y: y - 6, width: 16, height: 12, fill: Palette.band, extra: [("fill-opacity", "0.25")])
            }
        }
        for style in paceCues {
            let count = cues.filter { $0.cue == style.cue }.count
            guard count > 0 else { continue }
            legend.add("\(style.cue) (\(count))") { svg, x, y in mark(style.shape, x: x + 8, y: y, colour: style.colour, into: &svg) }
        }
        let others = cues.filter { c in !paceCues.contains { $0.cue == c.cue } }.count
        if others > 0 {
            legend.add("other cues (\(others), on the rail)") { svg, x, y in
                svg.line(x + 8, y - 6, x + 8, y + 6, stroke: "#495057", width: 2)
            }
        }
        return legend
    }
}
