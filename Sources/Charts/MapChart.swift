import PacerCore

/// A route drawn to scale, north up: an equirectangular projection about the middle latitude
/// (east-west distances scaled by its cosine, fine at a run's scale), the same metres per
/// pixel across and down, with a scale bar of a round length and a north arrow.
public struct MapChart: Sendable {
    /// One segment of the line: its points, each with the class of the leg that ends at it
    /// (the first point's is ignored).
    public var segments: [[(position: GeoPoint, pace: PaceClass)]] = []
    public var waypoints: [(label: String, position: GeoPoint)] = []
    public var kilometres: [(kilometre: Int, position: GeoPoint)] = []
    /// The classes the line uses, in the legend's order; `[.unbanded]` names the line `lineName`.
    public var legend: [PaceClass] = [.unbanded]
    public var lineName = "route"
    public var width = 960.0

    public init() {}

    /// Metres east and north of the south-west corner, about the middle latitude
    /// (`LocalPlane.map`).
    struct Projection {
        var plane: LocalPlane

        init?(_ points: [GeoPoint]) {
            guard let plane = LocalPlane.map(of: points) else { return nil }
            self.plane = plane
        }

        func metres(_ p: GeoPoint) -> (x: Double, y: Double) {
            let m = plane.metres(p)
            return (m.east, m.north)
        }
    }

    /// The picture; `title` is its accessible name.
    public func render(title: String, id: String) -> String {
        let all = segments.flatMap { $0.map(\.position) } + waypoints.map(\.position) + kilometres.map(\.position)
        let key = self.key
        let legendHeight = key.height(width: width) + 8, pad = 28.0, footer = 44.0
        guard let projection = Projection(all) else {
            var svg = SVG(width: width, height: 80)
            svg.text("No position was recorded.", x: 20, y: 45, size: 14, fill: Palette.muted)
            return svg.render(title: title, id: id)
        }
        let metres = all.map(projection.metres)
        let spanX = max(metres.map(\.x).max()!, 1), spanY = max(metres.map(\.y).max()!, 1)
        let plotWidth = width - 2 * pad
        var scale = plotWidth / spanX
        let tallest = 620.0, shortest = 240.0
        if spanY * scale > tallest { scale = tallest / spanY }
        let plotHeight = max(shortest, spanY * scale)
        let height = legendHeight + pad + plotHeight + pad + footer
        // Centred in the plot area.
        let x0 = pad + (plotWidth - spanX * scale) / 2
        let y0 = legendHeight + pad + (plotHeight + spanY * scale) / 2
        func at(_ p: GeoPoint) -> (x: Double, y: Double) {
            let m = projection.metres(p)
            return (x0 + m.x * scale, y0 - m.y * scale)
        }

        var svg = SVG(width: width, height: height)
        svg.rect(x: 0.5, y: legendHeight + 0.5, width: width - 1, height: height - legendHeight - 1, fill: "#f8f9fa",
                 extra: [("stroke", "#dee2e6")])
        key.draw(into: &svg, top: 2, width: width)

        // The line: a white casing under it, then runs of legs of one class; the gaps between
        // segments (no fix, or paused) as a thin dashed line, not run.
        svg.group([("fill", "none"), ("stroke-linecap", "round"), ("stroke-linejoin", "round")])
        let drawnSegments = segments.filter { !$0.isEmpty }
        for (a, b) in zip(drawnSegments, drawnSegments.dropFirst()) {
            let from = at(a[a.count - 1].position), to = at(b[0].position)
            svg.line(from.x, from.y, to.x, to.y, stroke: "#868e96", width: 1.5, dash: "4 4")
        }
        for segment in segments where segment.count > 1 {
            svg.element("path", [("d", SVG.pathData(segment.map { at($0.position) })), ("stroke", "white"),
                                 ("stroke-width", "8")])
        }
        for segment in segments {
            var run: [(x: Double, y: Double)] = []
            var pace: PaceClass?
            for (i, p) in segment.enumerated() {
                let c = at(p.position)
                if i == 0 {
                    run = [c]
                    continue
                }
                if let current = pace, current != p.pace {
                    svg.element("path", [("d", SVG.pathData(run)), ("stroke", Palette.colour(current)), ("stroke-width", "4")])
                    run = [run[run.count - 1]]
                }
                pace = p.pace
                run.append(c)
            }
            if let pace, run.count > 1 {
                svg.element("path", [("d", SVG.pathData(run)), ("stroke", Palette.colour(pace)), ("stroke-width", "4")])
            }
        }
        svg.close()

        var labels = LabelPlacer(x0: 2, y0: legendHeight + 2, x1: width - 2, y1: height - footer)
        // Labels keep off the line: points every few pixels along it are taken.
        for segment in segments {
            var previous: (x: Double, y: Double)?
            for p in segment {
                let c = at(p.position)
                if let a = previous {
                    let steps = max(1, Int((abs(c.x - a.x) + abs(c.y - a.y)) / 6))
                    for k in 1...steps {
                        let f = Double(k) / Double(steps)
                        labels.reserve(x: a.x + (c.x - a.x) * f, y: a.y + (c.y - a.y) * f, radius: 3)
                    }
                } else {
                    labels.reserve(x: c.x, y: c.y, radius: 3)
                }
                previous = c
            }
        }
        let first = segments.first(where: { !$0.isEmpty })?.first.map { at($0.position) }
        let last = segments.last(where: { !$0.isEmpty })?.last.map { at($0.position) }
        // Kilometre marks, thinned to at most about 15, none over another (an out-and-back
        // passes each spot twice).
        var drawn: [(x: Double, y: Double)] = [first, last].compactMap { $0 }
        for k in kilometres where k.kilometre % kilometreStep == 0 {
            let c = at(k.position)
            if drawn.contains(where: { abs($0.x - c.x) < 18 && abs($0.y - c.y) < 18 }) { continue }
            drawn.append(c)
            labels.reserve(x: c.x, y: c.y, radius: 9)
            let text = "\(k.kilometre)"
            let r = max(8.5, TextMetrics.width(text, size: 10, bold: true) / 2 + 3)
            svg.circle(cx: c.x, cy: c.y, r: r, fill: "white", extra: [("stroke", "#343a40"), ("stroke-width", "1.5")])
            svg.text(text, x: c.x, y: c.y + 3.5, size: 10, anchor: .middle, bold: true)
        }
        if let last {
            labels.reserve(x: last.x, y: last.y, radius: 10)
            // Larger than the start's circle: on a loop, its corners show under it.
            svg.rect(x: last.x - 9, y: last.y - 9, width: 18, height: 18, fill: Palette.end,
                     extra: [("stroke", "white"), ("stroke-width", "2")])
        }
        if let first {
            labels.reserve(x: first.x, y: first.y, radius: 8)
            svg.circle(cx: first.x, cy: first.y, r: 7.5, fill: Palette.start, extra: [("stroke", "white"), ("stroke-width", "2")])
        }
        for w in waypoints {
            let c = at(w.position)
            labels.reserve(x: c.x, y: c.y, radius: 7)
            svg.element("path", [("d", "M\(Markup.number(c.x)) \(Markup.number(c.y - 7)) l7 7 l-7 7 l-7 -7 Z"),
                                 ("fill", Palette.waypoint), ("stroke", "white"), ("stroke-width", "1.5")])
        }
        // Waypoint names last, placed around everything else.
        for w in waypoints {
            let c = at(w.position)
            let spot = labels.place(w.label, x: c.x, y: c.y, radius: 7, size: 12)
            svg.text(w.label, x: spot.x, y: spot.y, anchor: spot.anchor, bold: true, fill: Palette.waypoint,
                     extra: [("stroke", "white"), ("stroke-width", "3"), ("paint-order", "stroke")])
        }
        drawNorth(into: &svg, x: width - pad, y: height - footer + 6)
        drawScaleBar(into: &svg, metresPerPixel: 1 / scale, x: pad, y: height - 22)
        return svg.render(title: title, id: id)
    }

