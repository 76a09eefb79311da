import Coaching
import HAL
import PacerCore

/// The firmware between workouts: the power-on check, searching and ready, today's workout
/// offered and counted in beeps, presses and starts. All on the clock's loop.
extension Firmware {
    /// A press pattern from the buttons' decoder, or `pacer ctl press`: what the button's
    /// actions give it in the device's state.
    func press(_ pattern: PressPattern, reply: @escaping @Sendable (String) -> Void) {
        let said = "\(pattern.rawValue) press"
        let (phase, runtime) = state.withValue { ($0.phase, $0.runtime) }
        if phase == .running, let runtime {
            let command = settings.actions.runningCommand(
                for: pattern, name: { nextWaypointName() }, isPaused: runtime.status.coach.paused)
            report(.pressed(pattern, action: command?.line ?? "none"))
            if let command {
                runtime.handle(command) { [logger] answer in
                    logger.info("\(pattern.rawValue) press: \(answer)")
                    reply("\(said): \(command.line): \(answer)")
                }
            } else {
                reply("\(said): none (button_actions gives it no action while running)")
            }
            return
        }
        guard phase != .off else {
            reply("error: the device is switching off")
            return
        }
        let action = settings.actions.waiting[pattern] ?? .none
        report(.pressed(pattern, action: action.rawValue))
        switch action {
        case .start:
            let answer = startWorkout()
            reply(answer.hasPrefix("error:") ? answer : "\(said): start: \(answer)")
        case .nextWorkout:
            step(by: 1)
            reply("\(said): next-workout: \(waitingLine)")
        case .previousWorkout:
            step(by: -1)
            reply("\(said): previous-workout: \(waitingLine)")
        case .announce:
            announce(withState: true)
            reply("\(said): announce: \(waitingLine)")
        case .none:
            reply("\(said): none (button_actions gives it no action while \(phase.rawValue))")
        }
    }

    func bootCheck() {
        var faults = settings.knownFaults
        state.withValue { $0.booted = true }
        let (gps, detail) = (self.gps.status, self.gps.detail)
        if receiver == nil {
            faults.append("GPS: none configured (the workout runs on time alone)")
        } else if gps == .disconnected {
            faults.append("GPS missing: \(parts.gps?.name ?? "-")" + (detail.map { ": \($0)" } ?? ""))
        }
        let offer = refreshToday()
        if case .unavailable(let reason) = offer { faults.append(reason) }
        for fault in faults {
            logger.error("\(fault)")
            report(.fault(fault))
        }
        sound(faults.isEmpty ? .powerOn : .fault)
        if case .expired = offer { sound(.planExpired) }
        if self.gps.status == .fix {
            becomeReady()
        } else {
            becomeSearching()
        }
        // A start pressed during the checks: now.
        if state.withValue({ s in defer { s.startPending = false }; return s.startPending }) {
            _ = startWorkout()
        }
    }

    /// Each event of the receiver, as its one sink hands it to the loop: admitted by the
    /// receiver (a status its sleep makes expected is not), with its time as the device uses
    /// it (a week-rollover fault corrected; the plan's deadline is judged by it). A running
    /// workout acts on it in the same task; between workouts the device does.
    func gpsEvent(_ received: GPSEvent) {
        guard let receiver, receiver.admit(received) else { return }
        let event = corrected(received)
        let (phase, booted, runtime) = state.withValue { s in
            if case .fix(let fix) = event { s.lastFixTime = fix.time }
            if case .reading(let fix) = event { s.lastFixTime = fix.time }
            return (s.phase, s.booted, s.runtime)
        }
        if phase == .running, let runtime {
            runtime.gpsEvent(event)
            return
        }
        guard case .status(let status, let detail) = event, phase != .off else { return }
        let was = gps.previous
        report(.gps(status, detail: detail))
        receiver.heard(status)
        guard booted else { return }
        if status == .fix, phase == .searching {
            becomeReady()
        } else if status != .fix, phase == .ready {
            becomeSearching()
        }
        if status == .disconnected, was != .disconnected {
            let fault = "GPS gone: \(parts.gps?.name ?? "-")" + (detail.map { ": \($0)" } ?? "")
            logger.error("\(fault)")
            report(.fault(fault))
            sound(.fault)
        }
    }

