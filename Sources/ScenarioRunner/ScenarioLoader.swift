import Coaching
import Configurator
import Foundation
import HAL
import PacerCore
import Simulation
import Yams

/// Reads `scenario.yaml`, the human-written half of a scenario (same family as plan files):
///
/// ```yaml
/// name: Steady on-pace run
/// summary: Twelve minutes inside the band; on-pace reminders only.
/// plan: plan.yaml             # a plan file in this folder, or a bundled plan's name
/// workout: 1                  # from 1 (default 1)
/// mode: device                # the device as the unit runs it (default run: the workout at once)
/// until: "30:00"              # device mode: when the scenario ends
/// profile: medium             # a power profile (default medium)
/// date: 2026-05-02            # today, for the plan's deadline (default: the recording's date)
/// system_clock: "sim?at=2026-05-02T06:59:30Z"  # the system clock the GPS time is checked
///                             # against (`sim` alone: not set; default none: the recording's
///                             # dates as they are); a receiver 1024 weeks early is corrected
/// recording: run.nmea         # what the GPS replays, relative to this folder (or a run's GPX, TCX, FIT)
/// past_run: ../profile-high   # instead: a what-if, the stored run of that scenario coached again
/// synth: run.synth.yaml       # the `pacer nmea synth` recipe the recording was made from
/// route: ../routes/loop.gpx   # a route to follow (`pacer run --route`): its <rte>, else its track
/// ghost: run.fit              # a ghost to race (`pacer run --ghost`): a GPX, TCX or FIT run in
///                             # this folder, or a target: "5km@24:30", "10km@50:00,negative=2%"
/// hardware: zero-m8n               # the build whose energy model drains the battery
/// radio: sim                  # a simulated Wi-Fi radio the profile switches (default none)
/// heart_rate:                 # a strap (`sim:`), default none; one of:
///   file: hr.csv              #   a recorded stream (seconds,bpm[,RR ms]; `seconds,lost`)
///   synth: {resting_bpm: 52, max_bpm: 188, easy: [9.5, 140], hard: [15, 178], rise_s: 25,
///           fall_s: 40, drift_bpm_per_h: 5, noise_bpm: 1, seed: 7,
///           lost: [{from: "20:00", to: "21:00"}],    # away: the source says lost
///           silent: [{from: "30:00", to: "30:40"}]}  # connected, sending nothing
///                             # made from the synthesized run's true speeds
/// athlete: {max_hr: 188, resting_hr: 52, threshold_hr: 170, age: 40}   # the zones' figures
/// battery: {capacity_mah: 1200, level: 100}   # default: the build's battery, full
/// script:                     # what happens, at scenario times (seconds, M:SS or H:MM:SS)
///   - {at: "5:00", do: waypoint, name: Bridge}
///   - {at: "9:00", do: pause}
///   - {at: "10:30", do: resume}
///   - {at: "11:00", do: battery, level: 14}
///   - {at: "12:00", do: power-cut, restart_after: 30}
///   - {at: "15:00", do: stop}
///   - {at: "0:40", do: press, hold: 0.2}      # the button; `do: start` is `pacer ctl start`
/// gps:                        # faults: silent (no sentences), invalid (no fix), unplug
///   - {from: "3:00", to: "4:30", fault: silent}
/// expect:                     # checked by `pacer scenario test`, besides the goldens
///   - {cue: speed-up, at: "2:10", within: 15}
///   - {cue: slow-down, count: 0}
///   - {cue: on-pace, min: 3, from: "4:00", to: "8:00"}
///   - {gps: fix-lost, at: "3:05", within: 10}
///   - {event: paused, count: 1}
///   - {event: auto-paused, count: 1}          # the profile's auto-pause (also auto-resumed)
///   - {event: waypoint-ahead, name: Bridge, at: "4:10", within: 15}   # following a route; also
///                               # route-joined, off-route, on-route, waypoint-passed, turn-around, route-end
///   - {distance_km: 2.4, within: 0.05}         # the last activity; `activity: N` for another
///   - {timer: "12:00", elapsed: "13:30", moving: "11:58", within: 1}   # elapsed, moving optional
///   - {end: recovered, activity: 1}
///   - {activities: 2}
///   - {waypoints: 1}
///   - {segments: 2}
///   - {phases: 3}
/// ```
///
/// Everything is checked as it is read; a broken file is refused with its file, line, key and
/// reason, like every other data file.
public enum ScenarioLoader {
    public static let fileName = "scenario.yaml"

