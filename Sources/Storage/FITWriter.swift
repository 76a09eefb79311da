import Coaching
import PacerCore

/// FIT files of what Pacer stores: an activity, with its laps (the plan's
/// phases), its timer (the pauses, as timer events) and the device's odometer distance on
/// every record; and a plan's workout, as the steps a watch can follow. Only FIT (and TCX)
/// carry laps and the timer to Strava, Garmin Connect and intervals.icu; GPX has neither.
///
/// Messages and field numbers are those of Garmin's published profile (`FITProfile`). The
/// file is built in memory: a record takes about 40 bytes, so a day-long 1 Hz track is a few MB.
public enum FITWriter {
    /// Who made the file: the "development" manufacturer (255), Pacer as its product 1.
    public static let manufacturer: Int64 = 255
    public static let product: Int64 = 1
    public static let serialNumber: Int64 = 0x5041_4345  // "PACE"

    // MARK: - Activity

    /// The activity as a FIT activity file: file_id, device_info, the timer's events (start,
    /// a stop and a start round each pause, stop_all at the end), a record per stored point
    /// (the odometer's distance on each, and a last record at the end holding the activity's
    /// distance when the last point was stored before it), a lap per phase result (one lap
    /// for the whole run without a plan), the session and the activity.
    /// `utcOffset`: seconds the runner's local time is ahead of UTC at the end (the
    /// activity message's local_timestamp).
    public static func activity(_ detail: ActivityDetail, utcOffset: Int64 = 0) -> [UInt8] {
        let a = detail.summary
        let points = detail.points
        let startMS = a.startedAt?.millisecondsSince1970 ?? points.first?.time.millisecondsSince1970 ?? 0
        let lastPointMS = points.last?.time.millisecondsSince1970 ?? startMS
        let endMS = max(a.endedAt?.millisecondsSince1970 ?? lastPointMS, lastPointMS)
        let start = UTCTimestamp(millisecondsSince1970: startMS)
        let end = UTCTimestamp(millisecondsSince1970: endMS)
        let timerMS = ms(a.time)

        var fit = FITEncoder()
        appendHeader(to: &fit, start: start)
        fit.append(timerEvent(start, type: FITProfile.eventTypeStart))

        // The odometer's distance at each point; an import's points have none: the straight
        // lines between them, segment by segment, as its stored distance is.
        let along = TrackDistance(points: points).along
        var previous: TrackPoint?
        for (p, distance) in zip(points, along) {
            if let previous, let pause = pause(between: previous, and: p) {
                fit.append(timerEvent(pause.stop, type: FITProfile.eventTypeStop))
                fit.append(timerEvent(p.time, type: FITProfile.eventTypeStart))
            }
            fit.append(record(time: p.time, position: p.position, altitude: p.altitude, speed: p.speed,
                              distance: distance, heartRate: p.heartRate))
            appendIntervals(p.rrIntervals, to: &fit)
            previous = p
        }
        let distance = along.last ?? 0
        // The points of a sparse power profile stop short of the end: the last record holds
        // the distance the runner was told, at the end, without a position.
        let recordedHere = a.source == nil
        if recordedHere, endMS > lastPointMS || a.distance > distance + 0.005, !points.isEmpty {
            fit.append(record(time: end, position: nil, altitude: nil, speed: nil, distance: a.distance))
        }
        fit.append(timerEvent(end, type: FITProfile.eventTypeStopAll))

        let laps = self.laps(detail, startMS: startMS, endMS: endMS)
        appendLaps(laps, to: &fit)
        appendSession(to: &fit, start: start, end: end, first: points.first?.position, timerMS: timerMS,
                      distance: a.distance, averageSpeed: a.averageSpeed, maximumSpeed: a.maximumSpeed,
                      elevation: (a.elevationGain, a.elevationLoss), movingMS: ms(a.movingTime), laps: laps.count,
                      utcOffset: utcOffset, heartRate: HeartRateRecords.averageAndMaximum(points.lazy.map(\.heartRate)))
        return fit.finish()
    }

