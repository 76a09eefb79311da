import Configurator
import Foundation
import HAL
import Logging
import TestSupport
import Testing
@testable import Companion

/// The companion server on a real loopback port, through a raw HTTP client (nothing tidied on
/// the way): the login, the sessions, CSRF, the limits, the headers, the routes.
@Suite("companion server")
struct CompanionServerTests {
    @Test func withoutALoginOnlyTheLoginPageAnd401() async throws {
        let f = try await Fixture.started()
        defer { Task { await f.server.stop() } }
        let asked = try await f.get("/")
        #expect(asked.status == 303 && asked.header("location") == "/login", "a page without a login goes to it")
        let page = try await f.get("/login")
        #expect(page.status == 200)
        #expect(page.text.contains("<form method=\"post\" action=\"/login\" id=\"login\">"))
        #expect(!page.text.contains("Easy run"), "nothing of the device without a login")
        let api = try await f.get("/api/state")
        #expect(api.status == 401 && api.text == "{\"error\":\"login needed\"}")
        let probe = try await f.get("/probe")
        #expect(probe.status == 303 && !probe.text.contains("probe page"))
        let change = try await f.post("/command/start", form: "csrf=x")
        #expect(change.status == 401)
        #expect(f.device.sent.withLock { $0.isEmpty })
        // Its assets are public: the login page needs them.
        let script = try await f.get("/static/companion.js")
        #expect(script.status == 200 && script.header("content-type") == "text/javascript; charset=utf-8")
        #expect(script.text.contains("/api/state"))
    }

    @Test func healthTellsStateAndVersionAndNothingPrivate() async throws {
        let f = try await Fixture.started()
        defer { Task { await f.server.stop() } }
        let health = try await f.get("/health")
        #expect(health.status == 200 && health.header("content-type") == "application/json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(health.body)) as? [String: Any])
        #expect(Set(object.keys) == ["ok", "state", "version"])
        #expect(object["state"] as? String == "ready" && object["version"] as? String == "9.9.9")
        #expect(!health.text.contains("Easy"), "no plan's name: \(health.text)")
        f.device.running.withLock { $0 = true }
        let running = try await f.get("/health")
        #expect(running.text == "{\"ok\":true,\"state\":\"running\",\"version\":\"9.9.9\"}")
    }

    @Test func noPasswordSetServesOnlyHealthAndHowToSetOne() async throws {
        let f = try await Fixture.started(password: nil)
        defer { Task { await f.server.stop() } }
        for target in ["/", "/login", "/api/state", "/probe"] {
            let page = try await f.get(target)
            #expect(page.status == 503, "\(target)")
            #expect(page.text.contains("pacer companion password --generate"), "\(target): \(page.text)")
        }
        let login = try await f.post("/login", form: "password=anything+at+all")
        #expect(login.status == 503 && login.header("set-cookie") == nil)
        #expect(try await f.get("/health").status == 200)
    }

    @Test func wrongPasswordsAreRefusedThen429WithADoublingWait() async throws {
        let f = try await Fixture.started()
        defer { Task { await f.server.stop() } }
        for attempt in 1...5 {
            let wrong = try await f.post("/login", form: "password=wrong+password+\(attempt)")
            #expect(wrong.status == 401, "attempt \(attempt)")
            #expect(wrong.text.contains("Wrong password.") && wrong.header("set-cookie") == nil)
        }
        // The sixth is not even checked: the right password waits too.
        let blocked = try await f.post("/login", form: "password=correct+horse+battery")
        #expect(blocked.status == 429)
        #expect(blocked.header("retry-after") == "30")
        #expect(blocked.header("set-cookie") == nil)
        f.clock.advance(31)
        let sixth = try await f.post("/login", form: "password=still+wrong")
        #expect(sixth.status == 401)
        let doubled = try await f.post("/login", form: "password=correct+horse+battery")
        #expect(doubled.status == 429 && doubled.header("retry-after") == "60")
        f.clock.advance(61)
        let right = try await f.post("/login", form: "password=correct+horse+battery")
        #expect(right.status == 303 && right.header("location") == "/")
    }

