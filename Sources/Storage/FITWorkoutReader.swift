import Coaching
import Foundation
import PacerCore

/// A FIT workout file Pacer will not follow: the file, the step (from 1: its message_index
/// plus one, as Garmin Connect numbers steps) when one step is the reason, the byte when the
/// file itself is broken, and the reason.
public struct FITWorkoutError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var step: Int?
    public var offset: Int?
    public var reason: String

    public init(file: String, step: Int? = nil, offset: Int? = nil, reason: String) {
        self.file = file
        self.step = step
        self.offset = offset
        self.reason = reason
    }

    /// A file that could not be read at all (not there, a folder, no permission): an input
    /// that is missing rather than a broken one.
    public var isUnreadable: Bool {
        offset == nil && step == nil
            && (reason == "no such file" || reason.hasPrefix("cannot read") || reason.hasPrefix("is a folder"))
    }

    public var description: String {
        var s = "\(file): "
        if let step { s += "step \(step): " }
        if let offset { s += "byte \(offset): " }
        return s + reason
    }
}

/// What a FIT workout file holds for Pacer: the workout (its repeats flattened, each pass
/// marked), the workout's description (wkt_description) and how many steps the file had.
public struct FITWorkoutData: Hashable, Sendable {
    public var workout: Workout
    public var description: String?
    /// The file's workout_step messages, repeat steps included.
    public var steps: Int
}

/// Reads a FIT workout file (file_id type 5: a workout message and its workout_step
/// messages, as Garmin Connect, TrainingPeaks or intervals.icu write them for a watch) into
/// a `Workout`, through the FIT decoding of `FITReader` (header, CRCs, definitions, chains).
///
/// Steps become phases: a time step ends on the timer, a distance step on the odometer, an
/// open step at a lap press (`.lapPress`); a custom speed range is the phase's band (its two
/// values in either order), an open target none. A `repeat_until_steps_cmplt` step repeats
/// the steps from the one it names, its count of times (Garmin's count is the passes in all),
/// flattened with each pass marked (`Repetition`); repeats nest one level, as in plan files.
/// A step's name is its wkt_step_name, else a word for its intensity (warm-up, cool-down,
/// recovery, rest) or `step N`; its notes are kept.
///
/// Anything Pacer cannot coach is refused with the step's number and why, never dropped:
/// heart-rate durations, heart rate as % of the maximum, power, cadence,
/// grade and resistance, calories, repeats until a time, a distance or a heart rate, a watch's
/// speed zone without a custom range, a second target, strength and swimming steps, a
/// workout for another sport. Everything is bounded by `Limits` (the plan loader's, so that
/// what is read is a plan Pacer loads): the steps read, the phases the repeats expand to,
/// the repeat counts, each time, distance and speed. A workout file is at most 1 MB
/// (`maximumSize`); however large, it is read in pieces of 64 kB, as an activity's is.
///
/// Speeds are millimetres per second in FIT: a range whose ends are the rounding of speeds a
/// person writes (whole or tenths of km/h, whole seconds per km) is read as those speeds, so
/// a plan exported by Pacer reads back to the same speeds; any other as the km/h it makes. Names
/// are one line; notes keep their lines (any line break a line feed).
public enum FITWorkoutReader {
    /// The bounds a workout must keep: those of a plan file (`PlanActions.fitWorkoutLimits`
    /// gives the plan loader's).
    public struct Limits: Hashable, Sendable {
        /// The most phases a workout may expand to with its repeats; also the most steps read.
        public var maximumPhases: Int
        /// The most passes of one repeated group.
        public var maximumRepeat: Int
        /// A time step's shortest and longest time.
        public var time: ClosedRange<Duration>
        /// A distance step's shortest and longest distance, metres.
        public var distance: ClosedRange<Double>
        /// The fastest speed a range may reach, metres per second.
        public var maximumSpeed: Double

        public init(maximumPhases: Int, maximumRepeat: Int, time: ClosedRange<Duration>, distance: ClosedRange<Double>,
                    maximumSpeed: Double) {
            self.maximumPhases = maximumPhases
            self.maximumRepeat = maximumRepeat
            self.time = time
            self.distance = distance
            self.maximumSpeed = maximumSpeed
        }
    }