    /// A share (R18) as a FIT activity: the laps a share shows (`GPXExchange.sharedLaps`,
    /// the privacy rules applied there), their points as records. What the share leaves out
    /// stays out: no distance of the device's on the records (a reader sums the positions, as
    /// for the GPX share), no pause events (the laps' timer totals only), no elevation totals.
    public static func activity(laps export: LapExport) -> [UInt8] {
        let points = export.laps.flatMap { $0.tracks.joined() }
        let startMS = export.start.millisecondsSince1970
        let lastMS = points.last.map { $0.time.millisecondsSince1970 } ?? startMS
        let lapStarts = export.laps.map { max($0.start.millisecondsSince1970, startMS) }
        let endMS = max(lastMS, lapStarts.last ?? startMS)
        let start = export.start
        let end = UTCTimestamp(millisecondsSince1970: endMS)

        var fit = FITEncoder()
        appendHeader(to: &fit, start: start)
        fit.append(timerEvent(start, type: FITProfile.eventTypeStart))
        for p in points {
            fit.append(record(time: p.time, position: p.position, altitude: p.altitude, speed: p.speed, distance: nil,
                              heartRate: p.heartRate))
        }
        fit.append(timerEvent(end, type: FITProfile.eventTypeStopAll))
        var laps: [Lap] = []
        for (index, lap) in export.laps.enumerated() {
            let timerMS = ms(lap.totalTime)
            let lapEnd = index + 1 < lapStarts.count ? lapStarts[index + 1] : endMS
            laps.append(Lap(startMS: lapStarts[index], endMS: max(lapEnd, lapStarts[index]), timerMS: timerMS,
                            distance: lap.distance, averageSpeed: timerMS > 0 ? lap.distance * 1000 / Double(timerMS) : 0,
                            maximumSpeed: lap.maximumSpeed,
                            intensity: lap.name.map { FITProfile.intensity(phase: $0) }
                                ?? (lap.resting ? FITProfile.intensityRest : FITProfile.intensityActive),
                            heartRate: HeartRateRecords.averageAndMaximum(lap.tracks.joined().lazy.map(\.heartRate))))
        }
        appendLaps(laps, to: &fit)
        let timerMS = laps.reduce(0) { $0 + $1.timerMS }
        let distance = laps.reduce(0) { $0 + $1.distance }
        appendSession(to: &fit, start: start, end: end, first: points.first(where: { $0.position != nil })?.position,
                      timerMS: timerMS, distance: distance,
                      averageSpeed: timerMS > 0 ? distance * 1000 / Double(timerMS) : 0,
                      maximumSpeed: laps.compactMap(\.maximumSpeed).max(),
                      elevation: nil, movingMS: nil, laps: laps.count, utcOffset: 0,
                      heartRate: HeartRateRecords.averageAndMaximum(points.lazy.map(\.heartRate)))
        return fit.finish()
    }

    /// file_id and device_info: an activity made by Pacer at `start`.
    static func appendHeader(to fit: inout FITEncoder, start: UTCTimestamp) {
        fit.append(FITMessage(FITProfile.fileID, [
            FITField(0, .enumeration, FITProfile.fileActivity),
            FITField(1, .uint16, manufacturer),
            FITField(2, .uint16, product),
            FITField(3, .uint32z, serialNumber),
            FITField(4, .uint32, FIT.dateTime(start)),
        ]))
        fit.append(FITMessage(FITProfile.deviceInfo, [
            FITField(253, .uint32, FIT.dateTime(start)),
            FITField(0, .uint8, 0),  // the creator
            FITField(2, .uint16, manufacturer),
            FITField(3, .uint32z, serialNumber),
            FITField(4, .uint16, product),
        ]))
    }

