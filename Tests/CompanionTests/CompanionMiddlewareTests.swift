import Configurator
import Foundation
import Logging
import PacerCore
@testable import Runtime
import TestSupport
import Testing
@testable import Companion

/// The companion's middleware one by one, through the router without a socket
/// (`CompanionCore.respond`): what each refuses, and that it lets the rest through.
@Suite("companion middleware")
struct CompanionMiddlewareTests {
    let folder = TemporaryDirectory()
    let device: TestDevice
    let core: CompanionCore
    let session: CompanionSessions.Session

    /// A page that fails, for the error page.
    struct FailingSection: CompanionSection {
        struct Broken: Error, CustomStringConvertible { var description: String { "the disk is on fire" } }
        var menu: (label: String, path: String)? { nil }
        var routes: [PageRoute] { [PageRoute(.get, "/fails") { _ in throw Broken() }] }
    }

    init() throws {
        device = TestDevice(folder: folder.path)
        let password = CompanionPassword(dataDirectory: folder.path)
        try password.set(Fixture.password)
        core = CompanionCore(sections: [StateSection(device: device), ProbeSection(), FailingSection()], device: device,
                             password: password, logger: Logger(label: "t", factory: { _ in SwiftLogNoOpLogHandler() }),
                             clock: { 1000 }, version: "1.2.3")
        session = core.sessions.open()
    }

    func send(_ method: String, _ target: String, cookie: Bool = true, form: String? = nil,
              headers: [String: String] = [:], host: String? = "pacer.local") async -> CompanionHTTPResponse {
        var all = headers
        // Every client sends its Host; `host: nil` sends none.
        if let host { all["host"] = all["host"] ?? host }
        if cookie { all["cookie"] = "pacer_session=\(session.id)" }
        if form != nil, all["content-type"] == nil { all["content-type"] = "application/x-www-form-urlencoded" }
        return await core.respond(CompanionHTTPRequest(method: method, target: target, headers: all,
                                                       body: Array((form ?? "").utf8), remoteAddress: "192.0.2.7"))
    }

