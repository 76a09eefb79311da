import Coaching
import PacerCore

/// The route drawn on a small character map (R6, R19), north up: `*` the line, `S` the start,
/// `E` the end, `W` waypoints. Pure functions, so tests can check the drawing exactly.
public enum TrackMap {
    /// Renders segments (each drawn as a connected line; gaps between segments are not drawn)
    /// and waypoints on a `width` × `height` grid. Positions are projected equirectangularly
    /// about the middle latitude (fine at a run's scale), and a character cell counts as twice
    /// as tall as it is wide, so a square track looks square in a terminal. The drawing is
    /// centred; every row is exactly `width` characters. Start and end win over waypoints,
    /// which win over the line; where start and end share a cell, it shows `S`.
    public static func render(segments: [[GeoPoint]], waypoints: [GeoPoint] = [], width: Int = 60,
                              height: Int = 20) -> [String] {
        precondition(width >= 1 && height >= 1)
        var grid = Array(repeating: Array(repeating: Character(" "), count: width), count: height)
        guard let projection = Projection(segments.flatMap { $0 } + waypoints, width: width, height: height) else {
            return grid.map { String($0) }
        }
        func put(_ c: (x: Int, y: Int), _ mark: Character) { grid[c.y][c.x] = mark }
        for segment in segments {
            var previous: (x: Int, y: Int)?
            for p in segment {
                let c = projection.cell(p)
                if let previous {
                    line(from: previous, to: c) { put($0, "*") }
                } else {
                    put(c, "*")
                }
                previous = c
            }
        }
        for w in waypoints { put(projection.cell(w), "W") }
        if let end = segments.last(where: { !$0.isEmpty })?.last { put(projection.cell(end), "E") }
        if let start = segments.first(where: { !$0.isEmpty })?.first { put(projection.cell(start), "S") }
        return grid.map { String($0) }
    }

    /// Metres per column of the map `render` draws with the same arguments (a row is two
    /// columns tall); nil when there is nothing to draw.
    public static func metresPerColumn(segments: [[GeoPoint]], waypoints: [GeoPoint] = [], width: Int = 60,
                                       height: Int = 20) -> Double? {
        Projection(segments.flatMap { $0 } + waypoints, width: width, height: height)?.column
    }

    /// Equirectangular about the middle latitude (`LocalPlane.map`), scaled to fit and centred.
    struct Projection {
        let plane: LocalPlane
        /// Metres per column; a row is two columns tall.
        let column: Double
        let offsetX: Double, offsetY: Double
        let width: Int, height: Int

        init?(_ points: [GeoPoint], width: Int, height: Int) {
            guard let plane = LocalPlane.map(of: points) else { return nil }
            var spanX = 0.0, spanY = 0.0
            for p in points {
                let m = plane.metres(p)
                spanX = max(spanX, m.east)
                spanY = max(spanY, m.north)
            }
            var column = max(width > 1 ? spanX / Double(width - 1) : spanX,
                             height > 1 ? spanY / Double(2 * (height - 1)) : spanY / 2)
            if column <= 0 { column = 1 }
            self.plane = plane
            self.column = column
            self.offsetX = (Double(width - 1) - spanX / column) / 2
            self.offsetY = (Double(height - 1) - spanY / (2 * column)) / 2
            self.width = width
            self.height = height
        }

        func cell(_ p: GeoPoint) -> (x: Int, y: Int) {
            let m = plane.metres(p)
            let x = (m.east / column + offsetX).rounded()
            let up = (m.north / (2 * column) + offsetY).rounded()
            return (min(width - 1, max(0, Int(x))), min(height - 1, max(0, height - 1 - Int(up))))
        }
    }

    /// Bresenham's line between two cells, both ends included.
    static func line(from a: (x: Int, y: Int), to b: (x: Int, y: Int), _ plot: ((x: Int, y: Int)) -> Void) {
        var x = a.x, y = a.y
        let dx = abs(b.x - a.x), dy = -abs(b.y - a.y)
        let sx = a.x < b.x ? 1 : -1, sy = a.y < b.y ? 1 : -1
        var error = dx + dy
        while true {
            plot((x, y))
            if x == b.x && y == b.y { return }
            let e2 = 2 * error
            if e2 >= dy {
                error += dy
                x += sx
            }
            if e2 <= dx {
                error += dx
                y += sy
            }
        }
    }

