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
    ) throws(ConfigurationError) -> [any ControlInput] {
        let names = WaypointNames()
        var inputs: [any ControlInput] = []
        do {
            inputs.append(try ControlSocketServer(path: socketPath ?? defaultControlSocket, logger: logger))
        } catch {
            throw ConfigurationError(error.description)
        }
        inputs.append(SignalControls(names: names, logger: logger))
        if keys {
            inputs.append(TerminalControls(names: names, isPaused: isPaused, logger: logger))
        }
        return inputs
    }

    /// Sends one command line to the running device and returns its reply (`pacer ctl`).
    public static func sendControl(
        _ line: String, socketPath: String? = nil, timeout: Duration
    ) throws(ConfigurationError) -> String {
        do {
            return try ControlClient.send(line, socketPath: socketPath ?? defaultControlSocket, timeout: timeout)
        } catch {
            throw ConfigurationError(error.description)
        }
    }
}
