/// A part named by a URI-like string, as ArduPilot picks a transport from a device string:
/// `gpsd://localhost:2947`, `serial:///dev/ttyACM0?baud=9600`, `file:///run.nmea?pace=fast`,
/// `alsa:default`, `wav:/tmp/cues.wav`, `null`, `sysfs:/sys/class/power_supply/BAT0`.
///
/// Parsing is deliberately small and strict: a scheme, then either `//authority/path` or an
/// opaque rest, then an optional `?key=value&…` query.
public struct DeviceURI: Hashable, Sendable, CustomStringConvertible {
    public var scheme: String
    /// `host:port` for `scheme://host:port…`; empty otherwise.
    public var authority: String
    /// The path (`/dev/ttyACM0`) or opaque part (`default`, `hw:1,0`).
    public var path: String
    public var query: [String: String]
    public let text: String

    public init(parsing text: String) throws(DeviceURIError) {
        self.text = text
        guard !text.isEmpty else { throw DeviceURIError(text: text, reason: "is empty") }
        var rest = Substring(text)
        if let end = rest.firstIndex(where: { $0 == ":" || $0 == "?" }) {
            scheme = String(rest[..<end]).lowercased()
            // `sim?capacity=1200`: a bare scheme with a query
            rest = rest[end] == ":" ? rest[rest.index(after: end)...] : rest[end...]
        } else {
            scheme = text.lowercased()  // `null`, `sysfs`
            rest = ""
        }
        guard !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" }) else {
            throw DeviceURIError(text: text, reason: "has no scheme (expected something like gpsd://host:port)")
        }
        query = [:]
        if let q = rest.firstIndex(of: "?") {
            for pair in rest[rest.index(after: q)...].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1)
                guard kv.count == 2, !kv[0].isEmpty else {
                    throw DeviceURIError(text: text, reason: "has a malformed query item '\(pair)' (expected key=value)")
                }
                query[String(kv[0])] = String(kv[1])
            }
            rest = rest[..<q]
        }
        authority = ""
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            let slash = rest.firstIndex(of: "/") ?? rest.endIndex
            authority = String(rest[..<slash])
            rest = rest[slash...]
        }
        path = String(rest)
    }

    /// `host` and `port` of the authority, with defaults.
    public func hostAndPort(defaultHost: String, defaultPort: Int) throws(DeviceURIError) -> (String, Int) {
        guard !authority.isEmpty else { return (defaultHost, defaultPort) }
        let parts = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let host = parts[0].isEmpty ? defaultHost : String(parts[0])
        guard parts.count == 2 else { return (host, defaultPort) }
        guard let port = Int(parts[1]), (1...65535).contains(port) else {
            throw DeviceURIError(text: text, reason: "has port '\(parts[1])', not a number from 1 to 65535")
        }
        return (host, port)
    }

    /// An integer query item, or `defaultValue` when absent.
    public func integer(_ key: String, default defaultValue: Int) throws(DeviceURIError) -> Int {
        guard let raw = query[key] else { return defaultValue }
        guard let value = Int(raw) else {
            throw DeviceURIError(text: text, reason: "has \(key)=\(raw), not a whole number")
        }
        return value
    }

    public var description: String { text }
}

/// A device string that does not parse, or names something unknown.
public struct DeviceURIError: Error, Hashable, Sendable, CustomStringConvertible {
    public var text: String
    public var reason: String

    public init(text: String, reason: String) {
        self.text = text
        self.reason = reason
    }

    public var description: String { "'\(text)' \(reason)" }
}
