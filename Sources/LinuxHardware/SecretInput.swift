#if canImport(Glibc)
import Glibc
#endif

/// A secret typed at the terminal (`pacer companion password`): read as a line with the
/// terminal's echo off, so that it is never on the screen or in a screen recording, and the
/// echo back on afterwards, however the read ends (an interrupt included). From a pipe or a
/// file it is read as a line, as before.
public enum SecretInput {
    /// The terminal's settings while echo is off, for the interrupt handler (which may only
    /// call async-signal-safe functions: `tcsetattr`, `signal`, `raise`).
    nonisolated(unsafe) private static var saved = termios()

    /// The first line of standard input, without its newline; nil at the end of input.
    /// `prompt` goes to standard error when standard input is a terminal.
    public static func readLine(prompt: String) -> String? {
        guard isatty(STDIN_FILENO) == 1 else { return Swift.readLine(strippingNewline: true) }
        var original = termios()
        guard tcgetattr(STDIN_FILENO, &original) == 0 else { return Swift.readLine(strippingNewline: true) }
        var quiet = original
        quiet.c_lflag &= ~tcflag_t(ECHO | ECHOE | ECHOK | ECHONL)
        saved = original
        let previousInterrupt = signal(SIGINT) { signal in
            _ = tcsetattr(STDIN_FILENO, TCSANOW, &SecretInput.saved)
            _ = Glibc.signal(signal, SIG_DFL)
            _ = raise(signal)
        }
        TerminalRestore.remember(STDIN_FILENO, original)
        _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
        // Asked once the echo is off: nothing typed after the prompt shows.
        ControlIO.writeAll(STDERR_FILENO, prompt)
        defer {
            _ = tcsetattr(STDIN_FILENO, TCSANOW, &original)
            TerminalRestore.forget(STDIN_FILENO)
            _ = signal(SIGINT, previousInterrupt)
            // The newline the typist pressed was not echoed.
            ControlIO.writeAll(STDERR_FILENO, "\n")
        }
        return Swift.readLine(strippingNewline: true)
    }
}
