import PacerCore

/// What the runner (or a script) asks of the running device.
public enum ControlCommand: Hashable, Sendable {
    /// Capture a waypoint with this name at the current position.
    case waypoint(String)
    /// Capture a waypoint the device names (`Waypoint 1`, `Waypoint 2`, … over the device's
    /// life): a key, a signal, a press.
    case markWaypoint
    case pause
    case resume
    case stop
    /// A lap press: ends a phase that a lap press ends (an open phase, or one marked so);
    /// otherwise splits the activity into laps there.
    case lap
    /// Report the status line.
    case status
    /// Say where the runner stands: phase, time left in it, pace against the band,
    /// distance; the status line when the device does not speak.
    case sayStatus
    /// Start today's workout (a device waiting for its start press, `pacer device`).
    case start
    /// A press pattern, as the button's decoder hands it on (`pacer ctl press double`): it
    /// does what the settings' `button_actions` say for the state, as the button would.
    case press(PressPattern)
    /// The process is asked to end (SIGTERM from `systemctl stop`, Ctrl-C): a running workout
    /// is stopped and stored, then the device shuts down. Not a protocol command: signals
    /// only.
    case shutdown
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

/// Why a control line is not a command; the text the server replies after `error: `.
public struct ControlParseError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}

extension ControlCommand {
    /// The longest command line, in bytes of UTF-8, not counting its line ending.
    public static let maximumLineLength = 256

    /// What `error: unknown command` lists.
    public static let commandSummary = "waypoint NAME, pause, resume, lap, stop, status, say-status, start, press PATTERN"

    /// The press patterns `press` takes, for its messages: `short, double, long, very-long`.
    public static let pressSummary = PressPattern.allCases.map(\.rawValue).joined(separator: ", ")

    /// Parses one command line of the control protocol: a verb (case does not matter), and
    /// for `waypoint` the name, which is the rest of the line with surrounding spaces
    /// trimmed (inner spaces and any UTF-8 kept). A trailing `\n` or `\r\n` is allowed.
    ///
    /// The line is split on its Unicode scalars, not its characters: a name that starts with
    /// a combining mark (`waypoint \u{353}x`) would otherwise join the space before it into
    /// one character, and the verb would run on into the name (found by the fuzzer).
    public init(parsing line: String) throws(ControlParseError) {
        var text = Substring(line).unicodeScalars
        while let last = text.last, last == "\n" || last == "\r" { text = text.dropLast() }
        let length = Substring(text).utf8.count
        guard length <= Self.maximumLineLength else {
            throw ControlParseError("command too long (\(length) bytes; at most \(Self.maximumLineLength))")
        }
        let trimmed = text.trimmingSpaces
        guard !trimmed.isEmpty else {
            throw ControlParseError("empty command (commands: \(Self.commandSummary))")
        }
        let verbEnd = trimmed.firstIndex(where: \.isControlSpace) ?? trimmed.endIndex
        let verb = String(Substring(trimmed[..<verbEnd]))
        let rest = trimmed[verbEnd...].trimmingSpaces
        switch verb.lowercased() {
        case "waypoint":
            guard !rest.isEmpty else { throw ControlParseError("waypoint needs a name: waypoint NAME") }
            if rest.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                throw ControlParseError("a waypoint name cannot hold control characters")
            }
            self = .waypoint(String(Substring(rest)))
            return
        case "press":
            let name = String(Substring(rest))
            guard !name.isEmpty else { throw ControlParseError("press needs a pattern: press \(Self.pressSummary)") }
            guard let pattern = PressPattern(rawValue: name.lowercased()) else {
                throw ControlParseError("unknown press '\(name)' (presses: \(Self.pressSummary))")
            }
            self = .press(pattern)
            return
        case "pause": self = .pause
        case "resume": self = .resume
        case "stop": self = .stop
        case "lap": self = .lap
        case "status": self = .status
        case "say-status": self = .sayStatus
        case "start": self = .start
        default:
            throw ControlParseError("unknown command '\(verb)' (commands: \(Self.commandSummary))")
        }
        guard rest.isEmpty else { throw ControlParseError("'\(verb.lowercased())' takes no argument") }
    }

    /// The command as a protocol line, without its `\n`: `waypoint Water`, `pause`, ….
    public var line: String {
        switch self {
        case .waypoint(let name): "waypoint \(name)"
        case .markWaypoint: "waypoint"
        case .pause: "pause"
        case .resume: "resume"
        case .stop: "stop"
        case .lap: "lap"
        case .status: "status"
        case .sayStatus: "say-status"
        case .start: "start"
        case .press(let pattern): "press \(pattern.rawValue)"
        case .shutdown: "shutdown"
        }
    }
}

extension Unicode.Scalar {
    /// A space or a tab: what separates the verb from the name.
    fileprivate var isControlSpace: Bool { self == " " || self == "\t" }
}

extension Substring.UnicodeScalarView {
    fileprivate var trimmingSpaces: Substring.UnicodeScalarView {
        var s = self
        while let c = s.first, c.isControlSpace { s = s.dropFirst() }
        while let c = s.last, c.isControlSpace { s = s.dropLast() }
        return s
    }
}
