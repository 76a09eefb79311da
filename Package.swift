// swift-tools-version:6.0
// Pacer: firmware for a GPS running-coach device, and the simulator to develop it on.
//
// Layers, inner to outer (an inner target never imports an outer one):
//   PacerCore (domain, pure Swift) -> Coaching (plans, coach) -> Charts (SVG and HTML, no I/O)
//   PacerCore -> NMEA (parsing) -> HAL (protocols)
//   Coaching, HAL -> Runtime (the device's loop, on the HAL alone)
//   HAL -> adapters: LinuxHardware (libgps, termios, libasound, sysfs) | Simulation
//   Coaching -> Storage (SQLite; GPX, TCX and FIT files)
//   adapters, Runtime, Storage -> Configurator (the one place that picks adapters)
//   Configurator, Charts -> ScenarioRunner | Companion (the companion page's HTTP server)
//   all of them -> PacerCLI (`pacer`)
// The system libraries' wrappers: CGPS, CALSA, CESpeak, CSDBus and CLinuxInput for LinuxHardware,
// CLibXML2 for Storage, CCrypt for Companion. TestSupport is for the test targets only.
// ARCHITECTURE.md draws the graph and gives the reasons.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

// libxml2's headers are in a folder of their own, /usr/include/libxml2 (the arm64 sysroot's in
// the cross build, whose PKG_CONFIG_SYSROOT_DIR scripts/lib/cross.sh sets): what `pkg-config
// --cflags libxml-2.0` says. CLibXML2 does not name pkg-config, whose --libs SwiftPM would link
// (-lxml2), and libxml2 is opened at first use. Given to Storage, which imports CLibXML2
// `internal`ly, and to the tests that see Storage's internals (@testable).
let libxml2Headers: SwiftSetting = .unsafeFlags([
    "-Xcc", "-I" + (Context.environment["PKG_CONFIG_SYSROOT_DIR"] ?? "") + "/usr/include/libxml2",
])

