import Foundation
import PacerCore
import HAL
import Logging

/// One HTTP request as the companion reads it: the server hands it over with the body
/// already bounded (`CompanionCore.bodyLimit`); the fuzz target makes them from raw bytes.
public struct CompanionHTTPRequest: Sendable {
    public var method: String
    /// The request line's target: the path and, after `?`, the query, as sent.
    public var target: String
    /// Header names lowercased; repeated ones joined (`, `, cookies with `; `).
    public var headers: [String: String]
    public var body: [UInt8]
    /// The client's address, for the login limits.
    public var remoteAddress: String

    public init(method: String, target: String, headers: [String: String] = [:], body: [UInt8] = [],
                remoteAddress: String = "unknown") {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }
}

public struct CompanionHTTPResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}

/// The companion's whole answer to a request, without a socket: the login, the sessions, the
/// CSRF and Origin checks, the body limits, the form decoding, the routes, the layout and
/// the security headers. `CompanionServer` puts it behind Hummingbird; the fuzz target and
/// tests call it directly.
public final class CompanionCore: Sendable {
    /// The largest body taken with `multipart/form-data` (a GPX, FIT or plan file).
    public static let uploadLimit = 8 << 20
    /// The largest body of any other request (a form).
    public static let formLimit = 256 << 10
    public static let cookieName = "pacer_session"

    public let sessions: CompanionSessions
    public let limiter: LoginLimiter
    let password: CompanionPassword
    let device: any CompanionDevice
    let sections: [any CompanionSection]
    let table: RouteTable
    let logger: Logger
    let version: String

    public init(sections: [any CompanionSection], device: any CompanionDevice, password: CompanionPassword,
                logger: Logger, clock: @escaping CompanionClock, version: String = "unknown") {
        self.sections = sections
        self.table = RouteTable(sections.flatMap(\.routes))
        self.device = device
        self.password = password
        self.logger = logger
        self.version = version
        self.sessions = CompanionSessions(clock: clock)
        self.limiter = LoginLimiter(clock: clock)
    }

    /// The largest body of a login (a password is at most 256 bytes).
    public static let loginLimit = 4096

    /// Whether a `Cookie` header holds a live session (the server reads a body only then,
    /// so that no one without the password makes the board hold megabytes).
    public func isLoggedIn(cookieHeader: String?) -> Bool {
        guard let id = FormDecoding.cookies(cookieHeader ?? "")[Self.cookieName], CompanionSessions.isWellFormed(id) else {
            return false
        }
        return sessions.use(id) != nil
    }

    /// The largest body a request with this Content-Type may have.
    public static func bodyLimit(contentType: String?) -> Int {
        contentType.map(FormDecoding.mediaType) == "multipart/form-data" ? uploadLimit : formLimit
    }

    public func respond(_ request: CompanionHTTPRequest) async -> CompanionHTTPResponse {
        var response = await answer(request)
        Self.secure(&response)
        return response
    }

    /// The headers every answer carries.
    static func secure(_ response: inout CompanionHTTPResponse) {
        func set(_ name: String, _ value: String) {
            if response.header(name) == nil { response.headers.append((name, value)) }
        }
        set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'")
        set("X-Frame-Options", "DENY")
        set("X-Content-Type-Options", "nosniff")
        set("Referrer-Policy", "same-origin")
        set("Cache-Control", "no-store")
    }

    // MARK: The steps

