import Coaching
import PacerCore

/// The report of an imported route (R19) as a self-contained HTML page: its numbers, its
/// line to scale with the start, the end and the named waypoints, its elevation profile and
/// its waypoints as a table.
public enum RouteReportPage {
    public static func html(_ input: RouteReportInput) -> String {
        let s = input.statistics
        let heading = "Route #\(input.id): \(input.name)"
        var body = "<header>\n<h1>\(Markup.escape(heading))</h1>\n"
        var meta: [String] = []
        if let source = input.source { meta.append("imported from \(source)") }
        if let start = input.points.first?.position, let end = input.points.last?.position {
            meta.append("start \(ActivityReportPage.coordinates(start)), end \(ActivityReportPage.coordinates(end))")
        }
        if !meta.isEmpty { body += HTMLPage.paragraph(meta.joined(separator: " · "), class: "meta") }
        body += "</header>\n"
        var items: [(name: String, value: String, note: String?)] = [
            ("Distance", "\(ActivityFormat.kilometres(input.distance)) km", nil),
        ]
        if let duration = input.duration { items.append(("Time", ActivityFormat.clock(duration), "first to last point")) }
        items.append(("Elevation gain", ActivityReportPage.metres(s.elevationGain), "loss \(ActivityReportPage.metres(s.elevationLoss))"))
        let extremes = ActivityReportPage.lowestAndHighest(s.minimumElevation, s.maximumElevation)
        items.append((extremes.0, extremes.1, extremes.2))
        items.append(("Points", "\(input.points.count)", nil))
        items.append(("Waypoints", "\(input.waypoints.count)", nil))
        body += HTMLPage.figures(items)

        var map = MapChart()
        map.segments = input.points.isEmpty ? [] : [input.points.map { ($0.position, PaceClass.unbanded) }]
        map.legend = [.unbanded]
        map.lineName = "route"
        map.waypoints = input.waypoints.enumerated().map { i, w in
            ("W\(i + 1)" + (w.name.map { " " + ActivityReportPage.clip($0, 28) } ?? ""), w.position)
        }
        map.kilometres = kilometreMarks(input.points.map(\.position))
        body += HTMLPage.section("Route", HTMLPage.figure(
            map.render(title: "The line of \(heading)", id: "map"),
            caption: "The route to scale, north up; numbered circles mark each kilometre. Projection: "
                + "equirectangular about the middle latitude."))

        var caption = "Altitude against the distance along the route."
        if let low = s.minimumElevation, let high = s.maximumElevation {
            caption += " Lowest \(ActivityReportPage.metres(low)), highest \(ActivityReportPage.metres(high))."
        }
        body += HTMLPage.section("Elevation", HTMLPage.figure(
            ElevationProfileChart.render(s.elevationProfile, title: "Elevation profile of \(heading)", id: "elevation"),
            caption: caption))
        if !input.waypoints.isEmpty {
            body += HTMLPage.section("Waypoints", HTMLPage.table(
                ["", "name", "latitude, longitude", "altitude", "description"],
                input.waypoints.enumerated().map { i, w in
                    ["W\(i + 1)", w.name.map { ActivityReportPage.clip($0, ActivityReportPage.maximumNameLength) } ?? "(unnamed)",
                     ActivityReportPage.coordinates(w.position),
                     w.altitude.map(ActivityReportPage.metres) ?? "-", w.description ?? ""]
                }, numeric: [2, 3], names: [1, 4]))
        }
        body += "<footer>Made by pacer routes report \(input.id) from the imported route. "
            + "Distances km; altitudes metres above sea level.</footer>\n"
        return HTMLPage.document(title: heading, body: body)
    }

    /// Where a line passes each whole kilometre.
    static func kilometreMarks(_ line: [GeoPoint]) -> [(kilometre: Int, position: GeoPoint)] {
        var marks: [(Int, GeoPoint)] = []
        var along = 0.0
        var k = 1
        for i in line.indices.dropFirst() {
            let a = line[i - 1], b = line[i]
            let leg = Geodesy.distance(a, b)
            while leg > 0, along + leg >= Double(k) * 1000 {
                let f = (Double(k) * 1000 - along) / leg
                marks.append((k, RunAnalysis.between(a, b, f)))
                k += 1
            }
            along += leg
        }
        return marks.map { (kilometre: $0.0, position: $0.1) }
    }
}
