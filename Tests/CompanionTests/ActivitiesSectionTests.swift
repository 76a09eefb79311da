import Coaching
import Companion
import Foundation
import PacerCore
import Storage
import TestSupport
import Testing

/// The activities section against a real store, compared with what the built `pacer` writes
/// and says for the same data folder.
@Suite struct ActivitiesSectionTests {
    let folder = TemporaryDirectory()
    var dir: String { folder.path + "/data" }

    func section(_ store: PacerStore?, zones: [PrivacyZone] = []) -> ActivitiesSection {
        ActivitiesSection(device: StoreDevice(store), version: pacerVersion, zone: .utc, privacyZones: { zones })
    }

    @Test func theListShowsDatePlanDistanceTimeAndHowEachEnded() async throws {
        let store = try PacerStore(directory: dir)
        let first = try recordWorkout(into: store, name: "Tempo <one>")
        let second = try recordWorkout(into: store, name: "Cut short", end: .stopped, offset: 3600)
        let body = pageBody(try await call(section(store), .get, "/activities"))
        #expect(body.contains("<table id=\"activities\" class=\"stack\">"))
        #expect(body.contains("Tempo &lt;one&gt;"), "names escaped")
        #expect(body.contains("href=\"/activities/\(first)\""))
        #expect(body.contains("<a class=\"download-fit\" href=\"/activities/\(first)/fit\" download>"))
        #expect(body.contains("2024-05-01 08:00") && body.contains("2024-05-01 09:00"))
        #expect(body.contains("10k in 50 / Tempo"))
        #expect(body.contains("state-completed") && body.contains("state-stopped"))
        #expect(body.contains("00:04:59"), "the timer")
        // Newest first.
        let a = try #require(body.range(of: "/activities/\(second)\""))
        let b = try #require(body.range(of: "/activities/\(first)\""))
        #expect(a.lowerBound < b.lowerBound)
        #expect(body.contains("id=\"activity-upload\"") && body.contains("enctype=\"multipart/form-data\""))
        #expect(body.contains("name=\"csrf\" value=\"token-1\""))
        let empty = pageBody(try await call(section(try PacerStore(directory: folder.path + "/empty")), .get, "/activities"))
        #expect(empty.contains("No activities yet."))
    }

    @Test func anActivitysPageHasItsFiguresPhasesAndFiles() async throws {
        let store = try PacerStore(directory: dir)
        let id = try recordWorkout(into: store)
        let body = pageBody(try await call(section(store), .get, "/activities/:id", parameters: ["id": "\(id)"]))
        #expect(body.contains("<dl id=\"figures\">"))
        #expect(body.contains("<table id=\"phases\" class=\"stack\">"))
        #expect(body.contains("Warm-up") && body.contains("Tempo"))
        #expect(body.contains("0.09 km"), "the phases' distances")
        #expect(body.contains("9.0–12.6 km/h") && body.contains("11.5–14.4 km/h"), "the phases' bands")
        for kind in ["gpx", "tcx", "fit"] {
            #expect(body.contains("class=\"download-\(kind)\" href=\"/activities/\(id)/\(kind)\""))
        }
        #expect(body.contains("form method=\"post\" action=\"/activities/\(id)/share\""))
        #expect(body.contains("id=\"share\""))

        let missing = try await call(section(store), .get, "/activities/:id", parameters: ["id": "99"])
        guard case .refused(404, let message) = missing else { Issue.record("\(missing)"); return }
        #expect(message == "\(StorageError.unknownActivity(99))")
        let word = try await call(section(store), .get, "/activities/:id", parameters: ["id": "abc"])
        guard case .refused(404, let what) = word else { Issue.record("\(word)"); return }
        #expect(what.contains("'abc'"))
    }