    /// Reads `directory/scenario.yaml`. Bundled plans are looked up in `plansDir`.
    public static func load(directory: String, plansDir: String?) throws(DataFileError) -> Scenario {
        try scenario(from: YAMLMapping.load(path: "\(directory)/\(fileName)"), directory: directory, plansDir: plansDir)
    }

    /// Parses `text` as the contents of the scenario file `file` (named in errors); its plan,
    /// recording and recipe are looked for beside it, as with `load(directory:plansDir:)`.
    public static func load(file: String, text: String, plansDir: String?) throws(DataFileError) -> Scenario {
        let directory = (file as NSString).deletingLastPathComponent
        return try scenario(
            from: YAMLMapping.load(file: file, text: text), directory: directory.isEmpty ? "." : directory,
            plansDir: plansDir)
    }

    static func scenario(from top: YAMLMapping, directory: String, plansDir: String?) throws(DataFileError) -> Scenario {
        var map = top
        let file = map.file
        let name = try map.string("name")
        let summary = try map.optionalString("summary")

        let planArgument = try map.string("plan")
        // A path (`../plans/steady.yaml`) is the scenario folder's; a name (`demo`) a bundled plan.
        let local = planArgument.hasPrefix("/") ? planArgument : "\(directory)/\(planArgument)"
        guard let planPath = PlanLoader.isPath(planArgument)
            ? (FileManager.default.fileExists(atPath: local) ? local : nil)
            : PlanLoader.resolve(planArgument, plansDir: plansDir)
        else {
            throw map.error("plan", PlanLoader.isPath(planArgument)
                ? "no plan file '\(planArgument)' in \(directory)"
                : "no plan named '\(planArgument)' in \(plansDir ?? "the plans folder")")
        }
        let mode = try map.optionalString("mode") ?? "run"
        guard mode == "run" || mode == "device" else {
            throw map.error("mode", "'\(mode)' is not one of run, device")
        }
        if mode == "device", map.has("workout") {
            throw map.error("workout", "a device-mode scenario has no workout: the device offers the plan's first not completed")
        }
        let until = try optionalDuration(&map, "until")
        if mode == "device", until == nil {
            throw map.error(nil, "a device-mode scenario needs `until:` (when it ends; the device waits for ever)")
        }
        if mode == "run", until != nil {
            throw map.error("until", "only a device-mode scenario has `until:` (a run ends with its workout)")
        }
        let workout = try map.optionalNumber("workout", in: AllowedRange(1...999_999)) ?? 1
        guard workout == workout.rounded() else {
            throw map.error("workout", "must be a whole workout number, got \(YAMLMapping.format(workout))")
        }
        let profile = try map.optionalString("profile") ?? "medium"
        var date: CivilDate?
        if let text = try map.optionalString("date") {
            guard let d = CivilDate(parsing: text) else { throw map.error("date", "'\(text)' is not a date (YYYY-MM-DD)") }
            date = d
        }
        func localFile(_ key: String) throws(DataFileError) -> String? {
            guard let name = try map.optionalString(key) else { return nil }
            let path = name.hasPrefix("/") ? name : "\(directory)/\(name)"
            return path
        }
        let recording = try localFile("recording")
        let recipe = try localFile("synth")
        let pastRun = try localFile("past_run")
        if let pastRun {
            guard recording == nil, recipe == nil else {
                throw map.error("past_run", "a what-if replays the stored run of \(pastRun): it has no recording or synth of its own")
            }
            guard FileManager.default.fileExists(atPath: "\(pastRun)/\(fileName)") else {
                throw map.error("past_run", "\(pastRun) holds no \(fileName): past_run names a scenario folder")
            }
        } else if recording == nil && recipe == nil {
            throw map.error(nil, "names no recording: give `recording: FILE.nmea`, or `synth: RECIPE.yaml` to make one")
        }
        if let recording, !FileManager.default.fileExists(atPath: recording) {
            throw map.error("recording", "\(recording) does not exist")
        }
        // A recording is replayed and read through for its date: it must end. A device
        // (/dev/zero, /dev/urandom), a FIFO or a folder would be read for ever.
        if let recording, let type = try? FileManager.default.attributesOfItem(atPath: recording)[.type] as? FileAttributeType,
           type != .typeRegular {
            throw map.error("recording", "\(recording) is not a regular file (a recording is an NMEA file; a device or a pipe never ends)")
        }
        if let recipe, !FileManager.default.fileExists(atPath: recipe) {
            throw map.error("synth", "\(recipe) does not exist")
        }
        let route = try localFile("route")
        if let route, !FileManager.default.fileExists(atPath: route) {
            throw map.error("route", "\(route) does not exist")
        }
        var ghost = try map.optionalString("ghost")
        if let name = ghost, !name.contains("@") {
            let path = name.hasPrefix("/") ? name : "\(directory)/\(name)"
            guard FileManager.default.fileExists(atPath: path) else { throw map.error("ghost", "\(path) does not exist") }
            ghost = path
        }

        var battery = Scenario.BatterySetup()
        if var b = try map.optionalMapping("battery") {
            if let c = try b.optionalNumber("capacity_mah", in: HardwareModelLoader.capacityRange) {
                battery.capacityMilliampHours = c
            }
            if let l = try b.optionalNumber("level", in: AllowedRange(0...100, unit: "%")) {
                battery.percent = l
            }
            try b.finish()
        }

        let hardware = try map.optionalString("hardware")
        var systemClock: DeviceURI?
        if let text = try map.optionalString("system_clock") {
            // Checked as the configurator will build it: a scenario's clock is simulated (the
            // board's would make the run depend on the day it is run).
            do {
                let uri = try DeviceURI(parsing: text)
                guard uri.scheme == "sim" || uri.scheme == "none" else {
                    throw ConfigurationError("'\(text)' is not a simulated clock: sim?at=YYYY-MM-DDTHH:MM:SSZ[&synchronized=yes], sim (not set) or none")
                }
                _ = try Configurator.makeSystemTime(uri, gps: DeviceURI(parsing: "file:run.nmea"), clock: VirtualClock())
                systemClock = uri
            } catch {
                throw map.error("system_clock", "\(error)")
            }
        }
        var radio: DeviceURI?
        if let text = try map.optionalString("radio") {
            // Simulated only, as the clock: a board's radio would be switched by a test run.
            guard let uri = try? DeviceURI(parsing: text), uri.scheme == "sim" || uri.scheme == "none" else {
                throw map.error("radio", "'\(text)' is not a simulated radio: sim[?blocked=yes&hard=yes] or none")
            }
            do {
                _ = try Configurator.makeRadio(uri, clock: VirtualClock())
            } catch {
                throw map.error("radio", "\(error)")
            }
            radio = uri.scheme == "sim" ? uri : nil
        }
        let heartRate = try heartRateSetup(&map, directory: directory, hasRecipe: recipe != nil)
        let athlete = try athleteFigures(&map)
        // Speech on, with the block's choices (`enabled: no` turns it off again).
        var speech: SpeechSettings?
        if let block = try map.optionalMapping("speech") {
            speech = try SpeechSettingsLoader.speech(block, base: SpeechSettings(enabled: true))
            if speech?.speaksAnywhere == false { speech = nil }
        }
        // What sounds before a phase ends (`to_go:`, as in a profile).
        let anticipation = map.has("to_go") ? try PowerProfileLoader.anticipation(&map) : nil
        // The button's actions (`button_actions:`, as in the settings): a press that says the status.
        var actions: ButtonActions?
        if map.has("button_actions") { actions = try Settings.buttonActions(map.optionalMapping("button_actions")) }
        var script: [ScriptedAction] = []
        for var item in try list(&map, "script") {
            script.append(try action(&item))
            try item.finish()
        }
        script.sort { $0.at < $1.at }  // stable: same-time actions keep the file's order
        var faults: [GPSFault] = []
        for var item in try list(&map, "gps") {
            let kind = try item.choice("fault", GPSFault.Kind.self)
            let from = try duration(&item, "from")
            let to = try duration(&item, "to")
            guard to > from else { throw item.error("to", "must be after from (\(clock(from)))") }
            faults.append(GPSFault(kind: kind, from: from, to: to, line: item.line))
            try item.finish()
        }
        faults.sort { $0.from < $1.from }
        for (a, b) in zip(faults, faults.dropFirst()) where b.from < a.to {
            throw DataFileError(file: file, line: b.line, key: "gps",
                                reason: "fault at \(clock(b.from)) overlaps the one from \(clock(a.from)) to \(clock(a.to))")
        }
        var expectations: [Expectation] = []
        for var item in try list(&map, "expect") {
            expectations.append(try expectation(&item))
            try item.finish()
        }
        try map.finish()
        var scenario = Scenario(
            directory: directory, file: file, name: name, summary: summary, planPath: planPath,
            workoutIndex: Int(workout) - 1, profile: profile, date: date, recording: recording, recipe: recipe,
            battery: battery, script: script, faults: faults, expectations: expectations)
        scenario.hardware = hardware
        scenario.deviceMode = mode == "device"
        scenario.until = until
        scenario.route = route
        scenario.ghost = ghost
        scenario.pastRun = pastRun
        scenario.systemClock = systemClock
        scenario.speech = speech
        scenario.anticipation = anticipation
        scenario.radio = radio
        scenario.heartRate = heartRate
        scenario.athlete = athlete
        scenario.buttonActions = actions
        if !scenario.deviceMode, let line = script.first(where: { $0.action == .start })?.line {
            throw DataFileError(file: file, line: line, key: "script", reason: "`do: start` is for a device-mode scenario (`mode: device`)")
        }
        return scenario
    }

