import Hummingbird

/// The session of the request's `pacer_session` cookie, when it is a live one, into the
/// context (touched: its idle time starts again). Refuses nothing: `LoginRequiredMiddleware` does.
struct SessionMiddleware: RouterMiddleware {
    typealias Context = CompanionContext
    static let cookieName = "pacer_session"
    let sessions: CompanionSessions

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        if let id = request.cookies[Self.cookieName]?.value, CompanionSessions.isWellFormed(id) {
            context.session = sessions.use(id)
        }
        return try await next(request, context)
    }
}