    /// The report and the three files are the bytes `pacer activities report` and `pacer
    /// activities export --gpx --tcx --fit` write for the same data folder.
    @Test func theReportAndDownloadsAreTheCommandsBytes() async throws {
        let store = try PacerStore(directory: dir)
        let id = try recordWorkout(into: store)
        let s = section(store)
        let out = folder.path
        let report = try Pacer.run(["activities", "report", "\(id)", "--out", out + "/r.html", "--data-dir", dir])
        #expect(report.status == 0, "\(report.output)")
        guard case .document(let html) = try await call(s, .get, "/activities/:id/report", parameters: ["id": "\(id)"])
        else { Issue.record("not a document"); return }
        #expect(Array(html.utf8) == bytes(out + "/r.html"))
        #expect(html.contains("<svg"))

        let export = try Pacer.run(["activities", "export", "\(id)", "--gpx", out + "/a.gpx", "--tcx", out + "/a.tcx",
                                    "--fit", out + "/a.fit", "--data-dir", dir])
        #expect(export.status == 0, "\(export.output)")
        for (kind, type) in [("gpx", "application/gpx+xml"), ("tcx", "application/vnd.garmin.tcx+xml"),
                             ("fit", "application/vnd.ant.fit")] {
            let response = try await call(s, .get, "/activities/:id/\(kind)", parameters: ["id": "\(id)"])
            guard case .download(let name, let contentType, let got) = response else { Issue.record("\(response)"); continue }
            #expect(name == "activity-\(id).\(kind)")
            #expect(contentType == type)
            #expect(!got.isEmpty)
            #expect(got == bytes(out + "/a.\(kind)"), "\(kind): the same bytes as the command's")
        }
        let missing = try await call(s, .get, "/activities/:id/fit", parameters: ["id": "42"])
        guard case .refused(404, _) = missing else { Issue.record("\(missing)"); return }
    }

    /// A share holds what was ticked, hides the settings' places, and is the command's file;
    /// a choice the command refuses is refused with its words.
    @Test func aShareIsTheCommandsShareAndRefusesAsItDoes() async throws {
        let store = try PacerStore(directory: dir)
        let id = try recordWorkout(into: store)
        // A place round the track's middle, as the settings give it.
        let zone = PrivacyZone(name: "home", center: GeoPoint(latitude: 45.1008, longitude: 6.2), radius: 20)
        let s = section(store, zones: [zone])
        let settings = folder.path + "/pacer.yaml"
        try """
            gps: none
            buzzer: "null"
            battery: sim
            profile: medium
            data_dir: \(dir)
            hardware_dir: \(hardwareDirectory)
            hardware: zero-m8n
            privacy_zones:
              - {name: home, lat: 45.1008, lon: 6.2, radius_m: 20}

            """.write(toFile: settings, atomically: true, encoding: .utf8)
        let cli = try Pacer.run(["activities", "share", "\(id)", "--include", "track,times", "--hide-within", "50m",
                                 "--out", folder.path + "/s.gpx", "--config", settings])
        #expect(cli.status == 0, "\(cli.output)")
        let response = try await call(s, .post, "/activities/:id/share", parameters: ["id": "\(id)"],
                                      form: ["include_track": "on", "include_times": "on", "hide_within": "50m",
                                             "format": "gpx"])
        guard case .download(let name, _, let got) = response else { Issue.record("\(response)"); return }
        #expect(name == "activity-\(id)-share.gpx")
        #expect(got == bytes(folder.path + "/s.gpx"), "the same file as the command's share")
        let text = String(decoding: got, as: UTF8.self)
        #expect(text.contains("<time>") && !text.contains("<ele>") && !text.contains("Bridge"))
        // Fewer points than recorded: the ends and the place are hidden.
        let kept = text.components(separatedBy: "<trkpt").count - 1
        #expect(kept > 0 && kept < 300)

        let tcx = try await call(s, .post, "/activities/:id/share", parameters: ["id": "\(id)"],
                                 form: ["include_track": "on", "include_times": "on", "format": "tcx"])
        guard case .download(_, let tcxType, let tcxBytes) = tcx else { Issue.record("\(tcx)"); return }
        #expect(tcxType == "application/vnd.garmin.tcx+xml")
        #expect(String(decoding: tcxBytes, as: UTF8.self).contains("<Lap "))

        // Refused as the command refuses: TCX without times, nothing chosen, a bad distance.
        let cases: [([String: String], [String])] = [
            (["include_track": "on", "format": "tcx"], ["--include", "track", "--tcx", folder.path + "/x.tcx"]),
            ([:], ["--include", "", "--out", folder.path + "/x.gpx"]),
            (["include_track": "on", "hide_within": "20 miles"], ["--hide-within", "20 miles", "--out", folder.path + "/x.gpx"]),
            (["include_track": "on", "hide_within": "20km"], ["--hide-within", "20km", "--out", folder.path + "/x.gpx"]),
        ]
        for (form, arguments) in cases {
            let refused = try await call(s, .post, "/activities/:id/share", parameters: ["id": "\(id)"], form: form)
            guard case .refused(400, let message) = refused else { Issue.record("\(form): \(refused)"); continue }
            let command = try Pacer.run(["activities", "share", "\(id)"] + arguments + ["--config", settings])
            #expect(command.status == 64)
            #expect(command.stderr.contains(message), "\(form): the page says '\(message)', the command: \(command.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/x.gpx"))
        let format = try await call(s, .post, "/activities/:id/share", parameters: ["id": "\(id)"],
                                    form: ["include_track": "on", "format": "kml"])
        guard case .refused(400, let why) = format else { Issue.record("\(format)"); return }
        #expect(why.hasPrefix("format: 'kml'"))
    }

    /// An uploaded GPX or FIT file becomes an activity as `pacer activities import` makes
    /// one; a damaged file is refused with the reader's message, naming the upload, and
    /// nothing is stored.
    @Test func anUploadImportsAsTheCommandDoesAndADamagedFileIsRefused() async throws {
        let store = try PacerStore(directory: dir)
        let s = section(store)
        let gpx = Array(gpxTrack().utf8)
        let response = try await call(s, .post, "/activities/import",
                                      uploads: ["file": Upload(filename: "C:\\runs\\morning.gpx", bytes: gpx)])
        guard case .redirect(let to, let notice?) = response else { Issue.record("\(response)"); return }
        let id = try #require(try store.activities.activities().last?.id)
        #expect(to == "/activities/\(id)")
        #expect(notice.hasPrefix("Imported activity #\(id) \"Morning run\""))
        #expect(notice.contains("Stored as activity #\(id), a past run"))
        #expect(try store.activities.activity(id).summary.source == "morning.gpx", "the upload's name, not a temporary path")
        #expect(try store.activities.activity(id).points.count == 40)

        // The same file through the command, in a folder of its own: the same summary.
        let other = folder.path + "/cli"
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: other + "/morning.gpx", contents: Data(gpx)))
        let command = try Pacer.run(["activities", "import", "morning.gpx", "--as", "activity", "--data-dir", other + "/data"],
                                    in: other)
        #expect(command.status == 0, "\(command.output)")
        #expect(command.stdout == notice + "\n")

