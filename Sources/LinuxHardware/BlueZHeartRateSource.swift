#if canImport(Glibc)
import Glibc
#endif
import HAL
import Logging
import PacerCore
import Synchronization

/// A Bluetooth LE heart-rate strap through BlueZ on the system bus (`heart_rate: bluez`, the
/// first strap found, or `bluez:ADDRESS`, the one paired with `pacer hr pair`).
///
/// **The thread.** `start` launches a thread of the source's own (`ControlThread`), which
/// owns the D-Bus connection (sd-bus connections are not thread-safe) and does everything:
/// it waits in `poll` on the bus's socket and the wake-up pipe only `stop()` writes, with a
/// timeout only while a reply or a retry is due, so a strap at 1 Hz costs one wake-up a
/// second. Events go to the sink, which stamps them with the clock's time.
///
/// **Finding the strap.** The adapter is the one named (`hci0`), or the first BlueZ has. It
/// is powered on if it was off (and off again at `stop()`: the radio is on only while a strap
/// is wanted). A strap BlueZ already knows (`GetManagedObjects`) is connected to at once;
/// else discovery runs with a filter for the Heart Rate service (UUID 0x180D, LE) until a
/// device appears (`InterfacesAdded`, or new `UUIDs`) whose UUIDs hold 0x180D, or whose
/// address is the one set. Discovery stops before `Device1.Connect`: BlueZ connects
/// poorly while it scans. While this goes on the status is `searching`.
///
/// **Reading.** After `Connect`, the source waits for BlueZ to resolve the strap's GATT
/// services, then reads the Battery Level (0x2A19, if the strap has the Battery service) and
/// calls `StartNotify` on the Heart Rate Measurement (0x2A37). Each notification is a
/// `PropertiesChanged` of the characteristic's `Value`, parsed by `HeartRateMeasurement(bytes:)`
/// and reported; a value that does not parse is dropped and logged (one line per ten seconds
/// at most, `WarningLimiter`), and the source goes on. Status: `connected`, then `reading`
/// from the first measurement (the sink's doing).
///
/// **Losing it.** When the device's `Connected` turns false, or BlueZ removes it
/// (`InterfacesRemoved`, it went out of range and BlueZ forgot it), or the adapter goes, the
/// source reports `lost` and tries again after 1 s, 2 s, 5 s, then every 5 s (`Timing`),
/// until it is stopped; a strap that was connected stays `lost` (the detail says why the last
/// try failed) until it is back. A strap that never connected stays `searching`; the reason of
/// the last failed try (the D-Bus error's name and message) is in `diagnostics.lastFailure`
/// and the log. A bus or BlueZ that goes away is the same: the connection is made again.
///
/// **Stopping.** `stop()` wakes the thread, which calls `StopNotify`, `Disconnect` and
/// `StopDiscovery` as needed and powers the adapter off if it powered it on (each call bounded
/// by `Timing.stopCall`), closes the connection, and ends; `stop()` joins it. Every wait of
/// the thread, a `Connect` that takes many seconds included, watches the wake-up pipe, so
/// the stop is at once.
///
/// **Threads.** The public surface may be used from any thread: `state` and `counters`
/// (`Mutex`es) hold the thread and the diagnostics; everything else is the thread's own.
public final class BlueZHeartRateSource: HeartRateSource {
    /// The source's waits.
    public struct Timing: Hashable, Sendable {
        /// The waits between tries, in order; the last repeats.
        public var retryDelays: [Duration]
        /// How long `Device1.Connect` may take (BlueZ gives up on its own before, usually).
        public var connect: Duration
        /// How long other calls may take.
        public var call: Duration
        /// How long BlueZ may take to resolve the strap's services after connecting.
        public var services: Duration
        /// How long each call made while stopping may take.
        public var stopCall: Duration

        public init(
            retryDelays: [Duration] = [.seconds(1), .seconds(2), .seconds(5)], connect: Duration = .seconds(40),
            call: Duration = .seconds(10), services: Duration = .seconds(20), stopCall: Duration = .seconds(2)
        ) {
            precondition(!retryDelays.isEmpty, "no retry delay")
            self.retryDelays = retryDelays
            self.connect = connect
            self.call = call
            self.services = services
            self.stopCall = stopCall
        }

        func retryDelay(after failures: Int) -> Duration {
            retryDelays[min(max(failures - 1, 0), retryDelays.count - 1)]
        }
    }