    /// The largest workout file read: 500 steps with long names and notes are a few hundred kB.
    public static let maximumSize = 1 << 20

    /// Reads the workout file at `path`; its name is the workout's wkt_name, else the file's
    /// name without its extension.
    public static func read(path: String, limits: Limits) throws(FITWorkoutError) -> FITWorkoutData {
        let input: FITBytes
        do {
            input = try FITBytes(path: path, maximumSize: maximumSize, kind: "a workout's FIT file")
        } catch {
            throw FITWorkoutError(file: error.file, offset: error.offset, reason: error.reason)
        }
        return try read(input, limits: limits, fallbackName: fallbackName(path))
    }

    /// `bytes` read as the file `file` would be, through a window of `window` bytes (the fuzz
    /// target and the tests give small ones).
    public static func parse(_ bytes: [UInt8], file: String, limits: Limits, window: Int = 1 << 16)
        throws(FITWorkoutError) -> FITWorkoutData
    {
        guard bytes.count <= maximumSize else {
            throw FITWorkoutError(file: file, reason: "larger than \(maximumSize >> 20) MB: not a workout's FIT file")
        }
        return try read(FITBytes(bytes: bytes, file: file, window: window), limits: limits,
                        fallbackName: fallbackName(file))
    }

    /// `run.fit` → `run`.
    static func fallbackName(_ path: String) -> String {
        ((path as NSString).lastPathComponent as NSString).deletingPathExtension
    }

    // MARK: - Reading

    /// One workout_step message's fields that matter (the rest are checked as they come).
    struct Step {
        /// Its place among the steps, from 0, and its message_index when it has one.
        var position: Int
        var index: Int64?
        var name: String?
        var notes: String?
        var durationType: Int64?
        var durationValue: Int64?
        var targetType: Int64?
        var targetValue: Int64?
        var low: Int64?
        var high: Int64?
        var intensity: Int64?
        var secondaryTargetType: Int64?
        var equipment: Int64?
        var exerciseCategory: Int64?

        /// The step's number for people: its message_index plus one, else its place.
        var number: Int { Int(index ?? Int64(position)) + 1 }
    }

    /// What the messages gave, before the steps become phases.
    struct Collected {
        var fileIDs = 0
        var workouts = 0
        var name: String?
        var description: String?
        var declaredSteps: Int64?
        var steps: [Step] = []
    }

    static func read(_ input: FITBytes, limits: Limits, fallbackName: String) throws(FITWorkoutError) -> FITWorkoutData {
        let file = input.file
        var input = input
        var collected = Collected()
        do {
            let segments = try FITReader.checkChain(&input)
            for segment in segments {
                try FITReader.messages(segment, &input) { message in
                    try take(message, into: &collected, limits: limits, file: file)
                }
            }
        } catch let error as FITWorkoutError {
            throw error
        } catch let error as FITError {
            throw FITWorkoutError(file: error.file, offset: error.offset, reason: error.reason)
        } catch {
            throw FITWorkoutError(file: file, reason: "\(error)")
        }
        return try workout(collected, limits: limits, file: file, fallbackName: fallbackName)
    }

