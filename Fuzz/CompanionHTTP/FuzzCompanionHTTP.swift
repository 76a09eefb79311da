// libFuzzer target: the companion page's request handling (`scripts/fuzz.sh http`): the
// request as bytes, split into its request line, headers and body as HTTP/1.1 frames them,
// then answered by `CompanionCore` (the whole of it: cookies, the login and its limits,
// CSRF and Origin, form and multipart decoding, the router and its middleware, and the pages
// of the state section), as the server hands it over after NIO's parser.
import Companion
import Configurator
import Dispatch
import Foundation
import HAL
import Logging
import Runtime
import Storage

/// A device that is always ready and answers every command.
final class FuzzDevice: CompanionDevice {
    func snapshot() -> DeviceSnapshot { DeviceSnapshot(state: .ready, line: "ready  gps fix") }
    func send(_ command: ControlCommand) async -> String { "ok" }
    func store() throws -> PacerStore { throw StorageError.database("no store in the fuzz target") }
}

/// One core for every input, with a password set (a cheap hash: `fuzz-password`) and one
/// session open (`session`): `@S` in an input stands for its id, `@C` for its CSRF token.
let fixture: (core: CompanionCore, session: String, csrf: String) = {
    let folder = NSTemporaryDirectory() + "pacer-fuzz-http-\(getpid())"
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let password = CompanionPassword(dataDirectory: folder)
    guard let hash = CompanionPassword.hash("fuzz-password", setting: "$5$rounds=1000$fuzzsalt") else {
        fatalError("crypt knows no sha256crypt")
    }
    do { try password.store(hash: hash) } catch { fatalError("\(error)") }
    let device = FuzzDevice()
    let core = CompanionCore(
        sections: [StateSection(device: device)], device: device, password: password,
        logger: Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() }), clock: { 0 }, version: "fuzz")
    let session = core.sessions.open()
    return (core, session.id, session.csrf)
}()

/// The session the inputs use: opened again when an input logged it out.
nonisolated(unsafe) var session = (id: fixture.session, csrf: fixture.csrf)

func replacing(_ bytes: [UInt8], _ marker: String, with value: String) -> [UInt8] {
    let needle = Array(marker.utf8)
    var out: [UInt8] = []
    var i = 0
    while i < bytes.count {
        if i + needle.count <= bytes.count, Array(bytes[i..<(i + needle.count)]) == needle {
            out += Array(value.utf8)
            i += needle.count
        } else {
            out.append(bytes[i])
            i += 1
        }
    }
    return out
}

/// The request in `bytes`, or nil when NIO's parser would refuse it (no request line, a
/// header line without a colon, headers that are not UTF-8).
func request(_ bytes: [UInt8]) -> CompanionHTTPRequest? {
    let separator: [UInt8] = [13, 10, 13, 10]
    var end = bytes.count
    var bodyStart = bytes.count
    if bytes.count >= 4 {
        for i in 0...(bytes.count - 4) where Array(bytes[i..<(i + 4)]) == separator {
            end = i
            bodyStart = i + 4
            break
        }
    }
    guard let head = String(validating: bytes[0..<end], as: UTF8.self) else { return nil }
    var lines = head.components(separatedBy: "\r\n")
    let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: false)
    guard requestLine.count == 3, !requestLine[0].isEmpty, !requestLine[1].isEmpty else { return nil }
    var headers: [String: String] = [:]
    for line in lines where !line.isEmpty {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let name = line[..<colon].lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        headers[name] = headers[name].map { $0 + (name == "cookie" ? "; " : ", ") + value } ?? value
    }
    return CompanionHTTPRequest(method: String(requestLine[0]), target: String(requestLine[1]), headers: headers,
                                body: Array(bytes[bodyStart...]), remoteAddress: "192.0.2.1")
}

final class Box: @unchecked Sendable { var response: CompanionHTTPResponse? }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCompanionHTTP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let raw = Array(UnsafeBufferPointer(start: data, count: size))
    let loggedIn = raw.count >= 2 && (0..<(raw.count - 1)).contains { raw[$0] == UInt8(ascii: "@") && raw[$0 + 1] == UInt8(ascii: "S") }
    if fixture.core.sessions.use(session.id) == nil {
        let opened = fixture.core.sessions.open()
        session = (opened.id, opened.csrf)
    }
    let bytes = replacing(replacing(raw, "@S", with: session.id), "@C", with: session.csrf)
    guard let request = request(bytes) else { return 0 }
    // The server never hands over more than the limit.
    guard request.body.count <= CompanionCore.bodyLimit(contentType: request.headers["content-type"]) else { return 0 }
    let box = Box()
    let done = DispatchSemaphore(value: 0)
    let core = fixture.core
    Task {
        box.response = await core.respond(request)
        done.signal()
    }
    done.wait()
    guard let response = box.response else { fatalError("no response") }
    guard (200...599).contains(response.status) else { fatalError("status \(response.status) for \(request.target)") }
    for header in ["Content-Security-Policy", "X-Frame-Options", "X-Content-Type-Options", "Cache-Control"] {
        guard response.header(header) != nil else { fatalError("no \(header) on \(response.status) for \(request.target)") }
    }
    let path = String(request.target.prefix { $0 != "?" })
    // Without the session's cookie nothing answers 200 but the public answers: the health
    // line, a compiled-in file, the login page. Judged by the answer, not the target: the
    // router routes `/health/` and `https:///health` as `/health`.
    let text = String(decoding: response.body, as: UTF8.self)
    let type = response.header("Content-Type") ?? ""
    let publicAnswer = text.hasPrefix("{\"ok\":true,")
        || ["text/css", "text/javascript", "image/svg+xml"].contains { type.hasPrefix($0) }
        || text.contains("<form method=\"post\" action=\"/login\" id=\"login\">")
    if !loggedIn, !publicAnswer, response.status == 200 {
        fatalError("\(request.method) \(request.target.debugDescription) answered 200 without a login")
    }
    // Nothing but the compiled-in files under /static/.
    if path.hasPrefix("/static/"), response.status == 200, !["/static/companion.js", "/static/companion.css", "/static/icon.svg"].contains(path) {
        fatalError("\(path) served")
    }
    // A change without the token is never done: the device answers "ok" only to a command.
    // A redirect to the login page (no session) changes nothing either, nor does the login
    // limit's 429 (the inputs before this one come from the same address).
    let toLogin = response.status == 303 && response.header("Location")?.hasPrefix("/login") == true
    if request.method == "POST", path != "/login", !toLogin, response.status != 403, response.status != 401, response.status != 400,
       response.status != 404, response.status != 405, response.status != 413, response.status != 429, response.status != 503,
       !(request.headers["x-csrf-token"] == session.csrf || bytes.contains(subsequence: Array(session.csrf.utf8))) {
        fatalError("POST \(request.target.debugDescription) answered \(response.status) without the CSRF token")
    }
    return 0
}

extension Array where Element == UInt8 {
    func contains(subsequence: [UInt8]) -> Bool {
        guard !subsequence.isEmpty, count >= subsequence.count else { return false }
        return (0...(count - subsequence.count)).contains { Array(self[$0..<($0 + subsequence.count)]) == subsequence }
    }
}
