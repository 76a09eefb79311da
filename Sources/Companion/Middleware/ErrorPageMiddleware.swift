import Hummingbird

/// What the pages inside it throw, answered in the layout: a path no route takes (404, the
/// router's `HTTPError`), and a page's failure (500, logged with its request).
struct ErrorPageMiddleware: RouterMiddleware {
    typealias Context = CompanionContext
    let pages: CompanionPages

    /// A section's handler threw: `error`.
    struct PageFailure: Error { var error: any Error }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            return pages.refused(404, "nothing here: \(request.uri.path.prefix(200))", session: context.session)
        } catch let failure as PageFailure {
            pages.logger.error("companion: \(request.method) \(request.uri.path): \(failure.error)")
            return pages.refused(500, "error: \(failure.error)", session: context.session)
        }
    }
}