    @Test func theGlobalCapHoldsAgainstManyAddresses() {
        let clock = TestClock()
        let limiter = LoginLimiter(clock: clock.read)
        for i in 0..<LoginLimiter.globalLimit { limiter.failed(from: "10.0.\(i / 256).\(i % 256)") }
        let wait = limiter.wait(for: "192.168.1.77")
        #expect(wait != nil && wait! <= LoginLimiter.globalWindow, "a fresh address waits too: \(String(describing: wait))")
        clock.advance(LoginLimiter.globalWindow + 1)
        #expect(limiter.wait(for: "192.168.1.77") == nil)
    }

    @Test func theSessionCookieIsHttpOnlySameSiteStrictAndRandom() async throws {
        let f = try await Fixture.started()
        defer { Task { await f.server.stop() } }
        let login = try await f.post("/login", form: "password=correct+horse+battery")
        #expect(login.status == 303)
        let cookie = try #require(login.header("set-cookie"))
        let parts = cookie.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(parts.contains("HttpOnly") && parts.contains("SameSite=Strict") && parts.contains("Path=/"), "\(cookie)")
        let value = String(parts[0].dropFirst("pacer_session=".count))
        #expect(parts[0].hasPrefix("pacer_session=") && CompanionSessions.isWellFormed(value), "\(cookie)")
        let again = try await f.post("/login", form: "password=correct+horse+battery")
        #expect(again.header("set-cookie")?.hasPrefix("pacer_session=\(value)") == false, "each login its own session")

        let page = try await f.get("/", cookie: value)
        #expect(page.status == 200)
        for id in ["live", "state", "phase", "distance", "menu", "logout", "command-start", "command-waypoint"] {
            #expect(page.text.contains("id=\"\(id)\""), "#\(id)")
        }
        #expect(page.text.contains("<dd id=\"state\">ready</dd>"))
        #expect(page.text.contains("<a href=\"/probe\">Probe</a>"), "the sections' menu")
        #expect(!page.text.contains("<script>"), "no inline script")
        #expect(page.header("content-security-policy")?.hasPrefix("default-src 'self'") == true)
        #expect(page.header("x-frame-options") == "DENY")
        #expect(page.header("x-content-type-options") == "nosniff")
        #expect(page.header("referrer-policy") == "same-origin")
        #expect(page.header("cache-control") == "no-store")
        // A cookie that is not a session's is no login.
        #expect(try await f.get("/", cookie: String(repeating: "a", count: 64)).status == 303)
        #expect(try await f.get("/", cookie: "../../etc").status == 303)
        let icon = try await f.get("/static/icon.svg")
        #expect(icon.status == 200 && icon.header("content-type") == "image/svg+xml" && icon.text.hasPrefix("<svg"))
    }

    @Test func aSessionUnusedFor12HoursEnds() async throws {
        let f = try await Fixture.started()
        defer { Task { await f.server.stop() } }
        let (cookie, _) = try await f.login()
        f.clock.advance(11 * 3600)
        #expect(try await f.get("/", cookie: cookie).status == 200, "used within 12 h: kept, and touched")
        f.clock.advance(11 * 3600)
        #expect(try await f.get("/", cookie: cookie).status == 200)
        f.clock.advance(12 * 3600 + 1)
        #expect(try await f.get("/", cookie: cookie).status == 303, "ended: back to the login")
    }

    @Test func atMost16SessionsTheLeastRecentlyUsedDropped() {
        let clock = TestClock()
        let sessions = CompanionSessions(clock: clock.read)
        var opened: [CompanionSessions.Session] = []
        for _ in 0..<CompanionSessions.capacity {
            opened.append(sessions.open())
            clock.advance(1)
        }
        #expect(sessions.use(opened[0].id) != nil)  // the first is now the most recent
        clock.advance(1)
        _ = sessions.open()
        #expect(sessions.count == CompanionSessions.capacity)
        #expect(sessions.use(opened[0].id) != nil)
        #expect(sessions.use(opened[1].id) == nil, "the least recently used went")
        #expect(Set(opened.map(\.id)).count == opened.count && Set(opened.map(\.csrf)).isDisjoint(with: opened.map(\.id)))
    }

