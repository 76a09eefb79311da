import Foundation
import Synchronization

/// The `pacer` executable next to the test bundle, run as a child process.
enum Pacer {
    static let repositoryRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// `swift build --build-tests` puts `pacer` beside the test bundle.
    static let executable: String = {
        let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var dir = me.deletingLastPathComponent()
        while dir.path != "/" {
            let candidate = dir.appendingPathComponent("pacer").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir.deleteLastPathComponent()
        }
        return "pacer-not-built"
    }()

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `pacer ARGS` in the repository root (or `directory`) and waits for it.
    @discardableResult
    static func run(_ arguments: [String], environment: [String: String] = [:], in directory: String? = nil) throws -> Result {
        let process = try start(arguments, environment: environment, in: directory)
        let out = process.standardOutputData()
        process.process.waitUntilExit()
        return Result(status: process.process.terminationStatus, stdout: String(decoding: out.0, as: UTF8.self),
                      stderr: String(decoding: out.1, as: UTF8.self))
    }

    final class Running: @unchecked Sendable {
        let process: Process
        let out = Pipe()
        let err = Pipe()

        init(_ process: Process) {
            self.process = process
        }

        /// Reads both pipes to their end (stderr on a thread of its own, so neither fills up).
        func standardOutputData() -> (Data, Data) {
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
    }

    static func start(_ arguments: [String], environment: [String: String] = [:], in directory: String? = nil) throws -> Running {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory ?? repositoryRoot)
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "PACER_CONFIG")
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let running = Running(process)
        process.standardOutput = running.out
        process.standardError = running.err
        try process.run()
        return running
    }

    static func temporaryDirectory(_ name: String = #function) throws -> String {
        let dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("pacer-e2e-\(name.filter(\.isLetter))-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Starts a tool (`/bin/bash` for a pipeline) without waiting for it.
    static func startTool(_ path: String, _ arguments: [String]) throws -> Running {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: repositoryRoot)
        let running = Running(process)
        process.standardOutput = running.out
        process.standardError = running.err
        try process.run()
        return running
    }

    /// Runs a tool (`xmllint`, `/usr/bin/python3`) and returns its status and output.
    static func tool(_ path: String, _ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let running = Running(process)
        process.standardOutput = running.out
        process.standardError = running.err
        try process.run()
        let data = running.standardOutputData()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: data.0, as: UTF8.self),
                      stderr: String(decoding: data.1, as: UTF8.self))
    }
}
