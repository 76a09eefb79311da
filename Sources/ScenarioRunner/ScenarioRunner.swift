import Coaching
import Configurator
import Foundation
import HAL
import Logging
import NMEA
import PacerCore
import Runtime
import Simulation
import Storage
import Synchronization

/// A scenario that cannot be run, and why.
public struct ScenarioError: Error, CustomStringConvertible, Sendable {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// How a scenario is run.
public struct ScenarioOptions: Sendable {
    /// The settings the device starts from (the simulated setup); the runner replaces the
    /// GPS, the buzzer, the battery, the profile and the data folder with the scenario's.
    public var settings: Settings
    /// `.virtual`: as fast as possible (the default, deterministic); `.paced(speed:)`: in
    /// real time or N× real time. The outputs are the same either way.
    public var timing: Timing
    /// Also render every cue to this WAV file.
    public var wav: String?
    /// Where the scratch database goes (a fresh folder in it, removed after the run). By
    /// default RAM (`/dev/shm`) when there is one: the database is thrown away, so the
    /// device's `synchronous = FULL` commits need not wait for a disk that the board's SD
    /// card is not. The SQL work is the same.
    public var scratch: String?
    /// Keep the run's database in this folder instead of a scratch one (it must not hold one
    /// yet), for `pacer activities` and `pacer activities report` to read afterwards.
    public var dataDirectory: String?

    public init(settings: Settings, timing: Timing = .virtual, wav: String? = nil, scratch: String? = nil,
                dataDirectory: String? = nil) {
        self.settings = settings
        self.timing = timing
        self.wav = wav
        self.scratch = scratch
        self.dataDirectory = dataDirectory
    }

