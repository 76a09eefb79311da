import Hummingbird

/// A POST's body decoded into the context's fields and files (`BodyDecoding`), before the
/// CSRF check reads its token; one that cannot be decoded is refused (400) with the reason.
struct FormBodyMiddleware: RouterMiddleware {
    typealias Context = CompanionContext
    let pages: CompanionPages

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post else { return try await next(request, context) }
        var request = request
        var context = context
        // Read (and bounded) by `BodyLimitMiddleware` already.
        let body = try await request.collectBody(upTo: BodyLimitMiddleware.uploadLimit)
        do {
            (context.form, context.uploads) = try BodyDecoding.decode(Array(body.readableBytesView),
                                                                      contentType: request.headers[.contentType])
        } catch {
            return pages.refused(400, error.description, session: context.session)
        }
        return try await next(request, context)
    }
}
