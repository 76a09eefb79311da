import ArgumentParser
import Configurator
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import HAL
import PacerCore
import Storage
import Synchronization

struct GPSCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gps", abstract: "Work with the GPS.", subcommands: [Watch.self])

    struct Watch: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "watch",
            abstract: "Print fixes and status changes as they arrive (like gpspipe).",
            discussion: """
                The everyday way to check a GPS. With --json, fixes are the same JSON Lines as \
                `pacer nmea decode --json` on stdout and status changes go to stderr. Stops after \
                --count fixes, after --seconds, or on Ctrl-C. Exit status: 0 with a fix; 69 \
                when no fix came (the receiver unreachable or without a view of the sky); 64 a \
                --source that cannot be used; 66 a recording that is not there.
                """)

        @Option(name: .long, help: "GPS source: gpsd://HOST:PORT, serial:///DEVICE?baud=N, file:PATH[?pace=clock|fast&speed=N&outage=FROM-TO&invalid=FROM-TO&unplug=AT-BACK&skip=S]. Default: the settings' gps.")
        var source: String?

        @Option(name: .long, help: "Stop after this many fixes.")
        var count: Int?

        @Option(name: .long, help: "Stop after this many seconds.")
        var seconds: Double?

        @Flag(name: .long, help: "Fixes as JSON Lines on stdout; status changes on stderr.")
        var json = false

        @OptionGroup var settingsFile: SettingsOption

        func validate() throws {
            if let count, count < 1 { throw ValidationError("--count must be at least 1") }
            try AllowedRange.watchSeconds.check(seconds, option: "--seconds")
        }

        func run() throws {
            let settings = try settingsFile.settings(.init(gps: source))
            let clock = Configurator.makeClock(.realTime)
            let source: any GPSSource
            do {
                guard let s = try Configurator.makeGPSSource(settings.gps, clock: clock) else {
                    throw CommandFailure(.config, "positioning is off (gps: none): nothing to watch")
                }
                source = s
            } catch let error as ConfigurationError {
                // A --source the command line gave that cannot be used is a usage error; a
                // file that is not there, or the settings' own source, is not.
                if self.source != nil, ExitStatus.of(error) == .config { throw ValidationError("--source: \(error)") }
                throw CommandFailure(error)
            }
            let printer = WatchPrinter(json: json, limit: count, clock: clock)
            let sink = GPSEventSink(clock: clock) { printer.handle($0) }
            if let seconds {
                clock.schedule(after: AllowedRange.watchSeconds.duration(seconds)) { clock.stop() }
            }
            let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
            signal(SIGINT, SIG_IGN)
            interrupt.setEventHandler { clock.execute { clock.stop() } }
            interrupt.resume()
            source.start(sink)
            clock.run()
            source.stop()
            interrupt.cancel()
            if printer.fixCount == 0 {
                throw CommandFailure(.unavailable, "no fix from \(settings.gps)"
                    + (seconds.map { " in \($0) s" } ?? ""))
            }
        }
    }
}

/// Prints what a GPS source reports; stops the clock after `limit` fixes.
final class WatchPrinter: Sendable {
    let json: Bool
    let limit: Int?
    let clock: any RunnableClock
    private let fixes = Mutex(0)

    init(json: Bool, limit: Int?, clock: any RunnableClock) {
        self.json = json
        self.limit = limit
        self.clock = clock
    }

    var fixCount: Int { fixes.withLock { $0 } }

    func handle(_ event: GPSEvent) {
        switch event {
        case .status(let status, let detail):
            let text = "status: \(status.rawValue)" + (detail.map { " (\($0))" } ?? "") + "\n"
            (json ? StandardStream.error : StandardStream.output).writeQuietly(text)
        case .fix(let fix):
            var line: [UInt8] = []
            if json { fix.appendJSON(to: &line) } else { fix.appendText(to: &line) }
            line.append(0x0A)
            StandardStream.output.writeQuietly(line)
            let n = fixes.withLock { $0 += 1; return $0 }
            if let limit, n >= limit { clock.stop() }
        case .reading:
            break  // the watch samples nothing: every fix arrives as `.fix`
        }
    }
}
