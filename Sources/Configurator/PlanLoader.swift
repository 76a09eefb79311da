import Coaching
import Foundation
import PacerCore
import Storage
import Yams

/// Reads training plans (R1, R4, R11, R14): human-written YAML files, by default in
/// `<hardware_dir>/plans`, though a plan file may live anywhere. The bundled plans' comment
/// headers describe the format; in short:
///
/// ```yaml
/// name: Intervals                  # required
/// summary: Six fast repeats.       # optional
/// deadline: 2026-09-30             # optional, YYYY-MM-DD: the last day a workout may start
/// workouts:                        # one or more
///   - name: 6 x 2 min
///     phases:                      # one or more, followed in order
///       - {name: warm-up, minutes: 10, pace_min_per_km: ["7:00", "6:00"]}
///       - repeat: 6                # a group of phases, expanded in order
///         phases:
///           - {name: fast, minutes: 2, speed_kmh: [12.5, 14]}
///           - {name: recovery, minutes: 2, speed_kmh: [6, 9]}
///       - {name: cool-down, minutes: 5.5, speed_kmh: [6, 9]}
///   - name: 6 x 800 m
///     date: 2026-10-03             # optional: the day it is planned for
///     phases:
///       - {name: warm-up, km: 2, pace_min_per_km: ["7:00", "6:00"]}
///       - repeat: 6
///         phases:
///           - {name: fast, m: 800, pace_min_per_km: ["4:40", "4:25"]}
///           - {name: jog, m: 400}          # no target: not judged
///       - {name: easy, until: lap}         # ends at a lap press
/// ```
///
/// A phase ends on one of `minutes`, `m`, `km`, `mi` (on the odometer), `until: lap` (a lap
/// press) or `until: stop` (a free run: a lap press splits it into laps); `lap_ends: true`
/// lets a lap press end a timed or distance phase early. A phase gives its acceptable range
/// either as `speed_kmh: [minimum, maximum]` or as `pace_min_per_km: [slower, faster]` (m:ss
/// per kilometre, converted to speeds), or none (a recovery, an open phase: no pace cues).
/// Repeats nest one level. A file that
/// cannot be followed is refused with its file, line, key and reason:
/// `plans/intervals.yaml:14: workouts[0].phases[1].phases[0].speed_kmh: minimum 14 km/h is
/// above maximum 12.5 km/h`. List positions in keys count from 0, as in the cue book.
///
/// An expired plan still loads, so that it can be looked at (`pacer plan show`);
/// `checkStartable` is what refuses to start one of its workouts.
public enum PlanLoader {
    /// The folder of `hardware_dir` that holds the bundled plans.
    public static let folderName = "plans"
    /// Speeds above this are refused: no human runs faster for more than a few seconds (the
    /// fastest 100 m ever run peaked near 44.7 km/h; its average was 37.6 km/h).
    public static let maximumSpeedKmh = 40.0
    /// The longest phase: a day.
    public static let maximumMinutes = 24 * 60.0
    /// Most repetitions of one group.
    public static let maximumRepeat = 100
    /// Most phases one workout may expand to, repeats included.
    public static let maximumPhasesPerWorkout = 500
    /// Most workouts in a plan: two years of a workout a day, and then some.
    public static let maximumWorkouts = 1000
    /// Most phases a whole plan may expand to: what the device holds of a plan stays a few
    /// megabytes however its repeats multiply (a phase is about a hundred bytes).
    public static let maximumPhasesPerPlan = 20_000

    /// `hardwareDir/plans`.
    public static func directory(hardwareDir: String) -> String {
        "\(hardwareDir)/\(folderName)"
    }

