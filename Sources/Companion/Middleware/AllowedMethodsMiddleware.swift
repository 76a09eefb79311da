import Hummingbird

/// GET and POST only, on a path from `/`: anything else is refused before a route is looked at.
struct AllowedMethodsMiddleware: RouterMiddleware {
    typealias Context = CompanionContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .get || request.method == .post else {
            return CompanionPages.plain(405, "method \(request.method.rawValue.prefix(16)) not allowed (GET or POST)",
                                        extra: [("Allow", "GET, POST")])
        }
        guard request.uri.path.hasPrefix("/") else { return CompanionPages.plain(400, "bad request: the path must start with /") }
        return try await next(request, context)
    }
}