    private func answer(_ request: CompanionHTTPRequest) async -> CompanionHTTPResponse {
        let (path, queryText) = Self.split(request.target)
        guard path.hasPrefix("/") else { return plain(400, "bad request: the path must start with /") }
        guard request.method == "GET" || request.method == "POST" else {
            return plain(405, "method \(request.method.prefix(16)) not allowed (GET or POST)", extra: [("Allow", "GET, POST")])
        }
        guard request.body.count <= Self.bodyLimit(contentType: request.headers["content-type"]) else {
            return plain(413, "request body too large (at most \(Self.bodyLimit(contentType: request.headers["content-type"])) bytes)")
        }
        if path == "/health" {
            guard request.method == "GET" else { return plain(405, "GET only", extra: [("Allow", "GET")]) }
            return json(200, health())
        }
        if path.hasPrefix("/static/") {
            guard request.method == "GET", let asset = CompanionAssets.files[String(path.dropFirst("/static/".count))] else {
                return plain(404, "not found")
            }
            return CompanionHTTPResponse(status: 200, headers: [("Content-Type", asset.contentType)], body: Array(asset.body.utf8))
        }
        let hash: String?
        do {
            hash = try password.storedHash()
        } catch {
            logger.error("companion: \(error)")
            hash = nil
        }
        guard hash != nil else { return noPassword() }

        let cookie = FormDecoding.cookies(request.headers["cookie"] ?? "")[Self.cookieName]
        let session = cookie.flatMap { CompanionSessions.isWellFormed($0) ? sessions.use($0) : nil }

        if path == "/login" {
            if request.method == "GET" {
                if session != nil { return redirect("/") }
                return loginPage(status: 200, message: nil)
            }
            return await login(request)
        }
        guard let session else {
            if path.hasPrefix("/api/") { return json(401, "{\"error\":\"login needed\"}") }
            // A page asked for without a login goes to the login page, as a browser expects
            // (a 401 page is an error in its console); a change without one is refused.
            if request.method == "GET" { return redirect("/login") }
            return loginPage(status: 401, message: nil)
        }

        var form: [String: String] = [:]
        var uploads: [String: Upload] = [:]
        if request.method == "POST" {
            if let refusal = originRefusal(request) { return refusal }
            do {
                (form, uploads) = try Self.decodeBody(request)
            } catch {
                return refused(400, error.description, session: session)
            }
            let token = form["csrf"] ?? request.headers["x-csrf-token"]
            guard let token, FormDecoding.constantTimeEqual(token, session.csrf) else {
                return refused(403, "refused: the form's CSRF token is missing or not this session's (reload the page)", session: session)
            }
            if path == "/logout" {
                sessions.close(session.id)
                return redirect("/login", extra: [("Set-Cookie", "\(Self.cookieName)=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict")])
            }
        }
        let query: [String: String]
        do {
            query = try FormDecoding.urlEncoded(Substring(queryText), what: "query")
        } catch {
            return refused(400, error.description, session: session)
        }
        switch table.match(method: request.method, path: path) {
        case .none:
            return refused(404, "nothing here: \(path.prefix(200))", session: session)
        case .wrongMethod:
            return refused(405, "\(request.method) is not how \(path.prefix(200)) is used", session: session)
        case .found(let route, let parameters):
            // While a workout runs nothing changes but what the button could do; reading a
            // page changes nothing, and is answered.
            if route.method == .post, !route.allowedDuringWorkout, device.workoutRunning {
                return refused(409, "a workout is running: this waits until it ends (only what the button does works now)",
                               session: session)
            }
            let page = PageRequest(
                method: route.method, path: path, parameters: parameters, query: query, form: form, uploads: uploads,
                csrfToken: session.csrf)
            let answer: PageResponse
            do {
                answer = try await route.handler(page)
            } catch {
                logger.error("companion: \(request.method) \(path): \(error)")
                return refused(500, "error: \(error)", session: session)
            }
            return render(answer, session: session)
        }
    }

