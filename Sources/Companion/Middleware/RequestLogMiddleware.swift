import Hummingbird
import Logging

/// Every request and its status in the companion's log, at debug level (the journal shows
/// them when the device's log level is `debug`).
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = CompanionContext
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response = try await next(request, context)
        logger.debug("companion: \(request.method) \(request.uri.path.prefix(200)) \(response.status.code) from \(context.remoteAddress)")
        return response
    }
}
