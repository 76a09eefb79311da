import ArgumentParser
import Coaching
import Companion
import Configurator
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HAL
import Logging
import PacerCore
import Runtime
import Storage

/// `pacer run`: the device itself. Follows a workout of a plan with pace cues, captures
/// waypoints, records the track.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Run a workout: pace cues, waypoints, and the recorded track.",
        discussion: """
            On the board: gpsd or a serial GPS and ALSA (the settings' parts). On a desktop: \
            --source file:RUN.nmea and --buzzer wav:CUES.wav or null; add --fast to replay as \
            fast as possible on a virtual clock. In a terminal, a status line shows the phase, \
            time left, speed, band and distance; keys: w waypoint, p pause/resume, s stop. \
            `pacer ctl` and SIGUSR1 (a waypoint) work too. Unfinished activities found at \
            start (a power cut) are closed as recovered.
            """)

    @Option(name: .long, help: "Plan file, or the name of a plan in the hardware folder's plans/ (\(PlanLoader.namingRule); default: the device's plan, `pacer plan activate`).")
    var plan: String?

    @Option(name: .long, help: "Workout number in the plan, from 1 (default: the plan's first workout not completed yet; the first when all are).")
    var workout: Int?

    @Option(name: .long, help: "GPS source: gpsd://HOST:PORT, serial:///DEVICE?baud=N, file:PATH[?speed=N&outage=FROM-TO&invalid=FROM-TO&unplug=AT-BACK&skip=S], none.")
    var source: String?

    @Option(name: .long, help: "Data folder (default: the settings' data_dir).")
    var dataDir: String?

    @Flag(name: .long, help: "Replay on a virtual clock, as fast as possible (file sources).")
    var fast = false

    @Option(name: .long, help: "The date the plan's deadline is checked against (YYYY-MM-DD; default: today).")
    var today: String?

    @Option(name: .long, help: RouteChoice.help)
    var route: String?

    @Option(name: .long, help: "A ghost to race, judged on distance run: \(GhostLoader.help).")
    var ghost: String?

    @Option(name: .long, help: "The system clock the GPS time is checked against (a week-rollover fault): system, sim?at=YYYY-MM-DDTHH:MM:SSZ[&synchronized=yes], sim (not set), none (default: the settings' system_clock, else system for a receiver and none for a recording).")
    var systemClock: String?

    @Option(name: .long, help: "The control socket for `pacer ctl` (default: $XDG_RUNTIME_DIR/pacer/control.sock, else /tmp/pacer-UID/control.sock).")
    var socket: String?

    @OptionGroup var device: DeviceOptions

    func validate() throws {
        if let workout, workout < 1 { throw ValidationError("--workout counts from 1") }
    }

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
        let logger = Logger(label: "pacer")

        // The storage: the device's plan and its progress are kept there.
        let store: PacerStore
        do {
            store = try Configurator.makeActivityStore(settings)
        } catch {
            throw CommandFailure(error)
        }

        // The plan (named, or the device's), its workout (named, or the first not completed
        // yet), and whether it may start.
        let planPath: String
        if let plan {
            let plansDir = PlanLoader.directory(hardwareDir: settings.hardwareDirectory)
            guard let path = PlanLoader.resolve(plan, plansDir: plansDir) else {
                throw CommandFailure(.noInput, PlanLoader.isPath(plan)
                    ? "no plan file '\(plan)'"
                    : "no plan named '\(plan)' in \(plansDir); a file in this folder is ./\(plan)")
            }
            planPath = path
        } else if let active = try store.plans.activePlan() {
            planPath = active.source
        } else {
            throw CommandFailure(.config, "no plan: give --plan PLAN, or make one the device's with `pacer plan activate PLAN`")
        }
        let trainingPlan: TrainingPlan
        let planKey: PlanKey
        let workoutIndex: Int
        do {
            trainingPlan = try PlanLoader.load(path: planPath)
            planKey = try PlanCommand.key(ofPlanFile: planPath)
            if let workout {
                workoutIndex = workout - 1
            } else {
                switch trainingPlan.nextWorkout(done: try store.plans.workoutsDone(plan: planKey), on: try date()) {
                case .workout(let index): workoutIndex = index
                case .allDone:
                    // A plan done is followed again from its start (a single recurring workout
                    // like the easy run, at every boot of the unit).
                    StandardStream.output.writeQuietly("Every workout of plan '\(trainingPlan.name)' is done: starting again from workout 1.\n")
                    workoutIndex = 0
                case .expired: workoutIndex = 0  // refused just below, with the deadline
                }
            }
            try PlanLoader.checkStartable(plan: trainingPlan, workoutIndex: workoutIndex, today: try date())
        } catch let error as DataFileError {
            throw CommandFailure(error)
        } catch let error as ValidationError {
            throw error
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw CommandFailure(error, planPath)
        }

        let followed = try route.map { try RouteChoice.load($0, store: store) }
        let rival: Ghost?
        do {
            rival = try ghost.map { try GhostLoader.load($0, dataDirectory: settings.dataDirectory, store: store) }
        } catch {
            throw CommandFailure(error)
        }

        // The firmware, running this workout at once; an activity left unfinished by a power
        // cut is closed as it is assembled.
        let display = RunDisplay(interactive: !fast && isatty(1) == 1)
        let today = try date()
        let assembled: AssembledFirmware
        do {
            assembled = try Configurator.firmware(
                settings: settings, storage: .store(store),
                start: .workout(plan: trainingPlan, index: workoutIndex, key: planKey),
                timing: fast ? .virtual : .realTime, route: followed, ghost: rival,
                controls: ControlOptions(socketPath: socket, keys: display.interactive),
                today: { _ in today }, logger: logger,
                onEvent: { event in
                    if case .workout(.cue(let cue, _), let status) = event { display.cue(cue, status) }
                })
        } catch {
            throw CommandFailure(error)
        }
        for id in assembled.recovered {
            StandardStream.output.writeQuietly("recovered unfinished activity \(id) (stored as recovered with every committed point)\n")
        }
        let firmware = assembled.firmware
        display.header(trainingPlan, workout: trainingPlan.workouts[workoutIndex], profile: assembled.device.profile, settings: settings)
        // Written as the cues are (unbuffered), so that in a pipe too they come before them.
        if let followed { StandardStream.output.writeQuietly(RouteChoice.describe(followed) + "\n") }
        if let rival {
            StandardStream.output.writeQuietly("racing the ghost: \(rival.name), \(RuntimeStatus.metres(rival.finish.metres)) in \(RuntimeStatus.clock(.seconds(rival.finish.seconds)))\n")
        }
        if display.interactive {
            assembled.clock.scheduleRepeating(every: .seconds(1)) { firmware.runtime.map { display.refresh($0.status) } }
        }
        try assembled.run(logger: logger)
        guard let runtime = firmware.lastWorkout ?? firmware.runtime else { return }
        display.finish(runtime.status)

        if let loss = runtime.storageLoss {
            // Not "completed and all is well": say what is not on disk, and fail (EX_IOERR).
            let message = "error: the activity could not be stored: \(loss.reason). "
                + "\(loss.waiting) items were not written\(loss.dropped > 0 ? " and \(loss.dropped) points were given up" : ""); "
                + "what reached the disk is recovered at the next start (free space in \(settings.dataDirectory), then run Pacer again).\n"
            StandardStream.error.writeQuietly(message)
            throw ExitCode(74)
        }
        if let id = runtime.status.activityID {
            let detail = try store.activities.activity(id)
            for line in ActivityReport.detail(detail, mapWidth: 50, mapHeight: 14, zone: .system) { print(line) }
        }
    }

    /// `--today`, else the system date (the CLI may read the wall clock; the runtime never does).
    func date() throws -> CivilDate {
        try today.map(RunCommand.parseDate) ?? WallClock.today
    }

    /// `--today YYYY-MM-DD`, a four-digit year as in plan files: a year of any length
    /// overflowed the day arithmetic of deadlines.
    static func parseDate(_ text: String) throws -> CivilDate {
        try PlanCommand.date(text, option: "--today")
    }
}

