import Foundation
import PacerCore
import Storage

/// The route the next workout follows, as `pacer routes follow ID|none` and the companion's
/// routes page choose it: the same parsing, the same checks, the same words.
public enum RouteFollowChoice {
    /// Chooses from `text` (a route's id, or `none`) in `routes` at `time`; the line that says
    /// what the next workout follows. A route that does not exist or cannot be followed is
    /// refused (the store's message) and nothing changes.
    public static func choose(_ text: String, in routes: RouteStore, at time: UTCTimestamp) throws -> String {
        guard let id = try parse(text) else {
            try routes.chooseRoute(nil, at: time)
            return "The next workout follows no route."
        }
        try routes.chooseRoute(id, at: time)
        return "The next workout follows route #\(id) '\(try routes.route(id).summary.name)' "
            + "(pacer device --route, when given, still wins)."
    }

    /// A route's id, or nil for `none`; anything else is refused before the store is opened.
    public static func parse(_ text: String) throws(ChoiceError) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.lowercased() == "none" { return nil }
        guard let id = Int64(trimmed), id > 0 else {
            throw ChoiceError("route", "'\(text)' is not a route id (a number: pacer routes list) nor none")
        }
        return id
    }

    /// What the next workout follows, said: `route #3 'Park loop'`, or `no route`.
    public static func describe(in routes: RouteStore) throws -> String {
        guard let id = try routes.chosenRoute() else { return "no route" }
        let name = (try? routes.route(id).summary.name).map { " '\($0)'" } ?? " (no longer stored)"
        return "route #\(id)\(name)"
    }
}