    var key: Legend {
        var legend = Legend()
        for pace in self.legend {
            legend.add(pace == .unbanded ? lineName : Palette.meaning(pace)) { svg, x, y in
                svg.line(x, y, x + 16, y, stroke: Palette.colour(pace), width: 4)
            }
        }
        if segments.filter({ !$0.isEmpty }).count > 1 {
            legend.add("gap (no fix, or paused)") { svg, x, y in
                svg.line(x, y, x + 16, y, stroke: "#868e96", width: 1.5, dash: "4 4")
            }
        }
        legend.add("start") { svg, x, y in svg.circle(cx: x + 8, cy: y, r: 6, fill: Palette.start) }
        legend.add("end") { svg, x, y in svg.rect(x: x + 2, y: y - 6, width: 12, height: 12, fill: Palette.end) }
        if !waypoints.isEmpty {
            legend.add("waypoint") { svg, x, y in
                svg.element("path", [("d", "M\(Markup.number(x + 8)) \(Markup.number(y - 7)) l7 7 l-7 7 l-7 -7 Z"),
                                     ("fill", Palette.waypoint)])
            }
        }
        if !kilometres.isEmpty {
            legend.add(kilometreStep == 1 ? "kilometre" : "every \(kilometreStep) km") { svg, x, y in
                svg.circle(cx: x + 8, cy: y, r: 7, fill: "white", extra: [("stroke", "#343a40"), ("stroke-width", "1.5")])
            }
        }
        return legend
    }

    /// Every kilometre, or every 2, 5, 10… when there are more than 15.
    var kilometreStep: Int {
        let count = kilometres.count
        return [1, 2, 5, 10, 20, 50, 100].first { count / $0 <= 15 } ?? 100
    }

    func drawNorth(into svg: inout SVG, x: Double, y: Double) {
        svg.element("path", [("d", "M\(Markup.number(x)) \(Markup.number(y)) l6 16 l-6 -5 l-6 5 Z"), ("fill", "#343a40")])
        svg.text("N", x: x, y: y + 30, size: 12, anchor: .middle, bold: true, fill: "#343a40")
    }

    /// A bar of a round length (1, 2 or 5 × 10ⁿ metres), at most a fifth of the picture's
    /// width, in two halves.
    func drawScaleBar(into svg: inout SVG, metresPerPixel: Double, x: Double, y: Double) {
        let length = NiceScale.roundDown(metresPerPixel * width / 5)
        let pixels = length / metresPerPixel
        svg.rect(x: x, y: y - 4, width: pixels / 2, height: 6, fill: "#343a40")
        svg.rect(x: x + pixels / 2, y: y - 4, width: pixels / 2, height: 6, fill: "white",
                 extra: [("stroke", "#343a40"), ("stroke-width", "1")])
        svg.text("0", x: x, y: y + 16, size: 11, anchor: .middle, fill: "#343a40")
        svg.text(MapChart.distanceLabel(length), x: x + pixels, y: y + 16, size: 11, anchor: .middle, fill: "#343a40")
    }

    /// `500 m`, `2 km`, `1.5 km`.
    public static func distanceLabel(_ metres: Double) -> String {
        if metres >= 1000 {
            let km = metres / 1000
            return (km == km.rounded() ? "\(Int(km))" : NiceScale.fixed(km, places: 1)) + " km"
        }
        return (metres >= 1 ? "\(Int(metres.rounded()))" : NiceScale.fixed(metres, places: 1)) + " m"
    }
}