/// What `pacer run` prints: a header, a line per cue, and in a terminal a live status line.
final class RunDisplay: Sendable {
    let interactive: Bool

    init(interactive: Bool) {
        self.interactive = interactive
    }

    func header(_ plan: TrainingPlan, workout: Workout, profile: PowerProfile, settings: Settings) {
        write("\(plan.name): \(workout.name), \(workout.phases.count) phases, \(RuntimeStatus.clock(workout.duration))\n")
        write("profile \(profile.name): position every \(Int(profile.positionInterval.inSeconds)) s, "
            + "alerts every \(Int(profile.alertInterval.inSeconds)) s, \(profile.cueStyle.rawValue)\n")
        write("gps \(settings.gps), buzzer \(settings.buzzer), data \(settings.dataDirectory)\n")
    }

    func cue(_ cue: Cue, _ status: RuntimeStatus) {
        let text = "\(status.line)  [\(cue.rawValue)]"
        write(interactive ? "\r\u{1B}[K" + text + "\n" : text + "\n")
    }

    func refresh(_ status: RuntimeStatus) {
        write("\r\u{1B}[K" + status.line)
    }

    func finish(_ status: RuntimeStatus) {
        write((interactive ? "\r\u{1B}[K" : "") + status.line + "\n")
    }

    private func write(_ text: String) {
        StandardStream.output.writeQuietly(text)
    }
}

/// The stop signals as a service expects them, whatever the parent left: a parent may have
/// left SIGTERM or SIGINT ignored (the disposition survives exec) or blocked (the signal
/// mask does too: a test runner's thread, a shell's job control), and then `systemctl stop`
/// would never reach the device. Called first, on the main thread, so every thread made
/// after it inherits the mask.
///
/// The others a workout must survive: SIGPIPE is ignored (`pacer run | head`: a closed
/// output pipe makes writes fail, which the display ignores, and the workout goes on);
/// SIGUSR2 is ignored (it means nothing here, and its default would end the process without
/// storing the activity). SIGHUP (a closed terminal) stops and stores, with SIGTERM and
/// SIGINT (`SignalControls`).
enum StopSignals {
    static func reset() {
        signal(SIGTERM, SIG_DFL)
        signal(SIGINT, SIG_DFL)
        signal(SIGHUP, SIG_DFL)
        signal(SIGPIPE, SIG_IGN)
        signal(SIGUSR2, SIG_IGN)
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for s in [SIGTERM, SIGINT, SIGUSR1, SIGHUP] { sigaddset(&unblock, s) }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
    }
}
