import Hummingbird
import Logging
import PacerCore

/// One HTTP request as the fuzz target makes them from raw bytes, answered by
/// `CompanionCore.respond` without a socket.
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

    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}

/// The companion's whole answer to a request: Hummingbird's router with the sections' routes,
/// behind the middleware that does the rest, outermost first: the security headers, the log,
/// GET and POST only; then the public `/health` and `/static/…`; then the password, the
/// session, the body's limit; then `/login` (with the Origin check and the login's limits);
/// then the login needed, the Origin check, the form's decoding, the CSRF token, the error
/// pages and the path's parameters; then `/logout` and the sections (whose changes wait
/// while a workout runs, but for what the button does). `CompanionServer` serves it.
public final class CompanionCore: Sendable {
    public static let uploadLimit = BodyLimitMiddleware.uploadLimit
    public static let formLimit = BodyLimitMiddleware.formLimit
    public static let loginLimit = BodyLimitMiddleware.loginLimit
    public static let cookieName = SessionMiddleware.cookieName

    /// The largest body a request with this Content-Type may have (with a session).
    public static func bodyLimit(contentType: String?) -> Int { BodyLimitMiddleware.limit(contentType: contentType) }

    public let sessions: CompanionSessions
    public let limiter: LoginLimiter
    let password: CompanionPassword
    let device: any CompanionDevice
    let pages: CompanionPages
    let logger: Logger
    let version: String
    let responder: RouterResponder<CompanionContext>

    public init(sections: [any CompanionSection], device: any CompanionDevice, password: CompanionPassword,
                logger: Logger, clock: @escaping CompanionClock, version: String = "unknown") {
        let sessions = CompanionSessions(clock: clock)
        let pages = CompanionPages(menu: sections.compactMap(\.menu), sessions: sessions, logger: logger)
        self.sessions = sessions
        self.limiter = LoginLimiter(clock: clock)
        self.device = device
        self.password = password
        self.pages = pages
        self.logger = logger
        self.version = version
        let router = Router(context: CompanionContext.self)
        router.add(middleware: SecurityHeadersMiddleware())
        router.add(middleware: RequestLogMiddleware(logger: logger))
        router.add(middleware: AllowedMethodsMiddleware())
        router.add(middleware: HostRequiredMiddleware())
        Self.addPublicRoutes(to: router, device: device, version: version)
        router.add(middleware: PasswordMiddleware(password: password, pages: pages))
        router.add(middleware: SessionMiddleware(sessions: sessions))
        router.add(middleware: BodyLimitMiddleware())
        Self.addLogin(to: router, password: password, limiter: limiter, pages: pages)
        router.add(middleware: LoginRequiredMiddleware(pages: pages))
        router.add(middleware: OriginMiddleware())
        router.add(middleware: FormBodyMiddleware(pages: pages))
        router.add(middleware: CSRFMiddleware(pages: pages))
        router.add(middleware: ErrorPageMiddleware(pages: pages))
        router.add(middleware: PathParameterMiddleware())
        router.post("/logout") { _, context in
            if let session = context.session { sessions.close(session.id) }
            return CompanionPages.redirect("/login", extra: [("Set-Cookie", "\(Self.cookieName)=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict")])
        }
        let guarded = WorkoutGuardMiddleware(device: device, pages: pages)
        for section in sections {
            Self.add(section, to: router.group(), guarded: guarded, pages: pages)
        }
        responder = router.buildResponder()
    }

    // MARK: Routes

    /// `/health` and the compiled-in files: answered with no login (the login page needs them).
    static func addPublicRoutes(to router: Router<CompanionContext>, device: any CompanionDevice, version: String) {
        // `{"ok":true,"state":"ready","version":"0.1.0"}`: nothing private (no plan, no place).
        router.get("/health") { _, _ in
            let health: JSONObject = [("ok", .bool(true)), ("state", .text(device.snapshot().state.rawValue)), ("version", .text(version))]
            return CompanionPages.response(200, [("Content-Type", "application/json")], Array(health.compact.utf8))
        }
        router.post("/health") { _, _ in CompanionPages.plain(405, "GET only", extra: [("Allow", "GET")]) }
        // Looked up by exact name: no folder is served, so no path reaches outside them.
        for path in ["/static", "/static/**"] {
            router.get(RouterPath(path)) { request, _ in
                guard let asset = CompanionAssets.files[String(request.uri.path.dropFirst("/static/".count))] else {
                    return CompanionPages.plain(404, "not found")
                }
                return CompanionPages.response(200, [("Content-Type", asset.contentType)], Array(asset.body.utf8))
            }
            router.post(RouterPath(path)) { _, _ in CompanionPages.plain(404, "not found") }
        }
    }

