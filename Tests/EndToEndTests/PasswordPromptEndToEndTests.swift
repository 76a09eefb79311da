import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import Testing

/// `pacer companion password` at a terminal: what is typed is not echoed.
@Suite("password prompt, end to end")
struct PasswordPromptEndToEndTests {
    @Test func aPasswordTypedAtTheTerminalIsNotEchoed() async throws {
        let folder = TemporaryDirectory()
        let terminal = try PseudoTerminal(raw: false)
        defer { terminal.close() }
        let running = try Pacer.start(["companion", "password", "--data-dir", folder.path],
                                      standardInput: FileHandle(fileDescriptor: terminal.slave, closeOnDealloc: false))
        let output = running.follow()
        // The prompt comes once the echo is off.
        #expect(output.stderr(within: .seconds(20), contains: "New password"))
        let typed = "correct horse battery\n"
        _ = typed.withCString { write(terminal.master, $0, strlen($0)) }
        #expect(running.waitForExit(within: .seconds(20)))
        #expect(running.process.terminationStatus == 0, "\(output.stderr)")
        // What the terminal showed the typist: nothing of the password.
        let flags = fcntl(terminal.master, F_GETFL)
        _ = fcntl(terminal.master, F_SETFL, flags | O_NONBLOCK)
        var shown = [UInt8](repeating: 0, count: 4096)
        let n = read(terminal.master, &shown, shown.count)
        let echoed = n > 0 ? String(decoding: shown[0..<n], as: UTF8.self) : ""
        #expect(!echoed.contains("horse"), "echoed: \(echoed)")
        let check = try Pacer.run(["companion", "password", "--generate", "--if-unset", "--data-dir", folder.path])
        #expect(check.stdout.contains("a password is set already"), "\(check.stdout)")
    }
}
