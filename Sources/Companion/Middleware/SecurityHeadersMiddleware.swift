import Hummingbird

/// The headers every answer carries (a page's own Content-Security-Policy, a report's, is
/// kept): no inline script, no framing, no sniffing, no referrer to another site, no cache.
struct SecurityHeadersMiddleware: RouterMiddleware {
    typealias Context = CompanionContext

    static let headers: [(String, String)] = [
        ("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"),
        ("X-Frame-Options", "DENY"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "same-origin"),
        ("Cache-Control", "no-store"),
    ]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        Self.secure(&response)
        return response
    }

    static func secure(_ response: inout Response) {
        for (name, value) in headers {
            guard let name = HTTPFields.Element.Name(name), response.headers[name] == nil else { continue }
            response.headers[name] = value
        }
    }
}