    @Test func aChangeNeedsTheSessionsCSRFTokenAndNoForeignOrigin() async throws {
        let f = try await Fixture.started()
        defer { Task { await f.server.stop() } }
        let (cookie, csrf) = try await f.login()
        let none = try await f.post("/command/pause", cookie: cookie, form: "")
        #expect(none.status == 403 && none.text.contains("CSRF token"))
        let other = try await f.post("/command/pause", cookie: cookie, form: "csrf=" + String(repeating: "0", count: 64))
        #expect(other.status == 403)
        let foreign = try await f.post("/command/pause", cookie: cookie, form: "csrf=\(csrf)",
                                       headers: [("Origin", "http://evil.example")])
        #expect(foreign.status == 403 && foreign.text.contains("another site"))
        #expect(f.device.sent.withLock { $0.isEmpty }, "nothing sent by a refused POST")

        let done = try await f.post("/command/pause", cookie: cookie, form: "csrf=\(csrf)",
                                    headers: [("Origin", "http://127.0.0.1:\(f.port)")])
        #expect(done.status == 303 && done.header("location") == "/")
        #expect(f.device.sent.withLock { $0 } == [.pause])
        // The answer shown once, by the next page.
        let next = try await f.get("/", cookie: cookie)
        #expect(next.text.contains("<p class=\"notice\" id=\"notice\">ok: pause</p>"))
        let after = try await f.get("/", cookie: cookie)
        #expect(!after.text.contains("id=\"notice\""))

        // The script's way: the token in a header, the answer as JSON.
        let api = try await f.post("/api/command/waypoint", cookie: cookie, form: "label=Bridge", headers: [("X-CSRF-Token", csrf)])
        #expect(api.status == 200 && api.text == "{\"reply\":\"ok: waypoint(\\\"Bridge\\\")\"}", "\(api.text)")
        #expect(f.device.sent.withLock { $0 } == [.pause, .waypoint("Bridge")])

        // Logged out: the cookie is nothing any more.
        let logout = try await f.post("/logout", cookie: cookie, form: "csrf=\(csrf)")
        #expect(logout.status == 303 && logout.header("location") == "/login")
        #expect(logout.header("set-cookie")?.contains("Max-Age=0") == true)
        #expect(try await f.get("/", cookie: cookie).status == 303)
    }

