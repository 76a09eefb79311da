import HAL
import PacerCore

// The control socket (R20): `pacer ctl waypoint "Water"` talks to the running device over a
// UNIX stream socket. One command line per connection, one reply, then the server closes:
//
//     client → server   waypoint Water 🚰\n        (UTF-8, at most 256 bytes before the \n)
//     server → client   waypoint 'Water 🚰' stored at 48.1173 N 11.5167 E\n
//
// Commands: `waypoint NAME…` (the rest of the line, trimmed, is the name), `pause`, `resume`,
// `stop`, `status`, `start`, `press short|double|long|very-long` (the button's pattern: the
// device does what its `button_actions` say, as for the button, and answers what it did).
// Anything else is answered with `error: …` (the parser's message), as is
// a line that is too long, not UTF-8, or does not arrive in time. What the device answers
// to a good command is the runtime's business; by convention a refusal begins `error:` too,
// and `pacer ctl` exits 1 on it.
//
// `watch` (`pacer ctl watch`: a phone over SSH) is the one line that keeps its connection:
// the server answers with the device's state now (the greeting: `{"event":"status",…}` from
// `pacer run`, or `{"event":"watching"}` when no producer gave one), then sends every line
// published after it (`publish`), one JSON object a line, until the device stops — the
// server then closes, and the watcher reads the end of the stream — or the watcher hangs up.
// The server reads nothing more from a watcher; what it sends is read away.
//
//     client → server   watch\n
//     server → client   {"event":"status",…,"status":{"elapsed_s":0.0,…}}\n
//                       {"event":"cue","cue":"started",…}\n   … for as long as the device runs
//
// A watcher that falls behind by more than `watcherBacklog` lines (256: minutes of events even
// in a burst, on top of what its socket's buffer holds) is told so in a last line,
// `{"event":"error","error":"…"}`, and closed: the lines it missed are not sent, so a watcher
// either sees every event in order, or is told it did not. At most `maximumWatchers` (4)
// watch at once; one more is answered `error: …` and closed.

/// The control socket's line protocol, as both ends write and read it: the command line and
/// its reply, the watch stream's framing, and the server's own replies and last lines.
enum ControlWire {
    /// The first line a watcher gets when no producer set a greeting: `{"event":"watching"}`.
    static let defaultGreeting = JSONObject([("event", .text("watching"))]).compact

    /// `line` with its `\n`, a final line ending dropped first; nil when it holds another.
    static func lineBytes(_ line: String) -> [UInt8]? {
        var bytes = Array(line.utf8)
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        guard !bytes.contains(UInt8(ascii: "\n")), !bytes.contains(UInt8(ascii: "\r")) else { return nil }
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// The rest of the line after a `watch` verb (any case; spaces and tabs around it), or
    /// nil when the line is not a `watch`.
    static func watchArgument(_ line: String) -> Substring? {
        let isSpace = { (c: Character) in c == " " || c == "\t" }
        var text = Substring(line)
        while let c = text.first, isSpace(c) { text = text.dropFirst() }
        while let c = text.last, isSpace(c) { text = text.dropLast() }
        let verbEnd = text.firstIndex(where: isSpace) ?? text.endIndex
        guard text[..<verbEnd].lowercased() == "watch" else { return nil }
        var rest = text[verbEnd...]
        while let c = rest.first, isSpace(c) { rest = rest.dropFirst() }
        return rest
    }

    /// A watcher's last line when it is dropped (`{"event":"error","error":"…"}`): `pacer ctl
    /// watch` reads it as the reason the stream ended.
    static func watcherError(_ reason: String) -> String {
        JSONObject([("event", .text("error")), ("error", .text(reason))]).compact
    }

    // MARK: The server's own replies (each begins `error:`, so `pacer ctl` exits 1)

    /// To a client beyond `maximumClients`.
    static let busy = "error: busy, try again\n"

    /// To a client that sent no line within `timeout`.
    static func noCommand(within timeout: Duration) -> String {
        "error: no command within \(ControlIO.text(timeout))\n"
    }

    static let commandTooLong = "error: command too long (at most \(ControlCommand.maximumLineLength) bytes)"
    static let notUTF8 = "error: the command is not UTF-8 text"
    static let watchTakesNoArgument = "error: 'watch' takes no argument"
    static let noAnswer = "error: the device did not answer in time"

    /// A line the parser refused, with its message.
    static func refused(_ error: any Error) -> String { "error: \(error)" }

    /// To a watcher beyond `maximumWatchers`.
    static func tooManyWatchers(_ maximum: Int) -> String {
        "error: \(maximum) watchers already, the most at once; try again later"
    }
}

/// What an `error: …` reply from the control socket means for the client, so that
/// `pacer ctl` exits with the matching sysexits status.
public enum ControlRefusal: Hashable, Sendable {
    /// The server is full or the device was slow: try again (EX_TEMPFAIL, 75).
    case busy
    /// The line itself was refused (too long, not UTF-8, not a command): EX_USAGE, 64.
    case badCommand
    /// The device answered the command with a refusal (not recording, …): 1.
    case refused

    /// The kind of refusal `reply` is; nil when it is no refusal.
    public init?(reply: String) {
        guard reply.hasPrefix("error:") else { return nil }
        let line = reply.hasSuffix("\n") ? String(reply.dropLast()) : reply
        if line + "\n" == ControlWire.busy || line == ControlWire.noAnswer
            || line.hasSuffix("watchers already, the most at once; try again later") {
            self = .busy
        } else if line == ControlWire.commandTooLong || line == ControlWire.notUTF8
            || line == ControlWire.watchTakesNoArgument || line.hasPrefix("error: no command within ") {
            self = .badCommand
        } else {
            self = .refused
        }
    }

    /// The sysexits status `pacer ctl` exits with.
    public var exitStatus: Int32 {
        switch self {
        case .busy: 75
        case .badCommand: 64
        case .refused: 1
        }
    }
}