    /// `/dev/shm` when it is a writable folder, else the system's temporary folder.
    public static var defaultScratch: String {
        access("/dev/shm", W_OK) == 0 ? "/dev/shm" : NSTemporaryDirectory()
    }
}

/// What a scenario run produced: the events, the stored activities, the files.
public struct ScenarioOutcome: Sendable {
    public var scenario: Scenario
    public var events: [ScenarioEvent]
    public var activities: [ActivityDetail]
    /// Scenario time when the last device stopped.
    public var duration: Duration
    /// The energy account of each device run (none without a hardware build).
    public var energy: [EnergyLedger]
    /// The four result files, by name (`timeline.txt`, …), in the output folder.
    public static let resultFiles = ["timeline.txt", "events.jsonl", "track.gpx", "summary.json"]
}

/// Runs scenarios: builds the device through the configurator factory, exactly as on the
/// board, but with the simulation adapters: the recording replayed as the GPS (with the
/// scenario's faults), a virtual clock, a recording buzzer, a simulated battery and a scratch
/// database in the output folder. Then plays the script on the device's clock and writes
/// `timeline.txt`, `events.jsonl`, `track.gpx` and `summary.json`.
///
/// Deterministic: nothing reads the wall clock, every number is written with fixed places,
/// and paths are not written; two runs give byte-identical files on any machine.
public enum ScenarioRunner {
    public static func run(
        _ scenario: Scenario, out: String, options: ScenarioOptions,
        logger: Logger = Logger(label: "pacer.scenario")
    ) throws -> ScenarioOutcome {
        let fm = FileManager.default
        var scenario = scenario
        if let base = scenario.pastRun {
            scenario = try whatIf(scenario, of: base, out: out, options: options, logger: logger)
        }
        do {
            try fm.createDirectory(atPath: out, withIntermediateDirectories: true)
        } catch {
            throw ScenarioError("cannot create the output folder \(out): \(error.localizedDescription)")
        }
        let dataDir: String
        if let kept = options.dataDirectory {
            dataDir = try ScenarioRunner.makeDataFolder(kept)
        } else {
            do {
                dataDir = try ScenarioRunner.makeScratch(in: options.scratch ?? ScenarioOptions.defaultScratch)
            } catch {
                throw ScenarioError("cannot make a scratch folder: \(error.localizedDescription)")
            }
        }
        defer { if options.dataDirectory == nil { try? fm.removeItem(atPath: dataDir) } }

        let recording = try ScenarioRecordings.recording(for: scenario, scratch: out)
        let heartRate = try ScenarioRecordings.heartRate(for: scenario, scratch: out)
        let plan: TrainingPlan
        do {
            plan = try PlanLoader.load(path: scenario.planPath)
        } catch {
            throw ScenarioError(error.description)
        }
        guard scenario.workoutIndex < plan.workouts.count else {
            throw ScenarioError("\(scenario.file): workout \(scenario.workoutIndex + 1): the plan has \(plan.workouts.count)")
        }
        let today = try scenario.date ?? firstDate(of: recording, scenario)
        if scenario.deviceMode {
            // The device's plan, as `pacer plan activate` makes it; the device itself judges
            // whether it may start (a plan past its deadline is refused, with its cue).
            do {
                guard let bytes = FileManager.default.contents(atPath: scenario.planPath) else {
                    throw ScenarioError("\(scenario.planPath): cannot be read")
                }
                try PacerStore(directory: dataDir).plans.setActivePlan(
                    PlanKey(contents: bytes), source: scenario.planPath, at: UTCTimestamp(date: today, millisecondOfDay: 0))
            } catch {
                throw ScenarioError("\(scenario.file): cannot make the plan the device's: \(error)")
            }
        } else {
            do {
                _ = try PlanLoader.checkStartable(plan: plan, workoutIndex: scenario.workoutIndex, today: today)
            } catch {
                throw ScenarioError("\(scenario.file): \(error)")
            }
        }

        let recorder = try ScenarioRecorder(
            timelinePath: "\(out)/timeline.txt", eventsPath: "\(out)/events.jsonl", recording: recording)
        var battery = scenario.battery.percent
        var runStart = Duration.zero
        var end = Duration.zero
        var runs: [RunRecord] = []
        let cuts = scenario.powerCuts
        var cutIndex = 0
        while true {
            let cut = cutIndex < cuts.count ? cuts[cutIndex] : nil
            let result = try runDevice(
                scenario, plan: plan, recording: recording, heartRate: heartRate, dataDir: dataDir, from: runStart,
                until: cut?.at, battery: battery, options: options, recorder: recorder, logger: logger)
            runs.append(result.record)
            battery = result.batteryPercent
            end = result.end
            guard let cut, result.cut else { break }
            runStart = cut.at + cut.restartAfter
            for ignored in scenario.script where ignored.at > cut.at && ignored.at < runStart {
                recorder.note("ignored", text: "device off: \(describe(ignored.action)) not done", at: ignored.at)
            }
            recorder.note("restart", text: "RESTART: power back on after \(RuntimeStatus.clock(cut.restartAfter))",
                          at: runStart)
            cutIndex += 1
        }
        try recorder.close()

        // The results from what was stored, as `pacer activities` would show them.
        let store: PacerStore
        let details: [ActivityDetail]
        do {
            store = try PacerStore(directory: dataDir)
            details = try store.activities.activities().map { try store.activities.activity($0.id) }.sorted { $0.summary.id < $1.summary.id }
        } catch {
            throw ScenarioError("\(scenario.file): cannot read the results back from \(dataDir): \(error)")
        }
        try ScenarioResults.writeGPX(details, scenario: scenario, to: "\(out)/track.gpx")
        let outcome = ScenarioOutcome(
            scenario: scenario, events: recorder.events, activities: details, duration: end,
            energy: runs.compactMap(\.energy))
        try ScenarioResults.writeSummary(outcome, plan: plan, runs: runs, to: "\(out)/summary.json")
        return outcome
    }