    /// Reads and checks the plan file at `path`; a FIT workout file (`.fit`: Garmin Connect's,
    /// a coach's) is a plan of that one workout, as `pacer plan import` makes it.
    public static func load(path: String) throws(DataFileError) -> TrainingPlan {
        if isFIT(path) {
            do {
                return try PlanActions.importFITWorkout(path: path).plan
            } catch let error as FITWorkoutError {
                // The step (from 1) in the key's place, as a plan file's errors name theirs.
                let at = [error.step.map { "step \($0)" }, error.offset.map { "byte \($0)" }].compactMap { $0 }
                throw DataFileError(file: path, key: at.isEmpty ? nil : at.joined(separator: ", "), reason: error.reason)
            } catch {
                throw DataFileError(file: path, reason: "\(error)")
            }
        }
        return try plan(from: YAMLMapping.load(path: path))
    }

    /// A FIT workout file, by its name.
    public static func isFIT(_ path: String) -> Bool { path.lowercased().hasSuffix(".fit") }

    /// Parses `text`, the contents of `file` (named in errors).
    public static func load(file: String, text: String) throws(DataFileError) -> TrainingPlan {
        try plan(from: YAMLMapping.load(file: file, text: text))
    }

    /// The plan files (`*.yaml`) in `plansDir`, as paths sorted by file name.
    public static func available(plansDir: String) throws(DataFileError) -> [String] {
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: plansDir) else {
            throw DataFileError(file: plansDir, reason: "cannot be read: is it a folder of plans (is hardware_dir right)?")
        }
        return files.filter { $0.hasSuffix(".yaml") }.sorted().map { "\(plansDir)/\($0)" }
    }

    /// The rule for a plan argument, for help texts.
    public static let namingRule =
        "a path has a / or ends in .yaml or .fit (./demo, plans/mine.yaml, workout.fit: a FIT workout); anything else is the name of a bundled plan (demo)"

    /// Whether a plan argument is a path (`./demo`, `plans/mine.yaml`, `/etc/pacer/x.yaml`)
    /// rather than a bundled plan's name (`demo`): a `/`, or a `.yaml`/`.yml` ending.
    public static func isPath(_ argument: String) -> Bool {
        argument.contains("/") || argument.hasSuffix(".yaml") || argument.hasSuffix(".yml") || isFIT(argument)
    }

    /// The file a plan argument names (`namingRule`): a path as given, when it exists; a name,
    /// the plan of that name in `plansDir` (`intervals` or `intervals.yaml`), never a file or
    /// folder of that name in the working directory. Nil when it does not exist.
    public static func resolve(_ argument: String, plansDir: String?) -> String? {
        let fm = FileManager.default
        if isPath(argument) { return fm.fileExists(atPath: argument) ? argument : nil }
        guard let plansDir, !argument.isEmpty else { return nil }
        for candidate in [argument, "\(argument).yaml"] where fm.fileExists(atPath: "\(plansDir)/\(candidate)") {
            return "\(plansDir)/\(candidate)"
        }
        return nil
    }

    /// Refuses to start a workout of an expired plan (naming the deadline) or a workout the
    /// plan does not have; otherwise returns the workout. `workoutIndex` counts from 0 (the
    /// runner sees workout `workoutIndex + 1`); `today` is the caller's date: the GPS date on
    /// the device, the system date on a desktop.
    @discardableResult
    public static func checkStartable(
        plan: TrainingPlan, workoutIndex: Int, today: CivilDate
    ) throws(PlanStartError) -> Workout {
        try plan.workoutToStart(at: workoutIndex, on: today)
    }

    // MARK: - Reading

    static func plan(from top: YAMLMapping) throws(DataFileError) -> TrainingPlan {
        var map = top
        try map.refuseUnknownKeys(["name", "summary", "deadline", "workouts"])
        let name = try map.string("name")
        let summary = try map.optionalString("summary")?.trimmingCharacters(in: .whitespacesAndNewlines)
        var deadline: CivilDate?
        if let text = try map.optionalString("deadline") {
            deadline = try date(text, in: map, key: "deadline")
        }
        var workouts: [Workout] = []
        var phases = 0
        let items = try map.list("workouts", of: "workout", example: "- {name: Easy 30, phases: [...]}")
        guard items.count <= maximumWorkouts else {
            throw map.error("workouts", "\(items.count) workouts; a plan may have at most \(maximumWorkouts)")
        }
        for item in items {
            let next = try workout(item.node, path: item.path, file: map.file)
            phases += next.phases.count
            guard phases <= maximumPhasesPerPlan else {
                throw DataFileError(file: map.file, line: item.node.line, key: item.path,
                                    reason: "the plan expands to more than \(maximumPhasesPerPlan) phases by here, repeats included; a plan may have at most \(maximumPhasesPerPlan)")
            }
            workouts.append(next)
        }
        try map.finish()
        return TrainingPlan(name: name, summary: summary?.isEmpty == true ? nil : summary, deadline: deadline, workouts: workouts)
    }

    static func workout(_ node: Node, path: String, file: String) throws(DataFileError) -> Workout {
        var map = try YAMLMapping(file: file, node: node, path: path)
        try map.refuseUnknownKeys(["name", "date", "phases"])
        let name = try map.string("name")
        var date: CivilDate?
        if let text = try map.optionalString("date") { date = try Self.date(text, in: map, key: "date") }
        var groups = 0
        let phases = try phaseList(&map, groups: &groups, nested: false)
        try map.finish()
        guard phases.count <= maximumPhasesPerWorkout else {
            throw map.error("phases", "expands to \(phases.count) phases with its repeats; a workout may have at most \(maximumPhasesPerWorkout)")
        }
        return Workout(name: name, date: date, phases: phases)
    }

    /// The `phases` list of a workout or a repeat group, groups expanded; each phase of a
    /// group knows its pass (`Repetition`). `groups` numbers the workout's groups.
    static func phaseList(_ map: inout YAMLMapping, groups: inout Int, nested: Bool) throws(DataFileError) -> [Phase] {
        var phases: [Phase] = []
        let example = "- {name: easy, minutes: 30, speed_kmh: [9, 10.5]}"
        for item in try map.list("phases", of: "phase", example: example) {
            var entry = try YAMLMapping(file: map.file, node: item.node, path: item.path)
            if entry.has("repeat") || entry.has("phases") {
                try entry.refuseUnknownKeys(["repeat", "phases"])
                guard !nested else {
                    throw entry.error("repeat", "a repeat inside a repeat: one level of repeats is enough (write the inner group's phases out)")
                }
                let times = try repeatCount(&entry)
                let group = try phaseList(&entry, groups: &groups, nested: true)
                try entry.finish()
                guard group.count * times <= maximumPhasesPerWorkout else {
                    throw entry.error("repeat", "expands to \(group.count * times) phases; a workout may have at most \(maximumPhasesPerWorkout)")
                }
                for n in 1...times {
                    for var phase in group {
                        phase.repetition = Repetition(group: groups, number: n, count: times)
                        phases.append(phase)
                    }
                }
                groups += 1
            } else {
                phases.append(try phase(&entry))
            }
        }
        return phases
    }

    static func repeatCount(_ map: inout YAMLMapping) throws(DataFileError) -> Int {
        let n = try map.number("repeat", in: AllowedRange(1...Double(maximumRepeat), unit: "times"))
        guard n == n.rounded() else {
            throw map.error("repeat", "must be a whole number of times, got \(YAMLMapping.format(n))")
        }
        return Int(n)
    }

    /// The keys that say how a phase ends: exactly one of them.
    static let endKeys = ["minutes", "m", "km", "mi", "until"]
    /// The shortest distance phase: a stride (the odometer's figure is good to metres).
    public static let minimumMetres = 50.0
    /// The longest distance phase: 100 miles, and some.
    public static let maximumMetres = 200_000.0
    /// Metres in a statute mile.
    public static let metresPerMile = 1609.344

    static func phase(_ map: inout YAMLMapping) throws(DataFileError) -> Phase {
        try map.refuseUnknownKeys(Set(["name", "speed_kmh", "pace_min_per_km", "lap_ends", "notes"] + heartRateKeys + endKeys))
        let name = try map.string("name")
        let given = endKeys.filter { map.has($0) }
        guard given.count == 1 else {
            if given.isEmpty {
                throw map.error(nil, "missing how the phase ends: one of \(endKeys.map { "'\(map.path).\($0)'" }.joined(separator: ", ")) (a time, a distance, or until: lap)")
            }
            throw map.error(given[1], "give one of \(given.joined(separator: " and ")): a phase ends on one thing")
        }
        let end: PhaseEnd
        switch given[0] {
        case "minutes":
            let minutes = try map.number("minutes", in: AllowedRange(above: 0, atMost: maximumMinutes, unit: "minutes (a day)"))
            let milliseconds = Int64((minutes * 60_000).rounded())
            guard milliseconds >= 1000 else {
                throw map.error("minutes", "must be at least a second (0.0167 minutes), got \(YAMLMapping.format(minutes))")
            }
            end = .time(.milliseconds(milliseconds))
        case "until":
            let text = try map.string("until")
            switch text {
            case "lap": end = .lapPress
            case "stop": end = .stop
            default:
                throw map.error("until", "expected lap (the phase ends at a lap press) or stop (it runs until the runner stops), got '\(text)'")
            }
        default:
            let key = given[0]
            let scale = key == "m" ? 1 : key == "km" ? 1000 : metresPerMile
            let range = AllowedRange(minimumMetres / scale...maximumMetres / scale, unit: key == "m" ? "metres" : key)
            let value = try map.number(key, in: range)
            end = .distance((value * scale * 1000).rounded() / 1000)
        }
        let lapEnds = try map.optionalBool("lap_ends") ?? false
        let notes = try map.optionalString("notes")?.trimmingCharacters(in: .whitespacesAndNewlines)
        var target = PhaseTarget.none
        switch (map.has("speed_kmh"), map.has("pace_min_per_km")) {
        case (true, true):
            throw map.error("pace_min_per_km", "give either speed_kmh or pace_min_per_km, not both")
        case (false, false):
            // No target: a recovery jog, an open phase, a free run. Not judged.
            break
        case (true, false):
            let range = try speedRange(&map)
            target = .speed(minimum: range.minimum, maximum: range.maximum)
        case (false, true):
            let range = try paceRange(&map)
            target = .speed(minimum: range.minimum, maximum: range.maximum)
        }
        let (heartTarget, ceiling) = try heartRate(&map, hasPace: target != .none)
        if let heartTarget { target = .heartRate(heartTarget) }
        try map.finish()
        return Phase(name: name, end: end, target: target, lapEndsEarly: lapEnds,
                     notes: notes?.isEmpty == true ? nil : notes, heartRateCeiling: ceiling)
    }

    /// A phase's heart-rate keys: a target (`hr_zone: 2`, `hr_bpm: [140, 150]`) instead of a pace
    /// band, or a ceiling beside one (`hr_max_bpm: 150`, `hr_max_zone: 2`, its zone's top).
    static let heartRateKeys = ["hr_zone", "hr_bpm", "hr_max_bpm", "hr_max_zone"]

    static func heartRate(_ map: inout YAMLMapping, hasPace: Bool) throws(DataFileError)
        -> (target: HeartRateTarget?, ceiling: HeartRateCeiling?)
    {
        let given = heartRateKeys.filter { map.has($0) }
        guard given.count <= 1 else {
            throw map.error(given[1], "give one of \(given.joined(separator: " and ")): a phase has one heart-rate target or ceiling")
        }
        guard let key = given.first else { return (nil, nil) }
        if hasPace, key == "hr_zone" || key == "hr_bpm" {
            throw map.error(key, "a phase targets a pace or a heart rate, not both (a ceiling beside a pace band is hr_max_bpm or hr_max_zone)")
        }
        func zone() throws(DataFileError) -> Int {
            let n = try map.number(key, in: AllowedRange(1...5))
            guard n == n.rounded() else { throw map.error(key, "a zone is a whole number from 1 to 5, got \(YAMLMapping.format(n))") }
            return Int(n)
        }
        let bpmRange = AllowedRange(60...230, unit: "bpm")
        switch key {
        case "hr_zone": return (.zone(try zone()), nil)
        case "hr_max_zone": return (nil, .zoneTop(try zone()))
        case "hr_max_bpm":
            let b = try map.number(key, in: bpmRange)
            guard b == b.rounded() else { throw map.error(key, "a whole number of beats per minute, got \(YAMLMapping.format(b))") }
            return (nil, .bpm(Int(b)))
        default:
            let (low, high) = try map.pair(key, example: "[140, 150] (the lowest and highest bpm)")
            var bpm: [Int] = []
            for node in [low, high] {
                guard let v = node.scalar.flatMap({ Double($0.string) }), v == v.rounded(), (60...230).contains(v) else {
                    throw map.error(key, "expected whole beats per minute from 60 to 230, like [140, 150]")
                }
                bpm.append(Int(v))
            }
            guard bpm[1] - bpm[0] >= 4 else {
                throw map.error(key, bpm[1] < bpm[0]
                    ? "the lower rate comes first: [\(bpm[1]), \(bpm[0])]"
                    : "a band of at least 4 bpm (no heart holds one exact rate), got [\(bpm[0]), \(bpm[1])]")
            }
            return (.bpm(minimum: bpm[0], maximum: bpm[1]), nil)
        }
    }

    /// `speed_kmh: [minimum, maximum]`, in metres per second.
    static func speedRange(_ map: inout YAMLMapping) throws(DataFileError) -> (minimum: Double, maximum: Double) {
        let key = "speed_kmh"
        let (low, high) = try map.pair(key, example: "[10, 11.5] (minimum and maximum km/h)")
        var kmh: [Double] = []
        for (node, role) in [(low, "minimum"), (high, "maximum")] {
            guard let s = node.scalar?.string, let v = YAMLMapping.decimal(s), v.isFinite else {
                throw map.error(key, line: node.line, "\(role): expected a number of km/h, got '\(node.scalar?.string ?? YAMLMapping.kind(node))'")
            }
            try checkSpeed(v, role: role, shown: "\(YAMLMapping.format(v)) km/h", map: map, key: key, line: node.line)
            kmh.append(v)
        }
        guard kmh[0] < kmh[1] else {
            throw map.error(key, line: low.line, kmh[0] == kmh[1]
                ? "minimum and maximum are both \(YAMLMapping.format(kmh[0])) km/h: the range needs some width, no runner holds one exact speed"
                : "minimum \(YAMLMapping.format(kmh[0])) km/h is above maximum \(YAMLMapping.format(kmh[1])) km/h")
        }
        return (Pace.metresPerSecond(kilometresPerHour: kmh[0]), Pace.metresPerSecond(kilometresPerHour: kmh[1]))
    }

    /// `pace_min_per_km: ["6:00", "5:30"]`, slower first, in metres per second.
    static func paceRange(_ map: inout YAMLMapping) throws(DataFileError) -> (minimum: Double, maximum: Double) {
        let key = "pace_min_per_km"
        let (slow, fast) = try map.pair(key, example: "[\"6:00\", \"5:30\"] (the slower pace first, m:ss per km)")
        var seconds: [Int] = []
        for (node, role) in [(slow, "slower pace"), (fast, "faster pace")] {
            let text = node.scalar?.string ?? YAMLMapping.kind(node)
            guard let s = paceSeconds(text) else {
                throw map.error(key, line: node.line, "\(role): expected minutes:seconds per km like \"5:30\", got '\(text)'")
            }
            guard s > 0 else { throw map.error(key, line: node.line, "\(role): must be positive, got '\(text)'") }
            try checkSpeed(3600 / Double(s), role: role, shown: "\(text) /km", map: map, key: key, line: node.line)
            seconds.append(s)
        }
        guard seconds[0] > seconds[1] else {
            let a = slow.scalar?.string ?? "", b = fast.scalar?.string ?? ""
            throw map.error(key, line: slow.line, seconds[0] == seconds[1]
                ? "both paces are \(a) /km: the range needs some width, no runner holds one exact pace"
                : "the slower pace comes first: \(a) /km is faster than \(b) /km (write [\"\(b)\", \"\(a)\"])")
        }
        return (1000 / Double(seconds[0]), 1000 / Double(seconds[1]))
    }

    /// Refuses speeds no runner could be asked for.
    static func checkSpeed(
        _ kmh: Double, role: String, shown: String, map: YAMLMapping, key: String, line: Int?
    ) throws(DataFileError) {
        guard kmh > 0 else { throw map.error(key, line: line, "\(role): must be positive, got \(shown)") }
        guard kmh <= maximumSpeedKmh else {
            throw map.error(
                key, line: line,
                "\(role): \(shown) is over \(Int(maximumSpeedKmh)) km/h, faster than any human runs (a typo?)")
        }
    }

    /// Seconds per km in `m:ss` (`5:30`, `12:05`), or nil when not that shape.
    static func paceSeconds(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let m = Int(parts[0]), let s = Int(parts[1]), s < 60
        else { return nil }
        return m * 60 + s
    }

    /// `YYYY-MM-DD`, a day that exists.
    static func date(_ text: String, in map: YAMLMapping, key: String) throws(DataFileError) -> CivilDate {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2])
        else {
            throw map.error(key, "expected a date as YYYY-MM-DD, like 2026-09-30, got '\(text)'")
        }
        guard let date = CivilDate(year: y, month: m, day: d) else {
            throw map.error(key, "\(text) is not a day of the calendar")
        }
        return date
    }
}

