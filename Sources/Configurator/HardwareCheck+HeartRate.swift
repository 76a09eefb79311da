import HAL
import LinuxHardware

extension HardwareCheck {
    /// The heart-rate strap (`heart_rate:`), never required: the device coaches without it.
    /// `none`: nothing to check; `sim:FILE`: the recording; `bluez[:ADDRESS]`: the bus, BlueZ,
    /// the adapter, and the strap seen in a scan of `listen` (`HardwareProbe.heartRateStrap`).
    /// Nil when the configuration names no setting (the board's defaults: no block).
    static func heartRate(_ c: Configuration) -> HardwareReport.Part? {
        let part = "heart rate"
        guard let configured = c.heartRate else { return nil }
        guard let uri = try? DeviceURI(parsing: configured), ["bluez", "sim", "none"].contains(uri.scheme) else {
            return .init(
                name: part, configured: configured, required: false, status: .warning, found: [],
                problem: "unknown heart-rate setting '\(configured)': no heart rate",
                fix: ["use bluez:ADDRESS (pacer hr scan, then pacer hr pair ADDRESS), bluez or none"])
        }
        switch uri.scheme {
        case "none":
            return .init(name: part, configured: configured, required: false, status: .ok,
                         found: ["none set: the device reads no heart rate (pacer hr pair ADDRESS sets a strap)"],
                         problem: nil, fix: [])
        case "sim":
            return .init(name: part, configured: configured, required: false, status: .ok,
                         found: ["replays the recorded heart rate \(uri.path); no strap needed"], problem: nil, fix: [])
        default:
            let finding = HardwareProbe.heartRateStrap(
                address: uri.path.isEmpty ? nil : uri.path, adapter: uri.query["adapter"], listen: c.listen)
            return .init(name: part, configured: configured, required: false, finding)
        }
    }
}
