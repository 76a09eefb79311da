#if canImport(Glibc)
import Glibc
#endif
import HAL
import LinuxHardware
import Synchronization
import TestSupport
import Testing

/// Keys in the terminal, against a pseudo-terminal: the test types into the master, the
/// controls read the slave as they would stdin.
@Suite("Control keys in the terminal")
struct ControlTerminalTests {
    @Test("w, p, p, s become waypoint, pause, resume, stop, in order; the terminal is restored on stop")
    func keys() async throws {
        let pty = try PseudoTerminal(raw: false)
        let before = pty.localFlags
        #expect(before & tcflag_t(ICANON) != 0 && before & tcflag_t(ECHO) != 0)
        let recorder = ControlRecorder()
        let keys = TerminalControls(input: pty.slave, output: recorder.output)
        keys.start(recorder.handler)
        #expect(keys.isActive)
        let during = pty.localFlags
        #expect(during & tcflag_t(ICANON) == 0, "canonical mode is off")
        #expect(during & tcflag_t(ECHO) == 0, "echo is off")
        #expect(during & tcflag_t(ISIG) != 0, "Ctrl-C still interrupts")

        let expected: [ControlCommand] = [.markWaypoint, .pause, .resume, .stop]
        for (i, key) in ["w", "p", "p", "s"].enumerated() {
            pty.type(key)
            #expect(await eventually { recorder.commands.count == i + 1 }, "key \(key)")
        }
        #expect(recorder.commands == expected)
        #expect(await eventually { recorder.printed.count == 4 })
        #expect(recorder.printed == expected.map { "ok \($0.line)" })

        keys.stop()
        #expect(!keys.isActive)
        #expect(pty.localFlags == before, "the original settings are back")
        keys.stop()
    }

    @Test("a handler that stops the keys from their own thread: no hang, the terminal restored")
    func stopFromHandler() async throws {
        let pty = try PseudoTerminal(raw: false)
        let before = pty.localFlags
        let recorder = ControlRecorder()
        let box = Mutex<TerminalControls?>(nil)
        let keys = TerminalControls(input: pty.slave, output: recorder.output)
        box.withLock { $0 = keys }
        keys.start { command, reply in
            recorder.handler(command, reply)
            if command == .stop { box.withLock { $0 }?.stop() }
        }
        pty.type("s")
        #expect(await eventually { !keys.isActive })
        #expect(recorder.commands == [.stop])
        #expect(pty.localFlags == before)
        keys.stop()
        box.withLock { $0 = nil }
    }

    @Test("? and h print the keys; escape sequences and other keys do nothing")
    func helpAndOtherKeys() async throws {
        let pty = try PseudoTerminal(raw: false)
        let recorder = ControlRecorder()
        let keys = TerminalControls(input: pty.slave, output: recorder.output)
        keys.start(recorder.handler)
        defer { keys.stop() }
        pty.type("?")
        #expect(await eventually { recorder.printed == [TerminalControls.help] })
        // F1 (ESC O P), up arrow (ESC [ A), F5 (ESC [ 1 5 ~), Alt-s (ESC s), x: nothing.
        pty.type("\u{1B}OP\u{1B}[A\u{1B}[15~\u{1B}sx")
        pty.type("h")
        #expect(await eventually { recorder.printed.count == 2 })
        #expect(recorder.printed == [TerminalControls.help, TerminalControls.help])
        #expect(recorder.commands.isEmpty)
        pty.type("W")
        #expect(await eventually { recorder.commands == [.markWaypoint] })
    }

    @Test("p follows the runtime's pause state when told it; w leaves the name to the device")
    func pauseStateAndNames() async throws {
        let pty = try PseudoTerminal(raw: false)
        let recorder = ControlRecorder()
        let keys = TerminalControls(input: pty.slave, isPaused: { true }, output: recorder.output)
        keys.start(recorder.handler)
        defer { keys.stop() }
        pty.type("p")
        #expect(await eventually { recorder.commands.count == 1 })
        pty.type("p")
        #expect(await eventually { recorder.commands.count == 2 })
        pty.type("w")
        #expect(await eventually { recorder.commands.count == 3 })
        #expect(recorder.commands == [.resume, .resume, .markWaypoint])
    }

    @Test("when the input is not a terminal, start does nothing")
    func notATerminal() async throws {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        defer {
            close(ends[0])
            close(ends[1])
        }
        let recorder = ControlRecorder()
        let keys = TerminalControls(input: ends[0], output: recorder.output)
        keys.start(recorder.handler)
        #expect(!keys.isActive)
        _ = write(ends[1], "wps", 3)
        #expect(await holdsThroughout(.milliseconds(100)) { recorder.commands.isEmpty })
        keys.stop()
    }

    @Test("stop is prompt with no key pressed, and the terminal closing ends the reader quietly")
    func stopAndHangUp() async throws {
        let pty = try PseudoTerminal(raw: false)
        let before = pty.localFlags
        let recorder = ControlRecorder()
        let keys = TerminalControls(input: pty.slave, output: recorder.output)
        keys.start(recorder.handler)
        let (_, took) = elapsed { keys.stop() }
        #expect(took < .seconds(2))
        #expect(pty.localFlags == before)

        // A second pty whose master goes away (the ssh session dropped).
        let other = try PseudoTerminal(raw: false)
        let log = LogRecorder()
        let keys2 = TerminalControls(input: other.slave, output: recorder.output, logger: log.logger)
        keys2.start(recorder.handler)
        #expect(keys2.isActive)
        other.closeMaster()
        #expect(await eventually { log.messages.contains("the terminal closed; no more keys") }, "\(log.messages)")
        let (_, took2) = elapsed { keys2.stop() }
        #expect(took2 < .seconds(2))
        #expect(recorder.commands.isEmpty)
    }
}

extension PseudoTerminal {
    /// Keys typed into the terminal.
    func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(master, $0.baseAddress, $0.count) }
    }

    /// The slave's local modes (ICANON, ECHO…).
    var localFlags: tcflag_t {
        var t = termios()
        _ = tcgetattr(slave, &t)
        return t.c_lflag
    }
}
