import Coaching
import Foundation
import PacerCore
import Storage
import Testing

/// FIT workout files out (`FITWriter.workout`: Garmin's steps, repeats as repeat
/// steps) and in (`FITWorkoutReader`): the structure written field by field, a workout read
/// back equal, and every step Pacer cannot coach refused with its number and why. Files that
/// other encoders wrote, and Garmin's SDK reading Pacer's, are in the end-to-end tests.
@Suite("FIT workouts")
struct FITWorkoutTests {
    /// A plan file's bounds (`PlanLoader`'s; `PlanActions.fitWorkoutLimits` is checked
    /// against them in the Configurator's tests).
    static let limits = FITWorkoutReader.Limits(
        maximumPhases: 500, maximumRepeat: 100, time: .seconds(1) ... .seconds(86_400), distance: 50...200_000,
        maximumSpeed: 40 / 3.6)

    static let created = UTCTimestamp(millisecondsSince1970: 1_780_000_000_000)

    static func kmh(_ v: Double) -> Double { v / 3.6 }

    /// Warm-up on time, 5 × (800 m fast with a note, 90 s jog), a lap-press jog, a timed
    /// cool-down at a pace range.
    static let intervals: Workout = {
        var phases = [Phase(name: "warm-up", end: .time(.seconds(600)), target: .speed(minimum: kmh(8), maximum: kmh(10.5)))]
        for n in 1...5 {
            phases.append(Phase(name: "fast", end: .distance(800), target: .speed(minimum: kmh(14), maximum: kmh(15.5)),
                                repetition: Repetition(group: 0, number: n, count: 5), notes: "tall and relaxed"))
            phases.append(Phase(name: "jog", end: .time(.seconds(90)), target: .none,
                                repetition: Repetition(group: 0, number: n, count: 5)))
        }
        phases.append(Phase(name: "easy", end: .lapPress, target: .none))
        phases.append(Phase(name: "cool-down", end: .time(.milliseconds(300_500)),
                            target: .speed(minimum: 1000 / 390, maximum: 1000 / 330)))
        return Workout(name: "5 x 800 m", phases: phases)
    }()

    // MARK: - Export

    /// The steps as Garmin's profile has them: time in ms, distance in cm, open; the group
    /// once and a repeat step pointing at its first step with the passes' count; speed ranges
    /// in mm/s as custom targets; open targets; intensity; notes.
    @Test func theExportWritesGarminsStepsWithARepeatStep() throws {
        let steps = FITWriter.workoutSteps(Self.intervals)
        try #require(steps.count == 6)
        func field(_ step: Int, _ number: UInt8) -> FITField? { steps[step].fields.first { $0.number == number } }
        #expect(steps.allSatisfy { $0.global == FITProfile.workoutStep })
        #expect((0..<6).map { field($0, 254)?.value } == [0, 1, 2, 3, 4, 5])
        // duration_type and duration_value
        #expect((0..<6).map { field($0, 1)?.value } == [0, 1, 0, 6, 5, 0])
        #expect((0..<6).map { field($0, 2)?.value } == [600_000, 80_000, 90_000, 1, nil, 300_500])
        // The repeat: from step index 1, 5 passes, no name, no intensity.
        #expect(field(3, 4)?.value == 5)
        #expect(field(3, 0) == nil && field(3, 7) == nil)
        // target_type speed (0) with target_value 0 and the range in mm/s, or open (2).
        #expect((0..<6).map { field($0, 3)?.value } == [0, 0, 2, 2, 2, 0])
        #expect(field(0, 4)?.value == 0 && field(0, 5)?.value == 2222 && field(0, 6)?.value == 2917)
        #expect(field(1, 5)?.value == 3889 && field(1, 6)?.value == 4306)
        #expect(field(5, 5)?.value == 2564 && field(5, 6)?.value == 3030)
        #expect(field(2, 5) == nil && field(4, 4) == nil)
        // intensity by name: warmup, active, active, -, active, cooldown
        #expect((0..<6).map { field($0, 7)?.value } == [2, 0, 0, nil, 0, 3])
        #expect((0..<6).map { field($0, 0)?.text } == ["warm-up", "fast", "jog", nil, "easy", "cool-down"])
        #expect(field(1, 8)?.text == "tall and relaxed" && field(0, 8) == nil)
    }

