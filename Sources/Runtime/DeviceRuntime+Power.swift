import Coaching
import HAL
import PacerCore

/// The runtime and the board's power: the battery every minute, a profile's step-down at its
/// level, the Wi-Fi radio switched off for a workout. On the clock's loop.
extension DeviceRuntime {
    func checkBattery() {
        let reading = BatteryWatch.read(parts)
        let seen = state.withValue { s -> BatteryWatch.Outcome? in s.finished ? nil : s.battery.observe(reading) }
        guard let seen else { return }
        if seen.changed, let reading { report(.battery(percent: reading.percent)) }
        if seen.warnLow { sound(.lowBattery, phase: nil, facts: .init(battery: reading?.percent)) }
        if let reading, !reading.charging { stepDownIfDue(reading.percent) }
    }

    /// Switches to the profile's step-down profile once the battery is at its level: fewer
    /// positions, fewer alerts, a resting GPS, for the rest of the run.
    func stepDownIfDue(_ percent: Double) {
        let switched = state.withValue { s -> (PowerProfile, PowerProfile)? in
            guard !s.finished, let step = s.profile.stepDown, percent <= step.percent,
                  let next = parts.profiles[step.to] else { return nil }
            let previous = s.profile
            s.profile = next
            s.coach.change(settings: next.coachSettings)
            s.autoPause.change(settings: next.autoPauseSettings)
            // A step-down during the calibration ends it: the new profile's mode from now.
            s.calibrationEnds = nil
            return (previous, next)
        }
        guard let (previous, next) = switched else { return }
        follow(next, from: previous)
        logger.info("battery at \(Int(percent)) %: profile \(previous.name) steps down to \(next.name)")
        announcer?.profile(next.name)
        report(.profileChanged(from: previous.name, to: next.name, percent: percent))
        rescheduleTick()
    }

    /// The calibration at the start is over (a position update at or after its end was just
    /// handled): the receiver follows the profile's own mode, resting from this update, its
    /// speeds counted at the scale the calibration found (or as they are).
    func endCalibrationIfDue() {
        let now = parts.clock.now
        let ended = state.withValue { s -> (PowerProfile, Double, Int)? in
            guard !s.finished, let end = s.calibrationEnds, now >= end else { return nil }
            s.calibrationEnds = nil
            let previous = s.profile
            s.profile = parts.profile
            let scale = s.coach.odometer.dopplerScale
            return (previous, scale.factor, scale.count)
        }
        guard let (previous, factor, stretches) = ended else { return }
        follow(parts.profile, from: previous)
        // A receiver that sleeps between positions sleeps from this one.
        if parts.profile.gpsMode == .backup { sleepReceiver() }
        logger.info("calibration over after \(stretches) stretches: the receiver's speeds counted × \(factor)")
        report(.calibrated(factor: factor, stretches: stretches))
        rescheduleTick()
    }

    /// The device switches from profile `previous` to `next` mid-workout: sampling, commits,
    /// the board's suspend, the radio and the receiver's mode follow.
    private func follow(_ next: PowerProfile, from previous: PowerProfile) {
        let now = parts.clock.now
        receiver?.follow(next)
        state.withValue { s in
            s.tasks.every(.trackFlush, next.trackFlushInterval, on: parts.clock) { [self] in commit() }
        }
        parts.power?.boardMaySuspend(next.boardSuspend, at: now)
        parts.clock.allowSuspend(next.boardSuspend)
        if next.wifiOffDuringWorkout != previous.wifiOffDuringWorkout { switchRadio(off: next.wifiOffDuringWorkout) }
        // The receiver follows the new mode: woken if it no longer may sleep, put in
        // power-save if that is the new mode and it has a fix.
        let power = receiver?.current
        if receiver?.isAsleep == true && next.gpsMode != .backup { receiver?.wake() }
        if next.gpsMode == .powerSave && power == .tracking { receiver?.set(.powerSave) }
        if next.gpsMode == .tracking && power == .powerSave { receiver?.set(.tracking) }
        // From power-save into backup: the receiver, which had its fix, sleeps now until
        // shortly before the next position (left in power-save, its next update would come
        // after the silence a backup-mode receiver is allowed, a false "GPS lost").
        if next.gpsMode == .backup && power == .powerSave { sleepReceiver() }
    }

    /// Switches the Wi-Fi radio off for the workout, or on again (only when the runtime
    /// switched it off), and reports it; a radio that refuses is reported, and the workout
    /// goes on. On the loop.
    func switchRadio(off: Bool) {
        guard let radio = parts.radio else { return }
        let wasOff = state.withValue { $0.radioOff }
        guard off != wasOff else { return }
        let now = parts.clock.now
        var failure: String?
        do {
            if off { try radio.block() } else { try radio.unblock() }
        } catch {
            failure = error.description
        }
        // Switched off only when the block took; "on" stands even when a hard block keeps
        // it off: Pacer's own block is lifted.
        let nowOff = off && failure == nil
        state.withValue { $0.radioOff = nowOff }
        if nowOff || wasOff { parts.power?.radio(blocked: nowOff, at: now) }
        if let failure {
            logger.warning("radio \(radio.name): switching it \(off ? "off" : "on") failed: \(failure)")
        } else {
            logger.info("radio \(radio.name) switched \(off ? "off" : "on")")
        }
        report(.radio(off: off, failure: failure))
    }
}