    /// What the source has done so far, for bug reports and tests.
    public struct Diagnostics: Hashable, Sendable {
        /// `Device1.Connect` calls.
        public var connectAttempts = 0
        /// Connections that reached `StartNotify`.
        public var connections = 0
        /// The strap is connected and notifying.
        public var isConnected = false
        /// Measurements reported.
        public var measurements = 0
        /// Notifications dropped because they did not parse.
        public var malformed = 0
        /// The adapter's path (`/org/bluez/hci0`), once found.
        public var adapter: String?
        /// The strap's address, once found.
        public var strap: String?
        /// Why the last try failed, or the last connection ended.
        public var lastFailure: String?

        public init() {}
    }

    public let name: String
    /// The strap's address (`C4:7C:8D:6A:3E:11`); nil: the first strap found.
    public let address: String?
    /// The adapter (`hci0`); nil: the first BlueZ has.
    public let adapter: String?
    /// The system bus's address; nil: `DBUS_SYSTEM_BUS_ADDRESS` or the standard socket.
    public let busAddress: String?
    public let timing: Timing
    private let logger: Logger
    private let thread = Mutex<(started: Bool, control: ControlThread?)>((false, nil))
    private let counters = Mutex(Diagnostics())
    private let warnings = Mutex(WarningLimiter())

    /// Throws `BlueZError.invalidAddress` for an `address` that is not a Bluetooth address.
    /// Without a `logger` the source logs nothing.
    public init(
        address: String? = nil, adapter: String? = nil, busAddress: String? = nil, timing: Timing = Timing(),
        logger: Logger? = nil
    ) throws(BlueZError) {
        if let address {
            guard let normalized = BlueZ.normalizedAddress(address) else { throw .invalidAddress(address) }
            self.address = normalized
        } else {
            self.address = nil
        }
        self.adapter = adapter
        self.busAddress = busAddress
        self.timing = timing
        self.logger = logger ?? Logger(label: "pacer.bluez", factory: { _ in SwiftLogNoOpLogHandler() })
        name = "bluez" + (self.address.map { ":" + $0 } ?? "")
    }

    public var diagnostics: Diagnostics { counters.withLock { $0 } }

    public func start(_ sink: HeartRateEventSink) {
        guard thread.withLock({ s -> Bool in
            defer { s.started = true }
            return !s.started
        }) else {
            logger.warning("\(name): start() called on a source that was already started")
            return
        }
        let wake: WakePipe
        do {
            wake = try WakePipe()
        } catch {
            fail(sink, "\(name): cannot create the wake-up pipe: \(error)")
            return
        }
        switch ControlThread.start(wake: wake, body: { [self] in run(sink, wake: wake.readEnd) }) {
        case .success(let control): thread.withLock { $0.control = control }
        case .failure(let error):
            wake.close()
            fail(sink, "\(name): cannot start its thread: \(error)")
        }
    }

    /// Stops: the strap is unsubscribed and disconnected, discovery stopped, the adapter
    /// powered off if the source powered it on; returns once the thread has ended. After it
    /// the source reports nothing more.
    public func stop() {
        let control = thread.withLock { s -> ControlThread? in
            s.started = true
            defer { s.control = nil }
            return s.control
        }
        control?.stop()
    }

    private func fail(_ sink: HeartRateEventSink, _ reason: String) {
        logger.error("\(reason)")
        counters.withLock { $0.lastFailure = reason }
        sink.report(.status(.searching, detail: reason))
    }

    // MARK: - The thread

    /// How a try ended.
    private enum End: Error {
        /// `stop()` was called.
        case stopped
        /// The try failed before the strap was read (no bus, no adapter, no strap, a refused
        /// `Connect`); the reason for the status's detail and the log.
        case failed(String)
        /// The strap was read and went away.
        case lost(String)
    }

