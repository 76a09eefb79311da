import Coaching
import HAL
import PacerCore

/// The runtime and its receiver: each fix and status, the track's points, the waypoints
/// taken at a press, the receiver's sleep between positions. On the clock's loop.
extension DeviceRuntime {
    /// What one receiver event asks of the device, worked out under the state and acted on
    /// after it: the coach's outputs, the point to store, the receiver's power, auto-pause.
    struct ReceiverStep {
        var out: [CoachOutput] = []
        var point: (TrackPoint, Int64)?
        var sleepNow = false
        var power: GPSPowerState?
        /// Auto-pause: the coach's outputs at a pause, and what to report.
        var pauseOut: [CoachOutput] = []
        var autoPaused: Duration?
        var autoResumed: Double?
        var routeEvents: [RouteFollower.Event] = []
        /// The ghost race at this position update.
        var ghost: [GhostOutput] = []
    }

    /// The receiver's event as the firmware hands it on, in the task the sink handed it to
    /// the loop in, with its time as the device uses it (a week-rollover fault corrected).
    func gpsEvent(_ event: GPSEvent) {
        let finished = state.withValue { $0.finished }
        var step = ReceiverStep()
        state.withValue { s in
            guard !s.finished else { return }
            switch event {
            case .status(let status, let detail): receiverStatus(status, detail: detail, &s, &step)
            case .fix(let fix): arrived(fix, update: true, &s, &step)
            case .reading(let fix): arrived(fix, update: false, &s, &step)
            }
        }
        if let power = step.power { receiver?.set(power) }
        if let speed = step.autoResumed {
            report(.autoResumed(speed: speed))
            logger.info("auto-resumed: moving at \(RuntimeStatus.kmh(speed)) km/h")
            sound(.resumed, phase: nil)
        }
        store(step.point)
        if case .status(let status, let detail) = event, !finished { report(.gps(status, detail: detail)) }
        handle(step.out)
        handle(step.pauseOut)
        for output in step.ghost {
            switch output {
            case .cue(let cue): sound(cue, phase: nil)
            case .tell(let gap):
                report(.ghost(gap))
                announcer?.ghost(gap)
            }
        }
        if let announcer, step.point != nil { announcer.progress(status.coach) }
        for e in step.routeEvents { routeEvent(e) }
        if let standing = step.autoPaused {
            report(.autoPaused(standing: standing))
            logger.info("auto-paused: standing still for \(RuntimeStatus.clock(standing))")
            sound(.paused, phase: nil)
        }
        rescheduleTick()
        if step.point != nil, case .fix = event { endCalibrationIfDue() }
        if step.sleepNow { sleepReceiver() }
    }

    /// The receiver's status changed: a loss breaks the track and tells the coach.
    private func receiverStatus(_ status: GPSStatus, detail: String?, _ s: inout State, _ step: inout ReceiverStep) {
        step.power = Receiver.powerState(after: status, mode: s.profile.gpsMode)
        logger.info("gps \(status.rawValue)\(detail.map { ": \($0)" } ?? "")")
        switch status {
        case .fixLost, .disconnected, .acquiring:
            // The next point opens a new segment (none, when no point came since the last).
            s.track.breakSegment()
            s.readings.removeAll()
            // No next fix to place a press by: the places stored at the presses stay.
            s.placer.drop()
            // No speed is not zero speed: a loss never counts toward an auto-pause.
            s.autoPause.fixLost()
            step.out = s.coach.fixLost(at: parts.clock.now)
        case .connected, .fix:
            break
        }
    }

