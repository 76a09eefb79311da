import Hummingbird

/// A change (a POST) must carry the session's own CSRF token: the form's `csrf` field, or the
/// `X-CSRF-Token` header the page's script sends. Compared in constant time; refused with 403.
struct CSRFMiddleware: RouterMiddleware {
    typealias Context = CompanionContext
    let pages: CompanionPages

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post, let session = context.session else { return try await next(request, context) }
        let header = HTTPFields.Element.Name("X-CSRF-Token").flatMap { request.headers[$0] }
        guard let token = context.form["csrf"] ?? header,
              CompanionPassword.constantTimeEqual(Array(token.utf8), Array(session.csrf.utf8)) else {
            return pages.refused(403, "refused: the form's CSRF token is missing or not this session's (reload the page)", session: session)
        }
        return try await next(request, context)
    }
}
