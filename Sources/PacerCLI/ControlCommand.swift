import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import Configurator
import HAL

/// `pacer ctl …`: sends one command to the running device over its control socket and prints
/// the reply (R20).
struct CtlCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ctl", abstract: "Send a command to the running device.",
        discussion: """
            Talks to `pacer run` or `pacer device` over its control socket: $XDG_RUNTIME_DIR/pacer/control.sock, \
            else /tmp/pacer-UID/control.sock, or --socket. Prints the device's reply; exits 1 when \
            no device is running, when it does not answer, or when its reply is an error.
            """,
        subcommands: [Waypoint.self, Pause.self, Resume.self, Stop.self, Status.self, Start.self])

    struct Options: ParsableArguments {
        @Option(name: .long, help: "The control socket (default: $XDG_RUNTIME_DIR/pacer/control.sock, else /tmp/pacer-UID/control.sock).")
        var socket: String?

        @Option(name: .long, help: "Seconds to wait for the reply.")
        var timeout: Double = 5

        func validate() throws {
            guard timeout > 0, timeout <= 600 else { throw ValidationError("--timeout must be between 0 and 600 seconds") }
        }

        /// Sends `command` and prints the reply: to stdout, or to stderr with exit status 1
        /// when it is an error.
        func send(_ command: ControlCommand) throws {
            // A ConfigurationError prints as `Error: no Pacer running: …` with exit status 1.
            let reply = try Configurator.sendControl(
                command.line, socketPath: socket, timeout: .milliseconds(Int64(timeout * 1000)))
            if reply.hasPrefix("error:") {
                var standardError = StandardError()
                print(reply, to: &standardError)
                throw ExitCode.failure
            }
            print(reply)
        }
    }

    struct Waypoint: ParsableCommand {
        static let configuration = CommandConfiguration(
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
            abstract: "Start the workout the device offers (`pacer device`, as a short press does).")
        @OptionGroup var options: Options
        func run() throws { try options.send(.start) }
    }

    struct Pause: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Pause the workout and the recording.")
        @OptionGroup var options: Options
        func run() throws { try options.send(.pause) }
    }

    struct Resume: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Resume after a pause.")
        @OptionGroup var options: Options
        func run() throws { try options.send(.resume) }
    }

    struct Stop: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop the workout; the activity is stored as stopped.")
        @OptionGroup var options: Options
        func run() throws { try options.send(.stop) }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the device's status line.")
        @OptionGroup var options: Options
        func run() throws { try options.send(.status) }
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