    private func run(_ sink: HeartRateEventSink, wake: Int32) {
        let session = BlueZSession(source: self, wake: wake)
        var failures = 0
        var lost = false
        var said: String?
        while true {
            var end: End
            var reading = false
            do {
                try session.readStrap(sink, lost: lost) {
                    failures = 0
                    lost = false
                    reading = true
                }
                end = .stopped
            } catch {
                end = error as? End ?? .failed("\(error)")
            }
            // A strap read until the bus or BlueZ went is lost as much as one that walked off.
            if reading, case .failed(let reason) = end { end = .lost(reason) }
            switch end {
            case .stopped:
                session.close()
                return
            case .lost(let reason):
                lost = true
                failures = 1
                said = nil
                counters.withLock {
                    $0.isConnected = false
                    $0.lastFailure = reason
                }
                logger.warning("\(name): \(reason); reconnecting")
                sink.report(.status(.lost, detail: reason))
            case .failed(let reason):
                failures += 1
                counters.withLock { $0.lastFailure = reason }
                // The first time a reason is given at warning level, its repeats at debug.
                if said == reason {
                    logger.debug("\(name): \(reason); trying again in \(timing.retryDelay(after: failures))")
                } else {
                    logger.warning("\(name): \(reason); trying again with backoff")
                    said = reason
                }
                sink.report(.status(lost ? .lost : .searching, detail: reason))
                session.dropStaleState()
            }
            if session.pause(timing.retryDelay(after: failures)) {
                session.close()
                return
            }
        }
    }

    /// A notification's bytes: a measurement reported, or a value that does not parse
    /// dropped and logged.
    fileprivate func received(_ bytes: [UInt8], _ sink: HeartRateEventSink) {
        do throws(HeartRateMeasurementError) {
            let measurement = try HeartRateMeasurement(bytes: bytes)
            counters.withLock { $0.measurements += 1 }
            sink.report(.measurement(measurement))
        } catch {
            counters.withLock { $0.malformed += 1 }
            let hex = bytes.prefix(32).map { String($0, radix: 16).leftPadded(to: 2) }.joined(separator: " ")
            let text = "\(name): dropped a notification [\(hex)]: \(error)"
            if let line = warnings.withLock({ $0.line("malformed", text, at: .now) }) { logger.warning("\(line)") }
        }
    }

    fileprivate func note(_ update: (inout Diagnostics) -> Void) {
        counters.withLock { update(&$0) }
    }

    fileprivate var log: Logger { logger }

    /// One try: find the adapter and the strap, connect, subscribe, and read until the strap
    /// goes (`End.lost`) or `stop()` (`End.stopped`). `connected` is called once the strap
    /// notifies. Everything it leaves behind (a subscription, a connection, discovery) is
    /// undone by `close()`, or by the next try.
    private final class BlueZSession {
        unowned let source: BlueZHeartRateSource
        let wake: Int32
        var bus: DBusConnection?
        var objects = BlueZObjects()
        var adapterPath: String?
        var poweredByUs = false
        var discovering = false
        var connectedDevice: String?
        var notifying: String?

        init(source: BlueZHeartRateSource, wake: Int32) {
            self.source = source
            self.wake = wake
        }

        var timing: Timing { source.timing }