    /// The map in a frame, with a legend and the scale.
    public static func framed(segments: [[GeoPoint]], waypoints: [GeoPoint] = [], width: Int = 60,
                              height: Int = 20) -> [String] {
        let rows = render(segments: segments, waypoints: waypoints, width: width, height: height)
        var lines = ["+" + String(repeating: "-", count: width) + "+"]
        lines += rows.map { "|" + $0 + "|" }
        lines.append(lines[0])
        var legend = "S start  E end  W waypoint  * track; north up"
        if let metres = metresPerColumn(segments: segments, waypoints: waypoints, width: width, height: height) {
            let scale = metres >= 1000 ? "\(ActivityFormat.fixed(metres / 1000, places: 1)) km"
                                       : "\(ActivityFormat.fixed(metres, places: metres < 10 ? 1 : 0)) m"
            legend += "; a column is \(scale) wide, a row twice that"
        }
        lines.append(legend)
        return lines
    }
}

/// An elevation profile (R19, R20) as a small bar chart: altitude up, distance across.
public enum ElevationChart {
    /// `height` rows of `#` bars over `width` columns, then a distance axis; empty when the
    /// profile is.
    ///
    /// The vertical axis: each row is one `step` of altitude, `step` a round number (1, 2 or
    /// 5 × 10ⁿ metres), the bottom row a multiple of it; the rows span at least
    /// `minimumRange` metres (10 m), so a flat path draws flat instead of stretching its
    /// decimetres over the full height, and they cover the profile and `include` (the
    /// path's lowest and highest point, which a resampled profile may miss). The top and
    /// bottom rows are labelled with their altitudes; a column's bar reaches the row nearest
    /// its altitude.
    public static func render(_ profile: [ProfileSample], width: Int = 60, height: Int = 8,
                              include extremes: [Double] = [], minimumRange: Double = 10) -> [String] {
        guard let first = profile.first, let last = profile.last, width >= 2, height >= 1 else { return [] }
        let altitudes = profile.map(\.altitude) + extremes.filter(\.isFinite)
        let axis = Axis(low: altitudes.min() ?? first.altitude, high: altitudes.max() ?? first.altitude,
                        rows: height, minimumRange: minimumRange)
        var levels: [Int] = []
        var k = 0
        for i in 0..<width {
            let d = first.distance + (last.distance - first.distance) * Double(i) / Double(width - 1)
            while k + 1 < profile.count, profile[k + 1].distance < d { k += 1 }
            var altitude = profile[k].altitude
            if k + 1 < profile.count {
                let a = profile[k], b = profile[k + 1]
                let span = b.distance - a.distance
                altitude = span > 0 ? a.altitude + (b.altitude - a.altitude) * min(1, max(0, (d - a.distance) / span)) : b.altitude
            }
            levels.append(min(height - 1, max(0, Int(((altitude - axis.bottom) / axis.step).rounded()))))
        }
        let top = axis.label(height - 1)
        let bottom = axis.label(0)
        let labelWidth = max(top.count, bottom.count)
        func pad(_ s: String) -> String { String(repeating: " ", count: labelWidth - s.count) + s }
        var lines: [String] = []
        for row in stride(from: height - 1, through: 0, by: -1) {
            let label = row == height - 1 ? pad(top) : row == 0 ? pad(bottom) : String(repeating: " ", count: labelWidth)
            lines.append(label + " |" + String(levels.map { $0 >= row ? "#" : " " }))
        }
        let start = "0 km"
        let end = "\(ActivityFormat.kilometres(last.distance)) km"
        let gap = max(1, width - start.count - end.count)
        lines.append(String(repeating: " ", count: labelWidth) + " +" + String(repeating: "-", count: width))
        lines.append(String(repeating: " ", count: labelWidth + 2) + start + String(repeating: " ", count: gap) + end)
        return lines
    }

    /// The vertical axis: `rows` rows from `bottom`, one `step` apart.
    struct Axis {
        var bottom: Double
        var step: Double

        init(low: Double, high: Double, rows: Int, minimumRange: Double) {
            let intervals = Double(max(1, rows - 1))
            var step = Axis.round(max(high - low, minimumRange, 1e-9) / intervals)
            // The bottom, rounded down to a step, may push the top below `high`: take the next step.
            while (low / step).rounded(.down) * step + step * intervals < high { step = Axis.round(step * 1.000001) }
            self.step = step
            bottom = (low / step).rounded(.down) * step
            if rows == 1 { bottom = ((low + high) / 2 / step).rounded() * step }
        }

        /// The smallest 1, 2 or 5 × 10ⁿ at least `x` (> 0).
        static func round(_ x: Double) -> Double {
            var magnitude = 1.0
            while magnitude > x { magnitude /= 10 }
            while magnitude * 10 <= x { magnitude *= 10 }
            for m in [1.0, 2, 5, 10] where m * magnitude >= x * (1 - 1e-12) { return m * magnitude }
            return 10 * magnitude
        }

        func label(_ row: Int) -> String {
            let value = bottom + step * Double(row)
            return "\(ActivityFormat.fixed(value == 0 ? 0 : value, places: step < 1 ? 1 : 0)) m"
        }
    }
}
