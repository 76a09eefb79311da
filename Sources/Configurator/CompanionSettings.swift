/// The companion page's settings (`companion:` in the settings file):
/// `{listen: HOST:PORT, during_workout: off|on, connections_per_address: N}`. Absent, or
/// `listen: none`: no page.
public struct CompanionSettings: Hashable, Sendable {
    /// Where the page listens; nil: no page.
    public var listen: (host: String, port: Int)? {
        get { host.map { ($0, port) } }
        set { host = newValue?.host; port = newValue?.port ?? 0 }
    }
    public var host: String?
    public var port: Int = 0
    /// The page stays on while a workout runs (`during_workout: on`); off by default, which
    /// saves the energy its server and the radio would spend.
    public var duringWorkout = false
    /// Connections one client address may hold at once (`connections_per_address`, 1 to 256;
    /// 16 by default: a browser opens up to 6 to a host). More are refused with 503.
    public var connectionsPerAddress = CompanionSettings.defaultConnectionsPerAddress
    public static let defaultConnectionsPerAddress = 16
    public static let connectionsPerAddressRange = 1...256
    /// The password's hash file (`DATA_DIR/companion.passwd`): not in the block, set from the
    /// settings' data folder when they are read.
    public var passwordFile: String?

    public init(listen: (host: String, port: Int)? = nil, duringWorkout: Bool = false) {
        self.host = listen?.host
        self.port = listen?.port ?? 0
        self.duringWorkout = duringWorkout
    }

    /// `HOST:PORT` (`0.0.0.0:8080`, `127.0.0.1:0`, `[::]:8080`), or a reason.
    public static func parseListen(_ text: String) -> Result<(host: String, port: Int), ListenError> {
        guard let colon = text.lastIndex(of: ":") else {
            return .failure(ListenError("'\(text)' is not HOST:PORT (0.0.0.0:8080 for every interface, or none)"))
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let portText = text[text.index(after: colon)...]
        guard !host.isEmpty else { return .failure(ListenError("'\(text)' has no host (0.0.0.0 for every interface)")) }
        guard let port = Int(portText), (0...65535).contains(port) else {
            return .failure(ListenError("'\(portText)' is not a port from 0 to 65535"))
        }
        return .success((host, port))
    }

    public struct ListenError: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// The block as the settings file has it.
    static func load(_ given: YAMLMapping?) throws(DataFileError) -> CompanionSettings {
        var settings = CompanionSettings()
        guard var map = given else { return settings }
        if let listen = try map.optionalString("listen"), listen != "none" {
            switch parseListen(listen) {
            case .success(let parsed): settings.listen = parsed
            case .failure(let error): throw map.error("listen", error.description)
            }
        }
        if let during = try map.optionalString("during_workout") {
            switch during {
            case "off", "no", "false": settings.duringWorkout = false
            case "on", "yes", "true": settings.duringWorkout = true
            default: throw map.error("during_workout", "'\(during)' is not one of off, on")
            }
        }
        let range = AllowedRange(Double(connectionsPerAddressRange.lowerBound)...Double(connectionsPerAddressRange.upperBound))
        if let perAddress = try map.optionalNumber("connections_per_address", in: range) {
            guard perAddress == perAddress.rounded() else {
                throw map.error("connections_per_address", "\(perAddress) is not a whole number of connections")
            }
            settings.connectionsPerAddress = Int(perAddress)
        }
        try map.finish()
        return settings
    }
}
