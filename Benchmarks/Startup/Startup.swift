// Start-up: wall time of whole `pacer` processes, spawned and waited for, as a script or the
// device's systemd unit starts them. The binary is `PACER_BINARY`, else the package's release
// build (../.build/release/pacer); build it first (scripts/build-release.sh, as the Debian
// package does).
//
// Instructions per start are not here: a child's instructions are not counted by the
// harness's in-process counters. scripts/bench-startup.sh gives them with callgrind, beside
// hyperfine's wall times and gpsdecode's for scale (docs/measured.md).
//
//   cd Benchmarks && swift package --disable-sandbox benchmark --target Startup

import Benchmark

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput],
        warmupIterations: 5,
        scalingFactor: .one,
        maxDuration: .seconds(3),
        maxIterations: 500)

    let binary = Startup.binary
    let empty = Startup.emptyFile()
    let cases: [(name: String, arguments: [String])] = [
        ("pacer --version", ["--version"]),
        ("pacer version (opens libasound to report it)", ["version"]),
        ("pacer nmea decode --json of an empty file", ["nmea", "decode", "--json", empty]),
    ]
    for item in cases {
        Benchmark("Start-up: \(item.name)") { benchmark in
            for _ in benchmark.scaledIterations {
                let status = Startup.run(binary, item.arguments)
                precondition(status == 0, "\(binary) \(item.arguments.joined(separator: " ")) exited \(status)")
            }
        }
    }
}

enum Startup {
    /// The binary measured.
    static let binary: String = {
        if let path = getenv("PACER_BINARY") { return String(cString: path) }
        // This file is Benchmarks/Startup/Startup.swift; the repository root is two folders up.
        let here = #filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast(3)
        return here.joined(separator: "/") + "/.build/release/pacer"
    }()

    /// An empty NMEA file in the temporary folder, made once.
    static func emptyFile() -> String {
        let path = "/tmp/pacer-startup-benchmark-empty.nmea"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        precondition(fd >= 0, "cannot make \(path)")
        close(fd)
        return path
    }

    /// Spawns `binary arguments` with its output to /dev/null and waits: its exit status.
    static func run(_ binary: String, _ arguments: [String]) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([binary] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, binary, &actions, nil, argv, environ)
        precondition(spawned == 0, "cannot start \(binary): \(String(cString: strerror(spawned)))")
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