    /// A lap message per lap, the last one ending the session. A lap's heart rate
    /// (avg_heart_rate 15, max_heart_rate 16) only when it has one: a run without a strap
    /// writes the laps it always wrote, field for field.
    static func appendLaps(_ laps: [Lap], to fit: inout FITEncoder) {
        for (index, lap) in laps.enumerated() {
            var message = FITMessage(FITProfile.lap, [
                FITField(254, .uint16, Int64(index)),
                FITField(253, .uint32, FIT.dateTime(UTCTimestamp(millisecondsSince1970: lap.endMS))),
                FITField(0, .enumeration, FITProfile.eventLap),
                FITField(1, .enumeration, FITProfile.eventTypeStop),
                FITField(2, .uint32, FIT.dateTime(UTCTimestamp(millisecondsSince1970: lap.startMS))),
                FITField(7, .uint32, lap.endMS - lap.startMS),
                FITField(8, .uint32, lap.timerMS),
                FITField(9, .uint32, lap.distance, scale: 100),
                FITField(13, .uint16, lap.averageSpeed, scale: 1000),
                FITField(14, .uint16, lap.maximumSpeed, scale: 1000),
                FITField(110, .uint32, lap.averageSpeed, scale: 1000),
                FITField(111, .uint32, lap.maximumSpeed, scale: 1000),
                FITField(23, .enumeration, lap.intensity),
                FITField(24, .enumeration, index == laps.count - 1 ? FITProfile.lapTriggerSessionEnd : lap.trigger),
                FITField(25, .enumeration, FITProfile.sportRunning),
                FITField(61, .uint16, lap.repetition),
            ])
            if let heartRate = lap.heartRate {
                message.fields += [FITField(15, .uint8, Int64(heartRate.average)),
                                   FITField(16, .uint8, Int64(heartRate.maximum))]
            }
            fit.append(message)
        }
    }

    /// The session (its totals; its heart rate, avg_heart_rate 16 and max_heart_rate 17,
    /// only when it has one) and the activity.
    static func appendSession(to fit: inout FITEncoder, start: UTCTimestamp, end: UTCTimestamp, first: GeoPoint?,
                              timerMS: Int64, distance: Double, averageSpeed: Double, maximumSpeed: Double?,
                              elevation: (gain: Double?, loss: Double?)?, movingMS: Int64?, laps: Int,
                              utcOffset: Int64, heartRate: (average: Int, maximum: Int)? = nil) {
        let endMS = end.millisecondsSince1970
        let startMS = start.millisecondsSince1970
        var session = FITMessage(FITProfile.session, [
            FITField(254, .uint16, 0),
            FITField(253, .uint32, FIT.dateTime(end)),
            FITField(0, .enumeration, FITProfile.eventSession),
            FITField(1, .enumeration, FITProfile.eventTypeStop),
            FITField(2, .uint32, FIT.dateTime(start)),
            FITField(3, .sint32, first.map { FIT.semicircles($0.latitude) }),
            FITField(4, .sint32, first.map { FIT.semicircles($0.longitude) }),
            FITField(5, .enumeration, FITProfile.sportRunning),
            FITField(6, .enumeration, 0),  // generic
            FITField(7, .uint32, endMS - startMS),
            FITField(8, .uint32, timerMS),
            FITField(9, .uint32, distance, scale: 100),
            FITField(14, .uint16, averageSpeed, scale: 1000),
            FITField(15, .uint16, maximumSpeed, scale: 1000),
            FITField(124, .uint32, averageSpeed, scale: 1000),
            FITField(125, .uint32, maximumSpeed, scale: 1000),
            FITField(22, .uint16, elevation?.gain, scale: 1),
            FITField(23, .uint16, elevation?.loss, scale: 1),
            FITField(59, .uint32, movingMS),
            FITField(25, .uint16, 0),
            FITField(26, .uint16, Int64(laps)),
            FITField(28, .enumeration, 0),  // activity_end
        ])
        if let heartRate {
            session.fields += [FITField(16, .uint8, Int64(heartRate.average)), FITField(17, .uint8, Int64(heartRate.maximum))]
        }
        fit.append(session)
        fit.append(FITMessage(FITProfile.activity, [
            FITField(253, .uint32, FIT.dateTime(end)),
            FITField(0, .uint32, timerMS),
            FITField(1, .uint16, 1),
            FITField(2, .enumeration, 0),  // manual
            FITField(3, .enumeration, FITProfile.eventActivity),
            FITField(4, .enumeration, FITProfile.eventTypeStop),
            FITField(5, .uint32, FIT.dateTime(end) + utcOffset),
        ]))
    }