extension YAMLMapping {
    /// Refuses the first key not in `known` before any value is read, so that a misspelt key
    /// is named as unknown rather than reported as a missing one.
    func refuseUnknownKeys(_ known: Set<String>) throws(DataFileError) {
        guard let mapping = node.mapping else { return }
        for case let (k, _) in mapping {
            guard let name = k.string, !known.contains(name) else { continue }
            throw DataFileError(
                file: file, line: k.line, key: keyPath(name),
                reason: "unknown key (expected one of: \(known.sorted().joined(separator: ", ")))")
        }
    }

    /// `path.key`, as errors name it.
    func keyPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// An error about `key` at a given line (an item of its list, say) rather than the key's.
    func error(_ key: String, line: Int?, _ reason: String) -> DataFileError {
        DataFileError(file: file, line: line ?? error(key, "").line, key: keyPath(key), reason: reason)
    }

    /// The non-empty list under `key`, each item with its key path (`workouts[0]`); refuses a
    /// missing key, a value that is not a list and an empty list.
    mutating func list(_ key: String, of item: String, example: String) throws(DataFileError) -> [(node: Node, path: String)] {
        let node = try requiredNode(key)
        guard case .sequence(let sequence) = node else {
            throw error(key, "expected a list of \(item)s, one per line like `\(example)`, got a \(YAMLMapping.kind(node))")
        }
        guard !sequence.isEmpty else { throw error(key, "needs at least one \(item)") }
        return sequence.enumerated().map { (node: $1, path: "\(keyPath(key))[\($0)]") }
    }

    /// A list of exactly two scalars under `key`.
    public mutating func pair(_ key: String, example: String) throws(DataFileError) -> (Node, Node) {
        let node = try requiredNode(key)
        guard case .sequence(let sequence) = node, sequence.count == 2,
              sequence.allSatisfy({ $0.scalar != nil })
        else {
            throw error(key, "expected two values: \(example)")
        }
        return (sequence[0], sequence[1])
    }
}
