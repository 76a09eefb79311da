import Foundation
import Synchronization

// Running programs from the tests: tools (xmllint, sqlite3, python3, gpsbabel, bash) and the
// built `pacer` executable, as a person would run them.

/// How a program ended and what it wrote.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String

    /// Both outputs, stdout first (for messages).
    public var output: String { stdout + stderr }
}

/// A program started with its stdout and stderr on pipes of their own.
public final class RunningProcess: @unchecked Sendable {
    public let process: Process
    public let out = Pipe()
    public let err = Pipe()

    init(_ process: Process) {
        self.process = process
        process.standardOutput = out
        process.standardError = err
    }

    /// Reads both pipes to their end (stderr on a thread of its own, so neither fills up).
    public func standardOutputData() -> (Data, Data) {
        let errData = Mutex(Data())
        let done = DispatchSemaphore(value: 0)
        let handle = err.fileHandleForReading
        Thread {
            let data = handle.readDataToEndOfFile()
            errData.withLock { $0 = data }
            done.signal()
        }.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        done.wait()
        return (outData, errData.withLock { $0 })
    }

    /// Reads both pipes to their end and waits for the exit.
    public func finish() -> ProcessResult {
        let data = standardOutputData()
        process.waitUntilExit()
        return ProcessResult(status: process.terminationStatus, stdout: String(decoding: data.0, as: UTF8.self),
                             stderr: String(decoding: data.1, as: UTF8.self))
    }
}

/// Any program, by its path.
public enum Program {
    /// Starts `path ARGUMENTS` without waiting for it: in `directory` (else the test's own
    /// working folder), with `environment` (else the test's own).
    public static func start(
        _ path: String, _ arguments: [String], environment: [String: String]? = nil, in directory: String? = nil,
        standardInput: FileHandle? = nil
    ) throws -> RunningProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let standardInput { process.standardInput = standardInput }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if let environment { process.environment = environment }
        let running = RunningProcess(process)
        try process.run()
        return running
    }

    /// Runs `path ARGUMENTS` and waits for it.
    @discardableResult
    public static func run(
        _ path: String, _ arguments: [String], environment: [String: String]? = nil, in directory: String? = nil
    ) throws -> ProcessResult {
        try start(path, arguments, environment: environment, in: directory).finish()
    }
}

/// The built `pacer` executable, run as a child process.
public enum Pacer {
    /// `swift build --build-tests` puts `pacer` beside the test bundle.
    public static let executable: String = {
        let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var dir = me.deletingLastPathComponent()
        while dir.path != "/" {
            let candidate = dir.appendingPathComponent("pacer").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir.deleteLastPathComponent()
        }
        return "pacer-not-built"
    }()

    /// Runs `pacer ARGUMENTS` in the repository root (or `directory`) and waits for it.
    @discardableResult
    public static func run(
        _ arguments: [String], environment: [String: String] = [:], in directory: String? = nil
    ) throws -> ProcessResult {
        try start(arguments, environment: environment, in: directory).finish()
    }

    /// Starts `pacer ARGUMENTS` in the repository root (or `directory`) without waiting: with
    /// the test's environment less `PACER_CONFIG`, plus `environment`.
    public static func start(
        _ arguments: [String], environment: [String: String] = [:], in directory: String? = nil,
        standardInput: FileHandle? = nil
    ) throws -> RunningProcess {
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "PACER_CONFIG")
        for (k, v) in environment { env[k] = v }
        return try Program.start(executable, arguments, environment: env, in: directory ?? repositoryRoot,
                                 standardInput: standardInput)
    }
}

/// `body` on a thread of its own: a test waiting seconds on a child process (Chromium,
/// xmllint, `pacer`) does not hold one of the few threads (one a core) that every test's
/// tasks share, which timing tests elsewhere in the run need to be resumed on time.
public func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

extension Program {
    /// `run` on a thread of its own (see `offThePool`).
    public static func runOffThePool(_ path: String, _ arguments: [String]) async throws -> ProcessResult {
        try await offThePool { try run(path, arguments) }
    }
}

extension Pacer {
    /// `run` on a thread of its own (see `offThePool`).
    public static func runOffThePool(_ arguments: [String]) async throws -> ProcessResult {
        try await offThePool { try run(arguments) }
    }
}

extension RunningProcess {
    /// Waits (up to `timeout`) for the process to end; whether it did.
    public func waitForExit(within timeout: Duration) -> Bool {
        eventuallyBlocking(within: timeout, every: .milliseconds(20)) { !process.isRunning }
    }

    /// Starts reading both outputs as they come (instead of `finish` or
    /// `standardOutputData`), so that a test can wait for a line the process prints: its
    /// journal, a `pacer ctl watch` event.
    public func follow() -> FollowedOutput {
        FollowedOutput(out: out.fileHandleForReading, err: err.fileHandleForReading)
    }
}

/// A process's standard output and error, read on threads of their own as they come.
public final class FollowedOutput: Sendable {
    private struct Read {
        var out = Data()
        var err = Data()
        var ended = 0  // outputs at their end (of 2)
    }

    private let read = Mutex(Read())

    init(out: FileHandle, err: FileHandle) {
        for (handle, isOut) in [(out, true), (err, false)] {
            Thread { [self] in
                while true {
                    let data = handle.availableData
                    read.withLock { r in
                        if data.isEmpty { r.ended += 1 } else if isOut { r.out += data } else { r.err += data }
                    }
                    if data.isEmpty { return }
                }
            }.start()
        }
    }

    /// The standard output so far.
    public var stdout: String { read.withLock { String(decoding: $0.out, as: UTF8.self) } }

    /// The standard error so far.
    public var stderr: String { read.withLock { String(decoding: $0.err, as: UTF8.self) } }

    /// The standard output's whole lines so far.
    public var lines: [Substring] {
        let text = stdout
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { $0 }
    }

    /// Waits (up to `timeout`) until a whole line of the standard output satisfies `accept`;
    /// that line (nil when none came).
    public func line(within timeout: Duration = .seconds(10), where accept: (Substring) -> Bool) -> Substring? {
        polledBlocking(within: timeout, every: .milliseconds(10), { lines.first(where: accept) }, until: { $0 != nil })
    }

    /// Waits (up to `timeout`) until the standard error holds `text`; whether it came.
    public func stderr(within timeout: Duration = .seconds(10), contains text: String) -> Bool {
        eventuallyBlocking(within: timeout, every: .milliseconds(10)) { stderr.contains(text) }
    }

    /// Waits (up to `timeout`) for both outputs to end (the process closed them, as it does
    /// when it exits); whether they did.
    public func waitForEnd(within timeout: Duration = .seconds(30)) -> Bool {
        eventuallyBlocking(within: timeout, every: .milliseconds(10)) { read.withLock { $0.ended == 2 } }
    }
}