    /// Milliseconds of a duration.
    static func ms(_ d: Duration) -> Int64 { d.nanoseconds / 1_000_000 }

    static func timerEvent(_ time: UTCTimestamp, type: Int64) -> FITMessage {
        FITMessage(FITProfile.event, [
            FITField(253, .uint32, FIT.dateTime(time)),
            FITField(0, .enumeration, FITProfile.eventTimer),
            FITField(1, .enumeration, type),
            FITField(4, .uint8, 0),  // event_group
        ])
    }

    /// A record; its heart_rate (field 3, bpm) only when the point has one, so that a track
    /// without a strap is written as it always was, byte for byte.
    static func record(time: UTCTimestamp, position: GeoPoint?, altitude: Double?, speed: Double?,
                       distance: Double?, heartRate: Int? = nil) -> FITMessage {
        var message = FITMessage(FITProfile.record, [
            FITField(253, .uint32, FIT.dateTime(time)),
            FITField(0, .sint32, position.map { FIT.semicircles($0.latitude) }),
            FITField(1, .sint32, position.map { FIT.semicircles($0.longitude) }),
            FITField(2, .uint16, altitude, scale: 5, offset: 500),
            FITField(5, .uint32, distance, scale: 100),
            FITField(6, .uint16, speed, scale: 1000),
            FITField(73, .uint32, speed, scale: 1000),
            FITField(78, .uint32, altitude, scale: 5, offset: 500),
        ])
        if let rate = HeartRateRecords.rate(heartRate) { message.fields.append(FITField(3, .uint8, Int64(rate))) }
        return message
    }

    /// How many intervals an hrv message holds: five, as Garmin's watches write them (the
    /// last message's unused ones invalid), so that every hrv message has one definition.
    static let intervalsPerHRVMessage = 5

    /// A point's RR intervals as hrv messages (global 78: `time`, field 0, an array of
    /// uint16 in milliseconds), right after the point's record: hrv messages carry no time,
    /// so a reader places them by the record before them (`FITReader`).
    static func appendIntervals(_ intervals: [Double], to fit: inout FITEncoder) {
        guard !intervals.isEmpty else { return }
        var i = 0
        while i < intervals.count {
            let chunk = intervals[i..<min(i + intervalsPerHRVMessage, intervals.count)]
            var values: [Int64?] = chunk.map { s in
                let ms = (s * 1000).rounded()
                return ms.isFinite && ms >= 0 && ms < 65_535 ? Int64(ms) : nil
            }
            values += Array(repeating: nil, count: intervalsPerHRVMessage - values.count)
            fit.append(FITMessage(FITProfile.hrv, [FITField(0, .uint16, array: values)]))
            i += intervalsPerHRVMessage
        }
    }

    /// A pause between two consecutive points: the timer ran less than the clock between
    /// them (by a second or more). The timer stopped once it had run its part after the
    /// first point, and started again at the second.
    static func pause(between p: TrackPoint, and q: TrackPoint) -> (stop: UTCTimestamp, start: UTCTimestamp)? {
        guard let pt = p.timer, let qt = q.timer else { return nil }
        let wall = q.time.millisecondsSince1970 - p.time.millisecondsSince1970
        let ran = ms(qt) - ms(pt)
        guard ran >= 0, wall - ran >= 1000 else { return nil }
        return (UTCTimestamp(millisecondsSince1970: p.time.millisecondsSince1970 + ran), q.time)
    }

