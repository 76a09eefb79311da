import PacerCore

/// What the runner (or a script) asks of the running device.
public enum ControlCommand: Hashable, Sendable {
    /// Capture a waypoint with this name at the current position.
    case waypoint(String)
    case pause
    case resume
    case stop
    /// Report the status line.
    case status
}

/// A source of presses: the control socket (`pacer ctl`), keys in the foreground terminal,
/// SIGUSR1, or a scenario's script. Like a GPS source, it does only the raw part; the
/// runtime decides what a command does and answers through `reply` (one line of text).
public protocol ControlInput: AnyObject, Sendable {
    var name: String { get }
    /// Starts listening; commands go to `handler`, which must answer each by calling
    /// `reply` exactly once (from any thread).
    func start(_ handler: @escaping @Sendable (ControlCommand, _ reply: @escaping @Sendable (String) -> Void) -> Void)
    func stop()
}