    /// A what-if scenario made a run: the scenario at `base` is run first (into
    /// `out/past-run`, its database kept there), and its stored run, with the fixes between
    /// its points, becomes this one's recording (`run.nmea` in `out`), its heart rates and
    /// its presses included (`PastRun`); the plan, workout, profile and build are this one's.
    static func whatIf(_ scenario: Scenario, of base: String, out: String, options: ScenarioOptions, logger: Logger) throws -> Scenario {
        let plansDir = PlanLoader.directory(hardwareDir: options.settings.hardwareDirectory)
        let baseScenario: Scenario
        do {
            baseScenario = try ScenarioLoader.load(directory: base, plansDir: plansDir)
        } catch {
            throw ScenarioError("\(scenario.file): past_run: \(error)")
        }
        guard baseScenario.pastRun == nil else {
            throw ScenarioError("\(scenario.file): past_run: \(base) is a what-if itself: name the scenario it replays")
        }
        var baseOptions = options
        let data = "\(out)/past-run/data"
        try? FileManager.default.removeItem(atPath: data)
        baseOptions.dataDirectory = data
        let ran = try run(baseScenario, out: "\(out)/past-run", options: baseOptions, logger: logger)
        guard let id = ran.activities.first?.summary.id else {
            throw ScenarioError("\(scenario.file): past_run: \(base) stored no run")
        }
        let past = try PastRun.load(.activity(id, dataDirectory: data), plansDirectory: plansDir, scratch: "\(out)/past-run")
        let made = try past.scenario(
            name: scenario.name, planPath: scenario.planPath, workoutIndex: scenario.workoutIndex, profile: scenario.profile,
            hardware: scenario.hardware, folder: out)
        var whatIf = scenario
        whatIf.recording = made.recording
        if whatIf.heartRate == nil { whatIf.heartRate = made.heartRate }
        whatIf.script = (made.script + scenario.script).sorted { $0.at < $1.at }
        if whatIf.date == nil { whatIf.date = made.date }
        whatIf.pastRun = nil
        return whatIf
    }

    /// The folder a run's database is kept in: created when missing, refused when it holds a
    /// database already (the run's results are read back from it: another's activities would
    /// mix in).
    static func makeDataFolder(_ path: String) throws -> String {
        let fm = FileManager.default
        if fm.fileExists(atPath: "\(path)/\(PacerDatabase.fileName)") {
            throw ScenarioError("\(path) holds a \(PacerDatabase.fileName) already: give an empty or new folder for the run's data")
        }
        do {
            try fm.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw ScenarioError("cannot create the data folder \(path): \(error.localizedDescription)")
        }
        return path
    }

    /// A fresh folder for one run's database.
    static func makeScratch(in parent: String) throws -> String {
        var template = Array("\(parent)/pacer-scenario-XXXXXX".utf8CString)
        // The path is read inside the closure: mkdtemp returns a pointer into the buffer,
        // which is not valid once withUnsafeMutableBufferPointer has returned.
        let made: String? = template.withUnsafeMutableBufferPointer { buffer in
            mkdtemp(buffer.baseAddress!).map { String(cString: $0) }
        }
        guard let made else {
            throw ScenarioError("\(parent): \(String(cString: strerror(errno)))")
        }
        return made
    }

    struct RunRecord {
        var start: Duration
        var end: Duration
        var cut: Bool
        var nmea: NMEAStatistics?
        var delivered: Int
        var batteryPercent: Double
        var energy: EnergyLedger?
    }

    struct DeviceRun {
        var record: RunRecord
        var end: Duration
        var cut: Bool
        var batteryPercent: Double
    }

