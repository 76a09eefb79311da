import Hummingbird

/// The body read into memory up to its limit, or refused with 413: from its Content-Length
/// before any of it is read, or as soon as a chunked one passes the limit. Without a session
/// only a login's body is read (and a small one): the rest go on with none, so that no one
/// without the password makes the board hold megabytes.
struct BodyLimitMiddleware: RouterMiddleware {
    typealias Context = CompanionContext
    /// The largest body taken with `multipart/form-data` (a GPX, FIT or plan file).
    static let uploadLimit = 8 << 20
    /// The largest body of any other request (a form).
    static let formLimit = 256 << 10
    /// The largest body of a login without a session (a password is at most 256 bytes).
    static let loginLimit = 4096

    /// The largest body a request with this Content-Type may have.
    static func limit(contentType: String?) -> Int {
        contentType.flatMap(MediaType.init(from:))?.isType(.multipartForm) == true ? uploadLimit : formLimit
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let limit = context.session != nil ? Self.limit(contentType: request.headers[.contentType])
            : request.uri.path == "/login" ? Self.loginLimit : 0
        var request = request
        if limit > 0 {
            if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
                return Self.tooLarge(limit)
            }
            do {
                _ = try await request.collectBody(upTo: limit)
            } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
                return Self.tooLarge(limit)
            }
        } else {
            request.body = RequestBody(buffer: ByteBuffer())
        }
        return try await next(request, context)
    }

    static func tooLarge(_ limit: Int) -> Response {
        CompanionPages.plain(413, "request body too large (at most \(limit) bytes)", extra: [("Connection", "close")])
    }
}
