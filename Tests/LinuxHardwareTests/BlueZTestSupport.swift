import Foundation
import Glibc
import HAL
import LinuxHardware
import Logging
import PacerCore
import Synchronization
import TestSupport

// Test support for the BlueZ heart-rate source: a real dbus-daemon on a private bus, and
// BlueZ's objects served on it by python-dbusmock, so that the source's own code, sd-bus and
// the D-Bus wire are all real and only the radio is not.
//
//     timeout -k 3 180 dbus-daemon --config-file=DIR/bus.conf --nofork --print-address=1
//     timeout -k 3 180 python3 -m dbusmock --system --template DIR/bluez_strap.py
//     timeout -k 3 180 python3 DIR/control.py          (the test's hands on the mock)
//
// The bus listens on a socket in the test's temporary folder; the source is given its
// address (`busAddress:`), the mock and the control process DBUS_SYSTEM_BUS_ADDRESS. The mock
// loads dbusmock's bluez5 template (adapters, devices, Device1.Connect) through a template of
// our own, `bluezStrapTemplate` below, which adds what a chest strap has: the Heart Rate
// service (0x180D) with its Measurement characteristic (0x2A37), the Battery service (0x180F)
// with its Level (0x2A19), notifications at 1 Hz while the source has called StartNotify and
// the strap is connected, and the strap dropping, vanishing, or refusing to connect. The
// control process is an independent D-Bus client (dbus-python, on libdbus, not sd-bus): it
// calls the template's org.bluez.Mock methods for the test, one JSON line each way.
//
// Every process runs under coreutils `timeout`, so none outlives a test run that died.

/// Namespace for the BlueZ tests' helpers.
enum BlueZTest {
    static let strapAddress = "C4:7C:8D:6A:3E:11"
    static let otherAddress = "F0:13:C3:00:A2:5B"

    /// Why the tests cannot run, when python-dbusmock or dbus-daemon is missing: the tests
    /// fail with this, they are not skipped.
    static var missingTools: String? {
        if access("/usr/bin/dbus-daemon", X_OK) != 0 {
            return "dbus-daemon is not installed: sudo apt install dbus (scripts/setup.sh installs it)"
        }
        let probe = try? Program.run("/usr/bin/python3", ["-c", "import dbus, dbusmock, gi.repository.GLib"])
        if probe?.status != 0 {
            return "python-dbusmock is not importable by /usr/bin/python3 (\(probe?.stderr.split(separator: "\n").last ?? "no python3")): "
                + "sudo apt install python3-dbus python3-gi && sudo /usr/bin/python3 -m pip install --break-system-packages python-dbusmock "
                + "(scripts/setup.sh installs them)"
        }
        return nil
    }

    /// A measurement's bytes.
    static func bytes(_ bpm: Int, contact: HeartRateMeasurement.Contact = .detected, rr: [Double] = [], energy: Int? = nil) -> [UInt8] {
        HeartRateMeasurement(bpm: bpm, contact: contact, energyExpended: energy, rrIntervals: rr).bytes
    }

    /// A private bus with the BlueZ mock on it (`withMock: false`: the bus alone), handed to
    /// `body`, and everything stopped after.
    static func withBus<T>(mock: Bool = true, _ body: (BlueZTestBus) async throws -> T) async throws -> T {
        if let missing = missingTools { throw BlueZTestError(description: missing) }
        let bus = try BlueZTestBus(mock: mock)
        do {
            let result = try await body(bus)
            bus.stop()
            return result
        } catch {
            bus.stop()
            throw error
        }
    }
}

struct BlueZTestError: Error, CustomStringConvertible {
    var description: String
}

/// dbus-daemon, the mock and its control process.
final class BlueZTestBus: @unchecked Sendable {
    let folder = TemporaryDirectory("bluez")
    /// The bus's address, for the source (`busAddress:`) and `DBUS_SYSTEM_BUS_ADDRESS`.
    let address: String
    private let daemon: RunningProcess
    private var mock: RunningProcess?
    private var control: RunningProcess?
    private let controlInput = Pipe()
    private var controlOutput = Data()

