import Hummingbird
import PacerCore

/// Without a session: a page asked for goes to the login page, as a browser expects (a 401
/// page is an error in its console); the script's `/api/` answers 401 in JSON; a change is
/// refused with the login page (401).
struct LoginRequiredMiddleware: RouterMiddleware {
    typealias Context = CompanionContext
    let pages: CompanionPages

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard context.session == nil else { return try await next(request, context) }
        if request.uri.path.hasPrefix("/api/") { return pages.json(401, (["error": .text("login needed")] as JSONObject).compact) }
        if request.method == .get { return pages.redirect("/login") }
        return pages.loginPage(status: 401, message: nil)
    }
}