    struct Lap {
        var startMS: Int64
        var endMS: Int64
        var timerMS: Int64
        var distance: Double
        var averageSpeed: Double
        var maximumSpeed: Double?
        var intensity: Int64
        /// lap_trigger (the last lap's is session_end whatever this says).
        var trigger: Int64 = FITProfile.lapTriggerTime
        /// repetition_num: the phase's pass through a repeated group.
        var repetition: Int64?
        /// The lap's points' heart rate (`HeartRateRecords.averageAndMaximum`); nil: none.
        var heartRate: (average: Int, maximum: Int)? = nil
    }

    /// A lap per phase result, split where a lap press ended no phase (`LapSpan.spans`),
    /// placed on the clock by the points' timer; one lap of the whole activity when it has
    /// none. A lap's fastest speed is its points'.
    static func laps(_ detail: ActivityDetail, startMS: Int64, endMS: Int64) -> [Lap] {
        let a = detail.summary
        let phases = detail.phaseResults.sorted { $0.index < $1.index }
        guard !phases.isEmpty else {
            return [Lap(startMS: startMS, endMS: endMS, timerMS: ms(a.time), distance: a.distance,
                        averageSpeed: a.averageSpeed, maximumSpeed: a.maximumSpeed,
                        intensity: FITProfile.intensityActive,
                        heartRate: HeartRateRecords.averageAndMaximum(detail.points.lazy.map(\.heartRate)))]
        }
        let timed = detail.points.compactMap { p in p.timer.map { (timer: ms($0), time: p.time.millisecondsSince1970) } }
        // The clock when the timer read `t`: the last point at or before it, plus the rest.
        func clock(_ t: Int64) -> Int64 {
            var at = (timer: Int64(0), time: startMS)
            for p in timed {
                if p.timer > t { break }
                at = p
            }
            return min(at.time + (t - at.timer), endMS)
        }
        var laps: [Lap] = []
        var timer: Int64 = 0
        let spans = LapSpan.spans(phases: phases, marks: detail.lapMarks)
        for (i, span) in spans.enumerated() {
            let lapStart = i == 0 ? startMS : clock(timer)
            let fastest = detail.points.compactMap { p -> Double? in
                guard let t = p.timer.map(ms), t >= timer, t <= timer + span.timerMS else { return nil }
                return p.speed
            }.max()
            // A point on the lap's end is the next lap's (the last lap takes its end too), as
            // TCX's laps take their points (`ActivityLaps`).
            let last = i == spans.count - 1
            let rates = detail.points.filter { p in
                guard let t = p.timer.map(ms) else { return false }
                return t >= timer && (t < timer + span.timerMS || last)
            }.map(\.heartRate)
            timer += span.timerMS
            let lapEnd = i == spans.count - 1 ? endMS : clock(timer)
            let trigger = switch span.trigger {
            case .time: FITProfile.lapTriggerTime
            case .distance: FITProfile.lapTriggerDistance
            case .manual: FITProfile.lapTriggerManual
            }
            laps.append(Lap(startMS: lapStart, endMS: max(lapEnd, lapStart), timerMS: span.timerMS,
                            distance: span.distance,
                            averageSpeed: span.timerMS > 0 ? span.distance * 1000 / Double(span.timerMS) : 0,
                            maximumSpeed: fastest, intensity: FITProfile.intensity(phase: span.name), trigger: trigger,
                            repetition: span.repetition.map { Int64($0.number) },
                            heartRate: HeartRateRecords.averageAndMaximum(rates)))
        }
        return laps
    }

    // MARK: - Workout

