#if canImport(Glibc)
import Glibc
#endif
import HAL
import Logging
import Synchronization

/// The watchers (`pacer ctl watch`): `publish` queues lines for them on any thread; the server
/// thread admits them, sends the greeting and the lines, and drops one that falls behind.
extension ControlSocketServer {
    struct WatchQueue {
        let id: UInt64
        /// Each with its `\n`.
        var lines: [[UInt8]] = []
        /// More than `watcherBacklog` lines were waiting: the watcher is to be dropped.
        var overflowed = false
    }

    public var watcherCount: Int { state.withLock { $0.watchers.count } }

    public func setWatchGreeting(_ greeting: @escaping @Sendable () -> String?) {
        state.withLock { $0.greeting = greeting }
    }

    /// Queues `line` for every watcher and wakes the server thread; a watcher with
    /// `watcherBacklog` lines already queued is marked to be dropped instead. A line with a
    /// line break inside would break the stream's framing: it is not published (logged).
    public func publish(_ line: String) {
        guard state.withLock({ !$0.watchers.isEmpty }) else { return }  // nobody to tell: no copy made
        guard let bytes = ControlWire.lineBytes(line) else {
            logger?.error("\(name): not published: a line with a line break inside")
            return
        }
        state.withLock { s in
            guard !s.stopping, !s.watchers.isEmpty else { return }
            var poke = false
            for i in s.watchers.indices where !s.watchers[i].overflowed {
                // The server thread takes every queue at once: one wake-up per batch is enough.
                if s.watchers[i].lines.isEmpty { poke = true }
                if s.watchers[i].lines.count >= watcherBacklog {
                    s.watchers[i].overflowed = true
                    s.watchers[i].lines.removeAll()
                    poke = true
                } else {
                    s.watchers[i].lines.append(bytes)
                }
            }
            // Poked under the lock, as replies are: never a closed pipe.
            if poke { s.wake?.poke() }
        }
    }

    /// Turns a connection that sent `watch` into a watcher, or refuses it when
    /// `maximumWatchers` watch already. Registered before the greeting is made: a line
    /// published meanwhile follows the greeting (which may already count it) rather than
    /// being lost.
    func watch(_ c: inout Connection, inputDone: Bool, now: ContinuousClock.Instant) {
        let id = c.id
        let (admitted, greeting) = state.withLock { s -> (Bool, (@Sendable () -> String?)?) in
            guard !s.stopping, s.watchers.count < maximumWatchers else { return (false, nil) }
            s.watchers.append(WatchQueue(id: id))
            return (true, s.greeting)
        }
        guard admitted else {
            warn("watchers", "\(name): \(maximumWatchers) watchers already; refused one")
            respond(&c, ControlWire.tooManyWatchers(maximumWatchers), now: now)
            return
        }
        var first = greeting?().flatMap(ControlWire.lineBytes)
        if first == nil {
            if greeting != nil { logger?.error("\(name): the watch greeting is not one line; sent the default") }
            first = ControlWire.lineBytes(ControlWire.defaultGreeting)
        }
        c.phase = .watching
        c.input = []
        c.inputDone = inputDone
        c.lines = [first!]
        c.written = 0
        logger?.debug("\(name): a watcher connected")
        flushWatcher(&c)
    }

    /// Traffic on a watcher: its hang-up ends it; what it sends is read away; room in its
    /// socket takes more of its lines.
    func serveWatcher(_ c: inout Connection, revents: Int32) {
        if revents & (POLLHUP | POLLERR) != 0 {
            logger?.debug("\(name): a watcher left")
            finish(&c)
            return
        }
        if revents & POLLIN != 0 {
            // A bounded amount each time: a watcher that sends without end cannot hold the thread.
            var scrap = [UInt8](repeating: 0, count: 4096)
            for _ in 0..<16 {
                let n = scrap.withUnsafeMutableBytes { recv(c.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if n > 0 { continue }
                if n == 0 {
                    c.inputDone = true  // it shut its sending side; it may still read
                    break
                }
                let code = errno
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK { break }
                finish(&c)
                return
            }
        }
        if revents & POLLOUT != 0 { flushWatcher(&c) }
    }

    /// Writes what it can of a watcher's lines without waiting; closes a watcher being
    /// dropped once its last line is out, and one that left.
    func flushWatcher(_ c: inout Connection) {
        guard c.phase == .watching else { return }
        while let line = c.lines.first {
            let n = line[c.written...].withUnsafeBytes { send(c.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n > 0 {
                c.written += n
                if c.written == line.count {
                    c.lines.removeFirst()
                    c.written = 0
                }
                continue
            }
            let code = errno
            if n < 0 && code == EINTR { continue }
            if n < 0 && (code == EAGAIN || code == EWOULDBLOCK) { return }
            finish(&c)  // EPIPE, ECONNRESET: the watcher left
            return
        }
        if c.ending { finish(&c) }
    }

    /// A watcher more than `watcherBacklog` lines behind: the lines waiting are dropped (but
    /// the one partly sent, so that no half line comes before it) and it gets one last line
    /// that says so, with `clientTimeout` to take it.
    func dropSlowWatcher(_ c: inout Connection, now: ContinuousClock.Instant) {
        let id = c.id
        state.withLock { s in s.watchers.removeAll { $0.id == id } }
        c.lines.removeSubrange((c.written > 0 ? 1 : 0)...)
        let reason = "too slow: more than \(watcherBacklog) lines were waiting for this watcher; it missed them and is disconnected"
        c.lines.append(ControlWire.lineBytes(ControlWire.watcherError(reason))!)
        c.ending = true
        c.deadline = now + clientTimeout
        warn("slow watcher", "\(name): dropped a watcher more than \(watcherBacklog) lines behind")
        flushWatcher(&c)
    }
}
