// swift-tools-version:6.1
// Benchmarks for Pacer, kept in a package of their own so that package-benchmark
// (github.com/ordo-one/benchmark) and its malloc interposer never become a dependency of the
// firmware.
//
//   cd Benchmarks && swift package --disable-sandbox benchmark
//
// Each benchmark target lives in Benchmarks/<Target>/<Target>.swift (this directory is the
// `Benchmarks` the plugin looks for: it runs every executable target whose sources sit in a
// directory named so).
import PackageDescription

// A path dependency's identity is the name of its directory, which is whatever the checkout
// was cloned as (`main`, `pacer`, ...): derive it rather than hard-code it.
let rootPackage = String(Context.packageDirectory.split(separator: "/").dropLast().last ?? "pacer")

let package = Package(
    name: "PacerBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: ".."),
        // The MallocInterposer trait only: it gives mallocCountTotal without jemalloc. The
        // default RuntimeInterposer trait (ARC counters on Linux with Swift 6.3) needs a
        // package the mirror does not carry, and the NMEA engine's ARC traffic is not the
        // question here.
        .package(
            url: "https://github.com/ordo-one/benchmark", from: "1.38.1",
            traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "NMEAParsing",
            dependencies: [
                .product(name: "NMEA", package: rootPackage),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "NMEAParsing",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]),
        // Start-up of whole `pacer` processes (spawned; the binary is PACER_BINARY or the
        // repository's release build). It imports nothing of Pacer's.
        .executableTarget(
            name: "Startup",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Startup",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
