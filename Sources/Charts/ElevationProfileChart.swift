import Coaching

/// An elevation profile: altitude against distance, the ground filled below the line. The
/// vertical axis spans at least `minimumSpan` metres (10), so a flat path draws flat instead
/// of stretching its decimetres over the chart's height.
public enum ElevationProfileChart {
    public static func render(_ profile: [ProfileSample], title: String, id: String, width: Double = 960,
                              minimumSpan: Double = 10) -> String {
        let height = 260.0
        guard let first = profile.first, let last = profile.last, last.distance > first.distance else {
            var svg = SVG(width: width, height: 70)
            svg.text("No altitude was recorded.", x: 20, y: 40, size: 14, fill: Palette.muted)
            return svg.render(title: title, id: id)
        }
        let altitudes = profile.map(\.altitude)
        let xs = NiceScale(low: 0, high: last.distance / 1000, ticks: 10)
        let ys = NiceScale(low: altitudes.min()!, high: altitudes.max()!, ticks: 4, minimumSpan: minimumSpan)
        let frame = ChartFrame(width: width, height: height, x: xs, y: ys, xTitle: "distance (km)",
                               yTitle: "altitude (m)")
        var svg = SVG(width: width, height: height)
        let line = profile.map { (x: frame.px($0.distance / 1000), y: frame.py($0.altitude)) }
        var area = line
        area.append((line[line.count - 1].x, frame.bottom))
        area.append((line[0].x, frame.bottom))
        svg.element("path", [("d", SVG.pathData(area, closed: true)), ("fill", Palette.terrainFill)])
        frame.drawAxes(into: &svg)
        svg.element("path", [("d", SVG.pathData(line)), ("fill", "none"), ("stroke", Palette.terrainLine),
                             ("stroke-width", "2"), ("stroke-linejoin", "round")])
        return svg.render(title: title, id: id)
    }
}
