import HAL
import LinuxHardware
import Logging

/// The device's controls, built by the configurator like every other part.
extension Configurator {
    /// The control socket's default path: the service's (`$RUNTIME_DIRECTORY`, or
    /// `/run/pacer/control.sock` while the service runs), else
    /// `$XDG_RUNTIME_DIR/pacer/control.sock`, else `/tmp/pacer-UID/control.sock`.
    public static var defaultControlSocket: String { ControlSocketServer.defaultPath() }

    /// Every control input of a running device: the control socket (`pacer ctl`), SIGUSR1
    /// for a waypoint and SIGTERM/SIGINT to stop (`systemctl stop`, Ctrl-C), and, when
    /// `keys` is set and the process runs in a terminal, single keys (w, p, s).
    /// Throws when the socket cannot be claimed (another Pacer is running).
    public static func makeControls(
        socketPath: String? = nil, keys: Bool, isPaused: @escaping @Sendable () -> Bool,
        logger: Logger = Logger(label: "pacer.controls")
    ) throws(ConfigurationError) -> DeviceControls {
        var inputs: [any ControlInput] = []
        let socket: ControlSocketServer
        do {
            socket = try ControlSocketServer(path: socketPath ?? defaultControlSocket, logger: logger)
        } catch {
            throw ConfigurationError(error.description, cause: error)
        }
        inputs.append(socket)
        inputs.append(SignalControls(logger: logger))
        if keys {
            inputs.append(TerminalControls(isPaused: isPaused, logger: logger))
        }
        return DeviceControls(inputs: inputs, watch: socket)
    }

    /// `evdev:/dev/input/event0[?keys=28,29]`: Linux input events (the Pi's gpio-key overlay,
    /// a USB keypad, a Bluetooth remote); `keys` names the key codes that count (default all).
    public static func makeButtonSource(_ uri: DeviceURI, clock: any PacerClock, logger: Logger? = nil)
        throws(ConfigurationError) -> any ButtonSource
    {
        switch uri.scheme {
        case "evdev":
            guard !uri.path.isEmpty else {
                throw ConfigurationError("'\(uri)' names no device (expected evdev:/dev/input/event0?keys=28)")
            }
            if let unknown = uri.query.keys.sorted().first(where: { $0 != "keys" }) {
                throw ConfigurationError("'\(uri)': unknown query item '\(unknown)' (known: keys)")
            }
            var keys: Set<UInt16>?
            if let list = uri.query["keys"] {
                var codes = Set<UInt16>()
                for item in list.split(separator: ",", omittingEmptySubsequences: false) {
                    guard let code = UInt16(item), code > 0, code < 0x300 else {
                        throw ConfigurationError("'\(uri)': keys=\(list): '\(item)' is not a key code from 1 to 767")
                    }
                    codes.insert(code)
                }
                keys = codes
            }
            return EvdevButtons(path: uri.path, keys: keys, clock: clock, logger: logger)
        default:
            throw ConfigurationError("unknown buttons '\(uri)' (known: evdev:/dev/input/eventN?keys=CODE,…, none)")
        }
    }

    /// Watches the running device (`pacer ctl watch`): hands `onLine` each line it sends
    /// (the first is its state now, or `error: …`) until the device ends the stream or
    /// `onLine` returns false. `timeout` bounds connecting and the first line. Without
    /// `socketPath`, the client's default (`ControlClient.defaultPath()`: a service socket
    /// this user may not reach is a permission error, not "no Pacer running").
    public static func watchControl(
        socketPath: String? = nil, timeout: Duration, _ onLine: (String) -> Bool
    ) throws(ConfigurationError) {
        do {
            let path = if let socketPath { socketPath } else { try ControlClient.defaultPath() }
            try ControlClient.watch(socketPath: path, timeout: timeout, onLine)
        } catch {
            throw ConfigurationError(error.description, cause: error)
        }
    }

    /// Sends one command line to the running device and returns its reply (`pacer ctl`).
    public static func sendControl(
        _ line: String, socketPath: String? = nil, timeout: Duration
    ) throws(ConfigurationError) -> String {
        do {
            let path = if let socketPath { socketPath } else { try ControlClient.defaultPath() }
            return try ControlClient.send(line, socketPath: path, timeout: timeout)
        } catch {
            throw ConfigurationError(error.description, cause: error)
        }
    }
}

/// The controls of a running device: every input, and where `pacer ctl watch` is served.
public struct DeviceControls: Sendable {
    /// The control socket, the signals, the keys: each hands its commands over.
    public let inputs: [any ControlInput]
    /// The control socket, which streams the device's events to `pacer ctl watch`.
    public let watch: any EventPublisher
}