    /// Takes one data message: the file's id, the workout, a step; the others are not a
    /// workout's and are passed over.
    static func take(_ m: FITReader.DataMessage, into c: inout Collected, limits: Limits, file: String) throws {
        let v = m.values
        switch m.global {
        case FITProfile.fileID:
            c.fileIDs += 1
            guard v[0] == FITProfile.fileWorkout else {
                let kind = v[0].map { fileTypeNames[$0].map { "a FIT \($0) file" } ?? "a FIT file of type \($0)" }
                    ?? "a FIT file without a type"
                let hint = v[0] == FITProfile.fileActivity ? " (an activity imports with `pacer activities import`)" : ""
                throw FITWorkoutError(file: file, offset: m.offset, reason: "\(kind), not a workout (file_id type 5)\(hint)")
            }
        case FITProfile.workout:
            c.workouts += 1
            guard c.workouts == 1 else {
                throw FITWorkoutError(file: file, offset: m.offset, reason: "a second workout message: one workout a file")
            }
            c.name = try text(m.strings[8], file: file, what: "the workout's name (wkt_name)", step: nil)
            c.description = try text(m.strings[17], file: file, what: "the workout's description", step: nil).flatMap(lines)
            c.declaredSteps = v[6]
            if let sport = v[4], !FITActivityData.onFootSports.contains(Int(sport)) {
                throw FITWorkoutError(file: file, offset: m.offset, reason: "a \(FITActivityData.sportName(Int(sport))) "
                    + "workout, not a run's: Pacer coaches runs")
            }
        case FITProfile.workoutStep:
            guard c.steps.count < limits.maximumPhases else {
                throw FITWorkoutError(file: file, offset: m.offset, reason: "more than \(limits.maximumPhases) steps: "
                    + "a workout may have at most \(limits.maximumPhases) phases")
            }
            var s = Step(position: c.steps.count)
            s.index = v[254]
            s.name = try text(m.strings[0], file: file, what: "its name (wkt_step_name)", step: s.number)
            s.notes = try text(m.strings[8], file: file, what: "its notes", step: s.number).flatMap(lines)
            s.durationType = v[1]
            s.durationValue = v[2]
            s.targetType = v[3]
            s.targetValue = v[4]
            s.low = v[5]
            s.high = v[6]
            s.intensity = v[7]
            s.equipment = v[9]
            s.exerciseCategory = v[10]
            s.secondaryTargetType = v[19]
            c.steps.append(s)
        default:
            break
        }
    }

    /// A string field's text, which must be UTF-8; nil when empty or absent.
    static func text(_ bytes: [UInt8]?, file: String, what: String, step: Int?) throws(FITWorkoutError) -> String? {
        guard let bytes, !bytes.isEmpty else { return nil }
        let s = String(decoding: bytes, as: UTF8.self)
        guard Array(s.utf8) == bytes else {
            throw FITWorkoutError(file: file, step: step, reason: "\(what) is not UTF-8 text")
        }
        return s
    }

    /// A name on one line: control characters and line breaks (a tab, U+2028) as spaces,
    /// trimmed; nil when nothing is left.
    static func oneLine(_ s: String) -> String? {
        let line = String(String.UnicodeScalarView(s.unicodeScalars.map { isBreakOrControl($0) ? " " : $0 }))
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return line.isEmpty ? nil : line
    }