    static func addLogin(to router: Router<CompanionContext>, password: CompanionPassword, limiter: LoginLimiter,
                         pages: CompanionPages) {
        let login = router.group("/login")
            .add(middleware: OriginMiddleware())
            .add(middleware: LoginRateLimitMiddleware(limiter: limiter, pages: pages))
        login.get { _, context in
            context.session != nil ? pages.redirect("/") : pages.loginPage(status: 200, message: nil)
        }
        login.post { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: BodyLimitMiddleware.uploadLimit)
            let form: [String: String]
            do {
                form = try BodyDecoding.urlEncoded(Array(body.readableBytesView))
            } catch {
                return pages.loginPage(status: 400, message: "\(error)")
            }
            guard let given = form["password"], password.verify(given) else {
                return pages.loginPage(status: 401, message: "Wrong password.")
            }
            let session = pages.sessions.open()
            return CompanionPages.redirect("/", extra: [("Set-Cookie", "\(Self.cookieName)=\(session.id); Path=/; HttpOnly; SameSite=Strict")])
        }
    }

    /// A section's routes in a group of their own: those a runner may use during a workout
    /// as they are, the others behind `WorkoutGuardMiddleware`. A path known with the other
    /// method only is refused with 405.
    static func add(_ section: any CompanionSection, to group: RouterGroup<CompanionContext>,
                    guarded guardMiddleware: WorkoutGuardMiddleware, pages: CompanionPages) {
        let guarded = group.group().add(middleware: guardMiddleware)
        var methods: [String: Set<PageRequest.Method>] = [:]
        for route in section.routes {
            methods[route.pattern, default: []].insert(route.method)
            (route.allowedDuringWorkout ? group : guarded).on(RouterPath(route.pattern), method: route.method.http) { request, context in
                guard let session = context.session else { return pages.loginPage(status: 401, message: nil) }
                let page = PageRequest(
                    method: route.method, path: request.uri.path,
                    parameters: Dictionary(context.parameters.map { (String($0.key), String($0.value)) }, uniquingKeysWith: { a, _ in a }),
                    form: context.form, uploads: context.uploads, csrfToken: session.csrf)
                let answer: PageResponse
                do {
                    answer = try await route.handler(page)
                } catch {
                    throw ErrorPageMiddleware.PageFailure(error: error)
                }
                return pages.render(answer, session: session)
            }
        }
        for (pattern, known) in methods {
            for method in [PageRequest.Method.get, .post] where !known.contains(method) {
                group.on(RouterPath(pattern), method: method.http) { request, context in
                    pages.refused(405, "\(method.rawValue) is not how \(request.uri.path.prefix(200)) is used", session: context.session)
                }
            }
        }
    }

    // MARK: Without a socket

    /// The answer to `request` as the server would give it (the body already read), for the
    /// fuzz target.
    public func respond(_ request: CompanionHTTPRequest) async -> CompanionHTTPResponse {
        var fields = HTTPFields()
        for (name, value) in request.headers where name != "host" {
            if let name = HTTPFields.Element.Name(name) { fields.append(HTTPFields.Element(name: name, value: value)) }
        }
        var response: Response
        if let method = HTTPRequest.Method(request.method) {
            let head = HTTPRequest(method: method, scheme: nil, authority: request.headers["host"], path: request.target,
                                   headerFields: fields)
            let context = CompanionContext(remoteAddress: request.remoteAddress, logger: logger)
            do {
                response = try await responder.respond(to: Request(head: head, body: .init(buffer: ByteBuffer(bytes: request.body))),
                                                       context: context)
            } catch {
                response = pages.refused(500, "error: \(error)", session: nil)
            }
        } else {
            response = CompanionPages.plain(400, "bad request: the method is not a token")
        }
        SecurityHeadersMiddleware.secure(&response)
        let collector = BodyCollector()
        try? await response.body.write(collector)
        return CompanionHTTPResponse(status: response.status.code,
                                     headers: response.headers.map { ($0.name.rawName, $0.value) }, body: collector.bytes)
    }
}

extension PageRequest.Method {
    var http: HTTPRequest.Method { self == .get ? .get : .post }
}

/// A response's body, written into memory.
private final class BodyCollector: ResponseBodyWriter {
    var bytes: [UInt8] = []
    func write(_ buffer: ByteBuffer) async throws { bytes += buffer.readableBytesView }
    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
