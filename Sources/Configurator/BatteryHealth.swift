import Foundation
import HAL
import LinuxHardware

/// The battery as the device's health shows it (the companion's health page): what the
/// battery setting names, and what its gauge reads now: level, voltage and the kernel's
/// status word (charging, discharging, full…). A simulated battery has no gauge to read.
public struct BatteryHealth: Hashable, Sendable {
    /// The battery setting (`sysfs`, `sysfs:/sys/class/power_supply/BAT0`, `sim?level=100`).
    public var configured: String
    /// The gauge read (`sysfs:/sys/class/power_supply/BAT0`); nil when none was.
    public var gauge: String?
    public var percent: Double?
    /// Volts.
    public var voltage: Double?
    /// `charging`, `discharging`, `full`, `not charging`, `unknown`; nil when not said.
    public var status: String?
    /// Why nothing could be read; nil when the gauge answered (or the battery is simulated).
    public var problem: String?
    public var simulated: Bool

    /// Reads the battery `setting` names (power supplies under `powerSupplyRoot`).
    public static func read(setting: String, powerSupplyRoot: String = SysfsBattery.defaultRoot) -> BatteryHealth {
        var health = BatteryHealth(configured: setting, gauge: nil, percent: nil, voltage: nil, status: nil, problem: nil,
                                   simulated: false)
        let uri: DeviceURI
        do {
            uri = try DeviceURI(parsing: setting)
        } catch {
            health.problem = "the battery setting \(error.description)"
            return health
        }
        switch uri.scheme {
        case "sim":
            health.simulated = true
            return health
        case "sysfs":
            let gauge = uri.path.isEmpty ? SysfsBattery.discover(root: powerSupplyRoot).first : SysfsBattery(path: uri.path)
            guard let gauge else {
                health.problem = "no battery gauge in \(powerSupplyRoot)"
                return health
            }
            health.gauge = gauge.name
            guard let reading = gauge.read() else {
                health.problem = "\(gauge.path) cannot be read as a battery gauge"
                return health
            }
            health.percent = reading.percent
            health.voltage = gauge.readVoltage()
            health.status = gauge.readStatus()?.rawValue.lowercased() ?? (reading.charging ? "charging" : "discharging")
            return health
        default:
            health.problem = "unknown battery setting '\(setting)'"
            return health
        }
    }
}