    /// Notes on their lines: a line break of any kind (U+0085, U+2028, U+2029) as a line feed,
    /// other control characters but the tab and the carriage return as spaces, trimmed; nil
    /// when nothing is left.
    static func lines(_ s: String) -> String? {
        let text = String(String.UnicodeScalarView(s.unicodeScalars.map { c -> Unicode.Scalar in
            if c == "\n" || c == "\t" || c == "\r" { return c }
            if c == "\u{85}" || c == "\u{2028}" || c == "\u{2029}" { return "\n" }
            return isBreakOrControl(c) ? " " : c
        })).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    static func isBreakOrControl(_ c: Unicode.Scalar) -> Bool {
        switch c.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }

    // MARK: - Steps into phases

    static func workout(_ c: Collected, limits: Limits, file: String, fallbackName: String) throws(FITWorkoutError) -> FITWorkoutData {
        guard c.fileIDs > 0 else {
            throw FITWorkoutError(file: file, reason: "no file_id message: not a FIT workout file")
        }
        guard !c.steps.isEmpty else { throw FITWorkoutError(file: file, reason: "a workout without steps: nothing to follow") }
        if let declared = c.declaredSteps, declared != Int64(c.steps.count) {
            throw FITWorkoutError(file: file, reason: "the workout says it has \(declared) steps (num_valid_steps), "
                + "the file holds \(c.steps.count): steps are missing or extra")
        }
        for s in c.steps where s.index != nil && s.index != Int64(s.position) {
            throw FITWorkoutError(file: file, step: s.position + 1, reason: "its message_index is \(s.index!), "
                + "where \(s.position) comes next: the steps are out of order")
        }

        var phases: [Phase] = []
        // Where each step's phase is among the phases (nil for a repeat step).
        var startOf: [Int?] = []
        // The steps before this one are in a repeat already: a repeat may not reach back over them.
        var firstFree = 0
        var groups = 0
        for s in c.steps {
            guard s.durationType == FITProfile.durationRepeatUntilStepsComplete else {
                startOf.append(phases.count)
                phases.append(try phase(s, limits: limits, file: file))
                continue
            }
            startOf.append(nil)
            let k = s.position
            func refuse(_ reason: String) -> FITWorkoutError { FITWorkoutError(file: file, step: s.number, reason: reason) }
            guard let from = s.durationValue else { throw refuse("a repeat without the step it repeats from (duration_value)") }
            guard from < Int64(k) else {
                throw refuse("a repeat from step \(from + 1), which is not before it: a repeat goes back to earlier steps")
            }
            guard from >= Int64(firstFree) else {
                let inner = c.steps[Int(from)..<k].last { $0.durationType == FITProfile.durationRepeatUntilStepsComplete }
                throw refuse("a repeat of steps \(from + 1) to \(k), which hold the repeat at step \(inner?.number ?? k): "
                    + "a repeat inside a repeat; Pacer's plans nest one level of repeats (write the inner group's steps out)")
            }
            guard let count = s.targetValue, count >= 1 else {
                throw refuse("a repeat without its number of times (target_value)")
            }
            guard count <= Int64(limits.maximumRepeat) else {
                throw refuse("repeats \(count) times; a group may repeat at most \(limits.maximumRepeat) times")
            }
            guard let first = startOf[Int(from)] else {
                throw refuse("a repeat from step \(from + 1), which is itself a repeat")
            }
            let group = Array(phases[first...])
            let total = first + group.count * Int(count)
            guard total <= limits.maximumPhases else {
                throw refuse("its \(count) passes make the workout \(total) phases; a workout may have at most "
                    + "\(limits.maximumPhases)")
            }
            for i in first..<phases.count { phases[i].repetition = Repetition(group: groups, number: 1, count: Int(count)) }
            if count > 1 {
                for n in 2...Int(count) {
                    for var p in group {
                        p.repetition = Repetition(group: groups, number: n, count: Int(count))
                        phases.append(p)
                    }
                }
            }
            groups += 1
            firstFree = k + 1
        }
        let name = c.name.flatMap(oneLine) ?? oneLine(fallbackName) ?? "workout"
        return FITWorkoutData(workout: Workout(name: name, phases: phases),
                              description: c.description, steps: c.steps.count)
    }

    /// One step that is not a repeat as a phase, or the reason Pacer cannot coach it.
    static func phase(_ s: Step, limits: Limits, file: String) throws(FITWorkoutError) -> Phase {
        func refuse(_ reason: String) -> FITWorkoutError { FITWorkoutError(file: file, step: s.number, reason: reason) }
        if let category = s.exerciseCategory, category != 0xFFFE {
            throw refuse("a strength exercise (exercise_category \(category)): not a run's step")
        }
        if let equipment = s.equipment, equipment != 0 {
            throw refuse("swimming equipment (equipment \(equipment)): not a run's step")
        }
        if let second = s.secondaryTargetType, second != FITProfile.targetOpen {
            throw refuse("a second target, \(targetWords(second)), besides its first: Pacer coaches one target a step"
                + (second == 1 || second == 13 ? " (a heart-rate ceiling beside a pace is a plan file's hr_max_bpm or hr_max_zone)" : ""))
        }

        let end: PhaseEnd
        switch s.durationType {
        case 0:
            guard let ms = s.durationValue else { throw refuse("a time step without its time (duration_value)") }
            let d = Duration.milliseconds(ms)
            guard limits.time.contains(d) else {
                throw refuse("lasts \(seconds(ms)); a timed step lasts \(seconds(limits.time.lowerBound)) to "
                    + "\(seconds(limits.time.upperBound))")
            }
            end = .time(d)
        case 1:
            guard let cm = s.durationValue else { throw refuse("a distance step without its distance (duration_value)") }
            let m = Double(cm) / 100
            guard limits.distance.contains(m) else {
                throw refuse("\(metres(m)); a distance step is \(metres(limits.distance.lowerBound)) to "
                    + "\(metres(limits.distance.upperBound))")
            }
            end = .distance(m)
        case 5:
            end = .lapPress
        case nil:
            throw refuse("no duration_type: a step ends on a time, a distance or a lap press")
        case let type?:
            throw refuse(durationWords(type))
        }

        let target: PhaseTarget
        switch s.targetType {
        case nil, FITProfile.targetOpen?:
            target = .none
        case 0?:
            if let zone = s.targetValue, zone != 0 {
                throw refuse("a speed target of the watch's speed zone \(zone): Pacer has no speed zones "
                    + "(give the step a custom speed range)")
            }
            guard let low = s.low, let high = s.high else {
                throw refuse("a speed target without its range (custom_target_speed_low and _high)")
            }
            let (a, b) = speeds(millimetres: min(low, high), max(low, high))
            guard a > 0 else { throw refuse("a speed range from 0 m/s: give its slowest speed") }
            guard a < b else {
                throw refuse("a speed range of one speed, \(kmh(a)): the range needs some width, no runner holds one exact speed")
            }
            guard b <= limits.maximumSpeed else {
                throw refuse("a speed range up to \(kmh(b)), over \(kmh(limits.maximumSpeed)): faster than any human runs")
            }
            target = .speed(minimum: a, maximum: b)
        case FITProfile.targetHeartRate?:
            // A zone of the watch's five (the athlete's zones when it runs), or a custom range:
            // bpm written as bpm + 100, a value up to 100 a % of the maximum.
            if let zone = s.targetValue, zone != 0 {
                guard (1...5).contains(zone) else { throw refuse("a heart-rate target of zone \(zone): zones are 1 to 5") }
                target = .heartRate(.zone(Int(zone)))
            } else {
                guard let low = s.low, let high = s.high else {
                    throw refuse("a heart-rate target without its zone or range (custom_target_heart_rate_low and _high)")
                }
                let (a, b) = (min(low, high), max(low, high))
                guard a > 100 else {
                    throw refuse("a heart-rate range as % of the maximum (\(a)-\(b) %): Pacer's bands are bpm or a zone; "
                        + "give the range in bpm or the step a zone")
                }
                let (lo, hi) = (Int(a - 100), Int(b - 100))
                guard lo >= 60, hi <= 230 else { throw refuse("a heart-rate range of \(lo)-\(hi) bpm: a band is 60 to 230 bpm") }
                guard hi - lo >= 4 else {
                    throw refuse("a heart-rate range of \(lo)-\(hi) bpm: at least 4 bpm wide, no heart holds one exact rate")
                }
                target = .heartRate(.bpm(minimum: lo, maximum: hi))
            }
        case let type?:
            throw refuse("\(targetWords(type)) target: " + targetReason(type))
        }

        let number = s.number
        let name = s.name.flatMap(oneLine) ?? defaultName(intensity: s.intensity, number: number)
        return Phase(name: name, end: end, target: target, notes: s.notes)
    }

    /// A step without a name: its intensity's word (as `FITProfile.intensity(phase:)` reads
    /// it back), else `step N`.
    static func defaultName(intensity: Int64?, number: Int) -> String {
        switch intensity {
        case FITProfile.intensityWarmup: "warm-up"
        case FITProfile.intensityCooldown: "cool-down"
        case FITProfile.intensityRecovery: "recovery"
        case FITProfile.intensityRest: "rest"
        default: "step \(number)"
        }
    }

    /// A speed range in m/s from FIT's mm/s, as a plan file says it exactly (so that the plan
    /// written reads back equal): both ends in whole or tenths of km/h when both are the
    /// rounding of such a speed, else both as whole seconds per km (0:01 to 99:59) when both
    /// are, else both as the km/h the millimetres make (four decimals at most).
    static func speeds(millimetres low: Int64, _ high: Int64) -> (Double, Double) {
        func rounds(_ mm: Int64) -> (Double) -> Bool { { ($0 * 1000).rounded() == Double(mm) } }
        func shortKmh(_ mm: Int64) -> Double? {
            let kmh = Double(mm) / 1000 * 3.6
            return [kmh.rounded() / 3.6, (kmh * 10).rounded() / 10 / 3.6].first(where: rounds(mm))
        }
        func pace(_ mm: Int64) -> Double? {
            guard mm > 0 else { return nil }
            let seconds = (1_000_000 / Double(mm)).rounded()
            guard seconds >= 1, seconds < 6000, rounds(mm)(1000 / seconds) else { return nil }
            return 1000 / seconds
        }
        func kmh(_ mm: Int64) -> Double { shortKmh(mm) ?? Double(mm * 36) / 10_000 / 3.6 }
        if let a = shortKmh(low), let b = shortKmh(high) { return (a, b) }
        if let a = pace(low), let b = pace(high) { return (a, b) }
        return (kmh(low), kmh(high))
    }

    /// Seconds for messages: `90 s`, `2 h`.
    static func seconds(_ ms: Int64) -> String {
        ms % 3_600_000 == 0 ? "\(ms / 3_600_000) h" : ms % 1000 == 0 ? "\(ms / 1000) s" : "\(Double(ms) / 1000) s"
    }

    static func seconds(_ d: Duration) -> String { seconds(FITWriter.ms(d)) }

    static func metres(_ m: Double) -> String {
        m >= 1000 ? "\(format(m / 1000)) km" : "\(format(m)) m"
    }

    static func kmh(_ metresPerSecond: Double) -> String { "\(format(Pace.kilometresPerHour(metresPerSecond))) km/h" }

    static func format(_ x: Double) -> String {
        let r = (x * 100).rounded() / 100
        return r == r.rounded() ? "\(Int(r))" : "\(r)"
    }

    // MARK: - Words for what Pacer does not coach

    static let fileTypeNames: [Int64: String] = [
        1: "device", 2: "settings", 3: "sport", 4: "activity", 5: "workout", 6: "course", 7: "schedules",
        9: "weight", 10: "totals", 11: "goals", 14: "blood pressure", 15: "monitoring", 20: "activity summary",
        28: "daily monitoring", 32: "monitoring", 34: "segment", 35: "segment list",
    ]

    /// Why a step with this duration_type cannot be followed.
    static func durationWords(_ type: Int64) -> String {
        let hr = "Pacer ends a step on a time, a distance or a lap press, and judges the heart within it"
        let power = "Pacer has no power meter"
        let ends = "; give the step a time, a distance or a lap press"
        switch type {
        case 2: return "ends when the heart rate falls below a value (hr_less_than): \(hr)\(ends)"
        case 3: return "ends when the heart rate rises above a value (hr_greater_than): \(hr)\(ends)"
        case 4: return "ends on calories burnt (calories): Pacer counts no calories\(ends)"
        case 7, 8, 9:
            let what = ["time", "distance", "calories"][Int(type) - 7]
            return "a repeat until a \(what) is reached (repeat_until_\(what == "calories" ? "calories" : what)): "
                + "Pacer repeats a group a number of times (repeat_until_steps_cmplt)"
        case 10, 11:
            return "a repeat until the heart rate is \(type == 10 ? "below" : "above") a value: \(hr)"
        case 12, 13, 17, 18:
            return "a repeat until a power is reached: \(power)"
        case 14, 15, 19...26:
            return "ends on power (duration_type \(type)): \(power)\(ends)"
        case 16, 27:
            return "ends on a training stress score (TrainingPeaks TSS): Pacer does not compute it\(ends)"
        case 28, 29:
            return "a strength step (\(type == 29 ? "reps" : "repetition_time")): not a run's step"
        default:
            return "duration_type \(type), which Pacer does not follow\(ends)"
        }
    }

    /// A target type in words: `a heart-rate`, `a power`.
    static func targetWords(_ type: Int64) -> String {
        switch type {
        case 0: "a speed"
        case 1: "a heart-rate"
        case 2: "no"
        case 3: "a cadence"
        case 4: "a power"
        case 5: "a grade"
        case 6: "a resistance"
        case 7, 8, 9: "a \([3, 10, 30][Int(type) - 7]) s power"
        case 10: "a lap power"
        case 11: "a swim stroke"
        case 12: "a lap speed"
        case 13: "a lap heart-rate"
        default: "a type \(type)"
        }
    }

    /// Why a step with this target_type cannot be coached.
    static func targetReason(_ type: Int64) -> String {
        switch type {
        case 13: "Pacer judges the heart over its own window, not the lap's average; give the step a heart-rate zone or range"
        case 3: "Pacer coaches speed, not cadence; give the step a speed range or no target"
        case 4, 7, 8, 9, 10: "Pacer has no power meter; give the step a speed range or no target"
        case 5, 6: "that is for a treadmill or a trainer; give the step a speed range or no target"
        case 11: "that is for swimming, not running"
        case 12: "Pacer judges the speed as the runner goes, not the lap's average; give the step a speed range"
        default: "Pacer does not know it; give the step a speed range or no target"
        }
    }
}
