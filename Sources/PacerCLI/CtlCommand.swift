import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import Configurator
import HAL
import LinuxHardware
import Storage

/// `pacer ctl …`: sends one command to the running device over its control socket and prints
/// the reply (R20).
struct CtlCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ctl", abstract: "Send a command to the running device.",
        discussion: """
            Talks to `pacer run` or `pacer device` over its control socket: the service's \
            /run/pacer/control.sock while it runs, else $XDG_RUNTIME_DIR/pacer/control.sock, \
            else /tmp/pacer-UID/control.sock, or --socket. Prints the device's reply; exits 1 when \
            the device refuses the command (not recording, …), 69 when no device is running, 75 \
            when it is busy (too many clients) or does not answer in time, 77 when this user may \
            not reach the socket (the service's is for group pacer). \
            `pacer ctl watch` prints the device's events as they happen instead.
            """,
        subcommands: [Waypoint.self, Pause.self, Resume.self, Lap.self, Stop.self, Status.self, SayStatus.self, Start.self, Press.self, Watch.self])

    struct Options: ParsableArguments {
        @Option(name: .long, help: "The control socket (default: /run/pacer/control.sock while the service runs, else $XDG_RUNTIME_DIR/pacer/control.sock, else /tmp/pacer-UID/control.sock).")
        var socket: String?

        @Option(name: .long, help: "Seconds to wait for the reply (watch: for the first line).")
        var timeout: Double = 5

        var duration: Duration { AllowedRange.controlTimeout.duration(timeout) }

        func validate() throws {
            try AllowedRange.controlTimeout.check(timeout, option: "--timeout")
        }

        /// Sends `command` and prints the reply: to stdout, or to stderr with exit status 1
        /// when it is an error.
        func send(_ command: ControlCommand) throws {
            // A ConfigurationError prints as `Error: no Pacer running: …` with exit status 69.
            let reply = try Configurator.sendControl(
                command.line, socketPath: socket, timeout: duration)
            if let refusal = ControlRefusal(reply: reply) {
                var standardError = StandardError()
                print(reply, to: &standardError)
                throw ExitCode(refusal.exitStatus)
            }
            print(reply)
        }
    }

    struct Waypoint: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "waypoint",
            abstract: "Mark a waypoint at the current position.",
            discussion: "The name is the words given, joined by spaces: `pacer ctl waypoint Water stop`.")

        @Argument(help: "The waypoint's name.")
        var name: [String]

        @OptionGroup var options: Options

        func validate() throws {
            _ = try command()
        }

        func command() throws -> ControlCommand {
            do {
                let command = try ControlCommand(parsing: "waypoint " + name.joined(separator: " "))
                guard case .waypoint = command else { throw ValidationError("not a waypoint name") }
                return command
            } catch let error as ControlParseError {
                throw ValidationError(error.description)
            }
        }

        func run() throws {
            try options.send(command())
        }
    }

    struct Start: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "start",
            abstract: "Start the workout the device offers (`pacer device`, as a short press does).")
        @OptionGroup var options: Options
        func run() throws { try options.send(.start) }
    }

    /// `pacer ctl press double`: the button without the button, for trying device mode on a
    /// desktop. The pattern goes where the button's decoder sends its output (the device's
    /// `press`), not through the decoder: the edges' timing is the decoder's business, and
    /// a hold replayed over the socket would only delay the answer by the hold (3 s for a
    /// very long press) and could mix with a real button's edges.
    struct Press: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "press",
            abstract: "Press the button: short, double, long or very-long.",
            discussion: """
                Does what the button would do now, by the settings' button_actions: waiting                 (`pacer device`), by default short starts, double offers the next workout, long                 the previous, very-long says again where the device stands; while a workout runs,                 short marks a waypoint, long pauses or resumes, very-long stops. Prints what                 the press did.
                """)

        @Argument(help: "The press: short, double, long or very-long.")
        var pattern: String

        @OptionGroup var options: Options

        func validate() throws {
            guard PressPattern(rawValue: pattern.lowercased()) != nil else {
                throw ValidationError("unknown press '\(pattern)' (presses: \(ControlCommand.pressSummary))")
            }
        }

        func run() throws {
            try options.send(.press(PressPattern(rawValue: pattern.lowercased())!))
        }
    }

    struct Pause: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "pause", abstract: "Pause the workout and the recording.")
        @OptionGroup var options: Options
        func run() throws { try options.send(.pause) }
    }

    struct Resume: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "resume", abstract: "Resume after a pause.")
        @OptionGroup var options: Options
        func run() throws { try options.send(.resume) }
    }

    struct Lap: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "lap",
            abstract: "Lap: end an open phase (or one a lap press may end early); otherwise split the activity into laps here.")
        @OptionGroup var options: Options
        func run() throws { try options.send(.lap) }
    }

    struct Stop: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "stop", abstract: "Stop the workout; the activity is stored as stopped.")
        @OptionGroup var options: Options
        func run() throws { try options.send(.stop) }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "status", abstract: "Print the device's status line.")
        @OptionGroup var options: Options
        func run() throws { try options.send(.status) }
    }

    struct SayStatus: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "say-status",
            abstract: "Have the device say where the runner stands (phase, time left, pace, distance); print the status line.")
        @OptionGroup var options: Options
        func run() throws { try options.send(.sayStatus) }
    }

    /// `pacer ctl watch`: the device's events as JSON lines, for a phone over SSH or `jq`.
    struct Watch: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "watch",
            abstract: "Print the device's events as they happen, one JSON object a line.",
            discussion: """
                The first line is where things stand ({"event":"status",…}); then every event \
                (cues, phases, GPS, waypoints, pauses, battery, the end) as it happens, each with \
                the status right after it. Each line is written as it arrives, for `| jq` or a \
                phone over SSH (ssh pi@pacer pacer ctl watch). Exits 0 when the device ends the \
                stream: `pacer run` ends it when the run ends; `pacer device` stays on after a \
                workout and goes on streaming (the next offer, the next workout) until it is \
                stopped, so --until-end exits after the workout's end ({"event":"finished"}) \
                instead. 69 when no device runs; 75 \
                when it is busy (4 watchers already: try again); 1 when it drops this watcher for \
                reading too slowly (its last line is then {"event":"error",…}).
                """)

        @OptionGroup var options: Options

        @Option(name: .long, help: "Stop after this many lines, the status line included.")
        var count: Int?

        @Flag(name: .long, help: "Exit after the workout's end (its \"finished\" event), as with pacer run, when watching pacer device.")
        var untilEnd = false

        func validate() throws {
            if let count, count < 1 { throw ValidationError("--count must be at least 1") }
        }

        func run() throws {
            var printed = 0
            var failure: String?
            var status = ExitCode.failure
            try Configurator.watchControl(socketPath: options.socket, timeout: options.duration) { line in
                if printed == 0, let refusal = ControlRefusal(reply: line) {
                    failure = line
                    status = ExitCode(refusal.exitStatus)
                    return false
                }
                // Each line at once, unbuffered: whoever reads the pipe sees events as they happen.
                StandardStream.output.writeQuietly(line + "\n")
                printed += 1
                if line.hasPrefix(#"{"event":"error""#) {
                    failure = "error: the device dropped this watcher: it read its events too slowly"
                    return false
                }
                if untilEnd, line.hasPrefix(#"{"event":"finished""#) { return false }
                return count.map { printed < $0 } ?? true
            }
            if let failure {
                var standardError = StandardError()
                print(failure, to: &standardError)
                throw status
            }
        }
    }
}

/// `print(…, to:)` for stderr.
private struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        var text = string
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = Glibc.write(STDERR_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                if n <= 0 { return }
                offset += n
            }
        }
    }
}
