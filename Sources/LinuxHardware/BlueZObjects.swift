/// BlueZ's names, and its objects as a client sees them: what `GetManagedObjects` said, kept
/// up to date by the `InterfacesAdded`, `InterfacesRemoved` and `PropertiesChanged` signals.
/// Pure values: the source, the scan and the check ask it where the adapter, the strap and
/// its characteristics are (BlueZ's D-Bus API: doc/org.bluez.Adapter.rst, Device.rst,
/// Gatt*.rst in BlueZ's source).
public enum BlueZ {
    static let service = "org.bluez"
    static let adapterInterface = "org.bluez.Adapter1"
    static let deviceInterface = "org.bluez.Device1"
    static let batteryInterface = "org.bluez.Battery1"
    static let gattServiceInterface = "org.bluez.GattService1"
    static let gattCharacteristicInterface = "org.bluez.GattCharacteristic1"
    static let objectManager = "org.freedesktop.DBus.ObjectManager"
    static let properties = "org.freedesktop.DBus.Properties"

    /// The Heart Rate service, 0x180D, as BlueZ writes UUIDs (128 bits, lower case).
    public static let heartRateService = uuid(0x180D)
    /// Heart Rate Measurement, 0x2A37: the characteristic a strap notifies.
    static let heartRateMeasurement = uuid(0x2A37)
    /// The Battery service, 0x180F, and its Battery Level, 0x2A19 (one byte, per cent).
    static let batteryService = uuid(0x180F)
    static let batteryLevel = uuid(0x2A19)

    /// A 16-bit SIG UUID in the Bluetooth base UUID.
    static func uuid(_ short: UInt16) -> String {
        let hex = String(short, radix: 16)
        return "0000" + String(repeating: "0", count: 4 - hex.count) + hex + "-0000-1000-8000-00805f9b34fb"
    }

    /// `address` in BlueZ's form (six pairs of hex digits, upper case, colons), or nil when
    /// it is not a Bluetooth address. Dashes are taken for colons.
    public static func normalizedAddress(_ address: String) -> String? {
        let parts = address.uppercased().split(separator: ":", omittingEmptySubsequences: false).flatMap {
            $0.split(separator: "-", omittingEmptySubsequences: false)
        }
        guard parts.count == 6, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isHexDigit) }) else { return nil }
        return parts.joined(separator: ":")
    }
}

/// BlueZ's objects: path → interface → property → value.
struct BlueZObjects: Sendable {
    typealias Properties = [String: DBusValue]
    private(set) var objects: [String: [String: Properties]] = [:]

    init() {}

    /// The objects of a `GetManagedObjects` reply (`a{oa{sa{sv}}}`).
    init(managedObjects reply: [DBusValue]) {
        guard let top = reply.first?.dictionary else { return }
        for (path, interfaces) in top {
            objects[path] = Self.interfaces(interfaces)
        }
    }

    private static func interfaces(_ value: DBusValue) -> [String: Properties] {
        var out: [String: Properties] = [:]
        for (name, properties) in value.dictionary ?? [:] {
            out[name] = properties.dictionary ?? [:]
        }
        return out
    }