    /// One life of the device: from boot (at scenario time `from`) until the workout ends or
    /// the power is cut at `until`.
    static func runDevice(
        _ scenario: Scenario, plan: TrainingPlan, recording: String, heartRate: String? = nil, dataDir: String,
        from: Duration, until: Duration?, battery: Double, options: ScenarioOptions, recorder: ScenarioRecorder,
        logger: Logger
    ) throws -> DeviceRun {
        var settings = options.settings
        settings.profile = scenario.profile
        settings.dataDirectory = dataDir
        if let hardware = scenario.hardware { settings.hardware = hardware }
        // The scenario's own system clock, never the settings' (the board's would make the
        // results depend on the day they are made).
        settings.systemClock = scenario.systemClock
        // Likewise the radio: the scenario's simulated one, or none.
        settings.radio = scenario.radio
        // And the strap: the scenario's replayed stream, or none; the athlete's zones its own.
        settings.heartRate = try heartRate.map { path in
            do { return try DeviceURI(parsing: "sim:\(path)" + (from > .zero ? "?skip=\(seconds(from.inSeconds))" : "")) } catch {
                throw ScenarioError("\(scenario.file): heart_rate: \(error)")
            }
        }
        settings.heartRateFigures = scenario.athlete
        do {
            settings.gps = try DeviceURI(parsing: try gpsURI(recording: recording, faults: scenario.faults, skip: from))
            settings.buzzer = try DeviceURI(parsing: "record")
            // Speech only where the scenario asks for it (`speech:`), on the recording speaker:
            // the others' goldens stay as they were.
            // With `--buzzer wav:FILE` the engine also says the words into that file, between
            // the cues, in the scenario's language.
            // The file's path alone: the engine writes through the cues' own WAV buzzer (timed
            // or not, `wav:FILE?timed=yes`), found by its path.
            let wav = options.wav.map { file in
                "?wav=\(file.split(separator: "?", maxSplits: 1).first.map(String.init) ?? file)&voice=\(scenario.speech?.language ?? "en")"
            } ?? ""
            settings.speaker = scenario.speech == nil ? nil : try DeviceURI(parsing: "record" + wav)
            settings.speech = scenario.speech ?? SpeechSettings()
            if let anticipation = scenario.anticipation { settings.anticipation = anticipation }
            if let actions = scenario.buttonActions { settings.buttonActions = actions }
            let capacity = scenario.battery.capacityMilliampHours.map { "capacity=\(seconds($0))&" } ?? ""
            settings.battery = try DeviceURI(parsing: "sim?\(capacity)level=\(seconds(battery))")
        } catch {
            throw ScenarioError("\(scenario.file): \(error)")
        }
        var route: FollowedRoute?
        if let path = scenario.route {
            do {
                route = try FollowedRoute.load(gpx: path)
            } catch {
                throw ScenarioError("\(scenario.file): route: \(error)")
            }
        }
        var rival: Ghost?
        if let ghost = scenario.ghost {
            do {
                rival = try GhostLoader.load(ghost, dataDirectory: nil)
            } catch {
                throw ScenarioError("\(scenario.file): ghost: \(error)")
            }
        }
        // The button, pressed by the script, through the same decoder and actions as the board's.
        settings.buttons = try? DeviceURI(parsing: "sim")
        let start: Firmware.Start = scenario.deviceMode
            ? .waiting : .workout(plan: plan, index: scenario.workoutIndex, key: nil)
        let fixedToday = scenario.date
        // The plan's deadline, before a fix, is a device's question only.
        let firstDate = scenario.deviceMode ? try firstDate(of: recording, scenario) : nil
        // Scenario time of the device's clock: it starts at zero at every boot.
        // Set once the device exists (its events come only after).
        let booted = Mutex<(clock: any PacerClock, origin: Instant)?>(nil)
        let time: @Sendable () -> Duration = {
            guard let (clock, origin) = booted.withLock({ $0 }) else { return from }
            return from + (clock.now - origin)
        }
        let assembled: AssembledFirmware
        do {
            let also = try options.wav.map { [try DeviceURI(parsing: "wav:\($0)")] } ?? []
            let store = try Configurator.makeActivityStore(settings)
            assembled = try Configurator.firmware(
                settings: settings, storage: .store(store), start: start, timing: options.timing, alsoBuzzers: also,
                route: route, ghost: rival, today: { fix in fixedToday ?? fix?.date ?? firstDate ?? UTCTimestamp(millisecondsSince1970: 0).date },
                logger: logger,
                onEvent: { event in
                    // A workout's timeline shows the workout's events; a device's, the device's too.
                    if scenario.deviceMode {
                        recorder.record(event, at: time())
                    } else if case .workout(let e, let status) = event {
                        recorder.record(e, status: status, at: time())
                    }
                })
        } catch {
            throw ScenarioError("\(scenario.file): \(error)")
        }
        let device = assembled.device
        let clock = device.clock
        booted.withLock { $0 = (clock, clock.now) }
        let firmware = assembled.firmware
        for id in assembled.recovered {
            recorder.note("recovered", name: String(id),
                          text: "activity \(id) recovered (closed with every committed point)",
                          fields: [("activity", .int(Int(id)))], at: time())
        }
        let end = scenario.deviceMode ? min(until ?? scenario.until!, scenario.until!) : until
        let cut = PowerCut()
        for action in scenario.script where action.at >= from && (end.map { action.at <= $0 } ?? true) {
            // A scripted command is `pacer ctl` at that instant: it comes from outside the
            // loop, and is queued behind what is already due then.
            let ctl: @Sendable (ControlCommand) -> Void = { command in clock.execute { firmware.handle(command) } }
            clock.schedule(at: clock.now + (action.at - from)) {
                switch action.action {
                case .waypoint(let name): ctl(.waypoint(name))
                case .pause: ctl(.pause)
                case .resume: ctl(.resume)
                case .stop: ctl(.stop)
                case .sayStatus: ctl(.sayStatus)
                case .lap: ctl(.lap)
                case .start:
                    recorder.note("ctl", name: "start", text: "pacer ctl start", at: time())
                    ctl(.start)
                case .press, .battery, .powerCut:
                    hardware(action, until: until, device: device, recorder: recorder, cut: cut, at: time())
                }
            }
        }
        // A workout ends on its phases' time; one that does not (its timer held by a pause
        // that never ends) must not keep the virtual clock, and `scenario test`, going for
        // ever. A device waits until the scenario's end: it is still on, nothing more happens.
        let limited = PowerCut()
        let limit: Duration
        if let end, scenario.deviceMode {
            limit = end - from
            if until.map({ $0 >= end }) ?? true {
                clock.schedule(at: clock.now + limit) {
                    recorder.note("end", text: "END of the scenario (the device is \(firmware.phase.rawValue))", at: time())
                    clock.stop()
                }
            }
        } else {
            limit = ScenarioRunner.timeLimit(plan.workouts[scenario.workoutIndex])
            clock.schedule(at: clock.now + limit) {
                limited.set()
                clock.stop()
            }
        }
        do {
            try assembled.run(logger: logger)
        } catch {
            throw ScenarioError("\(scenario.file): cannot start the activity: \(error)")
        }
        if limited.happened {
            throw ScenarioError("\(scenario.file): the workout had not ended after \(RuntimeStatus.clock(limit)) of scenario time "
                + "(a pause never resumed? add a stop to the script)")
        }
        let wasCut = cut.happened
        // A cut device stops dead, and a device at the scenario's end is left: the GPS goes
        // quiet, nothing more is committed.
        if wasCut || scenario.deviceMode { device.gps?.stop() }
        let source = device.simulated.replay
        let level = device.simulated.battery?.percent ?? battery
        let stopped = time()
        return DeviceRun(
            record: RunRecord(start: from, end: stopped, cut: wasCut, nmea: source?.statistics,
                              delivered: source?.delivered ?? 0, batteryPercent: level,
                              energy: device.simulated.supply?.account),
            end: stopped, cut: wasCut, batteryPercent: level)
    }

