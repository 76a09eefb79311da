import Charts
import Coaching
import Foundation
import PacerCore
import Storage

/// The companion's routes: the list with the route the next workout follows, a
/// route's page and its report (`pacer routes report`), the upload of a GPX or FIT file
/// (`pacer activities import FILE --as route`'s checks and words), and the choice of the
/// route the next workout follows (`pacer routes follow ID|none`, the same function).
public struct RoutesSection: CompanionSection {
    let device: any CompanionDevice
    let now: @Sendable () -> UTCTimestamp

    /// `now`: the wall clock, for the time a choice is stored with.
    public init(device: any CompanionDevice, now: @escaping @Sendable () -> UTCTimestamp) {
        self.device = device
        self.now = now
    }

    public var menu: (label: String, path: String)? { ("Routes", "/routes") }

    public var routes: [PageRoute] {
        [
            PageRoute(.get, "/routes") { request in await SectionSupport.answer { try list(request) } },
            PageRoute(.post, "/routes/import") { request in await SectionSupport.answer { try importUpload(request) } },
            PageRoute(.post, "/routes/follow") { request in await SectionSupport.answer { try follow(request) } },
            PageRoute(.get, "/routes/:id") { request in await withID(request) { try detail($0, request) } },
            PageRoute(.get, "/routes/:id/report") { request in
                await withID(request) { .document(RouteReportPage.html(try device.store().routes.route($0).reportInput)) }
            },
            PageRoute(.get, "/routes/:id/gpx") { request in
                await withID(request) { id in
                    let store = try device.store()
                    var bytes: [UInt8] = []
                    try store.gpx.exportGPX(route: id) { bytes.append(contentsOf: $0) }
                    return .download(filename: "route-\(id).gpx", contentType: ShareFormat.gpx.mediaType, bytes: bytes)
                }
            },
        ]
    }

    private func withID(_ request: PageRequest, _ body: (Int64) throws -> PageResponse) async -> PageResponse {
        guard let id = SectionSupport.id(request) else { return SectionSupport.notAnID(request, "route") }
        return await SectionSupport.answer { try body(id) }
    }

    private func followForm(_ value: String, _ request: PageRequest, button: String, id: String? = nil) -> String {
        CompanionHTML.form(action: "/routes/follow", csrf: request.csrfToken,
                           content: "<input type=\"hidden\" name=\"route\" value=\"\(SectionSupport.esc(value))\"/>",
                           button: button, id: id)
    }

    func list(_ request: PageRequest) throws -> PageResponse {
        let store = try device.store()
        let routes = try store.routes.routes()
        let chosen = try store.routes.chosenRoute()
        var body = "<p id=\"following\" data-route=\"\(chosen.map(String.init) ?? "none")\">The next workout follows "
            + "\(SectionSupport.esc(try RouteFollowChoice.describe(in: store.routes))).</p>"
        if chosen != nil { body += followForm("none", request, button: "Follow no route", id: "follow-none") }
        if routes.isEmpty {
            body += "<p id=\"no-routes\">No routes yet.</p>"
        } else {
            body += SectionSupport.table(
                id: "routes", header: ["#", "Name", "Distance", "Points", "Waypoints", ""],
                rows: routes.map { r in
                    [
                        CompanionHTML.link("/routes/\(r.id)", "#\(r.id)"), CompanionHTML.link("/routes/\(r.id)", r.name),
                        "\(ActivityFormat.kilometres(r.distance)) km", "\(r.pointCount)", "\(r.waypointCount)",
                        r.id == chosen ? "<strong class=\"followed\">followed next</strong>"
                            : followForm(String(r.id), request, button: "Follow next", id: "follow-\(r.id)"),
                    ]
                }, rowClass: "route")
        }
        body += "<h2>Import a route</h2><p>A GPX file (its route points, else its track) or a FIT file, checked as "
            + "<code>pacer activities import FILE --as route</code> checks it.</p>"
        body += CompanionHTML.form(action: "/routes/import", csrf: request.csrfToken, upload: true,
                                   content: SectionSupport.uploadFields(accept: ".gpx,.fit,application/gpx+xml"),
                                   button: "Import", id: "route-upload")
        return .page(title: "Routes", body: body)
    }

    func detail(_ id: Int64, _ request: PageRequest) throws -> PageResponse {
        let store = try device.store()
        let r = try store.routes.route(id)
        let s = r.summary
        var figures: [(String, String)] = [("Distance", "\(ActivityFormat.kilometres(s.distance)) km")]
        if let duration = s.duration { figures.append(("Time", ActivityFormat.clock(duration))) }
        figures.append(("Elevation gain", "\(ActivityFormat.fixed(s.elevationGain, places: 0)) m"))
        figures.append(("Elevation loss", "\(ActivityFormat.fixed(s.elevationLoss, places: 0)) m"))
        figures.append(("Points", "\(s.pointCount)"))
        figures.append(("Waypoints", "\(s.waypointCount)"))
        if let source = s.source { figures.append(("Imported from", source)) }
        var body = SectionSupport.figures(id: "figures", figures)
        body += "<p id=\"files\"><a class=\"report\" href=\"/routes/\(id)/report\">Report (map and elevation)</a> · "
            + "<a class=\"download-gpx\" href=\"/routes/\(id)/gpx\" download>GPX</a></p>"
        if try store.routes.chosenRoute() == id {
            body += "<p class=\"followed\">The next workout follows this route.</p>"
            body += followForm("none", request, button: "Follow no route", id: "follow-none")
        } else {
            body += followForm(String(id), request, button: "Follow this route next", id: "follow")
        }
        if !r.waypoints.isEmpty {
            body += "<h2>Waypoints</h2>" + SectionSupport.table(
                id: "waypoints", header: ["#", "Name", "Position"],
                rows: r.waypoints.enumerated().map { i, w in
                    ["\(i + 1)", SectionSupport.esc(w.name ?? "-"),
                     String(format: "%.5f, %.5f", w.position.latitude, w.position.longitude)]
                })
        }
        return .page(title: "Route #\(id) \(s.name)", body: body)
    }

    /// `route`: an id or `none`, as `pacer routes follow` takes it.
    func follow(_ request: PageRequest) throws -> PageResponse {
        guard let value = request.form["route"] else {
            throw ChoiceError("route", "give a route's id or none")
        }
        let line = try RouteFollowChoice.choose(value, in: device.store().routes, at: now())
        return .redirect(to: "/routes", notice: line)
    }

    func importUpload(_ request: PageRequest) throws -> PageResponse {
        let upload = try SectionSupport.upload(request)
        let result = try FileImport.importUpload(upload, as: .route, name: SectionSupport.name(request),
                                                 into: device.store())
        return .redirect(to: "/routes/\(result.id)", notice: ImportSummary.lines(result).joined(separator: "\n"))
    }
}
