import HAL
import Storage

/// What the companion reaches of the device process it runs in: its state, its commands and
/// its store. `pacer device` gives the real one (the `DeviceController`); tests give one of
/// their own around a real store.
public protocol CompanionDevice: Sendable {
    /// The state as `pacer ctl watch` greets with it: one JSON object (no newline).
    func statusJSON() -> String
    /// A workout runs: the page refuses every change but what the button could do.
    var workoutRunning: Bool { get }
    /// A command as the button or `pacer ctl` gives it; its one-line answer.
    func send(_ command: ControlCommand) async -> String
    /// The activity store, opened now if it was not (the same one the device records into,
    /// so the companion writes under the device's own folder lock); throws with the reason
    /// when the data folder cannot be used.
    func store() throws -> ActivityStore
}