    // MARK: - Parts

    /// `heart_rate: {file: hr.csv}` or `heart_rate: {synth: {…}}`.
    static func heartRateSetup(_ map: inout YAMLMapping, directory: String, hasRecipe: Bool) throws(DataFileError)
        -> Scenario.HeartRateSetup?
    {
        guard var h = try map.optionalMapping("heart_rate") else { return nil }
        let setup: Scenario.HeartRateSetup
        switch (h.has("file"), h.has("synth")) {
        case (true, false):
            let name = try h.string("file")
            let path = name.hasPrefix("/") ? name : "\(directory)/\(name)"
            guard FileManager.default.fileExists(atPath: path) else { throw h.error("file", "\(name) does not exist in \(directory)") }
            do {
                _ = try Configurator.loadHeartRateStream(path: path)
            } catch {
                throw h.error("file", error.description)
            }
            setup = .file(path)
        case (false, true):
            guard hasRecipe else {
                throw h.error("synth", "a heart rate is made from a synthesized run's speeds: the scenario needs `synth: RECIPE.yaml`")
            }
            guard var m = try h.optionalMapping("synth") else { throw h.error("synth", "expected a mapping of the model's figures") }
            var model = HeartRateModel()
            let bpm = AllowedRange(30...230, unit: "bpm")
            if let v = try m.optionalNumber("resting_bpm", in: bpm) { model.restingBpm = v }
            if let v = try m.optionalNumber("max_bpm", in: bpm) { model.maximumBpm = v }
            for key in ["easy", "hard"] where m.has(key) {
                let (a, b) = try m.pair(key, example: "[KM/H, BPM], like [9.5, 140]")
                guard let kmh = a.scalar.flatMap({ Double($0.string) }), (3...30).contains(kmh),
                      let rate = b.scalar.flatMap({ Double($0.string) }), (30...230).contains(rate)
                else { throw m.error(key, "expected [KM/H, BPM] with 3-30 km/h and 30-230 bpm, like [9.5, 140]") }
                if key == "easy" { model.easy = (kmh, rate) } else { model.hard = (kmh, rate) }
            }
            guard model.hard.kmh > model.easy.kmh, model.hard.bpm > model.easy.bpm else {
                throw m.error("hard", "must be faster than easy, at a higher rate")
            }
            guard model.maximumBpm > model.restingBpm + 40 else {
                throw m.error("max_bpm", "must be at least 40 bpm above resting_bpm")
            }
            let tau = AllowedRange(1...300, unit: "s")
            if let v = try m.optionalNumber("rise_s", in: tau) { model.riseSeconds = v }
            if let v = try m.optionalNumber("fall_s", in: tau) { model.fallSeconds = v }
            if let v = try m.optionalNumber("drift_bpm_per_h", in: AllowedRange(0...30, unit: "bpm/h")) { model.driftPerHour = v }
            if let v = try m.optionalNumber("noise_bpm", in: AllowedRange(0...10, unit: "bpm")) { model.noise = v }
            if let v = try m.optionalNumber("seed", in: AllowedRange(0...4_294_967_295)) { model.seed = UInt64(v) }
            for key in ["lost", "silent"] {
                for var item in try list(&m, key) {
                    let from = try duration(&item, "from"), to = try duration(&item, "to")
                    guard to > from else { throw item.error("to", "must be after from (\(clock(from)))") }
                    if key == "lost" { model.lost.append(from.inSeconds...to.inSeconds) } else { model.silent.append(from.inSeconds...to.inSeconds) }
                    try item.finish()
                }
            }
            try m.finish()
            setup = .synth(model)
        default:
            throw h.error(nil, "give one of `file: STREAM.csv` or `synth: {…}`")
        }
        try h.finish()
        return setup
    }

