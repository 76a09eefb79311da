import Hummingbird

/// A request must say which host it is for (RFC 9112 §3.2: a request without a Host is
/// answered 400): every client a runner uses sends one, and one without is a hand-made probe.
struct HostRequiredMiddleware: RouterMiddleware {
    typealias Context = CompanionContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // HTTP/1.1's Host header is the request's authority here.
        guard let host = request.head.authority, !host.isEmpty else { return CompanionPages.plain(400, "bad request: no Host header") }
        return try await next(request, context)
    }
}
