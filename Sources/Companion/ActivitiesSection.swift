import Charts
import Coaching
import Foundation
import PacerCore
import Storage

/// The companion's activities: the list, one activity's figures and phases, its
/// report (`pacer activities report`'s page), its files (`pacer activities export --gpx/
/// --tcx/--fit`'s bytes), a share with the privacy choice (`pacer activities share`), and
/// the import of a GPX or FIT file (`pacer activities import`), each through the same
/// functions as the command line, refused with the same words.
public struct ActivitiesSection: CompanionSection {
    let device: any CompanionDevice
    let version: String
    let zone: DisplayZone
    let privacyZones: @Sendable () throws -> [PrivacyZone]
    let utcOffset: @Sendable () -> Int64

    /// `version`: the firmware's, written in TCX files; `privacyZones`: the settings'
    /// places a share always hides; `utcOffset`: seconds east of UTC, for FIT's local time.
    public init(device: any CompanionDevice, version: String, zone: DisplayZone = .system,
                privacyZones: @escaping @Sendable () throws -> [PrivacyZone] = { [] },
                utcOffset: @escaping @Sendable () -> Int64 = { Int64(TimeZone.current.secondsFromGMT()) }) {
        self.device = device
        self.version = version
        self.zone = zone
        self.privacyZones = privacyZones
        self.utcOffset = utcOffset
    }

    public var menu: (label: String, path: String)? { ("Activities", "/activities") }

    public var routes: [PageRoute] {
        [
            PageRoute(.get, "/activities") { request in await SectionSupport.answer { try list(request) } },
            PageRoute(.post, "/activities/import") { request in await SectionSupport.answer { try importUpload(request) } },
            PageRoute(.get, "/activities/:id") { request in await withID(request) { try detail($0, request) } },
            PageRoute(.get, "/activities/:id/report") { request in
                await withID(request) { .document(ActivityReportPage.html(try device.store().activityReportInput($0))) }
            },
            PageRoute(.get, "/activities/:id/gpx") { request in
                await withID(request) { id in
                    .download(filename: "activity-\(id).gpx", contentType: ShareFormat.gpx.mediaType,
                              bytes: try device.store().gpx.gpx(activity: id))
                }
            },
            PageRoute(.get, "/activities/:id/tcx") { request in
                await withID(request) { id in
                    .download(filename: "activity-\(id).tcx", contentType: ShareFormat.tcx.mediaType,
                              bytes: try device.store().tcx.tcx(activity: id, version: version))
                }
            },
            PageRoute(.get, "/activities/:id/fit") { request in
                await withID(request) { id in
                    .download(filename: "activity-\(id).fit", contentType: ShareFormat.fit.mediaType,
                              bytes: try device.store().fit.fit(activity: id, utcOffset: utcOffset()))
                }
            },
            PageRoute(.post, "/activities/:id/share") { request in await withID(request) { try share($0, request) } },
        ]
    }

    private func withID(_ request: PageRequest, _ body: (Int64) throws -> PageResponse) async -> PageResponse {
        guard let id = SectionSupport.id(request) else { return SectionSupport.notAnID(request, "activity") }
        return await SectionSupport.answer { try body(id) }
    }

    // MARK: - The list

