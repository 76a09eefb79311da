/// The sections' routes, matched against a request's path: a pattern's `:name` parts capture
/// one path segment (percent-decoded; a segment that decodes to `/`, `.` or `..` never
/// matches), the others must be equal.
public struct RouteTable: Sendable {
    struct Entry: Sendable {
        var route: PageRoute
        var segments: [Substring]
    }
    private var entries: [Entry] = []

    public init(_ routes: [PageRoute]) {
        entries = routes.map { Entry(route: $0, segments: Self.segments($0.pattern)) }
    }

    static func segments(_ path: some StringProtocol) -> [Substring] {
        String(path).split(separator: "/", omittingEmptySubsequences: true)
    }

    public enum Match: Sendable {
        case found(PageRoute, parameters: [String: String])
        /// The path is known, not with this method.
        case wrongMethod
        case none
    }

    public func match(method: String, path: String) -> Match {
        let given = Self.segments(path)
        var pathKnown = false
        for entry in entries where entry.segments.count == given.count {
            var parameters: [String: String] = [:]
            var matched = true
            for (pattern, segment) in zip(entry.segments, given) {
                if pattern.first == ":" {
                    guard let value = FormDecoding.percentDecode(segment), !value.isEmpty, value != ".", value != "..",
                          !value.contains("/") else {
                        matched = false
                        break
                    }
                    parameters[String(pattern.dropFirst())] = value
                } else if pattern != segment {
                    matched = false
                    break
                }
            }
            guard matched else { continue }
            pathKnown = true
            if entry.route.method.rawValue == method { return .found(entry.route, parameters: parameters) }
        }
        return pathKnown ? .wrongMethod : .none
    }
}
