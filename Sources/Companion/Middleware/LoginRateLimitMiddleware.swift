import Hummingbird
import Logging

/// The login's limits (`LoginLimiter`): a login from an address that must wait is refused
/// (429, `Retry-After`) before its password is looked at; a wrong password (the login's 401)
/// counts against its address, a right one (its redirect) clears it.
struct LoginRateLimitMiddleware: RouterMiddleware {
    typealias Context = CompanionContext
    let limiter: LoginLimiter
    let pages: CompanionPages

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post else { return try await next(request, context) }
        let address = context.remoteAddress
        if let wait = limiter.wait(for: address) {
            let seconds = Int(wait.rounded(.up))
            pages.logger.warning("companion: login refused from \(address): too many failures, \(seconds) s to wait")
            var page = pages.loginPage(status: 429, message: "Too many wrong passwords: try again in \(seconds) s.")
            page.headers[.retryAfter] = "\(seconds)"
            return page
        }
        let response = try await next(request, context)
        switch response.status {
        case .unauthorized:
            limiter.failed(from: address)
            pages.logger.warning("companion: wrong password from \(address)")
        case .seeOther:
            limiter.succeeded(from: address)
            pages.logger.notice("companion: logged in from \(address)")
        default:
            break
        }
        return response
    }
}
