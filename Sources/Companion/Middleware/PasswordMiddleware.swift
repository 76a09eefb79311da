import Hummingbird
import Logging

/// No password set, no page: every answer but the public ones (registered before it) is the
/// page that says how to set one (503).
struct PasswordMiddleware: RouterMiddleware {
    typealias Context = CompanionContext
    let password: CompanionPassword
    let pages: CompanionPages

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let hash: String?
        do {
            hash = try password.storedHash()
        } catch {
            pages.logger.error("companion: \(error)")
            hash = nil
        }
        guard hash != nil else { return pages.noPassword() }
        return try await next(request, context)
    }
}