    func list(_ request: PageRequest) throws -> PageResponse {
        let activities = try device.store().activities.activities()
        var body = ""
        if activities.isEmpty {
            body += "<p id=\"no-activities\">No activities yet.</p>"
        } else {
            let rows = activities.reversed().map { a -> [String] in
                [
                    CompanionHTML.link("/activities/\(a.id)", "#\(a.id)"),
                    SectionSupport.esc(a.startedAt.map { ActivityFormat.dateTime($0, zone: zone) } ?? "-"),
                    CompanionHTML.link("/activities/\(a.id)", a.name),
                    SectionSupport.esc([a.plan, a.workout].compactMap { $0 }.joined(separator: " / ")),
                    SectionSupport.esc(ActivityFormat.kilometres(a.distance) + " km"),
                    SectionSupport.esc(ActivityFormat.clock(a.time)),
                    "<span class=\"state state-\(a.state.rawValue)\">\(SectionSupport.esc(a.state.rawValue))</span>",
                    "<a class=\"download-fit\" href=\"/activities/\(a.id)/fit\" download>FIT</a> "
                        + "<a class=\"download-gpx\" href=\"/activities/\(a.id)/gpx\" download>GPX</a>",
                ]
            }
            body += SectionSupport.table(
                id: "activities",
                header: ["#", zone.isUTC ? "Date (UTC)" : "Date (local)", "Name", "Plan / workout", "Distance", "Time", "Ended", "Files"],
                rows: rows, rowClass: "activity")
        }
        body += "<h2>Import a run</h2><p>A GPX or FIT file of a past run (a watch's), checked as "
            + "<code>pacer activities import FILE --as activity</code> checks it.</p>"
        body += CompanionHTML.form(action: "/activities/import", csrf: request.csrfToken, upload: true,
                                   content: SectionSupport.uploadFields(accept: ".gpx,.fit,application/gpx+xml")
                                    + "<label><input type=\"checkbox\" name=\"again\"/> again, if the run is stored "
                                    + "already</label> ",
                                   button: "Import", id: "activity-upload")
        return .page(title: "Activities", body: body)
    }

    // MARK: - One activity

    func detail(_ id: Int64, _ request: PageRequest) throws -> PageResponse {
        let d = try device.store().activities.activity(id)
        let a = d.summary
        var figures: [(String, String)] = []
        var when = a.startedAt.map { ActivityFormat.dateTimeZoned($0, seconds: true, zone: zone) } ?? "unknown"
        if let end = a.endedAt { when += " to " + ActivityFormat.dateTimeZoned(end, seconds: true, zone: zone) }
        figures.append(("Date", when))
        if a.plan != nil || a.workout != nil {
            figures.append(("Workout", [a.plan, a.workout].compactMap { $0 }.joined(separator: " / ")))
        }
        if let source = a.source { figures.append(("Imported from", source)) }
        figures.append(("Ended", a.state.rawValue))
        figures.append(("Distance", "\(ActivityFormat.kilometres(a.distance)) km"))
        if let active = a.activeTime { figures.append(("Timer", ActivityFormat.clock(active) + " (pauses excluded)")) }
        figures.append(("Elapsed time", ActivityFormat.clock(a.elapsedTime)))
        figures.append(("Moving time", ActivityFormat.clock(a.movingTime)))
        figures.append(("Average speed", "\(ActivityFormat.kilometresPerHour(a.averageSpeed)) km/h"))
        figures.append(("Maximum speed", "\(ActivityFormat.kilometresPerHour(a.maximumSpeed)) km/h"))
        figures.append(("Elevation gain", "\(ActivityFormat.fixed(d.statistics.elevationGain, places: 0)) m"))
        figures.append(("Points", "\(d.statistics.pointCount)"))
        var body = SectionSupport.figures(id: "figures", figures)
        if !d.phaseResults.isEmpty {
            body += "<h2>Phases</h2>"
            body += SectionSupport.table(
                id: "phases", header: ["#", "Phase", "Time", "Distance", "Average", "Band", "In band"],
                rows: d.phaseResults.map { p in
                    [
                        "\(p.index + 1)", SectionSupport.esc(p.name), ActivityFormat.clock(p.duration),
                        "\(ActivityFormat.kilometres(p.distance)) km", "\(ActivityFormat.kilometresPerHour(p.averageSpeed)) km/h",
                        "\(ActivityFormat.kilometresPerHour(p.minimumSpeed))–\(ActivityFormat.kilometresPerHour(p.maximumSpeed)) km/h",
                        ActivityFormat.clock(p.timeInBand),
                    ]
                }, rowClass: "phase")
        }
        body += "<h2>Report and files</h2><p id=\"files\">"
        body += "<a class=\"report\" href=\"/activities/\(id)/report\">Report (map and charts)</a> · "
        body += "<a class=\"download-gpx\" href=\"/activities/\(id)/gpx\" download>GPX</a> · "
        body += "<a class=\"download-tcx\" href=\"/activities/\(id)/tcx\" download>TCX</a> · "
        body += "<a class=\"download-fit\" href=\"/activities/\(id)/fit\" download>FIT</a></p>"
        body += "<p>GPX, TCX and FIT hold everything recorded: for Strava, Garmin Connect and intervals.icu, "
            + "FIT or TCX keep the laps (the phases), the pauses and the device's distance.</p>"
        body += "<h2>Share</h2><p>A share holds only what you tick, hides everything within the distance of the "
            + "start and end and the places of the settings' <code>privacy_zones</code>, as "
            + "<code>pacer activities share</code> does. TCX and FIT need the times and have no place for waypoints.</p>"
        var fields = "<fieldset><legend>Share</legend>"
        for item in ShareItem.allCases {
            let checked = item == .track ? " checked" : ""
            fields += "<label><input type=\"checkbox\" name=\"include_\(item.rawValue)\" value=\"on\"\(checked)/> "
                + "\(item.rawValue)</label> "
        }
        fields += "</fieldset><label>Hide within <input type=\"text\" name=\"hide_within\" placeholder=\"300m\"/></label> "
        fields += "<label>Format <select name=\"format\"><option value=\"gpx\">GPX</option>"
            + "<option value=\"tcx\">TCX</option><option value=\"fit\">FIT</option></select></label> "
        body += CompanionHTML.form(action: "/activities/\(id)/share", csrf: request.csrfToken, content: fields,
                                   button: "Download the share", id: "share")
        return .page(title: "Activity #\(id) \(a.name)", body: body)
    }