    /// A plan's workout as a FIT workout file, in Garmin's structure: file_id (type workout),
    /// the workout (running, its name, its steps' count) and its steps (`workoutSteps`).
    public static func workout(_ workout: Workout, name: String, createdAt: UTCTimestamp) -> [UInt8] {
        let steps = workoutSteps(workout)
        var fit = FITEncoder()
        fit.append(FITMessage(FITProfile.fileID, [
            FITField(0, .enumeration, FITProfile.fileWorkout),
            FITField(1, .uint16, manufacturer),
            FITField(2, .uint16, product),
            FITField(3, .uint32z, serialNumber),
            FITField(4, .uint32, FIT.dateTime(createdAt)),
        ]))
        fit.append(FITMessage(FITProfile.workout, [
            FITField(4, .enumeration, FITProfile.sportRunning),
            FITField(6, .uint16, Int64(steps.count)),
            FITField(8, string: name, size: stringSize(name)),
        ]))
        for step in steps { fit.append(step) }
        return fit.finish()
    }

    /// The workout_step messages of a workout, numbered from 0 (message_index):
    /// - a phase is a step: its name; its end as duration_type time (the milliseconds),
    ///   distance (the centimetres) or open (a lap press ends it: `.lapPress`, and `.stop`,
    ///   which FIT cannot say); its speed range as a custom speed target (target_value 0,
    ///   custom_target_speed_low and _high in mm/s), else an open target; its intensity from
    ///   its name (`FITProfile.intensity(phase:)`); its notes;
    /// - a repeated group (phases marked with one `Repetition` group, every pass the same
    ///   phases) is its steps once, then a repeat_until_steps_cmplt step whose
    ///   duration_value is the message_index of the group's first step and whose
    ///   target_value is the number of passes. A group whose passes differ is written out
    ///   pass by pass.
    /// A phase's `lapEndsEarly` has no field in FIT: a watch ends a step at a lap press as it will.
    public static func workoutSteps(_ workout: Workout) -> [FITMessage] {
        var steps: [FITMessage] = []
        let phases = workout.phases
        var i = 0
        while i < phases.count {
            guard let group = phases[i].repetition?.group else {
                steps.append(workoutStep(phases[i], index: steps.count))
                i += 1
                continue
            }
            var j = i
            while j < phases.count, phases[j].repetition?.group == group { j += 1 }
            if let (pass, count) = repeatedPass(phases[i..<j]) {
                let first = steps.count
                for phase in pass { steps.append(workoutStep(phase, index: steps.count)) }
                steps.append(FITMessage(FITProfile.workoutStep, [
                    FITField(254, .uint16, Int64(steps.count)),
                    FITField(1, .enumeration, FITProfile.durationRepeatUntilStepsComplete),
                    FITField(2, .uint32, Int64(first)),
                    FITField(3, .enumeration, FITProfile.targetOpen),
                    FITField(4, .uint32, Int64(count)),
                ]))
            } else {
                for phase in phases[i..<j] { steps.append(workoutStep(phase, index: steps.count)) }
            }
            i = j
        }
        return steps
    }

    /// The first pass of a repeated group and its number of passes, when the group is passes
    /// 1 to count of the same phases, in order.
    static func repeatedPass(_ run: ArraySlice<Phase>) -> (pass: [Phase], count: Int)? {
        guard let count = run.first?.repetition?.count, count >= 1, run.count % count == 0 else { return nil }
        let size = run.count / count
        let pass = run.prefix(size).map(\.unrepeated)
        for (k, phase) in run.enumerated() {
            guard phase.repetition?.number == k / size + 1, phase.repetition?.count == count,
                  phase.unrepeated == pass[k % size] else { return nil }
        }
        return (pass, count)
    }