    /// `file:PATH?outage=…&invalid=…&unplug=…&skip=S`: the replay with the scenario's faults,
    /// in recording seconds (scenario time), starting `skip` into the recording, written by
    /// the replay's own `Faults` (which checks the windows as the configurator will).
    static func gpsURI(recording: String, faults: [GPSFault], skip: Duration) throws -> String {
        func windows(_ kind: GPSFault.Kind) -> [NMEAFileSource.Faults.Window] {
            faults.filter { $0.kind == kind }.map { .init(from: $0.from, to: $0.to) }
        }
        let query = try NMEAFileSource.Faults(
            outages: windows(.silent), invalid: windows(.invalid), unplugs: windows(.unplug), skip: skip
        ).queryItems
        return "file:\(recording)" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }

    static func seconds(_ v: Double) -> String {
        var out: [UInt8] = []
        if v == v.rounded() { out.appendDigits(Int(v), width: 1) } else { out.appendDecimal(v, places: 3) }
        return String(decoding: out, as: UTF8.self)
    }

    /// How long one life of the device may run in a scenario: the workout's own time three
    /// times over, and at least six hours (pauses, outages, a slow battery).
    static func timeLimit(_ workout: Workout) -> Duration {
        max(workout.duration * 3, .seconds(6 * 3600))
    }