    @Test func bodiesOverTheLimitAre413BeforeBeingRead() async throws {
        let f = try await Fixture.started()
        defer { Task { await f.server.stop() } }
        let (cookie, csrf) = try await f.login()
        // Declared too large: refused from the header, the body never sent.
        let declared = try await RawHTTP.exchange(port: f.port, Array((
            "POST /command/pause HTTP/1.1\r\nHost: x\r\nConnection: close\r\nCookie: pacer_session=\(cookie)\r\n"
            + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(CompanionCore.formLimit + 1)\r\n\r\n").utf8))
        #expect(declared.status == 413)
        let upload = try await RawHTTP.exchange(port: f.port, Array((
            "POST /probe/upload HTTP/1.1\r\nHost: x\r\nConnection: close\r\nCookie: pacer_session=\(cookie)\r\n"
            + "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: \(CompanionCore.uploadLimit + 1)\r\n\r\n").utf8))
        #expect(upload.status == 413)
        // Chunked, so no length to go by: refused once past the limit.
        var chunked = Array(("POST /command/pause HTTP/1.1\r\nHost: x\r\nConnection: close\r\nCookie: pacer_session=\(cookie)\r\n"
                             + "Content-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n").utf8)
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 64 * 1024)
        for _ in 0..<5 { chunked += Array("\(String(chunk.count, radix: 16))\r\n".utf8) + chunk + Array("\r\n".utf8) }
        chunked += Array("0\r\n\r\n".utf8)
        let streamed = try await RawHTTP.exchange(port: f.port, chunked)
        #expect(streamed.status == 413)
        #expect(f.device.sent.withLock { $0.isEmpty })
        // Without a session nothing is read: 401 at once, whatever the length; a login's
        // body is small.
        let anonymous = try await RawHTTP.exchange(port: f.port, Array((
            "POST /probe/upload HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
            + "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: \(CompanionCore.uploadLimit)\r\n\r\n").utf8))
        #expect(anonymous.status == 401)
        let login = try await f.post("/login", form: "password=" + String(repeating: "x", count: CompanionCore.loginLimit))
        #expect(login.status == 413)
        // Within the limit it is taken.
        let fine = try await f.post("/command/pause", cookie: cookie, form: "csrf=\(csrf)&pad=" + String(repeating: "a", count: 100_000))
        #expect(fine.status == 303)
    }

    /// Issue 38: uploads are held whole while they are handled, so one is handled at a time
    /// (two imports of a 100,000-record FIT at once took the device past its 128 MB, issue
    /// 43's CI); the others started with it are answered 503 "busy" with a Retry-After, not
    /// queued in memory.
    @Test func aSecondUploadAtOnceIsBusyWithRetryAfter() async throws {
        let f = try await Fixture.started()
        defer { Task { await f.server.stop() } }
        let (cookie, csrf) = try await f.login()
        let boundary = "pacer-test-boundary"
        let body = Array(("--\(boundary)\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n\(csrf)\r\n"
            + "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.fit\"\r\n"
            + "Content-Type: application/octet-stream\r\n\r\n\(String(repeating: "x", count: 100_000))\r\n--\(boundary)--\r\n").utf8)
        let port = f.port
        let answers = try await withThrowingTaskGroup(of: RawHTTPResponse.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    try await RawHTTP.send(port: port, "POST", "/probe/hold", headers: [
                        ("Cookie", "pacer_session=\(cookie)"), ("Content-Type", "multipart/form-data; boundary=\(boundary)"),
                    ], body: body)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.map(\.status).sorted() == [200, 503, 503], "\(answers.map { "\($0.status) \($0.text)" })")
        let busy = answers.first { $0.status == 503 }
        #expect(busy?.header("retry-after") == "5" && busy?.text.contains("busy") == true)
        // Once they are answered, the next is handled.
        let next = try await RawHTTP.send(port: port, "POST", "/probe/hold", headers: [
            ("Cookie", "pacer_session=\(cookie)"), ("Content-Type", "multipart/form-data; boundary=\(boundary)"),
        ], body: body)
        #expect(next.status == 200 && next.text.contains("100000"), "\(next.status) \(next.text)")
    }

    @Test func aMultipartUploadReachesThePageWhole() async throws {
        let f = try await Fixture.started()
        defer { Task { await f.server.stop() } }
        let (cookie, csrf) = try await f.login()
        let file = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var body = Array("--XyZ\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n\(csrf)\r\n".utf8)
        body += Array("--XyZ\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nmorning run\r\n".utf8)
        body += Array("--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"../../run.fit\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
        body += file + Array("\r\n--XyZ--\r\n".utf8)
        let answer = try await RawHTTP.send(
            port: f.port, "POST", "/probe/upload",
            headers: [("Cookie", "pacer_session=\(cookie)"), ("Content-Type", "multipart/form-data; boundary=XyZ")], body: body)
        #expect(answer.status == 200, "\(answer.text)")
        let sum = file.reduce(0) { $0 &+ Int($1) }
        #expect(answer.text == "{\"name\":\"../../run.fit\",\"bytes\":300000,\"sum\":\(sum),\"note\":\"morning run\"}")
        // A broken one is refused with the reason.
        let broken = try await RawHTTP.send(
            port: f.port, "POST", "/probe/upload",
            headers: [("Cookie", "pacer_session=\(cookie)"), ("Content-Type", "multipart/form-data; boundary=XyZ")],
            body: Array("--XyZ\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n\(csrf)".utf8))
        #expect(broken.status == 400 && broken.text.contains("multipart: part 1 is not closed by the boundary"), "\(broken.text)")
    }

    @Test(arguments: [
        "/static/../../etc/passwd", "/static/..%2f..%2fetc%2fpasswd", "/static/%2e%2e/%2e%2e/etc/passwd",
        "/static/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd", "/static//etc/passwd", "/static/companion.js/../../../etc/passwd",
        "/static/..\\..\\etc\\passwd", "/static/%252e%252e/etc/passwd", "/static/",
    ])
    func noPathLeavesTheCompiledInFiles(_ target: String) async throws {
        let f = try await Fixture.started(name: "traversal")
        defer { Task { await f.server.stop() } }
        let anonymous = try await f.get(target)
        #expect(anonymous.status == 404, "\(target)")
        let (cookie, _) = try await f.login()
        let logged = try await f.get(target, cookie: cookie)
        #expect(logged.status == 404, "\(target)")
        #expect(!anonymous.text.contains("root:") && !logged.text.contains("root:"))
    }

    @Test func routesCaptureDownloadAndRefuseUnknownPaths() async throws {
        let f = try await Fixture.started()
        defer { Task { await f.server.stop() } }
        let (cookie, _) = try await f.login()
        #expect(try await f.get("/probe/item/a%20b", cookie: cookie).text == "{\"id\":\"a b\"}")
        #expect(try await f.get("/probe/item/..", cookie: cookie).status == 404)
        #expect(try await f.get("/probe/item/%2e%2e", cookie: cookie).status == 404)
        #expect(try await f.get("/probe/item/a%2Fb", cookie: cookie).status == 404)
        #expect(try await f.get("/nothing", cookie: cookie).status == 404)
        #expect(try await f.post("/probe", cookie: cookie, form: "").status == 403, "a POST without a token is refused first")
        let download = try await f.get("/probe/file", cookie: cookie)
        #expect(download.header("content-disposition") == "attachment; filename=\"run_1.gpx\"")
        #expect(download.text == "<gpx/>")
        let delete = try await RawHTTP.send(port: f.port, "DELETE", "/probe", headers: [("Cookie", "pacer_session=\(cookie)")])
        #expect(delete.status == 405)
    }

    @Test func whileAWorkoutRunsOnlyWhatTheButtonDoesIsAnswered() async throws {
        let f = try await Fixture.started(duringWorkout: true)
        defer { Task { await f.server.stop() } }
        let (cookie, csrf) = try await f.login()
        #expect(try await f.post("/probe/change", cookie: cookie, form: "csrf=\(csrf)&what=x").status == 303)
        f.device.running.withLock { $0 = true }
        let change = try await f.post("/probe/change", cookie: cookie, form: "csrf=\(csrf)&what=y")
        #expect(change.status == 409)
        #expect(change.text.contains("a workout is running: "))
        #expect(try await f.get("/probe", cookie: cookie).status == 200, "reading changes nothing: answered")
        let pause = try await f.post("/command/pause", cookie: cookie, form: "csrf=\(csrf)")
        #expect(pause.status == 303)
        let state = try await f.get("/api/state", cookie: cookie)
        #expect(state.status == 200 && state.text.contains("\"distance_m\":312.4"))
        let page = try await f.get("/", cookie: cookie)
        #expect(page.text.contains("<dd id=\"phase\">2/3</dd>") && page.text.contains("<dd id=\"distance\">0.31 km</dd>"))
    }

    @Test func stoppedTheListeningSocketIsClosed() async throws {
        let f = try await Fixture.started()
        #expect(try await f.get("/health").status == 200)
        await f.server.stop()
        #expect(f.server.port == nil)
        await #expect(throws: ConnectionRefused.self) { try await f.get("/health") }
        // And it starts again.
        try await f.server.start()
        let port = try #require(f.server.port)
        #expect(try await RawHTTP.send(port: port, "GET", "/health").status == 200)
        await f.server.stop()
    }

    @Test func aPortInUseIsAClearError() async throws {
        let (fd, port) = try boundLoopbackSocket(listening: 4)
        defer { close(fd) }
        let folder = TemporaryDirectory()
        let device = TestDevice(folder: folder.path)
        let server = CompanionServer(
            settings: CompanionSettings(listen: ("127.0.0.1", port)), sections: [], device: device,
            password: CompanionPassword(dataDirectory: folder.path), logger: Logger(label: "t", factory: { _ in SwiftLogNoOpLogHandler() }), clock: { 0 })
        await #expect { try await server.start() } throws: { error in
            "\(error)".hasPrefix("companion: cannot listen on 127.0.0.1:\(port): ")
        }
    }
}
