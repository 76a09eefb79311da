/// Places labels beside their marks where they overlap neither each other nor what was
/// reserved, and stay inside the picture: to the right, else the left, above or below; when
/// every place is taken, the first one inside the picture.
public struct LabelPlacer: Sendable {
    struct Box: Sendable {
        var x0, y0, x1, y1: Double
        func overlaps(_ o: Box) -> Bool { x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1 }
    }

    var bounds: Box
    var taken: [Box] = []

    public init(x0: Double, y0: Double, x1: Double, y1: Double) {
        bounds = Box(x0: x0, y0: y0, x1: x1, y1: y1)
    }

    public mutating func reserve(x: Double, y: Double, radius: Double) {
        taken.append(Box(x0: x - radius, y0: y - radius, x1: x + radius, y1: y + radius))
    }

    /// Keeps labels off a rectangle (a line they would be struck through by).
    public mutating func reserve(x0: Double, y0: Double, x1: Double, y1: Double) {
        taken.append(Box(x0: x0, y0: y0, x1: x1, y1: y1))
    }

    /// The text's baseline point and anchor, for a mark at (x, y) of `radius` pixels.
    public mutating func place(_ text: String, x: Double, y: Double, radius: Double, size: Double)
        -> (x: Double, y: Double, anchor: SVG.Anchor)
    {
        let w = TextMetrics.width(text, size: size), h = size
        let gap = radius + 3
        let options: [(Double, Double, SVG.Anchor, Box)] = [
            (x + gap, y + h * 0.35, .start, Box(x0: x + gap, y0: y - h * 0.65, x1: x + gap + w, y1: y + h * 0.45)),
            (x - gap, y + h * 0.35, .end, Box(x0: x - gap - w, y0: y - h * 0.65, x1: x - gap, y1: y + h * 0.45)),
            (x, y - gap - 2, .middle, Box(x0: x - w / 2, y0: y - gap - 2 - h, x1: x + w / 2, y1: y - gap + 1)),
            (x, y + gap + h, .middle, Box(x0: x - w / 2, y0: y + gap, x1: x + w / 2, y1: y + gap + h + 3)),
        ]
        func inside(_ b: Box) -> Bool { b.x0 >= bounds.x0 && b.x1 <= bounds.x1 && b.y0 >= bounds.y0 && b.y1 <= bounds.y1 }
        let chosen = options.first { o in inside(o.3) && !taken.contains { $0.overlaps(o.3) } }
            ?? options.first { inside($0.3) } ?? options[0]
        taken.append(chosen.3)
        var px = chosen.0
        // Last resort: slide it inside.
        if chosen.3.x1 > bounds.x1 { px -= chosen.3.x1 - bounds.x1 }
        if chosen.3.x0 < bounds.x0 { px += bounds.x0 - chosen.3.x0 }
        return (px, chosen.1, chosen.2)
    }
}
