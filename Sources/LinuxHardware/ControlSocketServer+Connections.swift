#if canImport(Glibc)
import Glibc
#endif
import HAL
import Logging
import Synchronization

/// The server thread: one `poll` loop over the listener, the wake-up pipe and every
/// connection; a command connection reads its line, waits for the handler's reply, writes it
/// and closes. Watchers are served in `ControlSocketServer+Watchers.swift`.
extension ControlSocketServer {

    enum Phase {
        case reading
        case awaitingReply
        case writing
        /// A watcher: sent `watch`, gets the published lines.
        case watching
        case closed
    }

    struct Connection {
        let fd: Int32
        let id: UInt64
        var phase = Phase.reading
        var deadline: ContinuousClock.Instant
        var input: [UInt8] = []
        var output: [UInt8] = []
        /// Of `output`, or of a watcher's first line.
        var written = 0
        /// A watcher's lines not sent yet, oldest first, each with its `\n`: the first may be
        /// partly sent (`written`).
        var lines: [[UInt8]] = []
        /// The watcher is being dropped: closed once its last line is out, or at `deadline`.
        var ending = false
        /// The watcher shut its sending side (`nc -N`): it may still read, but its input is
        /// not polled from then on.
        var inputDone = false
    }

    var isStopping: Bool { state.withLock { $0.stopping } }

    func serve(listener: Int32, wake: WakePipe, handler: @escaping Handler) {
        let clock = ContinuousClock()
        var connections: [Connection] = []
        var nextID: UInt64 = 0
        var buffer = [UInt8](repeating: 0, count: 512)
        var fds: [pollfd] = []
        defer {
            for c in connections where c.phase != .closed { close(c.fd) }
        }

        while true {
            let now = clock.now
            var timeout: Int32 = -1
            fds.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0))
            fds.append(pollfd(fd: listener, events: Int16(POLLIN), revents: 0))
            for c in connections {
                let events: Int32 = switch c.phase {
                case .reading: POLLIN
                case .writing: POLLOUT
                case .watching: (c.inputDone ? 0 : POLLIN) | (c.lines.isEmpty ? 0 : POLLOUT)
                case .awaitingReply, .closed: 0
                }
                // A connection waiting for the handler is not polled: its peer's hang-up
                // would report at once, again and again. A watcher always is: its hang-up
                // (reported whatever is asked) is how it leaves.
                let polled = events != 0 || c.phase == .watching
                fds.append(pollfd(fd: polled ? c.fd : -1, events: Int16(events), revents: 0))
                // A watcher has no deadline while it keeps up: the device may be quiet for long.
                if c.phase != .watching || c.ending { timeout = ControlIO.earliest(timeout, c.deadline - now) }
            }
            if poll(&fds, nfds_t(fds.count), timeout) < 0 {
                let code = errno
                if code == EINTR { continue }
                logger?.error("\(name): poll failed: \(ControlIO.describe(code)); the control socket stops serving")
                return
            }
            if fds[0].revents != 0 { wake.drain() }

            // Replies: they turn waiting connections into writing ones. Replies given before
            // `stop` are still written (at once, without waiting: a line fits in the socket's
            // buffer), so `pacer ctl stop` hears its answer when the device stops right after.
            let (replies, stopping, published) = state.withLock { s in
                defer { s.replies.removeAll() }
                var published: [WatchQueue] = []
                for i in s.watchers.indices where !s.watchers[i].lines.isEmpty || s.watchers[i].overflowed {
                    published.append(s.watchers[i])
                    s.watchers[i].lines.removeAll()
                }
                return (s.replies, s.stopping, published)
            }
            for (id, text) in replies {
                guard let i = connections.firstIndex(where: { $0.id == id && $0.phase == .awaitingReply }) else { continue }
                respond(&connections[i], text, now: clock.now)
            }
            // Published lines: to their watchers, in order; a watcher too far behind is dropped.
            for queue in published {
                guard let i = connections.firstIndex(where: { $0.id == queue.id && $0.phase == .watching }),
                      !connections[i].ending else { continue }
                if queue.overflowed || connections[i].lines.count + queue.lines.count > watcherBacklog {
                    dropSlowWatcher(&connections[i], now: clock.now)
                } else {
                    connections[i].lines.append(contentsOf: queue.lines)
                    flushWatcher(&connections[i])
                }
            }
            if stopping {
                // What is published is written now, at once; then the watchers read the end.
                for i in connections.indices where connections[i].phase == .watching {
                    flushWatcher(&connections[i])
                    finish(&connections[i])
                }
                return
            }

            // Traffic on the connections polled.
            for i in connections.indices {
                let revents = Int32(fds[2 + i].revents)
                guard revents != 0 else { continue }
                switch connections[i].phase {
                case .reading:
                    read(&connections[i], buffer: &buffer, handler: handler, clock: clock)
                case .writing:
                    flush(&connections[i])
                case .watching:
                    serveWatcher(&connections[i], revents: revents)
                case .awaitingReply, .closed:
                    break
                }
            }

            if isStopping { continue }  // a handler stopped the server: write its reply, end

