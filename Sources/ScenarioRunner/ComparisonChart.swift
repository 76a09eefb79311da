import Charts

/// `pacer battery compare --svg`: two panels, one mark per profile, each named with the
/// runtime a full battery gives it: energy against the worst alert latency, and energy
/// against the distance error, signed (below the zero line: shorter than the recording).
/// The heading names the scenario, the hardware build and its battery. Axes tick at round
/// numbers, and the picture is as wide as its widest label needs, so nothing is cut.
enum ComparisonChart {
    static let colours = ["#c92a2a", "#e8590c", "#2b8a3e", "#1971c2", "#7048e8", "#862e9c"]
    static let panelWidth = 440.0, panelHeight = 330.0, margin = 12.0

    static func svg(_ rows: [ProfileComparison.Row], title: String) -> String {
        let first = rows.first
        let hardware = first.map {
            "hardware build \($0.hardware), battery \(ComparisonReport.fixed($0.batteryCapacityMilliampHours, 0)) mAh"
        } ?? "no runs"
        let runtimes = "runtime on a full battery: "
            + rows.map { "\($0.profile) \(hours($0.projectedRuntimeHours))" }.joined(separator: ", ")
        let header: [(text: String, size: Double, bold: Bool)] = [(title, 16, true), (hardware, 13, false), (runtimes, 13, false)]
        let headerHeight = 20 + header.reduce(0.0) { $0 + $1.size + 8 }
        let headerWidth = header.map { TextMetrics.width($0.text, size: $0.size, bold: $0.bold) }.max() ?? 0
        let width = max(2 * panelWidth + margin, headerWidth + 2 * margin)
        var svg = SVG(width: width, height: headerHeight + panelHeight)
        var y = 8.0
        for line in header {
            y += line.size + 6
            svg.text(line.text, x: margin, y: y, size: line.size, bold: line.bold, fill: line.bold ? "#222" : "#444")
        }

        let energies = rows.map(\.energyMilliampHours)
        let xs = NiceScale(low: 0, high: max(energies.max() ?? 1, 1e-6), ticks: 5)
        let latencies = rows.compactMap(\.maximumLatency)
        let latencyScale = NiceScale(low: 0, high: max(latencies.max() ?? 10, 1), ticks: 5)
        let errors = rows.map(\.distanceErrorPercent).filter(\.isFinite)
        let errorScale = NiceScale(low: min(0, errors.min() ?? 0), high: max(0, errors.max() ?? 0), ticks: 5,
                                   minimumSpan: 0.5)
        let panels: [(scale: NiceScale, title: String, value: (ProfileComparison.Row) -> Double?)] = [
            (latencyScale, "worst alert latency (s)", { $0.maximumLatency }),
            (errorScale, "distance error (%), signed: below 0, shorter than the recording",
             { $0.distanceErrorPercent.isFinite ? $0.distanceErrorPercent : nil }),
        ]
        for (p, panel) in panels.enumerated() {
            let x0 = Double(p) * panelWidth + (p == 0 ? 0 : margin)
            let frame = ChartFrame(width: panelWidth, height: panelHeight, x: xs, y: panel.scale,
                                   xTitle: "energy used (mAh)", yTitle: panel.title)
            svg.group([("transform", "translate(\(Markup.number(x0)) \(Markup.number(headerHeight)))")])
            frame.drawAxes(into: &svg)
            if panel.scale.lower < 0 {
                svg.line(frame.left, frame.py(0), frame.right, frame.py(0), stroke: "#343a40", width: 1.5)
            }
            var labels = LabelPlacer(x0: 0, y0: frame.top - 4, x1: panelWidth - 4, y1: frame.bottom)
            if panel.scale.lower < 0 { labels.reserve(x0: frame.left, y0: frame.py(0) - 1, x1: frame.right, y1: frame.py(0) + 1) }
            // The closure captures the function alone, not the tuple holding it: Debian's
            // Swift 6.2.3 (built with assertions) fails IRGen at -Onone on the tuple capture.
            let value = panel.value
            let marks = rows.enumerated().compactMap { i, r -> (Int, ProfileComparison.Row, Double, Double)? in
                guard let v = value(r) else { return nil }
                return (i, r, frame.px(r.energyMilliampHours), frame.py(v))
            }
            for (_, _, x, y) in marks { labels.reserve(x: x, y: y, radius: 7) }
            for (i, r, x, y) in marks {
                let colour = colours[i % colours.count]
                svg.circle(cx: x, cy: y, r: 6, fill: colour, extra: [("stroke", "white"), ("stroke-width", "1.5")])
                let text = "\(r.profile) (\(hours(r.projectedRuntimeHours)))"
                let spot = labels.place(text, x: x, y: y, radius: 6, size: 12)
                svg.text(text, x: spot.x, y: spot.y, anchor: spot.anchor, bold: true, fill: colour,
                         extra: [("stroke", "white"), ("stroke-width", "3"), ("paint-order", "stroke")])
            }
            svg.close()
        }
        return svg.render(title: title)
    }

    static func hours(_ h: Double) -> String {
        h.isFinite ? "\(ComparisonReport.fixed(h, 1)) h" : "runtime unknown"
    }
}