    /// The workout message counts every step written, the repeat step too.
    @Test func theWorkoutMessageCountsTheStepsWritten() throws {
        let bytes = FITWriter.workout(Self.intervals, name: "5 x 800 m", createdAt: Self.created)
        let read = try FITWorkoutReader.parse(bytes, file: "w.fit", limits: Self.limits)
        #expect(read.steps == 6)
        // num_valid_steps 6, little-endian after the workout's sport: found by rewriting it.
        var wrong = bytes
        let at = try #require(Self.numValidStepsOffset(bytes))
        #expect(wrong[at] == 6 && wrong[at + 1] == 0)
        wrong[at] = 14
        Self.fixCRC(&wrong)
        #expect(throws: FITWorkoutError(file: "w.fit", reason: "the workout says it has 14 steps (num_valid_steps), "
                                        + "the file holds 6: steps are missing or extra")) {
            try FITWorkoutReader.parse(wrong, file: "w.fit", limits: Self.limits)
        }
    }

    /// A group whose passes differ cannot be one repeat: it is written pass by pass.
    @Test func aGroupWhosePassesDifferIsWrittenOut() {
        var w = Self.intervals
        w.phases[3].end = .distance(400)
        let steps = FITWriter.workoutSteps(w)
        #expect(steps.count == 1 + 10 + 2)
        #expect(!steps.contains { $0.fields.contains { $0.number == 1 && $0.value == 6 } })
    }

    // MARK: - Round trip

    /// Export then import gives the workout back: ends, ranges (speeds written as people
    /// write them, in km/h or min/km, come back exactly), names, notes, the repeats' marks.
    @Test func anExportedWorkoutReadsBackEqual() throws {
        let bytes = FITWriter.workout(Self.intervals, name: Self.intervals.name, createdAt: Self.created)
        let read = try FITWorkoutReader.parse(bytes, file: "w.fit", limits: Self.limits)
        #expect(read.workout == Self.intervals)
        // Through windows of every small size, as the fuzz target reads.
        for window in [1, 2, 7, 29] {
            #expect(try FITWorkoutReader.parse(bytes, file: "w.fit", limits: Self.limits, window: window).workout
                    == Self.intervals)
        }
        // Two repeated groups, one of a single phase repeated once, and distances in cm.
        let two = Workout(name: "two groups", phases: [
            Phase(name: "a", end: .distance(1234.56), target: .none, repetition: Repetition(group: 0, number: 1, count: 2)),
            Phase(name: "a", end: .distance(1234.56), target: .none, repetition: Repetition(group: 0, number: 2, count: 2)),
            Phase(name: "b", end: .time(.seconds(1)), target: .speed(minimum: Self.kmh(12.3), maximum: Self.kmh(40)),
                  repetition: Repetition(group: 1, number: 1, count: 1)),
        ])
        let back = try FITWorkoutReader.parse(FITWriter.workout(two, name: two.name, createdAt: Self.created), file: "t.fit",
                                              limits: Self.limits)
        #expect(back.workout == two)
        #expect(back.steps == 4)
    }

    /// What FIT cannot say: a free run (`.stop`) is an open step, read back as a lap press;
    /// a lap press ending a timed phase early has no field. The name is the one given.
    @Test func whatFITCannotSayComesBackAsItsNearest() throws {
        let w = Workout(name: "in plan", phases: [
            Phase(name: "steady", end: .time(.seconds(60)), target: .none, lapEndsEarly: true),
            Phase(name: "free", end: .stop, target: .none),
        ])
        let read = try FITWorkoutReader.parse(FITWriter.workout(w, name: "on the watch", createdAt: Self.created),
                                              file: "w.fit", limits: Self.limits)
        #expect(read.workout.name == "on the watch")
        #expect(read.workout.phases == [Phase(name: "steady", end: .time(.seconds(60)), target: .none),
                                        Phase(name: "free", end: .lapPress, target: .none)])
    }

    /// Millimetres per second are read as the speed a person wrote when they are its
    /// rounding; otherwise as the km/h they make, which a plan file says exactly.
    @Test func speedsAreReadAsPeopleWriteThem() throws {
        func read(_ low: Int64, _ high: Int64) throws -> PhaseTarget {
            let bytes = Self.file([Self.step(duration: (0, 60_000), target: (0, 0, low, high))])
            return try FITWorkoutReader.parse(bytes, file: "s.fit", limits: Self.limits).workout.phases[0].target
        }
        #expect(try read(3611, 4167) == .speed(minimum: 13 / 3.6, maximum: 15 / 3.6))  // km/h
        #expect(try read(2639, 2528) == .speed(minimum: 9.1 / 3.6, maximum: 9.5 / 3.6))  // tenths, either order
        #expect(try read(3030, 3448) == .speed(minimum: 1000 / 330.0, maximum: 1000 / 290.0))  // 5:30 to 4:50 /km
        #expect(try read(2682, 2750) == .speed(minimum: 9.6552 / 3.6, maximum: 9.9 / 3.6))  // 10:00 /mi is no plan's
        #expect(try read(3123, 3457) == .speed(minimum: 11.2428 / 3.6, maximum: 12.4452 / 3.6))
        // 3 mm/s is 5:33:20 per km, no pace a plan file writes (the fuzzer's second find);
        // a range is one kind or the other, as a plan file writes it (its third).
        #expect(try read(3, 2000) == .speed(minimum: 0.0108 / 3.6, maximum: 7.2 / 3.6))
        #expect(try read(2250, 3831) == .speed(minimum: 8.1 / 3.6, maximum: 13.7916 / 3.6))  // 8.1 km/h, 4:21 /km
        #expect(try read(2639, 3831) == .speed(minimum: 1000 / 379.0, maximum: 1000 / 261.0))  // 6:19 to 4:21 /km
        #expect(try read(3333, 3030) == .speed(minimum: 1000 / 330.0, maximum: 1000 / 300.0))
    }

    /// A step without a name is named by its intensity, else by its number.
    @Test func unnamedStepsAreNamedByIntensityOrNumber() throws {
        let bytes = Self.file([2, 3, 4, 1, 0, 5, nil].map { intensity in
            Self.step(duration: (0, 60_000), intensity: intensity)
        })
        let names = try FITWorkoutReader.parse(bytes, file: "n.fit", limits: Self.limits).workout.phases.map(\.name)
        #expect(names == ["warm-up", "cool-down", "recovery", "rest", "step 5", "step 6", "step 7"])
    }

    /// A name is one line; notes keep theirs; both trimmed; a workout without a name is the file's.
    @Test func namesAreOneLineAndAWorkoutWithoutANameIsTheFiles() throws {
        let bytes = Self.file([Self.step(duration: (5, nil), name: " up\tthe\nhill ", notes: " push\nhard ")], name: nil)
        let read = try FITWorkoutReader.parse(bytes, file: "dir/Hill Reps.fit", limits: Self.limits)
        #expect(read.workout.name == "Hill Reps")
        #expect(read.workout.phases == [Phase(name: "up the hill", end: .lapPress, target: .none, notes: "push\nhard")])
        // A control character at an end is trimmed with the spaces (the fuzzer's first find:
        // a name that changed when written and read again); any line break in notes is a line
        // feed, other control characters spaces.
        let named = Self.file([Self.step(duration: (5, nil), name: "\u{1}", notes: "a\u{2028}b\u{85}c\u{9F}d\u{1}")],
                              name: "Hills\u{1}\u{2029}")
        let again = try FITWorkoutReader.parse(named, file: "h.fit", limits: Self.limits).workout
        #expect(again.name == "Hills" && again.phases.map(\.name) == ["step 1"])
        #expect(again.phases[0].notes == "a\nb\nc d")
    }

    // MARK: - Refusals

    static func refusal(_ steps: [[FITField]], name: String? = "w", extra: [FITMessage] = [],
                        fileType: Int64 = 5, sport: Int64? = 1) -> FITWorkoutError? {
        let bytes = file(steps, name: name, extra: extra, fileType: fileType, sport: sport)
        do {
            let read = try FITWorkoutReader.parse(bytes, file: "x.fit", limits: limits)
            Issue.record("read, not refused: \(read.workout)")
            return nil
        } catch {
            return error
        }
    }

    static let time = step(duration: (0, 60_000))

    /// Each target Pacer cannot coach, named with its step and why.
    @Test func targetsPacerCannotCoachAreRefusedWithTheStep() {
        let cases: [(Int64, String)] = [
            (13, "a lap heart-rate target: Pacer judges the heart over its own window, not the lap's average"),
            (3, "a cadence target: Pacer coaches speed, not cadence"),
            (4, "a power target: Pacer has no power meter"),
            (8, "a 10 s power target: Pacer has no power meter"),
            (5, "a grade target: that is for a treadmill or a trainer"),
            (11, "a swim stroke target: that is for swimming"),
            (12, "a lap speed target: Pacer judges the speed as the runner goes"),
        ]
        for (type, words) in cases {
            let error = Self.refusal([Self.time, Self.step(duration: (0, 60_000), target: (type, 0, 100, 200))])
            #expect(error?.step == 2, "target \(type)")
            #expect(error?.file == "x.fit")
            #expect(error?.reason.hasPrefix(words) == true, "\(String(describing: error))")
        }
    }

    /// Each duration Pacer cannot follow, named with its step and why.
    @Test func durationsPacerCannotFollowAreRefusedWithTheStep() {
        let cases: [(Int64, String)] = [
            (2, "ends when the heart rate falls below a value (hr_less_than): Pacer ends a step on a time, a distance or a lap press"),
            (3, "ends when the heart rate rises above a value (hr_greater_than): Pacer ends a step on a time"),
            (4, "ends on calories burnt (calories): Pacer counts no calories"),
            (7, "a repeat until a time is reached (repeat_until_time): Pacer repeats a group a number of times"),
            (8, "a repeat until a distance is reached (repeat_until_distance)"),
            (10, "a repeat until the heart rate is below a value: Pacer ends a step on a time"),
            (14, "ends on power (duration_type 14): Pacer has no power meter"),
            (29, "a strength step (reps): not a run's step"),
            (30, "duration_type 30, which Pacer does not follow"),
        ]
        for (type, words) in cases {
            let error = Self.refusal([Self.time, Self.time, Self.step(duration: (type, 140))])
            #expect(error?.step == 3, "duration \(type)")
            #expect(error?.reason.hasPrefix(words) == true, "\(String(describing: error))")
        }
        #expect(Self.refusal([Self.step(duration: (nil, nil))])?.reason
                == "no duration_type: a step ends on a time, a distance or a lap press")
        #expect(Self.refusal([Self.step(duration: (0, nil))])?.reason == "a time step without its time (duration_value)")
    }

    /// A speed target must be a custom range a runner can hold.
    @Test func speedTargetsMustBeACustomRangeARunnerHolds() {
        func reason(_ target: (Int64?, Int64?, Int64?, Int64?)) -> String? {
            Self.refusal([Self.step(duration: (0, 60_000), target: target)])?.reason
        }
        #expect(reason((0, 3, nil, nil)) == "a speed target of the watch's speed zone 3: Pacer has no speed zones "
                + "(give the step a custom speed range)")
        #expect(reason((0, 0, 3000, nil)) == "a speed target without its range (custom_target_speed_low and _high)")
        #expect(reason((0, nil, 0, 3000)) == "a speed range from 0 m/s: give its slowest speed")
        #expect(reason((0, 0, 3000, 3000)) == "a speed range of one speed, 10.8 km/h: the range needs some width, no "
                + "runner holds one exact speed")
        #expect(reason((0, 0, 3000, 12_000)) == "a speed range up to 43.2 km/h, over 40 km/h: faster than any human runs")
    }

    /// Heart-rate targets: a zone by its number, a custom range in bpm written as bpm + 100;
    /// exported and read back equal, and what is no band of bpm refused.
    @Test func heartRateTargetsAreZonesOrBpmRanges() throws {
        let workout = Workout(name: "by heart", phases: [
            Phase(name: "warm-up", end: .time(.seconds(600)), target: .heartRate(.zone(2))),
            Phase(name: "steady", end: .distance(5000), target: .heartRate(.bpm(minimum: 150, maximum: 158))),
            Phase(name: "cool-down", end: .lapPress, target: .none),
        ])
        let bytes = FITWriter.workout(workout, name: workout.name, createdAt: Self.created)
        #expect(try FITWorkoutReader.parse(bytes, file: "h.fit", limits: Self.limits).workout == workout)
        // As a watch writes them: zone 4; 250-258 raw is 150-158 bpm.
        let read = try FITWorkoutReader.parse(Self.file([Self.step(duration: (0, 60_000), target: (1, 4, nil, nil)),
                                                         Self.step(duration: (0, 60_000), target: (1, 0, 250, 258))]),
                                              file: "x.fit", limits: Self.limits)
        #expect(read.workout.phases.map(\.target) == [.heartRate(.zone(4)), .heartRate(.bpm(minimum: 150, maximum: 158))])
        func reason(_ target: (Int64?, Int64?, Int64?, Int64?)) -> String? {
            Self.refusal([Self.step(duration: (0, 60_000), target: target)])?.reason
        }
        #expect(reason((1, 7, nil, nil)) == "a heart-rate target of zone 7: zones are 1 to 5")
        #expect(reason((1, 0, 70, 80))?.hasPrefix("a heart-rate range as % of the maximum (70-80 %)") == true)
        #expect(reason((1, 0, 250, 252))?.contains("at least 4 bpm wide") == true)
        #expect(reason((1, 0, 130, 250)) == "a heart-rate range of 30-150 bpm: a band is 60 to 230 bpm")
        #expect(reason((1, 0, nil, nil)) == "a heart-rate target without its zone or range (custom_target_heart_rate_low and _high)")
    }

    /// Times and distances within a plan file's bounds.
    @Test func timesAndDistancesKeepAPlansBounds() {
        #expect(Self.refusal([Self.step(duration: (0, 999))])?.reason == "lasts 0.999 s; a timed step lasts 1 s to 24 h")
        #expect(Self.refusal([Self.step(duration: (0, 86_400_001))])?.reason
                == "lasts 86400.001 s; a timed step lasts 1 s to 24 h")
        #expect(Self.refusal([Self.step(duration: (1, 4999))])?.reason == "49.99 m; a distance step is 50 m to 200 km")
        #expect(Self.refusal([Self.step(duration: (1, 20_000_001))])?.reason
                == "200 km; a distance step is 50 m to 200 km")
    }

    /// Repeats: one level deep, back to earlier steps, a count within the bounds, the
    /// expanded workout within the most phases.
    @Test func repeatsNestOneLevelAndKeepTheBounds() {
        func rep(_ from: Int64?, _ count: Int64?) -> [FITField] { Self.step(duration: (6, from), target: (nil, count, nil, nil)) }
        // 0 a, 1 b, 2 repeat from 1 ×2, 3 c, 4 repeat from 0 ×3: the outer holds the inner.
        let nested = Self.refusal([Self.time, Self.time, rep(1, 2), Self.time, rep(0, 3)])
        #expect(nested == FITWorkoutError(file: "x.fit", step: 5, reason: "a repeat of steps 1 to 4, which hold the "
            + "repeat at step 3: a repeat inside a repeat; Pacer's plans nest one level of repeats (write the inner "
            + "group's steps out)"))
        #expect(Self.refusal([Self.time, rep(1, 2)])?.reason
                == "a repeat from step 2, which is not before it: a repeat goes back to earlier steps")
        #expect(Self.refusal([Self.time, rep(nil, 2)])?.reason == "a repeat without the step it repeats from (duration_value)")
        #expect(Self.refusal([Self.time, rep(0, 0)])?.reason == "a repeat without its number of times (target_value)")
        #expect(Self.refusal([Self.time, rep(0, 101)])?.reason == "repeats 101 times; a group may repeat at most 100 times")
        let wide = Self.refusal(Array(repeating: Self.time, count: 6) + [rep(0, 84)])
        #expect(wide == FITWorkoutError(file: "x.fit", step: 7, reason: "its 84 passes make the workout 504 phases; "
            + "a workout may have at most 500"))
        // Two groups side by side are two repeats, not a nesting.
        let bytes = Self.file([Self.time, rep(0, 2), Self.time, rep(2, 3)])
        let phases = (try? FITWorkoutReader.parse(bytes, file: "x.fit", limits: Self.limits).workout.phases) ?? []
        #expect(phases.map(\.repetition) == [Repetition(group: 0, number: 1, count: 2), Repetition(group: 0, number: 2, count: 2),
                                             Repetition(group: 1, number: 1, count: 3), Repetition(group: 1, number: 2, count: 3),
                                             Repetition(group: 1, number: 3, count: 3)])
        #expect(phases.map(\.name) == ["step 1", "step 1", "step 3", "step 3", "step 3"])
    }

    /// More step messages than a workout may have phases are refused as they come.
    @Test func tooManyStepsAreRefusedAsTheyCome() {
        let error = Self.refusal(Array(repeating: Self.time, count: 501), extra: [])
        #expect(error?.reason == "more than 500 steps: a workout may have at most 500 phases")
        #expect(error?.offset != nil)
    }

    /// What makes a step no run's, and a second target.
    @Test func strengthSwimmingAndSecondTargetsAreRefused() {
        var strength = Self.time
        strength.append(FITField(10, .uint16, 12))
        #expect(Self.refusal([strength])?.reason == "a strength exercise (exercise_category 12): not a run's step")
        var fins = Self.time
        fins.append(FITField(9, .enumeration, 1))
        #expect(Self.refusal([fins])?.reason == "swimming equipment (equipment 1): not a run's step")
        var second = Self.time
        second.append(FITField(19, .enumeration, 1))
        #expect(Self.refusal([second])?.reason == "a second target, a heart-rate, besides its first: Pacer coaches one "
                + "target a step (a heart-rate ceiling beside a pace is a plan file's hr_max_bpm or hr_max_zone)")
        var open = Self.time
        open.append(FITField(19, .enumeration, 2))
        #expect((try? FITWorkoutReader.parse(Self.file([open]), file: "x.fit", limits: Self.limits)) != nil)
    }

    /// Not a workout file, not a run's workout, no steps, steps out of order.
    @Test func filesThatAreNoRunsWorkoutAreRefused() {
        #expect(Self.refusal([Self.time], fileType: 4)?.reason
                == "a FIT activity file, not a workout (file_id type 5) (an activity imports with `pacer activities import`)")
        #expect(Self.refusal([Self.time], fileType: 6)?.reason == "a FIT course file, not a workout (file_id type 5)")
        #expect(Self.refusal([Self.time], sport: 2)?.reason == "a cycling workout, not a run's: Pacer coaches runs")
        #expect(Self.refusal([])?.reason == "a workout without steps: nothing to follow")
        var late = Self.time
        late[0] = FITField(254, .uint16, 3)
        #expect(Self.refusal([Self.time, late]) == FITWorkoutError(file: "x.fit", step: 2, reason: "its message_index "
            + "is 3, where 1 comes next: the steps are out of order"))
        let bytes = Self.replacing(Self.file([Self.step(duration: (0, 60_000), name: "step")]), Array("step".utf8),
                                   with: [0xC3, 0x28, 0x65, 0x70])
        #expect(throws: FITWorkoutError(file: "u.fit", step: 1, reason: "its name (wkt_step_name) is not UTF-8 text")) {
            try FITWorkoutReader.parse(bytes, file: "u.fit", limits: Self.limits)
        }
        // A file with no file_id message at all.
        var fit = FITEncoder()
        fit.append(FITMessage(FITProfile.workoutStep, Self.time))
        #expect(throws: FITWorkoutError(file: "n.fit", reason: "no file_id message: not a FIT workout file")) {
            try FITWorkoutReader.parse(fit.finish(), file: "n.fit", limits: Self.limits)
        }
    }

    /// A truncated or damaged file is refused with the byte, at every length, never read past.
    @Test func truncatedFilesAreRefusedAtEveryLength() {
        let bytes = FITWriter.workout(Self.intervals, name: "w", createdAt: Self.created)
        for n in 0..<bytes.count {
            do {
                _ = try FITWorkoutReader.parse(Array(bytes[0..<n]), file: "t.fit", limits: Self.limits)
                Issue.record("\(n) bytes read")
            } catch {
                #expect(error.file == "t.fit" && error.step == nil, "\(n): \(error)")
            }
        }
        var damaged = bytes
        damaged[40] ^= 0xFF
        #expect(throws: FITWorkoutError(file: "d.fit", offset: bytes.count - 2,
                                        reason: "the file's CRC is wrong (the file is damaged)")) {
            try FITWorkoutReader.parse(damaged, file: "d.fit", limits: Self.limits)
        }
        #expect(throws: FITWorkoutError(file: "big.fit", reason: "larger than 1 MB: not a workout's FIT file")) {
            try FITWorkoutReader.parse([UInt8](repeating: 0, count: (1 << 20) + 1), file: "big.fit", limits: Self.limits)
        }
    }

    /// The file read from its path, and the path's errors.
    @Test func aFileIsReadFromItsPath() throws {
        let dir = FileManager.default.temporaryDirectory.path + "/fit-workout-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/Tempo Tuesday.fit"
        try Data(Self.file([Self.time], name: nil)).write(to: URL(fileURLWithPath: path))
        #expect(try FITWorkoutReader.read(path: path, limits: Self.limits).workout.name == "Tempo Tuesday")
        let missing = #expect(throws: FITWorkoutError.self) { try FITWorkoutReader.read(path: dir + "/no.fit", limits: Self.limits) }
        #expect(missing?.isUnreadable == true && missing?.description == "\(dir)/no.fit: no such file")
        let folder = #expect(throws: FITWorkoutError.self) { try FITWorkoutReader.read(path: dir, limits: Self.limits) }
        #expect(folder?.isUnreadable == true)
        let step = FITWorkoutError(file: "a.fit", step: 3, reason: "why")
        #expect(step.description == "a.fit: step 3: why" && !step.isUnreadable)
    }

    // MARK: - Building files

    /// A workout_step's fields: message_index (set by `file`), name, duration (type, value),
    /// target (type, value, low, high), intensity, notes.
    static func step(duration: (Int64?, Int64?), target: (Int64?, Int64?, Int64?, Int64?) = (nil, nil, nil, nil),
                     intensity: Int64? = nil, name: String? = nil, notes: String? = nil) -> [FITField] {
        var fields = [FITField(254, .uint16, nil as Int64?)]
        if let name { fields.append(FITField(0, string: name, size: name.utf8.count + 1)) }
        fields += [FITField(1, .enumeration, duration.0), FITField(2, .uint32, duration.1),
                   FITField(3, .enumeration, target.0), FITField(4, .uint32, target.1),
                   FITField(5, .uint32, target.2), FITField(6, .uint32, target.3),
                   FITField(7, .enumeration, intensity)]
        if let notes { fields.append(FITField(8, string: notes, size: notes.utf8.count + 1)) }
        return fields
    }

    /// A workout file of `steps` (each given its message_index unless it has one).
    static func file(_ steps: [[FITField]], name: String? = "w", extra: [FITMessage] = [], fileType: Int64 = 5,
                     sport: Int64? = 1) -> [UInt8] {
        var fit = FITEncoder()
        fit.append(FITMessage(FITProfile.fileID, [FITField(0, .enumeration, fileType), FITField(1, .uint16, 255)]))
        var workout = [FITField(4, .enumeration, sport), FITField(6, .uint16, Int64(steps.count))]
        if let name { workout.append(FITField(8, string: name, size: name.utf8.count + 1)) }
        fit.append(FITMessage(FITProfile.workout, workout))
        for message in extra { fit.append(message) }
        for (i, var step) in steps.enumerated() {
            if step[0].number == 254, step[0].value == nil { step[0] = FITField(254, .uint16, Int64(i)) }
            fit.append(FITMessage(FITProfile.workoutStep, step))
        }
        return fit.finish()
    }

    /// The file's CRC made right after an edit.
    static func fixCRC(_ bytes: inout [UInt8]) {
        let crc = FIT.crc(bytes[0..<(bytes.count - 2)])
        bytes[bytes.count - 2] = UInt8(crc & 0xFF)
        bytes[bytes.count - 1] = UInt8(crc >> 8)
    }

    /// `bytes` with the first `old` replaced by `new` (same length), its CRC made right.
    static func replacing(_ bytes: [UInt8], _ old: [UInt8], with new: [UInt8]) -> [UInt8] {
        var out = bytes
        for i in 0...(bytes.count - old.count) where Array(bytes[i..<i + old.count]) == old {
            out.replaceSubrange(i..<i + old.count, with: new)
            break
        }
        fixCRC(&out)
        return out
    }

    /// Where the workout message's num_valid_steps is: after its data header and its sport,
    /// in the one data message of global 26 (found by its definition).
    static func numValidStepsOffset(_ bytes: [UInt8]) -> Int? {
        // The definition of global 26: header 0x4N, reserved, architecture 0, 26, 0, field count.
        for i in 14..<(bytes.count - 6) where bytes[i] & 0xF0 == 0x40 && bytes[i + 3] == 26 && bytes[i + 4] == 0 {
            let count = Int(bytes[i + 5])
            let data = i + 6 + 3 * count
            var at = data + 1
            for f in 0..<count {
                let number = bytes[i + 6 + 3 * f], size = Int(bytes[i + 7 + 3 * f])
                if number == 6 { return at }
                at += size
            }
        }
        return nil
    }
}
