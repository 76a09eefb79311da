import Hummingbird
import Logging

/// The answers the companion writes: its layout (the menu of the sections, the notice a
/// redirect left, a refusal's message), the login and no-password pages, a section's
/// `PageResponse` as an HTTP response, and the plain, JSON and redirect answers the
/// middleware refuses with.
struct CompanionPages: Sendable {
    let menu: [(label: String, path: String)]
    let sessions: CompanionSessions
    let logger: Logger

    // MARK: A page's answer

    func render(_ answer: PageResponse, session: CompanionSessions.Session) -> Response {
        switch answer {
        case .page(let title, let body):
            let notice = sessions.takeNotice(for: session.id)
            return html(200, layout(title: title, body: body, notice: notice, refused: nil, session: session))
        case .document(let text):
            // A report: self-contained, its style inline, no script.
            return Self.response(200, [
                ("Content-Type", "text/html; charset=utf-8"),
                ("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'"),
            ], Array(text.utf8))
        case .json(let text):
            return json(200, text)
        case .download(let filename, let contentType, let bytes):
            let safe = String(filename.unicodeScalars.map { scalar -> Character in
                scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "._-".unicodeScalars.contains(scalar))
                    ? Character(scalar) : "_"
            })
            return Self.response(200, [
                ("Content-Type", contentType),
                ("Content-Disposition", "attachment; filename=\"\(safe.isEmpty ? "download" : safe)\""),
            ], bytes)
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

    // MARK: Pages

    func noPassword() -> Response {
        html(503, layout(title: "Set a password first", body: """
            <p id="no-password">The companion page has no password yet, so it shows nothing. On the board, \
            set one with</p>
            <pre>sudo -u pacer pacer companion password --generate</pre>
            <p>(it prints a new random one) or type your own with \
            <code>sudo -u pacer pacer companion password</code>, then reload this page.</p>
            """, notice: nil, refused: nil, session: nil))
    }

    func loginPage(status: Int, message: String?) -> Response {
        let body = """
            <form method="post" action="/login" id="login">
            <label for="password">Password</label>
            <input type="password" id="password" name="password" autocomplete="current-password" required autofocus/>
            <button type="submit">Log in</button>
            </form>
            """
        return html(status, layout(title: "Log in", body: body, notice: nil, refused: message, session: nil))
    }

    /// The layout with `message` and the status's reason as its title.
    func refused(_ status: Int, _ message: String, session: CompanionSessions.Session?) -> Response {
        html(status, layout(title: Self.reason(status), body: "", notice: nil, refused: message, session: session))
    }

    func layout(title: String, body: String, notice: String?, refused: String?, session: CompanionSessions.Session?) -> String {
        var menu = ""
        if let session {
            menu = "<nav id=\"menu\">"
                + self.menu.map { CompanionHTML.link($0.path, $0.label) }.joined(separator: " ")
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

    func html(_ status: Int, _ text: String) -> Response {
        Self.response(status, [("Content-Type", "text/html; charset=utf-8")], Array(text.utf8))
    }

    func json(_ status: Int, _ text: String) -> Response {
        Self.response(status, [("Content-Type", "application/json")], Array(text.utf8))
    }

    static func plain(_ status: Int, _ text: String, extra: [(String, String)] = []) -> Response {
        response(status, [("Content-Type", "text/plain; charset=utf-8")] + extra, Array((text + "\n").utf8))
    }

    static func redirect(_ path: String, extra: [(String, String)] = []) -> Response {
        response(303, [("Location", path)] + extra, [])
    }

    func redirect(_ path: String) -> Response { Self.redirect(path) }

    static func response(_ status: Int, _ headers: [(String, String)], _ body: [UInt8]) -> Response {
        var fields = HTTPFields()
        for (name, value) in headers {
            if let name = HTTPFields.Element.Name(name) { fields.append(HTTPFields.Element(name: name, value: value)) }
        }
        return Response(status: .init(code: status), headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