    /// `athlete: {max_hr: 188, resting_hr: 52, threshold_hr: 170, age: 40}`, each optional.
    static func athleteFigures(_ map: inout YAMLMapping) throws(DataFileError) -> HeartRateFigures? {
        guard var a = try map.optionalMapping("athlete") else { return nil }
        func whole(_ key: String, _ range: ClosedRange<Int>) throws(DataFileError) -> Int? {
            guard let v = try a.optionalNumber(key, in: AllowedRange(Double(range.lowerBound)...Double(range.upperBound), unit: key == "age" ? "years" : "bpm")) else { return nil }
            guard v == v.rounded() else { throw a.error(key, "expected a whole number, got \(YAMLMapping.format(v))") }
            return Int(v)
        }
        let figures = HeartRateFigures(
            maximum: try whole("max_hr", HeartRateFigures.maximumRange), resting: try whole("resting_hr", HeartRateFigures.restingRange),
            threshold: try whole("threshold_hr", HeartRateFigures.thresholdRange), age: try whole("age", HeartRateFigures.ageRange))
        if let wrong = figures.inconsistency { throw a.error(nil, wrong) }
        try a.finish()
        return figures
    }

    static func list(_ map: inout YAMLMapping, _ key: String) throws(DataFileError) -> [YAMLMapping] {
        guard let node = map.optionalNode(key) else { return [] }
        guard let items = node.sequence else { throw map.error(key, "expected a list") }
        var out: [YAMLMapping] = []
        for (i, n) in items.enumerated() { out.append(try YAMLMapping(file: map.file, node: n, path: "\(key)[\(i)]")) }
        return out
    }