        // A FIT file (this activity exported) imports as a FIT, by its name. It is the stored
        // run itself: refused (409) naming it, unless "again" is ticked.
        let fit = try store.fit.fit(activity: id)
        let same = try await call(s, .post, "/activities/import", form: ["name": "From the watch"],
                                  uploads: ["file": Upload(filename: "watch.fit", bytes: fit)])
        guard case .refused(409, let sameMessage) = same else { Issue.record("\(same)"); return }
        #expect(sameMessage.contains("the same run as activity #\(id)"), "\(sameMessage)")
        let fitResponse = try await call(s, .post, "/activities/import", form: ["name": "From the watch", "again": "on"],
                                         uploads: ["file": Upload(filename: "watch.fit", bytes: fit)])
        guard case .redirect(_, let fitNotice?) = fitResponse else { Issue.record("\(fitResponse)"); return }
        #expect(fitNotice.contains("\"From the watch\""))
        #expect(try store.activities.activities().count == 2)
        #expect(try store.activities.activities().last?.pointCount == 40)

        let before = try store.database.rowCounts()
        // A truncated GPX, a FIT with a byte changed (its CRC), an empty form.
        var damaged = fit
        damaged[damaged.count / 2] ^= 0x5A
        let broken: [(String, [UInt8])] = [
            ("cut.gpx", Array(gpx.prefix(gpx.count / 2))),
            ("changed.fit", damaged),
            ("stuck.gpx", Array(gpxTrack(name: "Stuck", times: false).utf8)),
        ]
        for (name, content) in broken {
            let refused = try await call(s, .post, "/activities/import", uploads: ["file": Upload(filename: name, bytes: content)])
            guard case .refused(400, let message) = refused else { Issue.record("\(name): \(refused)"); continue }
            #expect(message.hasPrefix(name + ":"), "\(name): \(message)")
            #expect(FileManager.default.createFile(atPath: other + "/" + name, contents: Data(content)))
            let cli = try Pacer.run(["activities", "import", name, "--as", "activity", "--data-dir", other + "/data"], in: other)
            #expect(cli.status != 0)
            #expect(cli.stderr.contains(message), "\(name): the page says '\(message)', the command: \(cli.stderr)")
        }
        let none = try await call(s, .post, "/activities/import", form: ["name": "x"])
        guard case .refused(400, let why) = none else { Issue.record("\(none)"); return }
        #expect(why.hasPrefix("file: "))
        #expect(try store.database.rowCounts() == before, "nothing stored from a refused file")
    }
}
