/// A chart's key: symbols with their meanings, laid out in rows that wrap at the picture's
/// width, so no entry is cut off however many there are.
public struct Legend {
    public typealias Symbol = (inout SVG, _ x: Double, _ y: Double) -> Void

    var items: [(text: String, symbol: Symbol)] = []
    public static let rowHeight = 20.0
    static let symbolWidth = 16.0, gap = 6.0, spacing = 18.0

    public init() {}

    public mutating func add(_ text: String, _ symbol: @escaping Symbol) {
        items.append((text, symbol))
    }

    func itemWidth(_ text: String) -> Double { Self.symbolWidth + Self.gap + TextMetrics.width(text, size: 12) }

    /// Where each item goes, from (`x`, `y`: the first row's middle) within `width`.
    func layout(x: Double, y: Double, width: Double) -> [(x: Double, y: Double)] {
        var spots: [(x: Double, y: Double)] = []
        var cx = x, cy = y
        for item in items {
            let w = itemWidth(item.text)
            if cx > x, cx + w > width - 4 {
                cx = x
                cy += Self.rowHeight
            }
            spots.append((cx, cy))
            cx += w + Self.spacing
        }
        return spots
    }

    /// The height the legend takes at `width` (no rows: zero).
    public func height(x: Double = 4, width: Double) -> Double {
        guard let last = layout(x: x, y: 0, width: width).last else { return 0 }
        return last.y + Self.rowHeight
    }

    public func draw(into svg: inout SVG, x: Double = 4, top: Double, width: Double) {
        for (item, spot) in zip(items, layout(x: x, y: top + Self.rowHeight / 2, width: width)) {
            item.symbol(&svg, spot.x, spot.y)
            svg.text(item.text, x: spot.x + Self.symbolWidth + Self.gap, y: spot.y + 4, fill: "#333")
        }
    }
}