    static func action(_ item: inout YAMLMapping) throws(DataFileError) -> ScriptedAction {
        let at = try duration(&item, "at")
        let verb = try item.string("do")
        let action: ScriptedAction.Action
        switch verb {
        case "waypoint": action = .waypoint(try item.optionalString("name") ?? "waypoint")
        case "pause": action = .pause
        case "resume": action = .resume
        case "stop": action = .stop
        case "start": action = .start
        case "say-status": action = .sayStatus
        case "lap": action = .lap
        case "battery":
            action = .battery(try item.number("level", in: AllowedRange(0...100, unit: "%")))
        case "power-cut":
            action = .powerCut(restartAfter: try optionalDuration(&item, "restart_after") ?? .seconds(30))
        case "press":
            let holdRange = AllowedRange(0.01...60, unit: "s")
            let hold = try item.optionalNumber("hold", in: holdRange) ?? 0.2
            action = .press(hold: .milliseconds(Int64((hold * 1000).rounded())))
        default:
            throw item.error("do", "'\(verb)' is not one of waypoint, pause, resume, lap, stop, start, say-status, press, battery, power-cut")
        }
        return ScriptedAction(at: at, action: action, line: item.line)
    }

    static func expectation(_ item: inout YAMLMapping) throws(DataFileError) -> Expectation {
        func near() throws(DataFileError) -> Expectation.Near? {
            guard let at = try optionalDuration(&item, "at") else {
                if item.has("within") { throw item.error("within", "needs `at`") }
                return nil
            }
            return .init(at: at, tolerance: try optionalDuration(&item, "within") ?? .seconds(5))
        }
        func count() throws(DataFileError) -> Expectation.CountBound? {
            let exact = try integer(&item, "count")
            let lo = try integer(&item, "min")
            let hi = try integer(&item, "max")
            if let exact {
                guard lo == nil, hi == nil else { throw item.error("count", "give count, or min and max, not both") }
                return .init(minimum: exact, maximum: exact)
            }
            return lo == nil && hi == nil ? nil : .init(minimum: lo, maximum: hi)
        }
        /// `from` and `to` (either may be left out): the part of the run the check looks at.
        func window() throws(DataFileError) -> ClosedRange<Duration>? {
            let from = try optionalDuration(&item, "from")
            let to = try optionalDuration(&item, "to")
            guard from != nil || to != nil else { return nil }
            let lo = from ?? .zero, hi = to ?? .seconds(1_000_000)
            guard hi >= lo else { throw item.error("to", "must not be before from") }
            return lo...hi
        }
        func activity() throws(DataFileError) -> Int? {
            try integer(&item, "activity")
        }
        let check: Expectation.Check
        if let name = try item.optionalString("cue") {
            guard let cue = Cue(rawValue: name) else {
                throw item.error("cue", "'\(name)' is not a cue (\(Cue.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            let n = try near()
            let c = try count()
            let window = try window()
            guard n != nil || c != nil else { throw item.error("cue", "needs `at` (with `within`) or `count`/`min`/`max`") }
            check = .cue(cue, near: n, count: c, window: window)
        } else if let status = try item.optionalString("gps") {
            let known = ["disconnected", "connected", "acquiring", "fix", "fix-lost"]
            guard known.contains(status) else { throw item.error("gps", "'\(status)' is not one of \(known.joined(separator: ", "))") }
            let n = try near(), c = try count()
            guard n != nil || c != nil else { throw item.error("gps", "needs `at` (with `within`) or `count`/`min`/`max`") }
            check = .gps(status, near: n, count: c)
        } else if let kind = try item.optionalString("event") {
            let known = ["started", "phase-started", "phase-finished", "waypoint", "waypoint-refused", "paused", "resumed", "lap",
                         "auto-paused", "auto-resumed",
                         "battery", "battery-set", "profile-changed", "calibrated", "finished", "power-cut", "restart", "recovered",
                         "press", "state", "offered", "refused", "fault", "button",
                         "route-joined", "off-route", "on-route", "waypoint-ahead", "waypoint-passed", "turn-around", "route-end", "say", "say-cut", "say-dropped", "radio", "strap", "strap-battery", "ghost"]
            guard known.contains(kind) else { throw item.error("event", "'\(kind)' is not one of \(known.joined(separator: ", "))") }
            let name = try item.optionalString("name")
            let n = try near(), c = try count(), w = try window()
            guard n != nil || c != nil else { throw item.error("event", "needs `at` (with `within`) or `count`/`min`/`max`") }
            check = .event(kind, name: name, near: n, count: c, window: w)
        } else if let km = try item.optionalNumber("distance_km", in: distanceRange) {
            let tolerance = try item.optionalNumber("within", in: distanceRange) ?? 0.01
            check = .distance(activity: try activity(), km: km, tolerance: tolerance)
        } else if let timer = try optionalDuration(&item, "timer") {
            let elapsed = try optionalDuration(&item, "elapsed")
            let moving = try optionalDuration(&item, "moving")
            let tolerance = try optionalDuration(&item, "within") ?? .seconds(1)
            check = .times(activity: try activity(), timer: timer, elapsed: elapsed, moving: moving, tolerance: tolerance)
        } else if let end = try item.optionalString("end") {
            let states = ActivityEnd.allCases.map(\.rawValue)
            guard states.contains(end) else { throw item.error("end", "'\(end)' is not one of \(states.joined(separator: ", "))") }
            check = .end(activity: try activity(), state: end)
        } else if let n = try integer(&item, "activities") {
            check = .activities(n)
        } else if let n = try integer(&item, "waypoints") {
            check = .waypoints(activity: try activity(), count: n)
        } else if let n = try integer(&item, "segments") {
            check = .segments(activity: try activity(), count: n)
        } else if let n = try integer(&item, "phases") {
            check = .phases(activity: try activity(), count: n)
        } else {
            throw item.error(nil, "expected one of cue, gps, event, distance_km, timer, end, activities, waypoints, segments, phases")
        }
        return Expectation(check, line: item.line)
    }

    /// Distances an expectation names, km: a scenario runs for hours, not days.
    static let distanceRange = AllowedRange(0...1000, unit: "km")
    /// Times and lengths of time in a scenario: up to a week (168:00:00), beyond any run.
    static let timeRange = AllowedRange(0...(7 * 86_400), unit: "s")

    static func integer(_ item: inout YAMLMapping, _ key: String) throws(DataFileError) -> Int? {
        guard let v = try item.optionalNumber(key, in: AllowedRange(0...999_999_999)) else { return nil }
        guard v == v.rounded() else { throw item.error(key, "expected a whole number, got \(YAMLMapping.format(v))") }
        return Int(v)
    }

    static func duration(_ item: inout YAMLMapping, _ key: String) throws(DataFileError) -> Duration {
        guard let d = try optionalDuration(&item, key) else { throw item.error(nil, "missing key '\(key)'") }
        return d
    }

    /// A time or a length of time: seconds (`95`, `2.5`), `M:SS` or `H:MM:SS` (fractions allowed).
    static func optionalDuration(_ item: inout YAMLMapping, _ key: String) throws(DataFileError) -> Duration? {
        guard let node = item.optionalNode(key) else { return nil }
        // The same syntax as `nmea synth` recipes, read by the same code.
        guard let text = node.scalar?.string, let seconds = SynthRecipeLoader.seconds(text) else {
            throw item.error(key, "expected seconds, M:SS or H:MM:SS, got '\(node.scalar?.string ?? "not text")'")
        }
        guard timeRange.contains(seconds) else {
            throw item.error(key, "must be from 0 to 168:00:00 (a week), got \(text)")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// Seconds, `M:SS` or `H:MM:SS`, up to a week; nil for anything else.
    public static func parseDuration(_ text: String) -> Duration? {
        guard let seconds = SynthRecipeLoader.seconds(text), timeRange.contains(seconds) else { return nil }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// `H:MM:SS` (or `M:SS` under an hour), with `.mmm` when not whole.
    public static func clock(_ d: Duration) -> String {
        let ms = Int64((d.inSeconds * 1000).rounded())
        let s = ms / 1000
        var text = s >= 3600 ? "\(s / 3600):\(two(s / 60 % 60)):\(two(s % 60))" : "\(s / 60):\(two(s % 60))"
        if ms % 1000 != 0 { text += "." + String(String(1000 + ms % 1000).dropFirst()) }
        return text
    }

    private static func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
}

extension CivilDate {
    /// `YYYY-MM-DD`, the year in four digits as in plan files (a longer one overflowed the
    /// day arithmetic of deadlines).
    init?(parsing text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2])
        else { return nil }
        self.init(year: y, month: m, day: d)
    }
}