    /// The event with its time as the device uses it.
    func corrected(_ event: GPSEvent) -> GPSEvent {
        switch event {
        case .fix(let fix): .fix(parts.receiverTime.corrected(fix))
        case .reading(let fix): .reading(parts.receiverTime.corrected(fix))
        case .status: event
        }
    }

    /// Asks the agenda for today's workout, with the receiver's date when it has one.
    @discardableResult
    func refreshToday() -> TodaysWorkout {
        let offer = agenda.today(on: today(state.withValue { $0.lastFixTime }))
        let tell = state.withValue { s -> Bool in
            s.today = offer
            guard case .workout(let plan, _, let index, _) = offer else {
                s.offered = nil
                return false
            }
            s.offered = index
            defer { s.told = (plan.name, index) }
            return s.told.map { $0.plan != plan.name || $0.index != index } ?? true
        }
        if tell, case .workout(let plan, _, let index, let again) = offer {
            report(.offered(plan: plan.name, workout: index + 1, of: plan.workouts.count, name: plan.workouts[index].name,
                            again: again))
        }
        return offer
    }

    func becomeSearching() {
        state.withValue { s in
            s.tasks.every(.searching, settings.searchingCueInterval, on: parts.clock) { [self] in
                if state.withValue({ $0.phase == .searching }) { sound(.searching) }
            }
            s.phase = .searching
        }
        report(.state(.searching, detail: nil))
    }

    func becomeReady() {
        state.withValue { s in
            s.tasks.cancel(.searching)
            s.phase = .ready
        }
        // The receiver now knows the date: the plan's deadline is judged against it.
        refreshToday()
        report(.state(.ready, detail: nil))
        announce(withState: true)
    }

    /// The state's cue, then today's workout: its number counted in beeps (a long one per
    /// five, a short one per one), or why none can start.
    func announce(withState: Bool) {
        let (phase, today, offered) = state.withValue { ($0.phase, $0.today, $0.offered) }
        if withState {
            switch phase {
            case .ready: sound(.ready)
            case .searching, .starting: sound(.searching)
            case .running, .off: return
            }
        }
        switch today {
        case .workout?:
            if let offered { count(offered + 1) }
        case .expired?: sound(.planExpired)
        case .unavailable?: sound(.fault)
        case nil: break
        }
    }

    /// `n` in beeps, one sound: `count-five` per five, `count` per one.
    private func count(_ n: Int) {
        let cues = Array(repeating: Cue.countFive, count: n / 5) + Array(repeating: .count, count: n % 5)
        guard CuePlayer.sound(cues, as: n % 5 == 0 ? .countFive : .count, parts: parts) else { return }
        report(.counted(n))
    }

    private func step(by delta: Int) {
        let moved = state.withValue { s -> (plan: TrainingPlan, index: Int, again: Bool)? in
            guard case .workout(let plan, _, _, let again) = s.today, let current = s.offered else { return nil }
            let n = plan.workouts.count
            let index = ((current + delta) % n + n) % n
            s.offered = index
            s.told = (plan.name, index)
            return (plan, index, again)
        }
        if let (plan, i, again) = moved {
            report(.offered(plan: plan.name, workout: i + 1, of: plan.workouts.count, name: plan.workouts[i].name, again: again))
        }
        announce(withState: false)
    }

    /// The parts a workout starts with: the power-on's, with the profile and announcements
    /// the runner chose since (`WorkoutAgenda.workoutSettings`). The speaker's voice was made
    /// at power-on: a new language is heard after the next start, and says so.
    private func partsForTheWorkout() -> DeviceRuntime.Parts {
        var parts = self.parts
        guard let chosen = agenda.workoutSettings() else { return parts }
        if chosen.profile.name != parts.profile.name {
            logger.notice("profile \(chosen.profile.name) for this workout, as chosen since power-on (was \(parts.profile.name))")
        }
        parts.profile = chosen.profile
        parts.profiles = chosen.profiles
        var speech = chosen.speech
        if speech.language != parts.speech.language {
            logger.warning("speech language \(speech.language) is heard after the next start of pacer device: the voice is made at power-on")
            speech.language = parts.speech.language
        }
        parts.speech = speech
        return parts
    }

