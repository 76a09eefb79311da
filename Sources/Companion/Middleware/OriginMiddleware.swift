import Hummingbird

/// A POST whose `Origin` is not this page's own host (another site's form or script) is
/// refused (403); one without an Origin is left to the CSRF token.
struct OriginMiddleware: RouterMiddleware {
    typealias Context = CompanionContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post, let origin = request.headers[.origin] else { return try await next(request, context) }
        // HTTPTypes keeps the Host header as the request's authority.
        let host = request.head.authority ?? ""
        let stripped = origin.hasPrefix("http://") ? String(origin.dropFirst(7)) : origin.hasPrefix("https://") ? String(origin.dropFirst(8)) : origin
        guard !host.isEmpty, stripped.lowercased() == host.lowercased() else {
            return CompanionPages.plain(403, "refused: the request comes from another site (Origin \(origin.prefix(100)))")
        }
        return try await next(request, context)
    }
}
