#if canImport(Glibc)
import Glibc
#endif
import HAL
import PacerCore

/// The board's battery gauge, read from the kernel's power-supply class
/// (`/sys/class/power_supply/<supply>/`), as `upower` and `acpi` do.
///
/// A fuel gauge driver (a MAX17048 or BQ27xxx on a LiPo HAT, a laptop's ACPI battery)
/// publishes one directory per supply with small text files:
///
/// - `type`: `Battery`, `Mains`, `USB`, … (only batteries are gauges);
/// - `capacity`: state of charge in percent, 0…100;
/// - `status`: `Charging`, `Discharging`, `Full`, `Not charging` or `Unknown`.
///
/// Some gauges have no `capacity` and report charge (`charge_now`/`charge_full`, µAh) or
/// energy (`energy_now`/`energy_full`, µWh) instead; the percentage is then computed from
/// those. Every read opens the files afresh (sysfs values are produced when read); a file
/// that is missing, unreadable (a gauge answers `EIO` or `ENODATA` while it is busy or the
/// battery is unplugged) or holds something that is not a value gives a nil reading, never
/// a crash.
public final class SysfsBattery: BatteryGauge {
    /// Where the kernel publishes power supplies.
    public static let defaultRoot = "/sys/class/power_supply"

    /// What the supply says it is doing: the kernel's `POWER_SUPPLY_STATUS_*` words.
    public enum Status: String, CaseIterable, Hashable, Sendable {
        case charging = "Charging"
        case discharging = "Discharging"
        case full = "Full"
        case notCharging = "Not charging"
        case unknown = "Unknown"
    }

    /// The supply's directory (`/sys/class/power_supply/BAT0`).
    public let path: String
    /// The supply's name in sysfs (`BAT0`, `max17048-0`).
    public let supply: String

    /// `sysfs:<path>`, as the battery setting names it.
    public var name: String { "sysfs:\(path)" }

    /// The gauge of the supply `supply` under `root`.
    public convenience init(root: String = SysfsBattery.defaultRoot, supply: String) {
        self.init(path: SysfsBattery.join(root, supply))
    }

    /// The gauge whose directory is `path`.
    public init(path: String) {
        var p = path
        while p.count > 1, p.hasSuffix("/") { p.removeLast() }
        self.path = p
        supply = p.split(separator: "/").last.map(String.init) ?? p
    }

    /// The batteries under `root`: supplies whose `type` is `Battery`, sorted by name.
    ///
    /// Left out: batteries with `scope` `Device` (a wireless mouse's or a headset's battery
    /// reported through HID, not the one powering this machine) and batteries whose
    /// `present` file says `0` (an empty battery bay). A missing or unreadable root gives an
    /// empty list.
    public static func discover(root: String = SysfsBattery.defaultRoot) -> [SysfsBattery] {
        let names = Sysfs.entries(of: root)
        var found: [SysfsBattery] = []
        for name in names.sorted() {
            let dir = join(root, name)
            guard readValue(join(dir, "type")) == "Battery" else { continue }
            if readValue(join(dir, "scope")) == "Device" { continue }
            if readValue(join(dir, "present")) == "0" { continue }
            found.append(SysfsBattery(path: dir))
        }
        return found
    }

    /// The state of charge and whether it is charging; nil when the gauge cannot be read
    /// or says something that is not a value.
    public func read() -> BatteryReading? {
        guard let percent = readPercent() else { return nil }
        let charging: Bool
        if let raw = SysfsBattery.readValue(file("status")) {
            guard let status = Status(rawValue: raw) else { return nil }
            charging = status == .charging
        } else {
            charging = false  // a gauge without a status file: assume it runs on the battery
        }
        return BatteryReading(percent: percent, charging: charging)
    }

    /// The `status` word; nil when the file is missing, unreadable or holds another word.
    public func readStatus() -> Status? {
        SysfsBattery.readValue(file("status")).flatMap(Status.init(rawValue:))
    }

    /// State of charge in percent, 0…100: `capacity`, or else charge or energy now over full.
    public func readPercent() -> Double? {
        if let raw = SysfsBattery.readValue(file("capacity")) {
            guard let value = Int(raw), (0...100).contains(value) else { return nil }
            return Double(value)
        }
        for (now, full) in [("charge_now", "charge_full"), ("energy_now", "energy_full")] {
            guard let n = SysfsBattery.readValue(file(now)), let f = SysfsBattery.readValue(file(full)) else { continue }
            guard let n = Int64(n), let f = Int64(f), n >= 0, f > 0 else { return nil }
            return min(100, Double(n) * 100 / Double(f))
        }
        return nil
    }

    /// The battery's voltage in volts (`voltage_now`, which the kernel gives in µV); nil
    /// when the gauge does not say it or says something that is not a value.
    public func readVoltage() -> Double? {
        guard let raw = SysfsBattery.readValue(file("voltage_now")), let microvolts = Int64(raw), microvolts >= 0 else {
            return nil
        }
        return Double(microvolts) / 1_000_000
    }

    private func file(_ name: String) -> String { SysfsBattery.join(path, name) }

    static func join(_ directory: String, _ name: String) -> String { Sysfs.join(directory, name) }

    /// The contents of a small sysfs attribute file without surrounding whitespace; nil when
    /// it is missing, unreadable, empty, larger than a sysfs attribute can be, or not UTF-8.
    static func readValue(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 256)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
            if bytes.count > 4096 { return nil }  // a sysfs attribute is at most one page
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        let trimmed = text.trimmingWhitespace()
        return trimmed.isEmpty ? nil : trimmed
    }
}
