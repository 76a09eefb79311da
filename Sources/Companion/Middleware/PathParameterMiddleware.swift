import Foundation
import Hummingbird

/// The route's captured path segments percent-decoded in the context's parameters; a
/// segment that does not decode (a broken escape, not UTF-8) or decodes to nothing, `.`, `..`
/// or something with `/` never matches: 404, as a path no route takes.
struct PathParameterMiddleware: RouterMiddleware {
    typealias Context = CompanionContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        var decoded = Parameters()
        for (name, raw) in context.parameters {
            guard let value = Self.decode(raw) else { throw HTTPError(.notFound) }
            decoded[name] = Substring(value)
        }
        context.coreContext.parameters = decoded
        return try await next(request, context)
    }

    /// The segment's value, nil when it is no segment's.
    static func decode(_ segment: Substring) -> String? {
        guard let value = String(segment).removingPercentEncoding, !value.isEmpty, value != ".", value != "..",
              !value.contains("/") else { return nil }
        return value
    }
}
