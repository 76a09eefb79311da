import Storage

/// One request as a page of the companion sees it: the router's middleware has already
/// checked the login, the CSRF token of a change, the body's size, decoded the form and the
/// path's captures; a page only reads its fields and answers.
public struct PageRequest: Sendable {
    public enum Method: String, Sendable { case get = "GET", post = "POST" }

    public var method: Method
    /// The path as asked, without the query: `/activities/12`.
    public var path: String
    /// The route's captures, percent-decoded: `id` for `/activities/:id`.
    public var parameters: [String: String]
    /// The fields of a POST (`application/x-www-form-urlencoded` or `multipart/form-data`).
    public var form: [String: String]
    /// The files of a `multipart/form-data` POST, by field name.
    public var uploads: [String: Upload]
    /// The session's CSRF token, for the forms a page writes (`CompanionHTML.form`).
    public var csrfToken: String

    public init(method: Method, path: String, parameters: [String: String] = [:],
                form: [String: String] = [:], uploads: [String: Upload] = [:], csrfToken: String = "") {
        self.method = method
        self.path = path
        self.parameters = parameters
        self.form = form
        self.uploads = uploads
        self.csrfToken = csrfToken
    }
}

/// A file sent with a form: its name as the browser gave it (never used as a path) and its bytes.
public struct Upload: Sendable, Hashable {
    public var filename: String
    public var bytes: [UInt8]

    public init(filename: String, bytes: [UInt8]) {
        self.filename = filename
        self.bytes = bytes
    }
}

/// What a page answers; the server adds the layout, the headers and the status.
public enum PageResponse: Sendable {
    /// An HTML fragment, shown inside the companion's layout (menu, notice) under `title`.
    case page(title: String, body: String)
    /// A whole HTML document of its own (an activity's report), served as it is.
    case document(String)
    case json(String)
    /// A file to save: `Content-Disposition: attachment`.
    case download(filename: String, contentType: String, bytes: [UInt8])
    /// After a change: the browser goes to `path`, which shows `notice` once.
    case redirect(to: String, notice: String?)
    /// Refused, with the same message as the command line's; shown in the layout with
    /// `status` (400 for a bad field or file, 404 for nothing such, 409 while a workout runs).
    case refused(status: Int, message: String)
}

/// A path and method a section answers, routed by Hummingbird's router: `pattern` is a path whose
/// `:name` parts capture a segment.
public struct PageRoute: Sendable {
    public var method: PageRequest.Method
    public var pattern: String
    /// A change a runner can make during a workout too (a waypoint, pause): everything else
    /// is refused with 409 while a workout runs.
    public var allowedDuringWorkout: Bool
    public var handler: @Sendable (PageRequest) async throws -> PageResponse

    public init(_ method: PageRequest.Method, _ pattern: String, allowedDuringWorkout: Bool = false,
                handler: @escaping @Sendable (PageRequest) async throws -> PageResponse) {
        self.method = method
        self.pattern = pattern
        self.allowedDuringWorkout = allowedDuringWorkout
        self.handler = handler
    }
}

/// A part of the companion (activities, plans, routes, profile, settings, health): its
/// entry in the menu and its routes.
public protocol CompanionSection: Sendable {
    /// The menu's entry: its label and path (nil: not in the menu).
    var menu: (label: String, path: String)? { get }
    var routes: [PageRoute] { get }
}
