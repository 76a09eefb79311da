/// Where the running device's events go as they happen, one JSON object a line (see
/// `EventJSON` in the runtime, written with PacerCore's `JSONValue`): the control socket's watchers, `pacer ctl watch` (a phone
/// over SSH). `pacer run` publishes its runtime's events; the device's other modes publish
/// their own (`{"event":"state","state":"ready"}`) through the same one.
public protocol EventPublisher: AnyObject, Sendable {
    /// Sends `line` (one line of JSON, without its newline) to every watcher connected now.
    /// Thread-safe; never blocks: a watcher that cannot keep up is dropped, not waited for.
    func publish(_ line: String)

    /// What a new watcher hears first, before any published line: the device's state now
    /// (`{"event":"status",…}`), so that a watcher that connects mid-run sees where things
    /// stand. Called on the publisher's own thread as each watcher connects: it must not
    /// block. Replaces the previous one.
    func setWatchGreeting(_ greeting: @escaping @Sendable () -> String?)

    /// Watchers connected now; a producer may skip making lines nobody would get.
    var watcherCount: Int { get }
}