    /// Applies a signal from BlueZ; other signals change nothing.
    mutating func apply(_ signal: DBusSignal) {
        switch (signal.interface, signal.member) {
        case (BlueZ.objectManager, "InterfacesAdded"):
            guard signal.arguments.count >= 2, let path = signal.arguments[0].string else { return }
            for (name, properties) in Self.interfaces(signal.arguments[1]) {
                objects[path, default: [:]][name, default: [:]].merge(properties) { _, new in new }
            }
        case (BlueZ.objectManager, "InterfacesRemoved"):
            guard signal.arguments.count >= 2, let path = signal.arguments[0].string,
                  let names = signal.arguments[1].strings
            else { return }
            for name in names { objects[path]?[name] = nil }
            if objects[path]?.isEmpty == true { objects[path] = nil }
            // A device gone takes its services and characteristics with it (BlueZ sends
            // their removal too, but not always first).
            if names.contains(BlueZ.deviceInterface) || names.contains(BlueZ.adapterInterface) {
                for child in objects.keys where child.hasPrefix(path + "/") { objects[child] = nil }
            }
        case (BlueZ.properties, "PropertiesChanged"):
            guard signal.arguments.count >= 2, let name = signal.arguments[0].string,
                  let changed = signal.arguments[1].dictionary, objects[signal.path]?[name] != nil
            else { return }
            objects[signal.path]?[name]?.merge(changed) { _, new in new }
            for gone in (signal.arguments.count > 2 ? signal.arguments[2].strings : nil) ?? [] {
                objects[signal.path]?[name]?[gone] = nil
            }
        default:
            break
        }
    }

    func properties(_ path: String, _ interface: String) -> Properties? {
        objects[path]?[interface]
    }

    /// The adapters' paths, in order (`/org/bluez/hci0` first).
    var adapters: [String] {
        objects.filter { $0.value[BlueZ.adapterInterface] != nil }.keys.sorted()
    }

    /// The adapter `name` (`hci0`, or a full path), or the first when `name` is nil.
    func adapter(named name: String?) -> String? {
        guard let name else { return adapters.first }
        return adapters.first { $0 == name || $0.hasSuffix("/" + name) }
    }

    /// The devices BlueZ knows on `adapter`, in path order.
    func devices(on adapter: String) -> [String] {
        objects.filter { path, interfaces in
            guard let device = interfaces[BlueZ.deviceInterface] else { return false }
            return device["Adapter"]?.string.map { $0 == adapter } ?? path.hasPrefix(adapter + "/")
        }.keys.sorted()
    }

    /// Whether `device` offers the Heart Rate service (its advertised or resolved UUIDs).
    func isHeartRateStrap(_ device: String) -> Bool {
        let uuids = properties(device, BlueZ.deviceInterface)?["UUIDs"]?.strings ?? []
        return uuids.contains { $0.lowercased() == BlueZ.heartRateService }
    }

    func address(of device: String) -> String? {
        properties(device, BlueZ.deviceInterface)?["Address"]?.string?.uppercased()
    }

    /// The strap to connect to on `adapter`: the device whose address is `address`, or,
    /// without one, the first that offers the Heart Rate service.
    func strap(on adapter: String, address: String?) -> String? {
        devices(on: adapter).first { device in
            if let address { return self.address(of: device) == address }
            return isHeartRateStrap(device)
        }
    }

    /// The characteristic `characteristic` of the service `service` on `device`.
    func characteristic(_ characteristic: String, of service: String, on device: String) -> String? {
        let services = objects.filter { path, interfaces in
            guard path.hasPrefix(device + "/"), let s = interfaces[BlueZ.gattServiceInterface] else { return false }
            return s["UUID"]?.string?.lowercased() == service
        }.keys
        return objects.filter { path, interfaces in
            guard let c = interfaces[BlueZ.gattCharacteristicInterface],
                  c["UUID"]?.string?.lowercased() == characteristic,
                  let owner = c["Service"]?.string
            else { return false }
            return services.contains(owner) && path.hasPrefix(owner + "/")
        }.keys.sorted().first
    }

    func heartRateMeasurement(on device: String) -> String? {
        characteristic(BlueZ.heartRateMeasurement, of: BlueZ.heartRateService, on: device)
    }

    func batteryLevel(on device: String) -> String? {
        characteristic(BlueZ.batteryLevel, of: BlueZ.batteryService, on: device)
    }

    /// A device's name for people: its alias, else its name, else its address.
    func displayName(of device: String) -> String {
        let p = properties(device, BlueZ.deviceInterface)
        return p?["Alias"]?.string ?? p?["Name"]?.string ?? address(of: device) ?? device
    }
}