    func text(_ response: CompanionHTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test func everyAnswerCarriesTheSecurityHeaders() async {
        let answers = [
            await send("GET", "/"), await send("GET", "/static/nothing"), await send("DELETE", "/"),
            await send("GET", "/", cookie: false), await send("POST", "/probe/change", form: "csrf=wrong"),
            await send("GET", "/nothing"), await send("GET", "/health"),
        ]
        for answer in answers {
            for (name, value) in SecurityHeadersMiddleware.headers {
                #expect(answer.header(name) == value, "\(answer.status): \(name)")
            }
        }
    }

    /// RFC 9112 §3.2: a request without a Host is answered 400, before anything else is read.
    @Test func aRequestWithoutAHostIsRefused() async {
        let answer = await send("GET", "/", host: nil)
        #expect(answer.status == 400)
        #expect(text(answer).contains("Host"))
        #expect(await send("GET", "/health", cookie: false, host: nil).status == 400)
        #expect(await send("GET", "/health", cookie: false).status == 200)
    }

    @Test func onlyGETAndPOSTAreTaken() async {
        for method in ["DELETE", "PUT", "HEAD", "OPTIONS"] {
            let answer = await send(method, "/probe")
            #expect(answer.status == 405 && answer.header("allow") == "GET, POST", "\(method)")
        }
        #expect(await send("GET", "/probe").status == 200)
    }

    @Test func aCookieThatIsNoLiveSessionIsNoLogin() async {
        #expect(await send("GET", "/probe", cookie: false, headers: ["cookie": "pacer_session=\(String(repeating: "a", count: 64))"]).status == 303)
        #expect(await send("GET", "/probe", cookie: false, headers: ["cookie": "pacer_session=../x"]).status == 303)
        #expect(await send("GET", "/api/state", cookie: false).status == 401)
        #expect(await send("POST", "/probe/change", cookie: false, form: "csrf=\(session.csrf)").status == 401)
        // Another cookie beside it changes nothing.
        #expect(await send("GET", "/probe", cookie: false, headers: ["cookie": "theme=dark; pacer_session=\(session.id)"]).status == 200)
    }

    @Test func aChangeWithoutTheSessionsTokenOrFromAnotherSiteIsRefused() async {
        #expect(await send("POST", "/probe/change", form: "what=x").status == 403)
        #expect(await send("POST", "/probe/change", form: "csrf=\(String(repeating: "0", count: 64))").status == 403)
        let foreign = await send("POST", "/probe/change", form: "csrf=\(session.csrf)",
                                 headers: ["origin": "http://evil.example", "host": "board:8080"])
        #expect(foreign.status == 403 && text(foreign).contains("another site"))
        let own = await send("POST", "/probe/change", form: "csrf=\(session.csrf)&what=y",
                             headers: ["origin": "http://board:8080", "host": "board:8080"])
        #expect(own.status == 303 && own.header("location") == "/probe")
        #expect(await send("POST", "/probe/change", form: "what=z", headers: ["x-csrf-token": session.csrf]).status == 303)
    }

    @Test func aBodyOverItsLimitIs413AndClosesTheConnection() async {
        let large = await send("POST", "/probe/change", form: "csrf=\(session.csrf)&pad=" + String(repeating: "a", count: CompanionCore.formLimit))
        #expect(large.status == 413 && large.header("connection") == "close")
        #expect(BodyLimitMiddleware.limit(contentType: "multipart/form-data; boundary=x") == CompanionCore.uploadLimit)
        #expect(BodyLimitMiddleware.limit(contentType: "application/x-www-form-urlencoded") == CompanionCore.formLimit)
        #expect(BodyLimitMiddleware.limit(contentType: nil) == CompanionCore.formLimit)
    }

    @Test func aBodyThatIsNoFormIsRefusedWithTheReason() async {
        let answer = await send("POST", "/probe/change", form: "{}", headers: ["content-type": "application/json"])
        #expect(answer.status == 400 && text(answer).contains("is not a form"), "\(text(answer))")
        let twice = await send("POST", "/probe/change", form: "csrf=\(session.csrf)&what=1&what=2")
        #expect(twice.status == 400, "\(text(twice))")
    }

    @Test func aCapturedSegmentIsDecodedAndNeverAPathOfItsOwn() async {
        #expect(PathParameterMiddleware.decode("a%20b") == "a b")
        #expect(PathParameterMiddleware.decode("%C3%A9t%C3%A9") == "été")
        for segment in ["..", ".", "%2e%2e", "%2E", "a%2Fb", "%2F", "%zz", "%ff", ""] {
            #expect(PathParameterMiddleware.decode(Substring(segment)) == nil, "\(segment)")
        }
        #expect(text(await send("GET", "/probe/item/a%20b")) == "{\"id\":\"a b\"}")
        let dots = await send("GET", "/probe/item/%2e%2e")
        #expect(dots.status == 404 && text(dots).contains("nothing here: /probe/item/%2e%2e"))
    }

    @Test func aPathKnownWithTheOtherMethodIs405() async {
        let get = await send("GET", "/probe/change")
        #expect(get.status == 405 && text(get).contains("GET is not how /probe/change is used"), "\(text(get))")
        let post = await send("POST", "/probe", form: "csrf=\(session.csrf)")
        #expect(post.status == 405 && text(post).contains("POST is not how /probe is used"))
    }

    @Test func aPageThatFailsIsA500InTheLayout() async {
        let answer = await send("GET", "/fails")
        #expect(answer.status == 500 && text(answer).contains("error: the disk is on fire"))
        #expect(text(answer).contains("<nav id=\"menu\">"), "the session's menu")
    }

    @Test func duringAWorkoutOnlyTheButtonsChangesAreTaken() async {
        device.running.withLock { $0 = true }
        let change = await send("POST", "/probe/change", form: "csrf=\(session.csrf)")
        #expect(change.status == 409)
        #expect(await send("GET", "/probe").status == 200)
        #expect(await send("POST", "/command/pause", form: "csrf=\(session.csrf)").status == 303)
        #expect(device.sent.withLock { $0 } == [.pause])
    }

    @Test func theSnapshotIsWrittenAsTheWatchersFirstLine() {
        let ready = DeviceSnapshot(state: .ready, line: "ready  gps fix")
        #expect(ready.jsonLine == "{\"event\":\"status\",\"state\":\"ready\",\"line\":\"ready  gps fix\"}")
        #expect(ready.stateText == "ready" && !ready.workoutRunning)
        var running = DeviceSnapshot(state: .running, line: "…", running: TestDevice.runningStatus)
        #expect(running.jsonLine == TestDevice.runningStatus.jsonLine())
        #expect(running.stateText == "running")
        running.running?.coach.paused = true
        #expect(running.stateText == "paused")
        let fields = StateSection.fields(DeviceSnapshot(state: .running, line: "…", running: TestDevice.runningStatus))
        #expect(fields.map(\.value) == ["running", "Easy run", "Easy 40", "2/3", "0.31 km", "1 min 15 s", "–", "–"])
        #expect(StateSection.fields(ready).map(\.value) == ["ready", "–", "–", "–", "–", "–", "–", "ready  gps fix"])
        // A strap: its rate, zone and the limit it is over, as the JSON gives them to the script.
        var withHeart = TestDevice.runningStatus
        withHeart.heart = HeartStatus(strap: .reading, bpm: 151, zone: 3, limit: .ceiling(146), state: .high, battery: 80)
        #expect(StateSection.fields(DeviceSnapshot(state: .running, line: "…", running: withHeart))[6].value
            == "151 bpm, zone 3 (over 146)")
        #expect(withHeart.jsonLine().contains("\"heart\":{\"strap\":\"reading\",\"bpm\":151,\"zone\":3,\"ceiling_bpm\":146,\"hr\":\"high\",\"strap_battery_pct\":80}"))
        withHeart.heart = HeartStatus(strap: .lost, bpm: nil, zone: nil, limit: nil, state: .unknown, battery: nil)
        #expect(StateSection.fields(DeviceSnapshot(state: .running, line: "…", running: withHeart))[6].value == "strap lost")
        // Issue 39, item 18: waiting, the device offers a workout: the page says which, and
        // the JSON the page's script reads has it too.
        let offering = DeviceSnapshot(state: .ready, line: "ready  Easy run: workout 2/48 Easy 40  gps fix",
                                      offer: Firmware.Offer(plan: "Easy run", workout: "2/48 Easy 40"))
        #expect(StateSection.fields(offering).map(\.value).prefix(3) == ["ready", "Easy run", "2/48 Easy 40"])
        #expect(offering.jsonLine.hasSuffix(",\"plan\":\"Easy run\",\"workout\":\"2/48 Easy 40\"}"), "\(offering.jsonLine)")
    }
}