    private func render(_ answer: PageResponse, session: CompanionSessions.Session) -> CompanionHTTPResponse {
        switch answer {
        case .page(let title, let body):
            let notice = sessions.takeNotice(for: session.id)
            return html(200, layout(title: title, body: body, notice: notice, refused: nil, session: session))
        case .document(let text):
            // A report: self-contained, its style inline, no script.
            return CompanionHTTPResponse(
                status: 200,
                headers: [("Content-Type", "text/html; charset=utf-8"),
                          ("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'")],
                body: Array(text.utf8))
        case .json(let text):
            return json(200, text)
        case .download(let filename, let contentType, let bytes):
            let safe = String(filename.unicodeScalars.map { scalar -> Character in
                scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "._-".unicodeScalars.contains(scalar))
                    ? Character(scalar) : "_"
            })
            return CompanionHTTPResponse(
                status: 200,
                headers: [("Content-Type", contentType), ("Content-Disposition", "attachment; filename=\"\(safe.isEmpty ? "download" : safe)\"")],
                body: bytes)
        case .redirect(let path, let notice):
            guard path.hasPrefix("/"), !path.hasPrefix("//"), !path.contains("\\"), !path.contains("\r"), !path.contains("\n") else {
                logger.error("companion: a page redirected outside the companion: \(path)")
                return refused(500, "error: a redirect outside the page", session: session)
            }
            sessions.setNotice(notice, for: session.id)
            return redirect(path)
        case .refused(let status, let message):
            return refused((400...599).contains(status) ? status : 400, message, session: session)
        }
    }

    // MARK: Login

    private func login(_ request: CompanionHTTPRequest) async -> CompanionHTTPResponse {
        if let refusal = originRefusal(request) { return refusal }
        let address = request.remoteAddress
        if let wait = limiter.wait(for: address) {
            let seconds = Int(wait.rounded(.up))
            logger.warning("companion: login refused from \(address): too many failures, \(seconds) s to wait")
            var page = loginPage(status: 429, message: "Too many wrong passwords: try again in \(seconds) s.")
            page.headers.append(("Retry-After", "\(seconds)"))
            return page
        }
        let form: [String: String]
        do {
            form = try FormDecoding.urlEncoded(request.body)
        } catch {
            return loginPage(status: 400, message: error.description)
        }
        guard let given = form["password"], password.verify(given) else {
            limiter.failed(from: address)
            logger.warning("companion: wrong password from \(address)")
            return loginPage(status: 401, message: "Wrong password.")
        }
        limiter.succeeded(from: address)
        let session = sessions.open()
        logger.notice("companion: logged in from \(address)")
        return redirect("/", extra: [("Set-Cookie", "\(Self.cookieName)=\(session.id); Path=/; HttpOnly; SameSite=Strict")])
    }

    /// A POST whose Origin is not this page's own (another site's form or script).
    private func originRefusal(_ request: CompanionHTTPRequest) -> CompanionHTTPResponse? {
        guard let origin = request.headers["origin"] else { return nil }
        let host = request.headers["host"] ?? ""
        let stripped = origin.hasPrefix("http://") ? String(origin.dropFirst(7)) : origin.hasPrefix("https://") ? String(origin.dropFirst(8)) : origin
        guard !host.isEmpty, stripped.lowercased() == host.lowercased() else {
            return plain(403, "refused: the request comes from another site (Origin \(origin.prefix(100)))")
        }
        return nil
    }

    static func decodeBody(_ request: CompanionHTTPRequest) throws(FormDecoding.Failure) -> ([String: String], [String: Upload]) {
        guard !request.body.isEmpty else { return ([:], [:]) }
        let type = request.headers["content-type"] ?? ""
        switch FormDecoding.mediaType(type) {
        case "application/x-www-form-urlencoded":
            return (try FormDecoding.urlEncoded(request.body), [:])
        case "multipart/form-data":
            guard let boundary = FormDecoding.parameter("boundary", of: type) else {
                throw FormDecoding.Failure("multipart: the Content-Type has no boundary")
            }
            return try FormDecoding.multipart(request.body, boundary: boundary)
        default:
            throw FormDecoding.Failure("the body's Content-Type '\(type.prefix(80))' is not a form (application/x-www-form-urlencoded or multipart/form-data)")
        }
    }

    static func split(_ target: String) -> (path: String, query: String) {
        guard let mark = target.firstIndex(of: "?") else { return (target, "") }
        return (String(target[..<mark]), String(target[target.index(after: mark)...]))
    }

    // MARK: Pages

    /// `{"ok":true,"state":"ready","version":"0.1.0"}`: nothing private (no plan, no place).
    func health() -> String {
        var state = "unknown"
        if let data = device.statusJSON().data(using: .utf8),
           let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
            if let s = object["state"] as? String {
                state = s
            } else if let status = object["status"] as? [String: Any], let s = status["state"] as? String {
                state = s
            }
        }
        if device.workoutRunning { state = "running" }
        return "{\"ok\":true,\"state\":\(JSONText.quote(state)),\"version\":\(JSONText.quote(version))}"
    }

    private func noPassword() -> CompanionHTTPResponse {
        html(503, layout(title: "Set a password first", body: """
            <p id="no-password">The companion page has no password yet, so it shows nothing. On the board, \
            set one with</p>
            <pre>sudo -u pacer pacer companion password --generate</pre>
            <p>(it prints a new random one) or type your own with \
            <code>sudo -u pacer pacer companion password</code>, then reload this page.</p>
            """, notice: nil, refused: nil, session: nil))
    }

    private func loginPage(status: Int, message: String?) -> CompanionHTTPResponse {
        let body = """
            <form method="post" action="/login" id="login">
            <label for="password">Password</label>
            <input type="password" id="password" name="password" autocomplete="current-password" required autofocus/>
            <button type="submit">Log in</button>
            </form>
            """
        return html(status, layout(title: "Log in", body: body, notice: nil, refused: message, session: nil))
    }

    private func refused(_ status: Int, _ message: String, session: CompanionSessions.Session?) -> CompanionHTTPResponse {
        html(status, layout(title: Self.reason(status), body: "", notice: nil, refused: message, session: session))
    }

    func layout(title: String, body: String, notice: String?, refused: String?, session: CompanionSessions.Session?) -> String {
        var menu = ""
        if let session {
            menu = "<nav id=\"menu\">"
                + sections.compactMap(\.menu).map { CompanionHTML.link($0.path, $0.label) }.joined(separator: " ")
                + "</nav>"
                + CompanionHTML.form(action: "/logout", csrf: session.csrf, button: "Log out", id: "logout")
        }
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"/>\
            <meta name="viewport" content="width=device-width, initial-scale=1"/>\
            <title>\(CompanionHTML.escape(title)) · Pacer</title>\
            <link rel="stylesheet" href="/static/companion.css"/>\
            <link rel="icon" type="image/svg+xml" href="/static/icon.svg"/>\
            <script src="/static/companion.js" defer></script></head>
            <body><header><strong>Pacer</strong>\(menu)</header>
            <main><h1>\(CompanionHTML.escape(title))</h1>
            \(notice.map { "<p class=\"notice\" id=\"notice\">\(CompanionHTML.escape($0))</p>" } ?? "")\
            \(refused.map { "<p class=\"refused\" id=\"refused\">\(CompanionHTML.escape($0))</p>" } ?? "")\
            \(body)
            </main></body></html>

            """
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 400: "Bad request"
        case 401: "Log in"
        case 403: "Refused"
        case 404: "Not found"
        case 405: "Method not allowed"
        case 409: "Not during a workout"
        case 413: "Too large"
        case 429: "Too many tries"
        default: status >= 500 ? "Error" : "Refused"
        }
    }

    // MARK: Answers

    private func html(_ status: Int, _ text: String) -> CompanionHTTPResponse {
        CompanionHTTPResponse(status: status, headers: [("Content-Type", "text/html; charset=utf-8")], body: Array(text.utf8))
    }

    private func json(_ status: Int, _ text: String) -> CompanionHTTPResponse {
        CompanionHTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: Array(text.utf8))
    }

    private func plain(_ status: Int, _ text: String, extra: [(String, String)] = []) -> CompanionHTTPResponse {
        CompanionHTTPResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")] + extra,
                              body: Array((text + "\n").utf8))
    }

    private func redirect(_ path: String, extra: [(String, String)] = []) -> CompanionHTTPResponse {
        CompanionHTTPResponse(status: 303, headers: [("Location", path)] + extra)
    }
}

/// JSON string literals, written as the rest of Pacer writes JSON (`JSONValue`).
enum JSONText {
    static func quote(_ text: String) -> String { JSONValue.text(text).compact }
}

extension FormDecoding {
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        CompanionPassword.constantTimeEqual(Array(a.utf8), Array(b.utf8))
    }
}
