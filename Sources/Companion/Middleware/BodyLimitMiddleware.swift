import Hummingbird
import Synchronization

/// The body read into memory up to its limit, or refused with 413: from its Content-Length
/// before any of it is read, or as soon as a chunked one passes the limit. Without a session
/// only a login's body is read (and a small one): the rest go on with none, so that no one
/// without the password makes the board hold megabytes. One upload is read and handled at
/// a time (`uploadsAtOnce`): another is answered 503 "busy, try again" with a `Retry-After`,
/// so that uploads started together (a page open in two tabs) cannot add up past the
/// board's memory budget. Two were allowed until two imports of a 100,000-record FIT that
/// overlapped took the device to 132.6 MB in CI, past its 128 MB (one alone: 90 MB).
struct BodyLimitMiddleware: RouterMiddleware {
    typealias Context = CompanionContext
    /// Uploads read and handled at once.
    static let uploadsAtOnce = 1
    /// The `Retry-After` of an upload refused while others are handled, in seconds.
    static let uploadRetryAfter = 5
    private let uploads = Slots(uploadsAtOnce)
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
        if limit == Self.uploadLimit {
            guard uploads.take() else {
                return CompanionPages.plain(503, "busy: \(Self.uploadsAtOnce) uploads are being read; try again in "
                    + "\(Self.uploadRetryAfter) s", extra: [("Retry-After", "\(Self.uploadRetryAfter)"), ("Connection", "close")])
            }
        }
        defer { if limit == Self.uploadLimit { uploads.give() } }
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

/// So many things at once: `take` one (false when all are taken), `give` it back.
final class Slots: Sendable {
    let limit: Int
    private let taken = Mutex(0)

    init(_ limit: Int) { self.limit = limit }

    func take() -> Bool {
        taken.withLock { taken in
            guard taken < limit else { return false }
            taken += 1
            return true
        }
    }

    func give() { taken.withLock { $0 = max(0, $0 - 1) } }
}