    // MARK: - Share

    /// The share as `pacer activities share ID --include … --hide-within … (--out|--tcx|--fit) FILE`
    /// writes it: the same choice (`ShareRequest`), the same checks, the same file.
    func share(_ id: Int64, _ request: PageRequest) throws -> PageResponse {
        let items = ShareItem.allCases.filter { request.form["include_\($0.rawValue)"] != nil }.map(\.rawValue)
        let hide = request.form["hide_within"]?.trimmingCharacters(in: .whitespaces) ?? ""
        let formatText = request.form["format"] ?? "gpx"
        guard let format = ShareFormat(rawValue: formatText) else {
            throw ChoiceError("format", "'\(formatText)' is not a share format: choose gpx, tcx or fit")
        }
        let zones = try privacyZones()
        let choice = try ShareRequest.choice(include: items.joined(separator: ","), hideWithin: hide.isEmpty ? nil : hide,
                                             zones: zones)
        if format != .gpx { try ShareRequest.checkLapShare(choice, format) }
        let store = try device.store()
        let name = "activity-\(id)-share.\(format.rawValue)"
        let bytes = try SectionSupport.bytes(named: name) { path in
            _ = try store.gpx.share(activity: id, to: path, choice: choice, format: format, version: version)
        }
        return .download(filename: name,
                         contentType: format.mediaType,
                         bytes: bytes)
    }

    // MARK: - Import

    /// The upload imported as `pacer activities import FILE --as activity`; the page goes
    /// to the new activity with what the command would print.
    func importUpload(_ request: PageRequest) throws -> PageResponse {
        let upload = try SectionSupport.upload(request)
        let result = try FileImport.importUpload(upload, as: .activity, name: SectionSupport.name(request),
                                                 into: device.store(), again: request.form["again"] == "on")
        return .redirect(to: "/activities/\(result.id)", notice: ImportSummary.importLines(result).joined(separator: "\n"))
    }
}