    init(mock withMock: Bool) throws {
        let socket = folder.path + "/system_bus_socket"
        address = "unix:path=\(socket)"
        try Self.busConfig(socket: socket).write(toFile: folder.path + "/bus.conf", atomically: true, encoding: .utf8)
        daemon = try Program.start(
            "/usr/bin/timeout", ["-k", "3", "180", "/usr/bin/dbus-daemon", "--config-file=\(folder.path)/bus.conf", "--nofork",
                                 "--print-address=1"])
        guard eventuallyBlocking(within: .seconds(10), { access(socket, F_OK) == 0 }) else {
            daemon.process.terminate()
            throw BlueZTestError(description: "dbus-daemon did not make its socket \(socket)")
        }
        guard withMock else { return }
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SYSTEM_BUS_ADDRESS"] = address
        try bluezStrapTemplate.write(toFile: folder.path + "/bluez_strap.py", atomically: true, encoding: .utf8)
        try controlScript.write(toFile: folder.path + "/control.py", atomically: true, encoding: .utf8)
        mock = try Program.start(
            "/usr/bin/timeout", ["-k", "3", "180", "/usr/bin/python3", "-m", "dbusmock", "--system", "--template",
                                 folder.path + "/bluez_strap.py", "--logfile", folder.path + "/mock.log"], environment: env)
        control = try Program.start(
            "/usr/bin/timeout", ["-k", "3", "180", "/usr/bin/python3", folder.path + "/control.py"], environment: env,
            standardInput: controlInput.fileHandleForReading)
        let ready = try readLine()
        guard ready == "ready" else {
            stop()
            throw BlueZTestError(description: "the BlueZ mock did not start: \(ready)\n\(mockLog)")
        }
    }