    /// A fix: a position update (`update`, stored and judged) or a reading between two
    /// (counted for distance only).
    private func arrived(_ fix: Fix, update: Bool, _ s: inout State, _ step: inout ReceiverStep) {
        let now = parts.clock.now
        s.lastFix = fix
        s.lastFixArrival = now
        // The fix after a press places it (paused or not: where the runner was at the press
        // does not change).
        for p in s.placer.next(fix, at: now) {
            writer.revise(p.waypoint, number: p.number, of: p.activity)
            logger.info("waypoint '\(p.waypoint.name)' placed between fixes at \(DeviceRuntime.describe(p.waypoint.position))")
        }
        let decision = s.autoPause.observe(
            speed: fix.speed, at: now, running: s.coach.isRunning && s.activity != nil,
            phaseMinimumSpeed: s.coach.currentPhase.minimumSpeed)
        if case .resume(let speed) = decision {
            // This fix is the first of the new segment and of the new stretch of distance.
            _ = s.coach.resume(at: now)
            step.autoResumed = speed
        }
        guard s.coach.isRunning, s.activity != nil else { return }
        s.track.anchor(at: now, gpsTime: fix.time)
        // Every fix the receiver delivers places the runner on the route: the more fixes, the
        // sooner a wrong turn is heard.
        step.routeEvents = s.follower?.fix(fix.position, speed: fix.speed, elevation: fix.altitude, at: now) ?? []
        if update { step.sleepNow = s.profile.gpsMode == .backup }
        // Between position updates: counted for distance, not stored, not judged. A runner
        // standing while auto-pause makes sure is not judged either: they are about to be
        // paused, not to be told to speed up.
        let pausing = if case .pause = decision { true } else { false }
        let standing = s.autoPause.isPending || pausing
        // A fix that will be no track point is kept with the next one.
        if !update, !pausing, s.readings.count < DeviceRuntime.maximumReadingsPerPoint {
            s.readings.append(TrackReading(
                time: s.track.readingTime(of: fix, arrival: now), position: fix.position, speed: fix.speed, course: fix.course))
        }
        // The fix's quality (HDOP, satellites, an estimated fix) goes with its speed: the coach
        // judges pace only on speeds it can trust.
        step.out = update && !standing
            ? s.coach.fix(fix.position, speed: fix.speed, course: fix.course, quality: FixTrust(fix), at: now)
            : s.coach.track(fix.position, speed: fix.speed, course: fix.course, quality: FixTrust(fix), at: now)
        if case .pause(let since) = decision {
            step.pauseOut = s.coach.pause(at: now, stoppedAt: since)
            // The track ends where the runner stands, as at a press; the point's timer is the
            // one wound back to when they stopped.
            step.point = trackPoint(fix, &s)
            s.track.breakSegment()
            s.readings.removeAll()
            if s.coach.isPaused {
                step.autoPaused = now - since
            } else {
                // The workout ended on the way: nothing is paused.
                s.autoPause.handOver()
            }
        } else if update {
            // Stored after the coach has counted it: the point carries the timer and the
            // odometer's distance with this fix's leg in them.
            step.point = trackPoint(fix, &s)
            // The ghost is raced on the same timer and odometer, at each position update.
            if var ghost = s.ghost, let point = step.point?.0, let timer = point.timer, let metres = point.distance,
               s.coach.isRunning {
                step.ghost = ghost.update(timer: timer, metres: metres)
                step.point?.0.ghostGap = ghost.gap?.metres
                s.ghost = ghost
            }
        }
    }

    /// The most fixes kept between two points (`TrackPoint.readings`): a 10 Hz receiver over
    /// the low profile's minute is 600.
    static let maximumReadingsPerPoint = 1200

    /// A fix as the next track point (in a new segment after a pause or a loss of fix).
    func trackPoint(_ fix: Fix, _ s: inout State) -> (TrackPoint, Int64)? {
        guard let activity = s.activity else { return nil }
        // Compared at the fix's arrival: a fix kept since (the latest at a pause) is old.
        let arrival = s.lastFix == fix ? (s.lastFixArrival ?? parts.clock.now) : parts.clock.now
        guard let (time, segment) = s.track.place(fix, arrival: arrival) else { return nil }
        // The timer and the distance as they were when the fix came (a point stored at a pause
        // or the end is its fix's, a second or so before).
        let at = min(arrival, parts.clock.now)
        let heart = heartRateForPoint(&s, at: at)
        // The fixes before this one since the last point (the point's own fix, kept as a
        // reading when it came, is the point now).
        let readings = s.readings.filter { $0.time < time }
        s.readings.removeAll()
        return (TrackPoint(segment: segment, time: time, position: fix.position,
                           altitude: fix.altitude, speed: fix.speed,
                           timer: s.coach.elapsed(at: at), distance: s.coach.distance(at: at),
                           heartRate: heart.bpm, rrIntervals: heart.rr, readings: readings), activity)
    }

