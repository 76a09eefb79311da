import ArgumentParser
import Configurator

struct HardwareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hw", abstract: "Check the device's hardware.",
        subcommands: [Check.self])

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Probe the GPS, the sound output, the battery gauge and the button, and say how to fix what is missing.",
            discussion: """
                Each part gets a block: what was found, what is wrong, and the fix. The GPS and \
                the sound output are required: the command exits with status 69 (EX_UNAVAILABLE) when either is \
                missing. No battery gauge is only a warning (the simulated estimate is used). \
                Every probe is bounded in time; the GPS is listened to for --listen seconds at most \
                (less once it has a position). The parts checked are those of the settings file \
                (--config, $PACER_CONFIG or /etc/pacer/pacer.yaml); without one, the board's: \
                gpsd://localhost:2947, alsa:default and sysfs. --gps, --buzzer and --battery \
                override either. The button (the settings' buttons, or --buttons) must exist and \
                be readable when one is configured; with --press SECONDS a press must also \
                arrive within that time (press it while the check runs). No button is a warning. \
                The heart-rate strap (the settings' heart_rate:, which `pacer hr pair` sets) is \
                looked for in a scan of --listen seconds; a strap not in range is a warning.
                """)

        @Option(name: .long, help: "Settings file whose parts to check.")
        var config: String?

        @Option(name: .long, help: "GPS source: gpsd://HOST:PORT, serial:///dev/DEVICE?baud=N, or file:///RECORDING.")
        var gps: String?

        @Option(name: .long, help: "Sound output: alsa:DEVICE (alsa:default, alsa:plughw:CARD=Device,DEV=0), wav:FILE, or null.")
        var buzzer: String?

        @Option(name: .long, help: "Speaker: espeak:DEVICE?voice=en&rate=170 (default: espeak-ng on the buzzer's ALSA device), wav:FILE, or null.")
        var speaker: String?

        @Option(name: .long, help: "Battery gauge: sysfs (the board's fuel gauge), sysfs:/sys/class/power_supply/NAME, or sim.")
        var battery: String?

        @Option(name: .long, help: "Button: evdev:/dev/input/eventN?keys=CODE,…, or none.")
        var buttons: String?

        @Option(name: .long, help: "Seconds to wait for a press of the button (default: only check it can be read).")
        var press: Double?

        @Option(name: .long, help: "Seconds to listen to the GPS for sentences and a position.")
        var listen: Double = 5

        @Flag(name: .long, help: "Print the report as one JSON object.")
        var json = false

        func validate() throws {
            try AllowedRange.listenSeconds.check(listen, option: "--listen")
            if let press { try AllowedRange.listenSeconds.check(press, option: "--press") }
        }

        func run() throws {
            let configuration: HardwareCheck.Configuration
            do {
                configuration = try HardwareCheck.configuration(
                    settingsPath: config ?? Settings.installedPath(), gps: gps, buzzer: buzzer, battery: battery,
                    buttons: buttons, speaker: speaker, listen: AllowedRange.listenSeconds.duration(listen),
                    pressWithin: press.map { AllowedRange.listenSeconds.duration($0) })
            } catch {
                throw CommandFailure(error)
            }
            let report = HardwareCheck.run(configuration)
            print(json ? report.json() : report.text(), terminator: json ? "\n" : "")
            if !report.passed { throw ExitCode(report.exitStatus) }
        }
    }
}
