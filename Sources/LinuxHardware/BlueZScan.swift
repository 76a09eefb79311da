/// A heart-rate strap a scan saw.
public struct FoundStrap: Hashable, Sendable {
    /// `C4:7C:8D:6A:3E:11`.
    public var address: String
    /// What the strap calls itself (`Polar H10 6A3E11`), or its address.
    public var name: String
    /// The signal's strength when last heard, dBm (-40 near, -90 at the edge of range).
    public var rssi: Int?
    /// Its battery, per cent, when BlueZ knows it or the strap let it be read.
    public var battery: Int?
    /// Connected now (to this device: it is in use, or bluetoothd reconnected it).
    public var connected: Bool
    /// It offers the Heart Rate service (0x180D); false for a device found by its address
    /// that has not said so (yet).
    public var heartRate: Bool
}

/// The adapter a scan used.
public struct BlueZAdapterInfo: Hashable, Sendable {
    /// `hci0`.
    public var name: String
    public var address: String?
    /// Powered when the scan began.
    public var powered: Bool
}

extension BlueZ {
    /// Looks for heart-rate straps for `duration`: discovery on `adapter` (nil: the first
    /// adapter) with the Heart Rate service's filter, then the devices BlueZ knows that offer
    /// it (and the one at `address`, when given, whatever it offers), nearest first. The
    /// adapter is powered on for the scan if it was off, and off again after. Blocks for
    /// `duration` and a few round trips; for the command line and the check, not the device.
    public static func scan(
        for duration: Duration, adapter: String? = nil, address: String? = nil, busAddress: String? = nil
    ) throws(BlueZError) -> (adapter: BlueZAdapterInfo, straps: [FoundStrap]) {
        let wanted = address.flatMap(normalizedAddress)
        let (bus, found, info) = try open(adapter: adapter, busAddress: busAddress)
        var objects = found
        let path = info.path
        let timeout = Duration.seconds(5)
        func call(_ path: String, _ interface: String, _ member: String, _ arguments: [DBusArgument] = []) throws(BlueZError) -> [DBusValue] {
            do {
                return try bus.call(service, path, interface, member, arguments, timeout: timeout)
            } catch {
                throw .failed("\(interface).\(member) on \(path): \(error)")
            }
        }
        if !info.adapter.powered {
            _ = try call(path, properties, "Set", [.string(adapterInterface), .string("Powered"), .variant(.bool(true))])
        }
        defer {
            if !info.adapter.powered {
                _ = try? call(path, properties, "Set", [.string(adapterInterface), .string("Powered"), .variant(.bool(false))])
            }
        }
        _ = try call(path, adapterInterface, "SetDiscoveryFilter",
                     [.dictionary([("UUIDs", .stringArray([heartRateService])), ("Transport", .string("le"))])])
        do {
            _ = try bus.call(service, path, adapterInterface, "StartDiscovery", timeout: timeout)
        } catch {
            // InProgress: another client's discovery runs already, which serves as well.
            if error.name != "org.bluez.Error.InProgress" {
                throw .failed("cannot start discovery on \(info.adapter.name): \(error)")
            }
        }
        let deadline = HardwareProbe.monotonicNanoseconds() + duration.nanoseconds
        while HardwareProbe.monotonicNanoseconds() < deadline {
            do {
                if try bus.pump(until: deadline, wake: nil) == .timedOut { break }
            } catch {
                throw .failed("lost the system bus while scanning: \(error)")
            }
            for signal in bus.takeSignals() { objects.apply(signal) }
        }
        _ = try? call(path, adapterInterface, "StopDiscovery")

        var straps: [FoundStrap] = []
        for device in objects.devices(on: path) {
            let isStrap = objects.isHeartRateStrap(device)
            guard let deviceAddress = objects.address(of: device), isStrap || deviceAddress == wanted else { continue }
            let props = objects.properties(device, deviceInterface) ?? [:]
            let connected = props["Connected"]?.bool ?? false
            var battery = objects.properties(device, batteryInterface)?["Percentage"]?.int
            if battery == nil, connected, let level = objects.batteryLevel(on: device) {
                battery = (try? call(level, gattCharacteristicInterface, "ReadValue", [.dictionary([])]))?.first?.bytes?.first.map(Int.init)
            }
            straps.append(FoundStrap(
                address: deviceAddress, name: objects.displayName(of: device), rssi: props["RSSI"]?.int,
                battery: battery, connected: connected, heartRate: isStrap))
        }
        straps.sort { ($0.rssi ?? Int.min, $1.address) > ($1.rssi ?? Int.min, $0.address) }
        return (info.adapter, straps)
    }

    /// The adapter and BlueZ's objects, without scanning: for `pacer hr pair` and the check,
    /// which want to know whether there is a bus, BlueZ and an adapter before anything else.
    public static func adapterInfo(adapter: String? = nil, busAddress: String? = nil) throws(BlueZError) -> BlueZAdapterInfo {
        try open(adapter: adapter, busAddress: busAddress).2.adapter
    }

    /// Whether BlueZ knows the device at `address` on the adapter (it was seen, or paired),
    /// and its name.
    static func known(address: String, adapter: String?, busAddress: String?) throws(BlueZError) -> String? {
        let (_, objects, info) = try open(adapter: adapter, busAddress: busAddress)
        return objects.devices(on: info.path).first { objects.address(of: $0) == address }.map { objects.displayName(of: $0) }
    }

    /// A connection with the signal match, BlueZ's objects and the adapter.
    private static func open(
        adapter: String?, busAddress: String?
    ) throws(BlueZError) -> (DBusConnection, BlueZObjects, (path: String, adapter: BlueZAdapterInfo)) {
        let bus: DBusConnection
        do {
            bus = try DBusConnection(systemBus: busAddress)
            try bus.addMatch("type='signal',sender='\(service)'")
        } catch {
            throw .connecting(error, address: systemBusAddress(busAddress))
        }
        let objects: BlueZObjects
        do {
            objects = BlueZObjects(managedObjects: try bus.call(service, "/", objectManager, "GetManagedObjects", timeout: .seconds(5)))
        } catch {
            throw error.serviceUnknown || error.errno != nil
                ? .noBlueZ(address: bus.address, reason: error.description)
                : .failed("cannot list BlueZ's objects: \(error)")
        }
        guard let path = objects.adapter(named: adapter) else {
            throw .noAdapter(adapter, found: objects.adapters.map { String($0.split(separator: "/").last ?? "") })
        }
        let props = objects.properties(path, adapterInterface) ?? [:]
        let info = BlueZAdapterInfo(
            name: String(path.split(separator: "/").last ?? ""), address: props["Address"]?.string,
            powered: props["Powered"]?.bool ?? false)
        return (bus, objects, (path, info))
    }
}
