import Hummingbird
import Logging

/// The request context the companion's router and middleware share: the client's address
/// (for the login limits), the session `SessionMiddleware` found, and the fields and files
/// `FormBodyMiddleware` decoded from a POST's body.
struct CompanionContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: String
    /// The logged-in session; nil without a login.
    var session: CompanionSessions.Session?
    /// A POST's fields (`application/x-www-form-urlencoded` or `multipart/form-data`).
    var form: [String: String] = [:]
    /// A `multipart/form-data` POST's files, by field name.
    var uploads: [String: Upload] = [:]

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    /// A request answered without a socket (`CompanionCore.respond`).
    init(remoteAddress: String, logger: Logger) {
        struct Source: RequestContextSource { let logger: Logger }
        coreContext = .init(source: Source(logger: logger))
        self.remoteAddress = remoteAddress
    }
}
