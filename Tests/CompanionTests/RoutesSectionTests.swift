import Coaching
import Companion
import Foundation
import PacerCore
import Storage
import TestSupport
import Testing

@Suite struct RoutesSectionTests {
    let folder = TemporaryDirectory()
    var dir: String { folder.path + "/data" }
    static let noon = UTCTimestamp(millisecondsSince1970: 1_780_000_000_000)

    func section(_ store: PacerStore) -> RoutesSection {
        RoutesSection(device: StoreDevice(store), now: { Self.noon })
    }

    /// Upload a GPX, choose it for the next workout, then follow none: the store keeps the
    /// choice the device reads at a start; the pages say it.
    @Test func anUploadedRouteIsChosenForTheNextWorkoutAndCleared() async throws {
        let store = try PacerStore(directory: dir)
        let s = section(store)
        let empty = pageBody(try await call(s, .get, "/routes"))
        #expect(empty.contains("No routes yet.") && empty.contains("data-route=\"none\""))
        #expect(empty.contains("id=\"route-upload\"") && empty.contains("enctype=\"multipart/form-data\""))

        let upload = try await call(s, .post, "/routes/import",
                                    uploads: ["file": Upload(filename: "park-loop.gpx", bytes: Array(gpxTrack(name: "Park loop").utf8))])
        guard case .redirect(let to, let notice?) = upload else { Issue.record("\(upload)"); return }
        let id = try #require(try store.routes.routes().first?.id)
        #expect(to == "/routes/\(id)")
        #expect(notice.hasPrefix("Imported route #\(id) \"Park loop\""))
        #expect(try store.routes.route(id).summary.source == "park-loop.gpx")

        let list = pageBody(try await call(s, .get, "/routes"))
        #expect(list.contains("<table id=\"routes\" class=\"stack\">") && list.contains("Park loop"))
        #expect(list.contains("id=\"follow-\(id)\""))

        let follow = try await call(s, .post, "/routes/follow", form: ["route": "\(id)"])
        guard case .redirect("/routes", let said?) = follow else { Issue.record("\(follow)"); return }
        #expect(said == "The next workout follows route #\(id) 'Park loop' (pacer device --route, when given, still wins).")
        #expect(try store.routes.chosenRoute() == id)
        #expect(try store.routes.chosenFollowedRoute()?.name == "Park loop")
        let chosen = pageBody(try await call(s, .get, "/routes"))
        #expect(chosen.contains("data-route=\"\(id)\"") && chosen.contains("class=\"followed\""))
        #expect(chosen.contains("id=\"follow-none\""))
        let page = pageBody(try await call(s, .get, "/routes/:id", parameters: ["id": "\(id)"]))
        #expect(page.contains("The next workout follows this route."))
        #expect(page.contains("class=\"report\" href=\"/routes/\(id)/report\""))

        let none = try await call(s, .post, "/routes/follow", form: ["route": "none"])
        guard case .redirect(_, "The next workout follows no route.") = none else { Issue.record("\(none)"); return }
        #expect(try store.routes.chosenRoute() == nil)
    }

    /// What the command refuses the page refuses with the same words, and changes nothing;
    /// the command's choice is the same stored key the device reads (its own data folder:
    /// the page's store holds the folder's lock, as the device does).
    @Test func theCommandAndThePageChooseTheSameWay() async throws {
        let store = try PacerStore(directory: dir)
        let s = section(store)
        let gpx = Array(gpxTrack(name: "A").utf8)
        _ = try await call(s, .post, "/routes/import", uploads: ["file": Upload(filename: "a.gpx", bytes: gpx)])
        let id = try #require(try store.routes.routes().first?.id)
        _ = try await call(s, .post, "/routes/follow", form: ["route": "\(id)"])

        let other = folder.path + "/cli"
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: other + "/a.gpx", contents: Data(gpx)))
        let imported = try Pacer.run(["routes", "import", "a.gpx", "--data-dir", other + "/data"], in: other)
        #expect(imported.status == 0, "\(imported.output)")
        for value in ["99", "abc", "0"] {
            let refused = try await call(s, .post, "/routes/follow", form: ["route": value])
            guard case .refused(let status, let message) = refused else { Issue.record("\(refused)"); continue }
            #expect(status == (value == "99" ? 404 : 400))
            #expect(try store.routes.chosenRoute() == id, "a refused choice changes nothing")
            let cli = try Pacer.run(["routes", "follow", value, "--data-dir", other + "/data"])
            #expect(cli.status == (value == "99" ? 66 : 64), "\(value): a missing route is 66, not an id a usage error")
            #expect(cli.stderr.contains(message), "the page says '\(message)', the command: \(cli.stderr)")
        }
        let chosen = try Pacer.run(["routes", "follow", "1", "--data-dir", other + "/data"])
        #expect(chosen.status == 0, "\(chosen.output)")
        #expect(chosen.stdout == "The next workout follows route #1 'A' (pacer device --route, when given, still wins).\n")
        #expect(try PacerStore(directory: other + "/data", access: .read).routes.chosenRoute() == 1)
        let cleared = try Pacer.run(["routes", "follow", "none", "--data-dir", other + "/data"])
        #expect(cleared.stdout == "The next workout follows no route.\n")
        #expect(try PacerStore(directory: other + "/data", access: .read).routes.chosenRoute() == nil)
    }

    @Test func aRoutesReportIsTheCommandsPage() async throws {
        let store = try PacerStore(directory: dir)
        let s = section(store)
        _ = try await call(s, .post, "/routes/import",
                           uploads: ["file": Upload(filename: "b.gpx", bytes: Array(gpxTrack(name: "B").utf8))])
        let id = try #require(try store.routes.routes().first?.id)
        let cli = try Pacer.run(["routes", "report", "\(id)", "--out", folder.path + "/r.html", "--data-dir", dir])
        #expect(cli.status == 0, "\(cli.output)")
        guard case .document(let html) = try await call(s, .get, "/routes/:id/report", parameters: ["id": "\(id)"])
        else { Issue.record("not a document"); return }
        #expect(Array(html.utf8) == bytes(folder.path + "/r.html"))
        let missing = try await call(s, .get, "/routes/:id/report", parameters: ["id": "7"])
        guard case .refused(404, let message) = missing else { Issue.record("\(missing)"); return }
        #expect(message == "\(StorageError.unknownRoute(7))")
        let bad = try await call(s, .post, "/routes/import",
                                 uploads: ["file": Upload(filename: "one.gpx", bytes: Array(gpxTrack(count: 1).utf8))])
        guard case .refused(400, let why) = bad else { Issue.record("\(bad)"); return }
        #expect(why.hasPrefix("one.gpx:"), "\(why)")
    }
}