    /// Whether this life of the device ended in a power cut (or reached its time limit).
    final class PowerCut: Sendable {
        private let flag = Mutex(false)
        var happened: Bool { flag.withLock { $0 } }
        func set() { flag.withLock { $0 = true } }
    }

    /// What the scenario does to the device's hardware, the same in both modes: the button
    /// pressed, the battery set, the power cut (only the one that ends this life, `until`).
    static func hardware(
        _ action: ScriptedAction, until: Duration?, device: Device,
        recorder: ScenarioRecorder, cut: PowerCut, at time: Duration
    ) {
        switch action.action {
        case .press(let hold):
            let ms = Int(hold.nanoseconds / 1_000_000)
            recorder.note("press", text: "BUTTON held \(ms) ms", fields: [("hold_ms", .int(ms))], at: time)
            device.simulated.buttons?.press(hold: hold)
        case .battery(let level):
            device.simulated.battery?.set(percent: level)
            recorder.note("battery-set", text: "battery set to \(seconds(level)) %",
                          fields: [("percent", .number(level, places: 1))], at: time)
        case .powerCut:
            guard until == action.at else { return }
            cut.set()
            recorder.note("power-cut", text: "POWER CUT: the device goes off without warning", at: time)
            device.clock.stop()
        case .waypoint, .pause, .resume, .stop, .start, .sayStatus, .lap:
            break
        }
    }

    static func describe(_ action: ScriptedAction.Action) -> String {
        switch action {
        case .waypoint(let name): "waypoint '\(name)'"
        case .pause: "pause"
        case .resume: "resume"
        case .stop: "stop"
        case .battery(let level): "battery \(seconds(level)) %"
        case .powerCut: "power cut"
        case .press(let hold): "press (\(hold.nanoseconds / 1_000_000) ms)"
        case .start: "start"
        case .sayStatus: "say-status"
        case .lap: "lap"
        }
    }

    /// The recording's first date as the device takes it (the plan's deadline, before a
    /// fix): the receiver's, checked against the scenario's system clock as it reads at the
    /// start, like every fix (`GPSTimeCheck`).
    static func firstDate(of recording: String, _ scenario: Scenario) throws -> CivilDate {
        let first = try ScenarioRecordings.firstTime(of: recording)
        guard let uri = scenario.systemClock,
              let system = try Configurator.makeSystemTime(uri, gps: DeviceURI(parsing: "file:\(recording)"), clock: VirtualClock())
        else { return first.date }
        let reading = system.read()
        let verdict = GPSTimeCheck.judge(gps: first, system: reading)
        return UTCTimestamp(
            millisecondsSince1970: first.millisecondsSince1970 + GPSTimeCheck.correction(verdict, gps: first, system: reading)).date
    }
}