    /// One phase as a workout_step.
    static func workoutStep(_ phase: Phase, index: Int) -> FITMessage {
        var fields = [
            FITField(254, .uint16, Int64(index)),
            FITField(0, string: phase.name, size: stringSize(phase.name)),
        ]
        switch phase.end {
        case .time(let d):
            fields += [FITField(1, .enumeration, FITProfile.durationTime), FITField(2, .uint32, ms(d))]
        case .distance(let m):
            fields += [FITField(1, .enumeration, FITProfile.durationDistance), FITField(2, .uint32, m, scale: 100)]
        case .lapPress, .stop:
            fields += [FITField(1, .enumeration, FITProfile.durationOpen)]
        }
        if let band = phase.speedBand {
            fields += [
                FITField(3, .enumeration, FITProfile.targetSpeed),
                FITField(4, .uint32, 0),  // custom: the range below
                FITField(5, .uint32, band.lowerBound, scale: 1000),
                FITField(6, .uint32, band.upperBound, scale: 1000),
            ]
        } else if let heart = phase.heartRateTarget {
            // A zone by its number; a band as custom bpm, written bpm + 100 (FIT's values up
            // to 100 are % of the maximum). A ceiling beside a pace has no field: not written.
            switch heart {
            case .zone(let n):
                fields += [FITField(3, .enumeration, FITProfile.targetHeartRate), FITField(4, .uint32, Int64(n))]
            case .bpm(let lo, let hi):
                fields += [
                    FITField(3, .enumeration, FITProfile.targetHeartRate), FITField(4, .uint32, 0),
                    FITField(5, .uint32, Int64(lo + 100)), FITField(6, .uint32, Int64(hi + 100)),
                ]
            }
        } else {
            fields += [FITField(3, .enumeration, FITProfile.targetOpen)]
        }
        fields.append(FITField(7, .enumeration, FITProfile.intensity(phase: phase.name)))
        if let notes = phase.notes, !notes.isEmpty {
            fields.append(FITField(8, string: notes, size: min(notes.utf8.count + 1, 255)))
        }
        return FITMessage(FITProfile.workoutStep, fields)
    }

    /// A string field's size: the text and its zero, at most 64 bytes.
    static func stringSize(_ text: String) -> Int { min(text.utf8.count + 1, 64) }
}

/// The numbers of Garmin's FIT profile that Pacer writes: global message numbers and the
/// enumerations' values.
public enum FITProfile {
    public static let fileID: UInt16 = 0
    public static let session: UInt16 = 18
    public static let lap: UInt16 = 19
    public static let record: UInt16 = 20
    public static let event: UInt16 = 21
    public static let deviceInfo: UInt16 = 23
    public static let workout: UInt16 = 26
    public static let workoutStep: UInt16 = 27
    public static let activity: UInt16 = 34
    public static let hrv: UInt16 = 78

    static let fileActivity: Int64 = 4
    static let fileWorkout: Int64 = 5
    static let sportRunning: Int64 = 1
    static let eventTimer: Int64 = 0
    static let eventSession: Int64 = 8
    static let eventLap: Int64 = 9
    static let eventActivity: Int64 = 26
    static let eventTypeStart: Int64 = 0
    static let eventTypeStop: Int64 = 1
    static let eventTypeStopAll: Int64 = 4
    static let lapTriggerManual: Int64 = 0
    static let lapTriggerTime: Int64 = 1
    static let lapTriggerDistance: Int64 = 2
    static let lapTriggerSessionEnd: Int64 = 7
    static let durationTime: Int64 = 0
    static let durationDistance: Int64 = 1
    static let durationOpen: Int64 = 5
    static let durationRepeatUntilStepsComplete: Int64 = 6
    static let targetSpeed: Int64 = 0
    static let targetHeartRate: Int64 = 1
    static let targetOpen: Int64 = 2
    static let intensityActive: Int64 = 0
    static let intensityRest: Int64 = 1
    static let intensityWarmup: Int64 = 2
    static let intensityCooldown: Int64 = 3
    static let intensityRecovery: Int64 = 4

    /// A phase's intensity from its name, as plans name them: warm-up, cool-down, recovery,
    /// rest; anything else is active.
    public static func intensity(phase name: String) -> Int64 {
        let n = name.lowercased()
        if n.contains("warm") { return intensityWarmup }
        if n.contains("cool") { return intensityCooldown }
        if n.contains("recover") { return intensityRecovery }
        if n.contains("rest") { return intensityRest }
        return intensityActive
    }
}
