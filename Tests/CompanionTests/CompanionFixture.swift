@testable import Coaching
import Configurator
import Foundation
import HAL
import Logging
import PacerCore
@testable import Runtime
import Storage
import Synchronization
import TestSupport
@testable import Companion

/// A device for the companion's tests: its state set by the test, the commands it was sent
/// kept, and a real store in a temporary folder.
final class TestDevice: CompanionDevice {
    let folder: String
    let running = Mutex(false)
    let sent = Mutex<[ControlCommand]>([])

    init(folder: String) { self.folder = folder }

    func snapshot() -> DeviceSnapshot {
        running.withLock { $0 }
            ? DeviceSnapshot(state: .running, line: "00:01:15  phase 2/3 Steady", running: Self.runningStatus)
            : DeviceSnapshot(state: .ready, line: "ready  Easy run: workout 1/1 Easy 40  gps fix")
    }

    /// A workout 75.5 s and 312.4 m in, in the second of its three phases.
    static let runningStatus = RuntimeStatus(
        plan: "Easy run", workout: "Easy 40", profile: "medium",
        coach: CoachStatus(phaseIndex: 1, phaseCount: 3, phaseName: "Steady",
                           phase: Phase(name: "Steady", duration: .seconds(600), minimumSpeed: 2.5, maximumSpeed: 3.2),
                           elapsed: .milliseconds(75_500), phaseTimeLeft: .seconds(584), smoothedSpeed: 2.9, pace: .onPace,
                           phaseDistance: 40, distance: 312.4, neededSpeed: nil, gpsLost: false, paused: false, finished: false),
        gps: .fix, positioning: true, activityID: 7, points: 75, waypoints: 0, lastCue: nil, battery: nil, route: nil)

    func send(_ command: ControlCommand) async -> String {
        sent.withLock { $0.append(command) }
        return "ok: \(command)"
    }

    func store() throws -> PacerStore { try Configurator.openActivityStore(directory: folder, access: .write) }
}

/// A clock the test moves.
final class TestClock: Sendable {
    let now = Mutex<Double>(1000)
    var read: CompanionClock { { self.now.withLock { $0 } } }
    func advance(_ seconds: Double) { now.withLock { $0 += seconds } }
}

/// A section for the server's own tests: a page that changes nothing, one that changes, an
/// upload that echoes what it got.
struct ProbeSection: CompanionSection {
    var menu: (label: String, path: String)? { ("Probe", "/probe") }
    var routes: [PageRoute] {
        [
            PageRoute(.get, "/probe") { _ in .page(title: "Probe", body: "<p id=\"probe\">probe page</p>") },
            PageRoute(.post, "/probe/change") { request in .redirect(to: "/probe", notice: "changed \(request.form["what"] ?? "")") },
            PageRoute(.post, "/probe/upload") { request in
                let upload = request.uploads["file"]
                let answer: JSONObject = [
                    ("name", .text(upload?.filename ?? "")), ("bytes", .int(upload?.bytes.count ?? -1)),
                    ("sum", .int(upload?.bytes.reduce(0) { $0 &+ Int($1) } ?? -1)), ("note", .text(request.form["note"] ?? "")),
                ]
                return .json(answer.compact)
            },
            // An upload handled for a second and a half, without holding a thread.
            PageRoute(.post, "/probe/hold") { request in
                try? await Task.sleep(for: .milliseconds(1500))
                return .json((["bytes": .int(request.uploads["file"]?.bytes.count ?? -1)] as JSONObject).compact)
            },
            PageRoute(.get, "/probe/item/:id") { request in .json((["id": .text(request.parameters["id"] ?? "")] as JSONObject).compact) },
            PageRoute(.get, "/probe/file") { _ in .download(filename: "run 1.gpx", contentType: "application/gpx+xml", bytes: Array("<gpx/>".utf8)) },
        ]
    }
}

struct Fixture {
    static let password = "correct horse battery"

    let folder: TemporaryDirectory
    let device: TestDevice
    let clock: TestClock
    let server: CompanionServer
    let port: Int

    /// A server on a free loopback port, with `password` set (nil: none).
    static func started(password: String? = Fixture.password, duringWorkout: Bool = false,
                        limits: CompanionConnectionLimits? = nil, name: String = #function) async throws -> Fixture {
        let folder = TemporaryDirectory(name)
        let device = TestDevice(folder: folder.path)
        let clock = TestClock()
        let secret = CompanionPassword(dataDirectory: folder.path)
        if let password { try secret.set(password) }
        let server = CompanionServer(
            settings: CompanionSettings(listen: ("127.0.0.1", 0), duringWorkout: duringWorkout),
            sections: [StateSection(device: device), ProbeSection()], device: device, password: secret,
            logger: Logger(label: "companion-test", factory: { _ in SwiftLogNoOpLogHandler() }), clock: clock.read, version: "9.9.9",
            limits: limits)
        try await server.start()
        let port = try require_port(server.port)
        return Fixture(folder: folder, device: device, clock: clock, server: server, port: port)
    }

    func get(_ target: String, cookie: String? = nil, headers: [(String, String)] = []) async throws -> RawHTTPResponse {
        try await RawHTTP.send(port: port, "GET", target, headers: (cookie.map { [("Cookie", "pacer_session=\($0)")] } ?? []) + headers)
    }

    func post(_ target: String, cookie: String? = nil, form: String, headers: [(String, String)] = []) async throws -> RawHTTPResponse {
        try await RawHTTP.send(
            port: port, "POST", target,
            headers: [("Content-Type", "application/x-www-form-urlencoded")] + (cookie.map { [("Cookie", "pacer_session=\($0)")] } ?? []) + headers,
            body: Array(form.utf8))
    }

    /// Logs in: the session cookie and its CSRF token (read from the state page's forms).
    func login() async throws -> (cookie: String, csrf: String) {
        let answer = try await post("/login", form: "password=" + Fixture.password.replacingOccurrences(of: " ", with: "+"))
        guard answer.status == 303, let setCookie = answer.header("set-cookie"),
              let value = setCookie.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last else {
            throw FixtureError(description: "login: \(answer.status) \(answer.text)")
        }
        let cookie = String(value)
        let page = try await get("/", cookie: cookie)
        guard let csrf = Self.csrf(in: page.text) else { throw FixtureError(description: "no csrf in \(page.text)") }
        return (cookie, csrf)
    }

    static func csrf(in html: String) -> String? {
        guard let range = html.range(of: "name=\"csrf\" value=\"") else { return nil }
        return String(html[range.upperBound...].prefix(64))
    }
}

struct FixtureError: Error, CustomStringConvertible { var description: String }

func require_port(_ port: Int?) throws -> Int {
    guard let port, port > 0 else { throw FixtureError(description: "the server has no port") }
    return port
}
