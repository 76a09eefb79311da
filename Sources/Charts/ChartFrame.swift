/// The plot area of a chart with two axes, inside a picture of a given size, and its margins:
/// wide enough for the widest tick label on the left, half the last tick label on the right
/// (a centred label at the axis's end is never cut), the axis titles with their units, and
/// `above` pixels at the top for a legend.
public struct ChartFrame: Sendable {
    public var x: NiceScale
    public var y: NiceScale
    public var xTitle: String
    public var yTitle: String
    /// The plot area, in pixels.
    public var left: Double
    public var top: Double
    public var right: Double
    public var bottom: Double
    public let xLabel: @Sendable (Double) -> String

    public static let tickSize = 11.0
    public static let titleSize = 12.0

    public init(
        width: Double, height: Double, x: NiceScale, y: NiceScale, xTitle: String, yTitle: String, above: Double = 0,
        xLabel: (@Sendable (Double) -> String)? = nil
    ) {
        self.x = x
        self.y = y
        self.xTitle = xTitle
        self.yTitle = yTitle
        let xLabel = xLabel ?? { x.label($0) }
        self.xLabel = xLabel
        let yWidest = y.ticks.map { TextMetrics.width(y.label($0), size: Self.tickSize) }.max() ?? 0
        let xFirst = TextMetrics.width(xLabel(x.lower), size: Self.tickSize)
        let xLast = TextMetrics.width(xLabel(x.upper), size: Self.tickSize)
        left = max(12 + yWidest + 6, xFirst / 2 + 6)
        right = width - max(14, xLast / 2 + 6)
        // The y axis's title sits above the axis, left-aligned with the picture.
        top = above + 12 + Self.titleSize + 8
        bottom = height - (6 + Self.tickSize + 8 + Self.titleSize + 10)
    }

    public var plotWidth: Double { right - left }
    public var plotHeight: Double { bottom - top }

    public func px(_ value: Double) -> Double { x.position(value, from: left, to: right) }
    public func py(_ value: Double) -> Double { y.position(value, from: bottom, to: top) }

    /// Grid lines, the axes, their tick labels and their titles.
    public func drawAxes(into svg: inout SVG, grid: Bool = true) {
        svg.group([("class", "axes")])
        for t in y.ticks {
            let yy = py(t)
            if grid && t != y.lower { svg.line(left, yy, right, yy, stroke: "#e3e3e3") }
            svg.line(left - 4, yy, left, yy, stroke: "#555")
            svg.text(y.label(t), x: left - 7, y: yy + 4, size: Self.tickSize, anchor: .end, fill: "#444")
        }
        for t in x.ticks {
            let xx = px(t)
            if grid && t != x.lower { svg.line(xx, top, xx, bottom, stroke: "#efefef") }
            svg.line(xx, bottom, xx, bottom + 4, stroke: "#555")
            svg.text(xLabel(t), x: xx, y: bottom + 6 + Self.tickSize, size: Self.tickSize, anchor: .middle, fill: "#444")
        }
        svg.line(left, top, left, bottom, stroke: "#555")
        svg.line(left, bottom, right, bottom, stroke: "#555")
        svg.text(xTitle, x: (left + right) / 2, y: bottom + 6 + Self.tickSize + 8 + Self.titleSize,
                 size: Self.titleSize, anchor: .middle, fill: "#333")
        svg.text(yTitle, x: 12, y: top - 10, size: Self.titleSize, fill: "#333")
        svg.close()
    }
}