            // New clients.
            if fds[1].revents & Int16(POLLIN) != 0 {
                while true {
                    let fd = accept(listener, nil, nil)
                    if fd < 0 {
                        let code = errno
                        if code == EINTR || code == ECONNABORTED { continue }
                        if code != EAGAIN && code != EWOULDBLOCK {
                            // EMFILE and the like: stop accepting for a moment, not spin.
                            warn("accept", "\(name): cannot accept: \(ControlIO.describe(code))")
                            _ = poll(nil, 0, 100)
                        }
                        break
                    }
                    // (accept4 is not in Swift's Glibc; a child spawned in between could
                    // inherit this descriptor, which is harmless.)
                    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                    _ = fcntl(fd, F_SETFL, O_NONBLOCK)
                    let open = connections.reduce(0) { $0 + ($1.phase == .closed || $1.phase == .watching ? 0 : 1) }
                    if open >= maximumClients {
                        ControlIO.sendOnce(fd, ControlWire.busy)
                        close(fd)
                        warn("busy", "\(name): \(open) clients already; refused one")
                        continue
                    }
                    connections.append(Connection(fd: fd, id: nextID, deadline: clock.now + clientTimeout))
                    nextID &+= 1
                }
            }

            // Deadlines.
            let later = clock.now
            for i in connections.indices where connections[i].phase != .closed && connections[i].deadline <= later {
                switch connections[i].phase {
                case .reading:
                    ControlIO.sendOnce(connections[i].fd, ControlWire.noCommand(within: clientTimeout))
                    logger?.debug("\(name): a client sent no command in time")
                    finish(&connections[i])
                case .awaitingReply:
                    let id = connections[i].id
                    state.withLock { _ = $0.awaiting.remove(id) }
                    warn("no reply", "\(name): no reply within \(ControlIO.text(replyTimeout))")
                    respond(&connections[i], ControlWire.noAnswer, now: later)
                case .writing:
                    logger?.debug("\(name): a client did not take its reply in time")
                    finish(&connections[i])
                case .watching:
                    // Only a watcher being dropped has a deadline: it did not take its last line.
                    if connections[i].ending { finish(&connections[i]) }
                case .closed:
                    break
                }
            }
            connections.removeAll { $0.phase == .closed }
        }
    }

    /// Reads what the client sent; on a full line, parses it and hands it to the handler.
    func read(
        _ c: inout Connection, buffer: inout [UInt8], handler: @escaping Handler, clock: ContinuousClock
    ) {
        let n = buffer.withUnsafeMutableBytes { recv(c.fd, $0.baseAddress, $0.count, 0) }
        if n < 0 {
            let code = errno
            if code == EINTR || code == EAGAIN || code == EWOULDBLOCK { return }
            finish(&c)
            return
        }
        if n == 0 && c.input.isEmpty {
            finish(&c)  // connected and hung up without a word (a probe, or `nc -z`)
            return
        }
        c.input.append(contentsOf: buffer[0..<n])
        var line: ArraySlice<UInt8>
        if let newline = c.input.firstIndex(of: UInt8(ascii: "\n")) {
            line = c.input[..<newline]
        } else if n == 0 {
            line = c.input[...]  // the last line, without its newline
        } else if c.input.count > ControlCommand.maximumLineLength + 1 {
            respond(&c, ControlWire.commandTooLong, now: clock.now)
            return
        } else {
            return
        }
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        guard let text = String(validating: line, as: UTF8.self) else {
            respond(&c, ControlWire.notUTF8, now: clock.now)
            return
        }
        // `watch` is the server's own: the connection stays open for the published lines.
        if let argument = ControlWire.watchArgument(text) {
            guard argument.isEmpty else {
                respond(&c, ControlWire.watchTakesNoArgument, now: clock.now)
                return
            }
            watch(&c, inputDone: n == 0, now: clock.now)
            return
        }
        let command: ControlCommand
        do {
            command = try ControlCommand(parsing: text)
        } catch {
            logger?.debug("\(name): refused '\(text)': \(error)")
            respond(&c, ControlWire.refused(error), now: clock.now)
            return
        }
        let id = c.id
        c.phase = .awaitingReply
        c.deadline = clock.now + replyTimeout
        state.withLock { s in
            s.awaiting.insert(id)
            s.served += 1
        }
        logger?.debug("\(name): \(command.line)")
        handler(command) { [weak self] reply in self?.deliver(reply, to: id) }
    }

    /// A reply from the handler, on any thread: the first one for a command counts.
    func deliver(_ reply: String, to id: UInt64) {
        state.withLock { s in
            guard !s.stopping, s.awaiting.remove(id) != nil, let wake = s.wake else { return }
            s.replies.append((id, reply))
            wake.poke()
        }
    }

    func respond(_ c: inout Connection, _ text: String, now: ContinuousClock.Instant) {
        c.output = Array(text.utf8)
        if c.output.last != UInt8(ascii: "\n") { c.output.append(UInt8(ascii: "\n")) }
        c.written = 0
        c.phase = .writing
        c.deadline = now + clientTimeout
        flush(&c)
    }

    /// Writes what it can of the reply without waiting; closes when all of it is out.
    func flush(_ c: inout Connection) {
        while c.written < c.output.count {
            let n = c.output[c.written...].withUnsafeBytes { send(c.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n > 0 {
                c.written += n
                continue
            }
            let code = errno
            if n < 0 && (code == EINTR) { continue }
            if n < 0 && (code == EAGAIN || code == EWOULDBLOCK) { return }
            finish(&c)  // EPIPE, ECONNRESET: the client left
            return
        }
        finish(&c)
    }

    /// Closes a connection. Input the client sent beyond its line is read away first, so
    /// that closing does not turn into a reset the client sees instead of the reply.
    func finish(_ c: inout Connection) {
        guard c.phase != .closed else { return }
        if c.phase == .watching {
            let id = c.id
            state.withLock { s in s.watchers.removeAll { $0.id == id } }
        }
        var scrap = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<16 {
            let n = scrap.withUnsafeMutableBytes { recv(c.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n <= 0 { break }
        }
        close(c.fd)
        c.phase = .closed
    }
}