        func readStrap(_ sink: HeartRateEventSink, lost: Bool, connected: () -> Void) throws {
            let bus = try connection()
            let adapter = try findAdapter(bus)
            var said = false
            func searching(_ detail: String) {
                guard !said else { return }
                said = true
                if !lost { sink.report(.status(.searching, detail: detail)) }
            }
            // The strap: one BlueZ knows already, or one discovery finds.
            var device = objects.strap(on: adapter, address: source.address)
            let wanted = source.address ?? "a strap with the Heart Rate service"
            if device == nil {
                searching("looking for \(wanted) on \(adapterName(adapter))")
                try startDiscovery(bus, adapter)
                while device == nil {
                    try waitForSignals(bus, until: nil)
                    device = objects.strap(on: adapter, address: source.address)
                }
            }
            guard let device else { throw End.stopped }
            let address = objects.address(of: device) ?? device
            source.note { $0.strap = address }
            searching("connecting to \(objects.displayName(of: device)) (\(address))")
            if discovering {
                discovering = false
                try call(bus, adapter, BlueZ.adapterInterface, "StopDiscovery", doing: "stop discovery")
            }

            source.note { $0.connectAttempts += 1 }
            do {
                try call(bus, device, BlueZ.deviceInterface, "Connect", timeout: timing.connect, doing: "connect to \(address)")
            } catch End.failed(let reason) where reason.contains("org.bluez.Error.AlreadyConnected") {
                // Connected already (by bluetoothd's own auto-connect, or a try before this one).
            }
            connectedDevice = device

            // BlueZ makes the GATT objects once it has resolved the strap's services.
            let deadline = HardwareProbe.monotonicNanoseconds() + timing.services.nanoseconds
            var refreshed = false
            while objects.heartRateMeasurement(on: device) == nil {
                if !refreshed, objects.properties(device, BlueZ.deviceInterface)?["ServicesResolved"]?.bool == true {
                    refreshed = true
                    try refresh(bus)
                    continue
                }
                let signals = try waitForSignals(bus, until: deadline)
                if let reason = connectionEnd(bus, device, adapter, signals) { throw End.failed(reason) }
                if signals.isEmpty, HardwareProbe.monotonicNanoseconds() >= deadline {
                    throw End.failed("\(address) has no Heart Rate Measurement characteristic (0x2A37) "
                        + "\(HardwareProbe.seconds(timing.services)) after connecting: is it a heart-rate strap?")
                }
            }
            guard let measurement = objects.heartRateMeasurement(on: device) else { throw End.stopped }

            if let level = objects.batteryLevel(on: device) {
                do {
                    let value = try call(
                        bus, level, BlueZ.gattCharacteristicInterface, "ReadValue", [.dictionary([])],
                        doing: "read the battery level of \(address)")
                    if let percent = value.first?.bytes?.first { sink.report(.battery(Int(percent))) }
                } catch End.failed(let reason) {
                    source.log.debug("\(source.name): \(reason)")
                }
            } else if let percent = objects.properties(device, BlueZ.batteryInterface)?["Percentage"]?.int {
                sink.report(.battery(percent))
            }

            try call(bus, measurement, BlueZ.gattCharacteristicInterface, "StartNotify", doing: "subscribe to \(address)'s heart rate")
            notifying = measurement
            source.note {
                $0.connections += 1
                $0.isConnected = true
            }
            source.log.info("\(source.name): reading \(objects.displayName(of: device)) (\(address)) on \(adapterName(adapter))")
            sink.report(.status(.connected, detail: "\(objects.displayName(of: device)) (\(address))"))
            connected()

            while true {
                let signals = try waitForSignals(bus, until: nil)
                for signal in signals where signal.path == measurement && signal.member == "PropertiesChanged" {
                    guard signal.arguments.first?.string == BlueZ.gattCharacteristicInterface,
                          let value = signal.arguments.count > 1 ? signal.arguments[1].dictionary?["Value"] : nil
                    else { continue }
                    guard let bytes = value.bytes else {
                        source.received([], sink)
                        continue
                    }
                    source.received(bytes, sink)
                }
                for signal in signals where signal.member == "PropertiesChanged" && signal.path == device {
                    if let percent = signal.arguments.count > 1
                        ? signal.arguments[1].dictionary?["Percentage"]?.int : nil,
                        signal.arguments.first?.string == BlueZ.batteryInterface {
                        sink.report(.battery(percent))
                    }
                }
                if let reason = connectionEnd(bus, device, adapter, signals) {
                    notifying = nil
                    throw End.lost(reason)
                }
            }
        }

        /// Why the connection to `device` is over, from `signals`; nil while it holds.
        private func connectionEnd(_ bus: DBusConnection, _ device: String, _ adapter: String, _ signals: [DBusSignal]) -> String? {
            let address = objects.address(of: device) ?? device
            for signal in signals {
                switch (signal.member, signal.path) {
                case ("PropertiesChanged", device):
                    if signal.arguments.first?.string == BlueZ.deviceInterface,
                       signal.arguments.count > 1, signal.arguments[1].dictionary?["Connected"]?.bool == false {
                        connectedDevice = nil
                        return "\(address) disconnected"
                    }
                case ("PropertiesChanged", adapter):
                    if signal.arguments.first?.string == BlueZ.adapterInterface,
                       signal.arguments.count > 1, signal.arguments[1].dictionary?["Powered"]?.bool == false {
                        connectedDevice = nil
                        return "the adapter \(adapterName(adapter)) was switched off"
                    }
                case ("InterfacesRemoved", _):
                    let path = signal.arguments.first?.string
                    let names = signal.arguments.count > 1 ? signal.arguments[1].strings ?? [] : []
                    if path == device, names.contains(BlueZ.deviceInterface) {
                        connectedDevice = nil
                        return "\(address) went away (BlueZ removed it)"
                    }
                    if path == adapter, names.contains(BlueZ.adapterInterface) {
                        connectedDevice = nil
                        adapterPath = nil
                        return "the adapter \(adapterName(adapter)) went away"
                    }
                default:
                    continue
                }
            }
            return nil
        }