let package = Package(
    name: "Pacer",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "pacer", targets: ["PacerCLI"]),
        .library(name: "NMEA", targets: ["NMEA"]),
    ],
    // Each dependency at the exact version built and tested (issue 42): Package.resolved
    // cannot be kept in the repository (it is git-ignored: this machine fetches packages from
    // local mirrors, whose commit ids are not GitHub's), so without these a fresh clone took
    // whatever newer release there was. Their own dependencies are still resolved within the
    // ranges these versions ask for. To move one: change it here, build, run scripts/test.sh.
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/jpsim/Yams", exact: "6.2.2"),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        // The companion page's HTTP server, on SwiftNIO.
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        // Hummingbird's own SwiftNIO: the page's connection guards are NIO channel handlers.
        .package(url: "https://github.com/apple/swift-nio.git", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", exact: "1.35.2"),
        // Hummingbird's own service lifecycle: the page's server is shut down gracefully.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", exact: "2.13.0"),
        // The companion page's multipart/form-data parser (its uploads).
        .package(url: "https://github.com/vapor/multipart-kit", exact: "4.7.1"),
    ],
    targets: [
        // Domain: fixes, coordinates, UTC time, geodesy. No I/O, no Foundation, no C.
        .target(name: "PacerCore", swiftSettings: swiftSettings),
        // Training plans, the pace coach and activity records. Pure Swift, no I/O.
        .target(name: "Coaching", dependencies: ["PacerCore"], swiftSettings: swiftSettings),
        // Charts and reports: SVG and self-contained HTML pages built from plain values (an
        // activity's record, a route, a comparison's rows). Pure Swift, no I/O: the command line
        // turns the store's records into its inputs and writes what it returns.
        .target(name: "Charts", dependencies: ["Coaching", "PacerCore"], swiftSettings: swiftSettings),
        // NMEA 0183 engine: streaming framer, sentence parsers, epoch assembly. No I/O.
        .target(name: "NMEA", dependencies: ["PacerCore"], swiftSettings: swiftSettings),
        // Hardware abstraction layer: one small protocol per peripheral.
        .target(name: "HAL", dependencies: ["PacerCore", "NMEA"], swiftSettings: swiftSettings),

        // System libraries, wrapped the SwiftPM way; only LinuxHardware imports them (and
        // Companion libxcrypt, Storage libxml2, below). libgps, libasound, libespeak-ng,
        // libsystemd and libxml2 give their headers only: they are opened at first use (LinuxHardware's
        // DynamicLibrary, Storage's LibXML2), not linked, so that the commands that use none of
        // them do not load them, and the dozens of libraries they need, at each start. Their
        // headers are in the default include path (/usr/include and the cross sysroot's;
        // libxml2's: `libxml2Headers` above), so no pkg-config, whose flags would link them.
        .systemLibrary(
            name: "CGPS",
            providers: [.apt(["libgps-dev"])]),
        .systemLibrary(
            name: "CALSA",
            providers: [.apt(["libasound2-dev"])]),
        // espeak-ng, the speech engine behind `espeak:` speakers.
        .systemLibrary(
            name: "CESpeak",
            providers: [.apt(["libespeak-ng-dev", "espeak-ng-data"])]),

        // libsystemd's sd-bus: the D-Bus client the BlueZ heart-rate source talks to
        // bluetoothd with (headers only, libsystemd opened when a strap is first looked for).
        .systemLibrary(
            name: "CSDBus",
            providers: [.apt(["libsystemd-dev"])]),

        // libxcrypt (crypt_r, crypt_gensalt_rn): the companion page's password hash.
        .systemLibrary(
            name: "CCrypt", pkgConfig: "libcrypt",
            providers: [.apt(["libcrypt-dev"])]),

        // libxml2's SAX2 parser (the library FoundationXML's XMLParser runs on), read directly by
        // the GPX reader: no String or dictionary per element. Opened when a GPX file
        // is first read (Storage's LibXML2).
        .systemLibrary(
            name: "CLibXML2",
            providers: [.apt(["libxml2-dev"])]),

        // The kernel's input events (<linux/input.h>), read by the button adapter.
        .target(name: "CLinuxInput"),

        // Real Linux hardware behind the HAL.
        .target(
            name: "LinuxHardware",
            dependencies: ["HAL", "NMEA", "PacerCore", "CGPS", "CALSA", "CESpeak", "CSDBus", "CLinuxInput",
                           .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings),
        // Simulated hardware behind the same HAL: virtual clock, NMEA replay, WAV and
        // recording buzzers, simulated battery; the NMEA synthesizer for scenario recordings.
        .target(
            name: "Simulation",
            dependencies: ["HAL", "NMEA", "PacerCore", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings),
        // The runtime loop: drives the coach and the recording from the HAL. Uses only the HAL.
        .target(
            name: "Runtime",
            dependencies: ["Coaching", "HAL", "PacerCore", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings),
        // Persistence (SQLite through GRDB) and exchange formats (GPX). Knows nothing of the
        // reports: the command line turns its records into Charts' inputs.
        .target(
            name: "Storage",
            dependencies: ["Coaching", "PacerCore", "CLibXML2", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings + [libxml2Headers]),

        // The configurator factory: reads settings and profiles (YAML), builds the HAL objects.
        // The only target that chooses between real and simulated adapters.
        .target(
            name: "Configurator",
            dependencies: [
                "HAL", "LinuxHardware", "Simulation", "Storage", "Runtime", "Coaching", "PacerCore", "NMEA",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),

        // Scenarios: scripted, deterministic runs of the firmware on recorded NMEA, built
        // through the configurator with the simulation adapters, checked against goldens.
        .target(
            name: "ScenarioRunner",
            dependencies: [
                "Configurator", "Runtime", "Storage", "Simulation", "HAL", "NMEA", "Coaching", "PacerCore", "Charts",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),

        // The companion page: an HTTP server in the device process, for the runner's
        // phone or laptop on the board's Wi-Fi. Its pages answer through the same stores and
        // checks as the command line.
        .target(
            name: "Companion",
            dependencies: [
                "Configurator", "Storage", "Runtime", "Charts", "HAL", "Coaching", "PacerCore", "CCrypt",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),

        // The `pacer` command line.
        .executableTarget(
            name: "PacerCLI",
            dependencies: [
                "PacerCore", "NMEA", "HAL", "Configurator", "Simulation", "Storage", "Runtime", "Coaching",
                "ScenarioRunner", "Charts", "Companion",
                // The control socket's client and error types, and the stop signals; the
                // adapters themselves are picked by the Configurator alone.
                "LinuxHardware",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings,
            // For a fast start. --no-export-dynamic: the toolchain's static-stdlib link line
            // would put every public symbol of the executable in the dynamic symbol table,
            // which each shared library's symbol lookups search first and the runtime's dladdr
            // walks at start; nothing resolves pacer's own symbols by name, and a crash's
            // addresses are symbolised from the unstripped build. lld (the toolchain's, as in
            // the arm64 cross build) with pack-relative-relocs stores the relative relocations
            // as DT_RELR (glibc 2.36: Debian 12 and later), a bitmap the loader reads instead of
            // one record per relocation. docs/measured.md has the figures.
            linkerSettings: [.unsafeFlags([
                "-use-ld=lld", "-Xlinker", "--no-export-dynamic", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
            ])]),

        // What the test targets share: temporary folders, free loopback ports and a fake gpsd,
        // pseudo-terminals, NMEA sentences with checksums, reading an ALSA file capture, and
        // running programs (the built `pacer` among them). Only test targets depend on it, so
        // it is in no product; it needs nothing but Foundation.
        .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: swiftSettings),

        .testTarget(name: "PacerCoreTests", dependencies: ["PacerCore"], swiftSettings: swiftSettings),
        .testTarget(name: "CoachingTests", dependencies: ["Coaching", "PacerCore"], swiftSettings: swiftSettings),
        .testTarget(name: "ChartsTests", dependencies: ["Charts", "Coaching", "PacerCore"], swiftSettings: swiftSettings),
        .testTarget(
            name: "RuntimeTests",
            dependencies: ["Runtime", "Coaching", "HAL", "Simulation", "Storage", "PacerCore", "TestSupport"],
            swiftSettings: swiftSettings),
        // Runs the built `pacer` executable as a person would (it must be built first:
        // `swift build --build-tests` builds it with the tests). Storage reads the GPX that
        // other tools (gpsbabel) write.
        .testTarget(
            name: "EndToEndTests", dependencies: ["PacerCore", "Storage", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "StorageTests", dependencies: ["Storage", "Coaching", "PacerCore", "Charts", "TestSupport"],
            swiftSettings: swiftSettings + [libxml2Headers]),
        .testTarget(name: "NMEATests", dependencies: ["NMEA", "PacerCore", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "HALTests", dependencies: ["HAL", "Simulation", "NMEA", "PacerCore"], swiftSettings: swiftSettings),
        .testTarget(
            name: "LinuxHardwareTests",
            dependencies: [
                "LinuxHardware", "HAL", "Simulation", "NMEA", "PacerCore", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "SimulationTests", dependencies: ["Simulation", "HAL", "NMEA", "PacerCore", "TestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "ScenarioRunnerTests",
            dependencies: [
                "ScenarioRunner", "Configurator", "Coaching", "Storage", "PacerCore", "Charts", "HAL", "TestSupport",
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "CompanionTests",
            dependencies: ["Companion", "Configurator", "Storage", "Runtime", "Coaching", "HAL", "PacerCore", "TestSupport",
                           .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "ConfiguratorTests",
            dependencies: ["Configurator", "Coaching", "HAL", "LinuxHardware", "Simulation", "PacerCore", "NMEA",
                           "Runtime", "Storage", "TestSupport"],
            swiftSettings: swiftSettings),
    ],
    swiftLanguageModes: [.v6]
)

// The libFuzzer targets (Fuzz/), one per input the device reads from outside: NMEA bytes, the
// YAML data files, GPX files, TCX files, FIT files (activities and workouts), control-socket lines, the companion page's HTTP requests and a heart-rate strap's notifications. They exist only when PACER_FUZZ is set,
// so `swift build` and `swift test` never see them; `scripts/fuzz.sh` sets it and builds them
// with `--sanitize=fuzzer --sanitize=address` into a build folder of their own
// (`.build/fuzz`), each linking the package's own modules as the `pacer` binary does.
if Context.environment["PACER_FUZZ"] != nil {
    let fuzzTargets: [(name: String, folder: String, dependencies: [Target.Dependency])] = [
        ("FuzzNMEADecoder", "Fuzz/NMEADecoder", ["NMEA", "PacerCore"]),
        ("FuzzDataFiles", "Fuzz/DataFiles",
         ["Configurator", "ScenarioRunner", "Simulation", .product(name: "Yams", package: "Yams")]),
        ("FuzzGPXReader", "Fuzz/GPXReader", ["Storage", "Coaching", "Configurator", "PacerCore"]),
        ("FuzzControlProtocol", "Fuzz/ControlProtocol", ["HAL"]),
        ("FuzzHeartRateMeasurement", "Fuzz/HeartRateMeasurement", ["HAL"]),
        ("FuzzFITReader", "Fuzz/FITReader", ["Storage", "Coaching", "PacerCore"]),
        ("FuzzTCXReader", "Fuzz/TCXReader", ["Storage", "Simulation", "PacerCore"]),
        ("FuzzFITWorkoutReader", "Fuzz/FITWorkoutReader", ["Storage", "Configurator", "Coaching", "PacerCore"]),
        ("FuzzCompanionHTTP", "Fuzz/CompanionHTTP",
         ["Companion", "Configurator", "HAL", "Runtime", "Storage", .product(name: "Logging", package: "swift-log")]),
    ]
    for target in fuzzTargets {
        package.targets.append(.executableTarget(
            name: target.name, dependencies: target.dependencies, path: target.folder, swiftSettings: swiftSettings))
        package.products.append(.executable(name: target.name, targets: [target.name]))
    }
}