    /// The receiver's latest fix as a track point, when it is live and newer than the last
    /// one stored: at a pause, a stop or the end the track reaches where the runner is.
    func latestPoint(_ s: inout State) -> (TrackPoint, Int64)? {
        guard receiver?.hasFix == true, let fix = s.lastFix else { return nil }
        return trackPoint(fix, &s)
    }

    func store(_ point: (TrackPoint, Int64)?) {
        guard let (p, activity) = point else { return }
        writer.append(p, to: activity)
    }

    /// The running totals at `now`.
    func totals(_ s: State, at now: Instant) -> ActivityTotals {
        let start = s.startedAt ?? now
        let odometer = s.coach.odometer
        return ActivityTotals(
            startedAt: s.track.utcStart(startedAt: start), elapsed: now - start, timer: s.coach.elapsed(at: now),
            moving: odometer.movingTime, distance: s.coach.distance(at: now), maximumSpeed: odometer.maximumSpeed)
    }

    /// After a position in the backup mode: the receiver sleeps until shortly before the next.
    func sleepReceiver() {
        let now = parts.clock.now
        let interval = state.withValue { s -> Duration? in
            guard !s.finished, s.profile.gpsMode == .backup, s.coach.isRunning else { return nil }
            // The next position comes an interval from now, however often they came before.
            s.coach.receiverSleeps(until: now + s.profile.positionInterval)
            return s.profile.positionInterval
        }
        guard let interval, let receiver else { return }
        receiver.sleep(positionInterval: interval) { [self] in parts.power?.wakeup(at: parts.clock.now) }
    }

    func captureWaypoint(_ name: String) -> WaypointOutcome {
        let now = parts.clock.now
        // The receiver's latest fix, newer than the last sampled one when the profile samples slowly.
        let current = receiver?.freshestFix.map(parts.receiverTime.corrected)
        let hasFix = receiver?.hasFix == true
        let outcome: WaypointOutcome = state.withValue { s in
            guard let activity = s.activity, !s.finished else { return .notRecording }
            if let last = s.lastWaypointAt, now - last < DeviceRuntime.waypointDebounce { return .duplicate }
            // A live fix from the receiver is the position now; otherwise the last one seen.
            let live = current ?? (hasFix ? s.lastFix : nil)
            guard let fix = live ?? s.lastFix else { return .noPositionYet }
            s.lastWaypointAt = now
            // When the fix arrived: the one the runtime has handled, or one the receiver has
            // just handed on.
            let arrival = fix == s.lastFix ? (s.lastFixArrival ?? now) : now
            // The press's time on the run's time line (a sparse profile's fix is up to a
            // minute old); at a live fix, the place carried on to the press (WaypointPlacer).
            let pressed = s.track.utc(at: now)
                ?? UTCTimestamp(millisecondsSince1970: fix.time.millisecondsSince1970 + (now - arrival).nanoseconds / 1_000_000)
            let waypoint = Waypoint(
                name: name, time: pressed,
                position: live != nil ? WaypointPlacer.deadReckoned(fix, arrival: arrival, now: now) : fix.position,
                altitude: fix.altitude, atLastKnownPosition: live == nil)
            let number: Int
            do {
                number = try writer.add(waypoint, to: activity)
            } catch {
                logger.error("cannot store waypoint '\(name)': \(error)")
                return .notRecording
            }
            if live != nil {
                s.placer.hold(.init(number: number, activity: activity, waypoint: waypoint, pressedAt: now,
                                    before: fix, beforeArrival: arrival))
            }
            s.waypoints += 1
            return live != nil ? .stored(waypoint) : .storedAtLastKnownPosition(waypoint)
        }
        switch outcome {
        case .stored, .storedAtLastKnownPosition: sound(.waypointSaved, phase: nil)
        default: break
        }
        return outcome
    }
}