    /// A bus of its own: anyone may own any name and talk to anyone (dbus-daemon's own
    /// session configuration, in short).
    static func busConfig(socket: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>system</type>
          <listen>unix:path=\(socket)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow user="*"/>
            <allow own="*"/>
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
          </policy>
        </busconfig>
        """
    }

    /// The mock's log of the calls it had, for a failure's message.
    var mockLog: String {
        (try? String(contentsOfFile: folder.path + "/mock.log", encoding: .utf8)) ?? "(no mock log)"
    }

    /// Calls the mock's `org.bluez.Mock.method` with `arguments` of D-Bus `signature`
    /// (dbus-python converts the JSON values); its result as JSON text.
    @discardableResult
    func mock(_ method: String, _ signature: String, _ arguments: [Any]) throws -> Any? {
        guard control != nil else { throw BlueZTestError(description: "no mock on this bus") }
        let request = try JSONSerialization.data(withJSONObject: ["method": method, "signature": signature, "args": arguments])
        controlInput.fileHandleForWriting.write(request + Data("\n".utf8))
        let line = try readLine()
        let reply = try JSONSerialization.jsonObject(with: Data(line.utf8), options: [.fragmentsAllowed]) as? [String: Any]
        if let error = reply?["error"] as? String { throw BlueZTestError(description: "\(method): \(error)") }
        return reply?["ok"]
    }

    /// Adds a strap on hci0: a device with the Heart Rate and Battery services; `advertise`:
    /// its UUIDs say so (else it is found only by its address).
    func addStrap(_ address: String = BlueZTest.strapAddress, name: String = "Polar H10 6A3E11", battery: Int = 87,
                  advertise: Bool = true) throws {
        try mock("AddStrap", "sssyb", ["hci0", address, name, battery, advertise])
    }

    /// Notifications from the strap every `interval` ms while it is connected and subscribed,
    /// the values in turn, round and round.
    func stream(_ values: [[UInt8]], from address: String = BlueZTest.strapAddress, interval: Int = 1000) throws {
        try mock("Stream", "saayu", [address, values.map { $0.map(Int.init) }, interval])
    }

    /// The methods the source called on the strap and its characteristics, in order
    /// (`Connect`, `StartNotify /…/char000d`).
    func calls() throws -> [String] {
        try mock("Calls", "", []) as? [String] ?? []
    }

    /// The methods called on the adapter, in order.
    func adapterCalls() throws -> [String] {
        try mock("AdapterCalls", "s", ["hci0"]) as? [String] ?? []
    }

    func adapterPowered() throws -> Bool {
        try mock("AdapterPowered", "s", ["hci0"]) as? Bool ?? false
    }

    private func readLine() throws -> String {
        guard let control else { throw BlueZTestError(description: "no control process") }
        let handle = control.out.fileHandleForReading
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            if let newline = controlOutput.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: controlOutput[..<newline], as: UTF8.self)
                controlOutput.removeSubrange(...newline)
                return line
            }
            var pfd = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 200) > 0 else { continue }
            let chunk = handle.availableData
            if chunk.isEmpty {
                let err = String(decoding: control.err.fileHandleForReading.availableData, as: UTF8.self)
                throw BlueZTestError(description: "the mock's control process ended: \(err)")
            }
            controlOutput.append(chunk)
        }
        throw BlueZTestError(description: "no answer from the mock's control process in 15 s")
    }

    /// Kills every process: `timeout` leads a process group of its own, so the group's
    /// SIGKILL takes the program under it too. (A SIGTERM to `timeout` sent from the test
    /// process went unheeded for the whole wait; nothing here needs a clean exit.)
    func stop() {
        try? controlInput.fileHandleForWriting.close()
        for process in [control, mock, daemon].compactMap({ $0 }) where process.process.isRunning {
            kill(-process.process.processIdentifier, SIGKILL)
            kill(process.process.processIdentifier, SIGKILL)
        }
        for process in [control, mock, daemon].compactMap({ $0 }) {
            _ = eventuallyBlocking(within: .seconds(5)) { !process.process.isRunning }
        }
    }
}

// MARK: - The clock's loop and the events

/// Everything a heart-rate sink handed to the runtime, with the clock's time, in order.
final class HeartRateEventLog: Sendable {
    private let events = Mutex<[(HeartRateEvent, Instant)]>([])

    func append(_ event: HeartRateEvent, _ at: Instant) {
        events.withLock { $0.append((event, at)) }
    }

    var all: [(event: HeartRateEvent, at: Instant)] { events.withLock { $0.map { ($0.0, $0.1) } } }
    var count: Int { events.withLock { $0.count } }

    var measurements: [HeartRateMeasurement] {
        all.compactMap { if case .measurement(let m) = $0.event { m } else { nil } }
    }

    var measurementTimes: [Instant] {
        all.compactMap { if case .measurement = $0.event { $0.at } else { nil } }
    }

    var statuses: [(status: HeartRateStatus, detail: String?)] {
        all.compactMap { if case .status(let s, let detail) = $0.event { (s, detail) } else { nil } }
    }

    var batteries: [Int] {
        all.compactMap { if case .battery(let level) = $0.event { level } else { nil } }
    }
}

/// A source on the test's bus with a sink on a clock's loop of its own, as on the board.
struct BlueZRig {
    let loop: GPSDClockLoop
    let log = HeartRateEventLog()
    let sink: HeartRateEventSink
    let source: BlueZHeartRateSource
    let logs = LogRecorder()

    init(bus: BlueZTestBus, address: String? = nil) async throws {
        loop = try await GPSDClockLoop()
        let log = self.log
        sink = HeartRateEventSink(clock: loop.clock) { event, at in log.append(event, at) }
        source = try BlueZHeartRateSource(address: address, busAddress: bus.address, logger: logs.logger)
    }

    func stop() {
        source.stop()
        loop.stop()
    }
}

// MARK: - The mock's Python

/// The mock's template: dbusmock's bluez5 and a chest strap's GATT objects.
private let bluezStrapTemplate = #"""
"""A chest strap for dbusmock's bluez5 template: the Heart Rate and Battery services."""
import dbus
from gi.repository import GLib
from dbusmock import OBJECT_MANAGER_IFACE, mockobject
from dbusmock.templates import bluez5
from dbusmock.templates.bluez5 import *  # noqa: F401,F403 -- the template's names and methods

SERVICE = "org.bluez.GattService1"
CHARACTERISTIC = "org.bluez.GattCharacteristic1"
PROPERTIES = "org.freedesktop.DBus.Properties"
HR_SERVICE = "0000180d-0000-1000-8000-00805f9b34fb"
HR_MEASUREMENT = "00002a37-0000-1000-8000-00805f9b34fb"
BATTERY_SERVICE = "0000180f-0000-1000-8000-00805f9b34fb"
BATTERY_LEVEL = "00002a19-0000-1000-8000-00805f9b34fb"

CALLS = []      # "Method /path", in the order the source called them
STREAMS = {}    # address -> {"values": [bytes], "next": int, "timer": id}
FAILURES = {}   # address -> (error name, message) Connect raises


def load(mock, parameters):
    bluez5.load(mock, parameters)


def _device_path(adapter, address):
    return "/org/bluez/%s/dev_%s" % (adapter, address.replace(":", "_").upper())


def _find(address):
    for path, obj in mockobject.objects.items():
        if path.endswith("/dev_" + address.replace(":", "_").upper()):
            return path, obj
    raise dbus.exceptions.DBusException("no device " + address, name="org.bluez.Mock.NoSuchDevice")


def _added(path, interface, props):
    mockobject.objects["/"].EmitSignal(OBJECT_MANAGER_IFACE, "InterfacesAdded", "oa{sa{sv}}",
                                       [dbus.ObjectPath(path), {interface: props}])


def _removed(path, interface):
    mockobject.objects["/"].EmitSignal(OBJECT_MANAGER_IFACE, "InterfacesRemoved", "oas",
                                       [dbus.ObjectPath(path), dbus.Array([interface], signature="s")])


def _connect(device):
    CALLS.append("Connect " + device.path)
    failure = FAILURES.get(device.address)
    if failure:
        raise dbus.exceptions.DBusException(failure[1], name=failure[0])
    if device.connected:
        raise dbus.exceptions.DBusException("Already Connected", name="org.bluez.Error.AlreadyConnected")
    device.connected = True
    device.UpdateProperties("org.bluez.Device1", {"Connected": dbus.Boolean(True), "ServicesResolved": dbus.Boolean(True)})


def _disconnect(device):
    CALLS.append("Disconnect " + device.path)
    _drop(device)


def _drop(device):
    device.connected = False
    for path, obj in list(mockobject.objects.items()):
        if path.startswith(device.path + "/"):
            obj.notifying = False
    device.UpdateProperties("org.bluez.Device1", {"Connected": dbus.Boolean(False), "ServicesResolved": dbus.Boolean(False)})


def _start_notify(characteristic):
    CALLS.append("StartNotify " + characteristic.path)
    if not characteristic.device.connected:
        raise dbus.exceptions.DBusException("Not connected", name="org.bluez.Error.Failed")
    characteristic.notifying = True


def _stop_notify(characteristic):
    CALLS.append("StopNotify " + characteristic.path)
    characteristic.notifying = False


def _read_value(characteristic, options):
    CALLS.append("ReadValue " + characteristic.path)
    if not characteristic.device.connected:
        raise dbus.exceptions.DBusException("Not connected", name="org.bluez.Error.Failed")
    return dbus.Array(characteristic.value, signature="y")


def _characteristic(root, device, service, path, uuid, flags, value):
    props = {"UUID": uuid, "Service": dbus.ObjectPath(service), "Flags": dbus.Array(flags, signature="s"),
             "Notifying": dbus.Boolean(False), "Value": dbus.Array([], signature="y")}
    root.AddObject(path, CHARACTERISTIC, props, [
        ("StartNotify", "", "", _start_notify),
        ("StopNotify", "", "", _stop_notify),
        ("ReadValue", "a{sv}", "ay", _read_value),
    ])
    obj = mockobject.objects[path]
    obj.device = device
    obj.notifying = False
    obj.value = value
    _added(path, CHARACTERISTIC, props)


@dbus.service.method(BLUEZ_MOCK_IFACE, in_signature="sssyb", out_signature="s")
def AddStrap(self, adapter, address, name, battery, advertise):
    """A chest strap: Device1 (UUIDs advertised or not), and its services once connected."""
    path = self.AddDevice(adapter, address, name)
    device = mockobject.objects[path]
    device.address = address
    device.AddMethod("org.bluez.Device1", "Connect", "", "", _connect)
    device.AddMethod("org.bluez.Device1", "Disconnect", "", "", _disconnect)
    if advertise:
        device.UpdateProperties("org.bluez.Device1", {
            "UUIDs": dbus.Array([HR_SERVICE, BATTERY_SERVICE], signature="s"), "RSSI": dbus.Int16(-58),
            "Icon": "", "Class": dbus.UInt32(0)})
    hr = path + "/service000c"
    props = {"UUID": HR_SERVICE, "Device": dbus.ObjectPath(path), "Primary": dbus.Boolean(True)}
    self.AddObject(hr, SERVICE, props, [])
    _added(hr, SERVICE, props)
    _characteristic(self, device, hr, hr + "/char000d", HR_MEASUREMENT, ["notify"], [])
    bat = path + "/service0010"
    props = {"UUID": BATTERY_SERVICE, "Device": dbus.ObjectPath(path), "Primary": dbus.Boolean(True)}
    self.AddObject(bat, SERVICE, props, [])
    _added(bat, SERVICE, props)
    _characteristic(self, device, bat, bat + "/char0011", BATTERY_LEVEL, ["read", "notify"], [int(battery)])
    return path


@dbus.service.method(BLUEZ_MOCK_IFACE, in_signature="sss", out_signature="")
def FailConnect(self, address, name, message):
    """Connect raises the error `name` with `message` from now on (an empty name: no more)."""
    if name:
        FAILURES[address] = (name, message)
    else:
        FAILURES.pop(address, None)


def _tick(address):
    stream = STREAMS.get(address)
    if stream is None:
        return False
    try:
        path, device = _find(address)
    except dbus.exceptions.DBusException:
        return True
    characteristic = mockobject.objects.get(path + "/service000c/char000d")
    if getattr(device, "connected", False) and characteristic is not None and characteristic.notifying:
        value = stream["values"][stream["next"] % len(stream["values"])]
        stream["next"] += 1
        stream["sent"] += 1
        characteristic.EmitSignal(PROPERTIES, "PropertiesChanged", "sa{sv}as", [
            CHARACTERISTIC, {"Value": dbus.Array([dbus.Byte(b) for b in value], signature="y")},
            dbus.Array([], signature="s")])
    return True


@dbus.service.method(BLUEZ_MOCK_IFACE, in_signature="saayu", out_signature="")
def Stream(self, address, values, interval):
    """Notifies the values in turn every `interval` ms while connected and subscribed."""
    old = STREAMS.pop(address, None)
    if old:
        GLib.source_remove(old["timer"])
    STREAMS[address] = {"values": [bytes(v) for v in values], "next": 0, "sent": 0,
                        "timer": GLib.timeout_add(int(interval), _tick, address)}


@dbus.service.method(BLUEZ_MOCK_IFACE, in_signature="s", out_signature="")
def Drop(self, address):
    """The strap goes out of range: Connected turns false."""
    _drop(_find(address)[1])


@dbus.service.method(BLUEZ_MOCK_IFACE, in_signature="s", out_signature="")
def Remove(self, address):
    """BlueZ forgets the strap: its objects go, with InterfacesRemoved for each."""
    path, device = _find(address)
    device.connected = False
    for child in sorted([p for p in mockobject.objects if p.startswith(path + "/")], reverse=True):
        interface = CHARACTERISTIC if "/char" in child else SERVICE
        self.RemoveObject(child)
        _removed(child, interface)
    adapter = mockobject.objects[str(device.props["org.bluez.Device1"]["Adapter"])]
    adapter.RemoveDevice(path)


@dbus.service.method(BLUEZ_MOCK_IFACE, in_signature="sb", out_signature="")
def SetPowered(self, adapter, powered):
    mockobject.objects["/org/bluez/" + adapter].UpdateProperties("org.bluez.Adapter1", {"Powered": dbus.Boolean(powered)})


@dbus.service.method(BLUEZ_MOCK_IFACE, in_signature="s", out_signature="b")
def AdapterPowered(self, adapter):
    return mockobject.objects["/org/bluez/" + adapter].props["org.bluez.Adapter1"]["Powered"]


@dbus.service.method(BLUEZ_MOCK_IFACE, in_signature="", out_signature="as")
def Calls(self):
    return dbus.Array(CALLS, signature="s")


@dbus.service.method(BLUEZ_MOCK_IFACE, in_signature="s", out_signature="as")
def AdapterCalls(self, adapter):
    return dbus.Array([row[1] for row in mockobject.objects["/org/bluez/" + adapter].call_log], signature="s")


@dbus.service.method(BLUEZ_MOCK_IFACE, in_signature="s", out_signature="u")
def Sent(self, address):
    return STREAMS.get(address, {}).get("sent", 0)
"""#

/// The test's hands on the mock: one JSON request a line in (`{"method", "signature",
/// "args"}`), one JSON answer a line out (`{"ok": …}` or `{"error": …}`), over dbus-python.
private let controlScript = #"""
import json, sys, time
import dbus

bus = dbus.SystemBus()
deadline = time.monotonic() + 10
while not bus.name_has_owner("org.bluez"):
    if time.monotonic() > deadline:
        print("the mock did not take the name org.bluez in 10 s", flush=True)
        sys.exit(1)
    time.sleep(0.02)
bus.get_object("org.bluez", "/").AddAdapter("hci0", "pacer-test", dbus_interface="org.bluez.Mock")
print("ready", flush=True)


def plain(value):
    if isinstance(value, (dbus.Array, list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dbus.Boolean):
        return bool(value)
    if isinstance(value, (int, float)):
        return value
    if value is None:
        return None
    return str(value)


for line in sys.stdin:
    request = json.loads(line)
    try:
        method = bus.get_object("org.bluez", "/").get_dbus_method(request["method"], "org.bluez.Mock")
        result = method(*request["args"], signature=request["signature"])
        print(json.dumps({"ok": plain(result)}), flush=True)
    except Exception as error:  # noqa: BLE001 -- every failure goes back to the test
        print(json.dumps({"error": str(error)}), flush=True)
"""#
