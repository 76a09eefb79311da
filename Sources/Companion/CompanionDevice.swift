import HAL
import PacerCore
import Runtime
import Storage

/// What the companion reaches of the device process it runs in: its state, its commands and
/// its store. `pacer device` gives the real one (around the device's controller); tests give
/// one of their own around a real store.
public protocol CompanionDevice: Sendable {
    /// Where the device stands now.
    func snapshot() -> DeviceSnapshot
    /// A command as the button or `pacer ctl` gives it; its one-line answer.
    func send(_ command: ControlCommand) async -> String
    /// The activity store, opened now if it was not (the same one the device records into,
    /// so the companion writes under the device's own folder lock); throws with the reason
    /// when the data folder cannot be used.
    func store() throws -> PacerStore
    /// The device's plan changed (the page activated one): the device reads it afresh, so
    /// that the workout it offers is the new plan's at once.
    func planChanged()
}

extension CompanionDevice {
    public func planChanged() {}

    /// A workout runs: the page refuses every change but what the button could do.
    public var workoutRunning: Bool { snapshot().workoutRunning }
}

/// The device's state as the page reads it: typed values, turned into JSON only where the
/// page answers with JSON (`/api/state`, `/health`).
public struct DeviceSnapshot: Sendable, Hashable {
    public var state: DeviceState
    /// The one-line status (`ready  Easy run: workout 1/1 Easy 40  gps fix`).
    public var line: String
    /// The running workout's status; nil between workouts.
    public var running: RuntimeStatus?
    /// The wall clock's time when it was taken, when known.
    public var time: UTCTimestamp?
    /// The workout offered while the device waits.
    public var offer: Firmware.Offer?

    public init(state: DeviceState, line: String, running: RuntimeStatus? = nil, time: UTCTimestamp? = nil,
                offer: Firmware.Offer? = nil) {
        self.state = state
        self.line = line
        self.running = running
        self.time = time
        self.offer = offer
    }

    public var workoutRunning: Bool { state == .running }

    /// What `pacer ctl watch` greets with: the running workout's status line, or
    /// `{"event":"status","state":"ready","line":"ready  …"}` between workouts.
    public var jsonLine: String {
        if workoutRunning, let running { return running.jsonLine(time: time) }
        var fields: [(String, JSONValue)] = [("state", .text(state.rawValue)), ("line", .text(line))]
        if let offer { fields += [("plan", .text(offer.plan)), ("workout", .text(offer.workout))] }
        return EventJSON.line(kind: "status", time: time, fields: fields)
    }

    /// The state's word: the workout's (`starting`, `running`, `paused`, `finished`, as its
    /// status object names it) while one runs, else the device's.
    public var stateText: String {
        guard workoutRunning, let running else { return state.rawValue }
        let coach = running.coach
        return coach.finished ? "finished" : coach.paused ? "paused" : running.activityID == nil ? "starting" : "running"
    }
}