        /// The connection, made (with the signal match and BlueZ's objects) when there is none.
        private func connection() throws -> DBusConnection {
            if let bus { return bus }
            let opened: DBusConnection
            do {
                opened = try DBusConnection(systemBus: source.busAddress)
                try opened.addMatch("type='signal',sender='\(BlueZ.service)'")
            } catch {
                throw End.failed(BlueZError.connecting(error, address: systemBusAddress(source.busAddress)).description)
            }
            bus = opened
            try refresh(opened)
            return opened
        }

        /// BlueZ's objects read again whole.
        private func refresh(_ bus: DBusConnection) throws {
            let reply = try call(bus, "/", BlueZ.objectManager, "GetManagedObjects", doing: "list BlueZ's objects")
            objects = BlueZObjects(managedObjects: reply)
            _ = bus.takeSignals()
        }

        private func findAdapter(_ bus: DBusConnection) throws -> String {
            guard let adapter = objects.adapter(named: source.adapter) else {
                throw End.failed(BlueZError.noAdapter(source.adapter, found: objects.adapters.map(adapterName)).description)
            }
            if adapter != adapterPath {
                adapterPath = adapter
                source.note { $0.adapter = adapter }
            }
            if objects.properties(adapter, BlueZ.adapterInterface)?["Powered"]?.bool == false {
                try call(
                    bus, adapter, BlueZ.properties, "Set",
                    [.string(BlueZ.adapterInterface), .string("Powered"), .variant(.bool(true))],
                    doing: "power on \(adapterName(adapter))")
                poweredByUs = true
                source.log.info("\(source.name): powered \(adapterName(adapter)) on")
            }
            return adapter
        }

        private func startDiscovery(_ bus: DBusConnection, _ adapter: String) throws {
            guard !discovering else { return }
            try call(
                bus, adapter, BlueZ.adapterInterface, "SetDiscoveryFilter",
                [.dictionary([("UUIDs", .stringArray([BlueZ.heartRateService])), ("Transport", .string("le"))])],
                doing: "set the discovery filter")
            do {
                try call(bus, adapter, BlueZ.adapterInterface, "StartDiscovery", doing: "start discovery")
            } catch End.failed(let reason) where reason.contains("org.bluez.Error.InProgress") {
                // This client's discovery runs already.
            }
            discovering = true
        }

        func adapterName(_ path: String) -> String {
            path.split(separator: "/").last.map(String.init) ?? path
        }

        /// Waits for signals from BlueZ (or `deadline`), applies them to `objects` and returns
        /// them. Throws `End.stopped` on a stop, `End.failed` when the bus goes.
        @discardableResult
        private func waitForSignals(_ bus: DBusConnection, until deadline: Int64?) throws -> [DBusSignal] {
            while !bus.hasSignals {
                let end: DBusConnection.PumpEnd
                do {
                    end = try bus.pump(until: deadline, wake: wake)
                } catch {
                    self.bus = nil
                    throw End.failed("lost the system bus: \(error)")
                }
                if end == .woken { throw End.stopped }
                if end == .timedOut { break }
            }
            return objects.takeChanges(from: bus.takeSignals())
        }

        /// A method call, its D-Bus error turned into `End.failed` saying what was being done.
        @discardableResult
        private func call(
            _ bus: DBusConnection, _ path: String, _ interface: String, _ member: String, _ arguments: [DBusArgument] = [],
            timeout: Duration? = nil, doing what: String
        ) throws -> [DBusValue] {
            do {
                return try bus.call(
                    BlueZ.service, path, interface, member, arguments, timeout: timeout ?? timing.call, wake: wake)
            } catch {
                if error.interrupted { throw End.stopped }
                if error.connectionLost { self.bus = nil }
                if error.serviceUnknown {
                    self.bus = nil
                    throw End.failed(BlueZError.noBlueZ(address: bus.address, reason: error.description).description)
                }
                throw End.failed("cannot \(what): \(error)")
            }
        }

        /// Waits `delay` before the next try, reading BlueZ's signals meanwhile; true when
        /// `stop()` was called.
        func pause(_ delay: Duration) -> Bool {
            let deadline = HardwareProbe.monotonicNanoseconds() + delay.nanoseconds
            while HardwareProbe.monotonicNanoseconds() < deadline {
                guard let bus else {
                    var fds = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
                    let left = deadline - HardwareProbe.monotonicNanoseconds()
                    let ready = poll(&fds, 1, Int32(clamping: max(0, left) / 1_000_000 + 1))
                    if ready > 0 { return true }
                    continue
                }
                do {
                    if try waitForSignals(bus, until: deadline).isEmpty { continue }
                } catch End.stopped {
                    return true
                } catch {
                    continue
                }
            }
            return false
        }

