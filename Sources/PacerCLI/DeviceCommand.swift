import ArgumentParser
import Coaching
import Companion
import Configurator
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HAL
import LinuxHardware
import Logging
import PacerCore
import Runtime
import Storage
import Synchronization

/// `pacer device`: the device in a runner's hands, what the systemd unit runs. No screen, no
/// terminal: the parts are checked at power-on and the result is heard; a faint tick while
/// it searches for a position; `ready` and today's workout counted in beeps once it has one;
/// a press starts the workout; at its end it offers the next. It runs until it is stopped
/// (SIGTERM, `systemctl stop`), which stops and stores a running workout first.
struct DeviceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device", abstract: "Be the device: wait for a start press, coach the workout, offer the next.",
        discussion: """
            What the systemd unit runs. Power-on checks the parts (heard as power-on, or \
            fault with the reason in the journal), then searching (a faint tick) until a \
            position, then ready and today's workout counted in beeps (a long beep per five, \
            a short one per one). Waiting, by default: short press start, double press next \
            workout, long press previous, very long press say it again. Running: short \
            waypoint, long pause/resume, very long stop. The plan is the device's (`pacer plan \
            activate PLAN`); its first workout not completed is offered. `pacer ctl \
            start|status|waypoint|pause|resume|stop` reach the same device. Unfinished \
            activities (a power cut) are recovered at power-on.
            """)

    @Option(name: .long, help: "GPS source (default: the settings' gps): gpsd://HOST:PORT, serial:///DEVICE?baud=N, file:PATH[?…], none.")
    var source: String?

    @Option(name: .long, help: "Buttons (default: the settings' buttons): evdev:/dev/input/eventN[?keys=CODE,…], none.")
    var buttons: String?

    @Option(name: .long, help: "Data folder (default: the settings' data_dir).")
    var dataDir: String?

    @Option(name: .long, help: "The date the plan's deadline is checked against (YYYY-MM-DD; default: the later of the GPS's date and the system's, when the system clock is set).")
    var today: String?

    @Option(name: .long, help: RouteChoice.help)
    var route: String?

    @Option(name: .long, help: "The system clock the GPS time is checked against (a week-rollover fault): system, sim?at=YYYY-MM-DDTHH:MM:SSZ[&synchronized=yes], sim (not set), none (default: the settings' system_clock, else system for a receiver and none for a recording).")
    var systemClock: String?

    @Option(name: .long, help: "The control socket for `pacer ctl` (default: $RUNTIME_DIRECTORY/control.sock under systemd, else $XDG_RUNTIME_DIR/pacer/control.sock).")
    var socket: String?

    @OptionGroup var device: DeviceOptions

    func run() throws {
        StopSignals.reset()
        var settings = try device.settings(gps: source)
        if let dataDir { settings.dataDirectory = dataDir }
        if let systemClock {
            do {
                settings.systemClock = try DeviceURI(parsing: systemClock)
            } catch {
                throw ValidationError("--system-clock: \(error)")
            }
        }
        if let buttons {
            do {
                let uri = try DeviceURI(parsing: buttons)
                settings.buttons = uri.scheme == "none" ? nil : uri
            } catch {
                throw ValidationError("--buttons: \(error)")
            }
        }
        let logger = Logger(label: "pacer")
        let given = try today.map(RunCommand.parseDate)

        // A data folder that cannot be used (a full or read-only card) does not stop the
        // device: it powers on with the fault cue and the reason (`DeviceStorage`).
        let storage: DeviceStorage
        do {
            storage = try DeviceStorage(settings: settings, logger: logger)
        } catch {
            throw CommandFailure(error)
        }
        var faults: [String] = []
        var followed: FollowedRoute?
        if let route {
            if Int64(route) != nil, storage.openStore == nil {
                faults.append("--route \(route): the routes cannot be read while the data folder cannot be used")
            } else {
                followed = try RouteChoice.load(route, store: storage.openStore)
            }
        }
        if let followed { logger.notice("\(RouteChoice.describe(followed))") }
        // The companion page, when the settings give it an address; switched by the device's
        // states.
        let companion = Mutex<CompanionSwitch?>(nil)
        let assembled: AssembledFirmware
        do {
            assembled = try Configurator.firmware(
                settings: settings, storage: .device(storage), tolerant: true, route: followed, knownFaults: faults,
                controls: ControlOptions(socketPath: socket),
                today: { time in given ?? GPSTimeCheck.deadlineDate(gps: time?.date, system: WallClock.now) }, logger: logger,
                onEvent: { event in
                    DeviceCommand.log(event, logger)
                    if case .state(let state, _) = event { companion.withLock { $0 }?.deviceState(state) }
                })
        } catch {
            throw CommandFailure(error)
        }
        let firmware = assembled.firmware
        StandardStream.output.writeQuietly("pacer device: gps \(settings.gps), buzzer \(settings.buzzer), buttons \(settings.buttons.map { "\($0)" } ?? "none"), data \(settings.dataDirectory)\n")
        if settings.companion.listen != nil {
            let device = DeviceCompanion(firmware: firmware, storage: storage)
            let password = CompanionPassword(dataDirectory: settings.dataDirectory)
            let origin = ContinuousClock.now
            let server = CompanionServer(
                settings: settings.companion,
                sections: CompanionSections.all(
                    device: device, settings: settings,
                    reload: { [device = self.device, source, dataDir] in
                        var reread = try device.settings(gps: source)
                        if let dataDir { reread.dataDirectory = dataDir }
                        return reread
                    },
                    settingsPath: self.device.settingsFile.config, version: PacerVersion.number, now: { WallClock.now }),
                device: device, password: password, logger: logger,
                clock: {
                    let elapsed = ContinuousClock.now - origin
                    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
                },
                version: PacerVersion.number)
            let turned = CompanionSwitch(server: server, settings: settings.companion, password: password)
            companion.withLock { $0 = turned }
            turned.powerOn()
        }
        try assembled.run(logger: logger)
        companion.withLock { $0 }?.finish()
        // How late the loop began its tasks (a cue is as late as its task): for the journal,
        // and for the companion's load test.
        if let lateness = assembled.clock.lateness {
            StandardStream.output.writeQuietly("clock loop: \(lateness.summary)\n")
        }
    }

    /// One line per event on standard output, which systemd sends to the journal.
    static func log(_ event: DeviceEvent, _ logger: Logger) {
        let line: String? = switch event {
        case .state(let state, let detail): "state \(state.rawValue)" + (detail.map { ": \($0)" } ?? "")
        case .cue(let cue): "cue \(cue.rawValue)"
        case .counted(let n): "cue count \(n) (\(n / 5) long, \(n % 5) short)"
        case .fault(let text): "FAULT \(text)"
        case .offered(let plan, let workout, let of, let name, let again):
            "offers \(plan): workout \(workout)/\(of) \(name)" + (again ? " (every workout done: the plan again)" : "")
        case .refused(let reason): "start refused: \(reason)"
        case .pressed(let pattern, let action): "button \(pattern.rawValue): \(action)"
        case .gps(let status, let detail): "gps \(status.rawValue)" + (detail.map { " (\($0))" } ?? "")
        case .workout(let e, let status):
            switch e {
            case .cue(let cue, _): "\(status.line)  [\(cue.rawValue)]"
            case .started(let id): "activity \(id) started: \(status.plan): \(status.workout)"
            case .finished(let end): "activity \(status.activityID.map(String.init) ?? "-") \(end.rawValue): \(status.line)"
            case .said(let u, _, _): "say \(u.key): \"\(u.text)\""
            default: nil
            }
        }
        if let line { StandardStream.output.writeQuietly(line + "\n") }
    }
}
