import Coaching
import PacerCore

/// Heart rate over the run against the athlete's zones: the five zones as shaded bands across
/// the plot, each labelled with its name and rates; the heart rate at each stored point as a
/// line on the same time axis as the speed chart (so the two read together, one above the
/// other). The line is broken where the time is not counted in the zones
/// (`HeartRateSummary.joined`: no heart rate, a new segment, a long gap), never joined across:
/// a straight line over a lost strap would show a heart rate nobody measured. A point with a
/// heart rate and no neighbour to join is a dot. Without zones the line is drawn alone.
public enum HeartRateChart {
    public static func render(_ run: RunAnalysis, summary: HeartRateSummary, title: String, id: String,
                              width: Double = 960) -> String {
        let height = 300.0
        let rates = run.points.map(HeartRateSummary.rate)
        let values = rates.compactMap { $0 }
        guard let lastSecond = run.seconds.last, let lowest = values.min(), let highest = values.max() else {
            var svg = SVG(width: width, height: 70)
            svg.text("No heart rate was recorded.", x: 20, y: 40, size: 14, fill: Palette.muted)
            return svg.render(title: title, id: id)
        }
        let totalMinutes = max(lastSecond, run.phases.last?.end ?? 0, 60) / 60
        let hours = totalMinutes > 120
        let xs = NiceScale(low: 0, high: totalMinutes, ticks: 10, steps: SpeedChart.minuteSteps)
        // Every zone in full, and every rate, however far outside them.
        var low = Double(lowest), high = Double(highest)
        if let zones = summary.zones {
            low = min(low, Double(zones.floors[0]))
            high = max(high, Double(zones.floors[5]))
        }
        let ys = NiceScale(low: low, high: high, ticks: 6, minimumSpan: 20)
        let joined = HeartRateSummary.joined(run.points, limit: summary.gapLimit)
        let key = key(summary, gaps: hasGaps(rates, joined: joined))
        let frame = ChartFrame(
            width: width, height: height, x: xs, y: ys,
            xTitle: run.onTimer ? (hours ? "timer (h:mm), pauses excluded" : "timer (minutes), pauses excluded")
                : (hours ? "time since the first point (h:mm)" : "time since the first point (minutes)"),
            yTitle: "heart rate (bpm)", above: key.height(width: width) + 6,
            xLabel: { SpeedChart.timeLabel($0, hours: hours) })
        var svg = SVG(width: width, height: height)
        if let zones = summary.zones { drawZones(zones, frame: frame, into: &svg) }
        frame.drawAxes(into: &svg)
        drawLine(run, rates: rates, joined: joined, frame: frame, into: &svg)
        key.draw(into: &svg, top: 0, width: width)
        return svg.render(title: title, id: id)
    }

    /// Whether the line breaks anywhere between its first and last points.
    static func hasGaps(_ rates: [Int?], joined: [Bool]) -> Bool {
        guard let first = rates.firstIndex(where: { $0 != nil }), let last = rates.lastIndex(where: { $0 != nil }),
              first < last else { return false }
        return joined[(first + 1)...last].contains(false)
    }

    /// A band per zone, from its floor to the next zone's (zone 5 to its ceiling), with its
    /// label at the plot's right where the band is tall enough for it.
    static func drawZones(_ zones: HeartRateZones, frame: ChartFrame, into svg: inout SVG) {
        svg.group([("class", "zones")])
        for n in 1...5 {
            let yTop = frame.py(Double(zones.floors[n])), yBottom = frame.py(Double(zones.floors[n - 1]))
            svg.rect(x: frame.left, y: yTop, width: frame.plotWidth, height: yBottom - yTop,
                     fill: Palette.heartRateZone(n), extra: [("fill-opacity", "0.2"), ("class", "zone-\(n)")])
        }
        for n in 1...5 {
            let yTop = frame.py(Double(zones.floors[n])), yBottom = frame.py(Double(zones.floors[n - 1]))
            let room = yBottom - yTop
            let full = "Z\(n) " + HeartRateSummary.zoneRange(n, zones, dash: "–")
            let label = room >= 13 ? full : room >= 10 ? "Z\(n)" : nil
            guard let label else { continue }
            // A white halo keeps the label readable where the line crosses it.
            svg.text(label, x: frame.right - 6, y: (yTop + yBottom) / 2 + 4, size: room >= 13 ? 11 : 9, anchor: .end,
                     fill: "#495057", extra: [("stroke", "white"), ("stroke-width", "3"), ("paint-order", "stroke")])
        }
        svg.close()
    }

    static func drawLine(_ run: RunAnalysis, rates: [Int?], joined: [Bool], frame: ChartFrame,
                         into svg: inout SVG) {
        svg.group([("class", "heart-rate"), ("fill", "none"), ("stroke", Palette.heartRate), ("stroke-width", "2"),
                   ("stroke-linejoin", "round"), ("stroke-linecap", "round")])
        var stretch: [(x: Double, y: Double)] = []
        func flush() {
            if stretch.count > 1 {
                svg.element("path", [("d", SVG.pathData(stretch))])
            } else if let only = stretch.first {
                svg.circle(cx: only.x, cy: only.y, r: 2.5, fill: Palette.heartRate, extra: [("stroke", "none")])
            }
            stretch = []
        }
        for i in run.points.indices {
            guard let rate = rates[i] else { continue }
            if !joined[i] { flush() }
            stretch.append((frame.px(min(run.seconds[i] / 60, frame.x.upper)), frame.py(Double(rate))))
        }
        flush()
        svg.close()
    }

    static func key(_ summary: HeartRateSummary, gaps: Bool) -> Legend {
        var legend = Legend()
        legend.add("heart rate") { svg, x, y in
            svg.line(x, y, x + 16, y, stroke: Palette.heartRate, width: 2)
        }
        if let zones = summary.zones {
            legend.add("zones: " + HeartRateSummary.methodLine(zones)) { svg, x, y in
                for k in 0..<4 {
                    svg.rect(x: x + Double(k) * 4, y: y - 6, width: 4, height: 12, fill: Palette.heartRateZone(k + 2),
                             extra: [("fill-opacity", "0.35")])
                }
            }
        }
        if gaps {
            legend.add("a gap: no heart rate, or no point for over \(summary.gapLimitText)") { svg, x, y in
                svg.line(x, y, x + 5, y, stroke: Palette.heartRate, width: 2)
                svg.line(x + 11, y, x + 16, y, stroke: Palette.heartRate, width: 2)
            }
        }
        return legend
    }
}