        /// After a failed try: what may have changed in BlueZ meanwhile is read again at the
        /// next (its objects, through a new `GetManagedObjects`).
        func dropStaleState() {
            guard let bus else { return }
            if let device = connectedDevice {
                connectedDevice = nil
                _ = try? bus.call(BlueZ.service, device, BlueZ.deviceInterface, "Disconnect", timeout: timing.stopCall)
            }
            do {
                try refresh(bus)
            } catch {
                self.bus = nil
            }
        }

        /// Undoes what the tries left: the subscription, the connection, discovery, the power.
        /// Blocking calls, each bounded by `Timing.stopCall` (the wake-up pipe is readable now).
        func close() {
            defer {
                bus = nil
                source.note { $0.isConnected = false }
            }
            guard let bus else { return }
            func quietly(_ path: String, _ interface: String, _ member: String, _ arguments: [DBusArgument] = []) {
                do {
                    _ = try bus.call(BlueZ.service, path, interface, member, arguments, timeout: timing.stopCall)
                } catch {
                    source.log.debug("\(source.name): \(interface).\(member) on \(path) while stopping: \(error)")
                }
            }
            if let notifying { quietly(notifying, BlueZ.gattCharacteristicInterface, "StopNotify") }
            if let connectedDevice { quietly(connectedDevice, BlueZ.deviceInterface, "Disconnect") }
            if let adapterPath {
                if discovering { quietly(adapterPath, BlueZ.adapterInterface, "StopDiscovery") }
                if poweredByUs {
                    quietly(adapterPath, BlueZ.properties, "Set",
                            [.string(BlueZ.adapterInterface), .string("Powered"), .variant(.bool(false))])
                }
            }
            notifying = nil
            connectedDevice = nil
            discovering = false
            poweredByUs = false
        }
    }
}

extension BlueZObjects {
    /// `signals` applied, in order; returned for the caller to look at.
    mutating func takeChanges(from signals: [DBusSignal]) -> [DBusSignal] {
        for signal in signals { apply(signal) }
        return signals
    }
}

/// Why BlueZ cannot be used, in words that name the bus, the adapter or the strap.
public enum BlueZError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Not a Bluetooth address (six pairs of hex digits).
    case invalidAddress(String)
    /// libsystemd cannot be opened.
    case library(String)
    /// The system bus cannot be reached.
    case noBus(address: String, reason: String)
    /// The bus is there but bluetoothd is not on it.
    case noBlueZ(address: String, reason: String)
    /// BlueZ has no adapter (by that name).
    case noAdapter(String?, found: [String])
    /// A BlueZ call failed: what was being done, and the D-Bus error's name and message.
    case failed(String)

    /// A connection failure as one of the above.
    static func connecting(_ error: DBusError, address: String) -> BlueZError {
        if error.errno == nil && error.name == nil { return .library(error.message) }
        if error.serviceUnknown { return .noBlueZ(address: address, reason: error.description) }
        return .noBus(address: address, reason: error.errno.map { String(cString: strerror($0)) } ?? error.message)
    }

    /// Everything but a wrong address: the part is not there (sysexits' EX_UNAVAILABLE).
    public var isUnavailable: Bool {
        if case .invalidAddress = self { return false }
        return true
    }

    public var description: String {
        switch self {
        case .invalidAddress(let text):
            "'\(text)' is not a Bluetooth address (six pairs of hex digits: C4:7C:8D:6A:3E:11)"
        case .library(let reason):
            reason
        case .noBus(let address, let reason):
            "cannot reach the system bus at \(address) (\(reason)): D-Bus is not running, so neither is BlueZ (bluetoothd)"
        case .noBlueZ(let address, let reason):
            "BlueZ (bluetoothd) is not running: no org.bluez on the system bus at \(address) (\(reason)); "
                + "start it: sudo systemctl start bluetooth"
        case .noAdapter(let name, let found):
            "no Bluetooth adapter\(name.map { " \($0)" } ?? "") in BlueZ (adapters: "
                + (found.isEmpty ? "none" : found.joined(separator: ", ")) + ")"
        case .failed(let reason):
            reason
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