    /// Starts the workout offered; the reply for `pacer ctl start`.
    func startWorkout() -> String {
        let (phase, today, offered) = state.withValue { ($0.phase, $0.today, $0.offered) }
        guard phase != .running, phase != .off else { return "error: a workout is already running" }
        if phase == .starting {
            // Power-on's checks come first (the boot check and its cue, a few seconds): the
            // start waits for them, then the workout starts, as if pressed then.
            state.withValue { $0.startPending = true }
            logger.info("start asked for during power-on: it follows the checks")
            return "starting after the power-on checks (\(Int(settings.bootCheckDelay.inSeconds)) s)"
        }
        // What made no workout available (storage that could not be used, a plan missing)
        // may be mended since: asked again at the press.
        let unavailable = if case .unavailable? = today { true } else { false }
        let offer = unavailable ? refreshToday() : today ?? refreshToday()
        let reason: String
        switch offer {
        case .workout(let plan, let key, _, _):
            let index = offered ?? 0
            // `--route` wins; else the route chosen for the next workout, if any.
            var route = settings.route
            if route == nil {
                do {
                    route = try agenda.chosenRoute()
                } catch {
                    logger.error("the route chosen to follow cannot be read, the workout follows none: \(error)")
                }
            }
            let parts = partsForTheWorkout()
            let runtime = makeRuntime(plan: plan, index: index, key: key, route: route, parts: parts)
            state.withValue { s in
                s.tasks.cancel(.searching)
                s.runtime = runtime
                s.phase = .running
                s.told = nil
            }
            // Sampling as the profile says, from where the receiver stands.
            let standing = receiver?.startWorkout(parts.profile.starting) ?? []
            report(.state(.running, detail: "\(plan.name): \(plan.workouts[index].name)"))
            do {
                try runtime.start()
            } catch {
                let fault = "cannot start the activity: \(error)"
                logger.error("\(fault)")
                state.withValue { s in
                    s.runtime = nil
                    s.phase = .ready
                }
                report(.fault(fault))
                sound(.fault)
                backToWaiting()
                return "error: \(fault)"
            }
            // The workout hears where the receiver stands, after its start.
            if !standing.isEmpty {
                parts.clock.execute { [self] in
                    for event in standing { runtime.gpsEvent(corrected(event)) }
                }
            }
            logger.info("workout \(index + 1)/\(plan.workouts.count) '\(plan.workouts[index].name)' of '\(plan.name)' started")
            return "started: \(plan.name): workout \(index + 1) \(plan.workouts[index].name)"
        case .expired(let plan, let deadline):
            reason = "plan '\(plan)' ended on \(deadline): make a new plan the device's (`pacer plan activate PLAN`)"
            sound(.planExpired)
        case .unavailable(let why):
            reason = why
            sound(.fault)
        }
        logger.warning("start refused: \(reason)")
        report(.refused(reason))
        return "error: \(reason)"
    }

    func backToWaiting() {
        if gps.status == .fix {
            becomeReady()
        } else {
            refreshToday()
            becomeSearching()
        }
    }

    /// The battery between workouts (the runtime watches it during one).
    func checkBattery() {
        guard state.withValue({ $0.phase != .running }) else { return }
        let reading = BatteryWatch.read(parts)
        if state.withValue({ $0.battery.observe(reading).warnLow }) { sound(.lowBattery) }
    }

    /// `Waypoint 1`, `Waypoint 2`, …: the device's names for the waypoints a key, a signal
    /// or a press marks, counted over its life.
    func nextWaypointName() -> String {
        "Waypoint \(state.withValue { s in s.waypoints += 1; return s.waypoints })"
    }

    /// A cue of the device's own, in the profile's style.
    func sound(_ cue: Cue) {
        guard CuePlayer.sound([cue], as: cue, parts: parts, always: true) else { return }
        report(.cue(cue))
    }
}
