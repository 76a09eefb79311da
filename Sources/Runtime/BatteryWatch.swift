import HAL

/// The battery as the device watches it, during a workout (`DeviceRuntime`) and between
/// workouts (`Firmware`) alike: the level is reported at the first reading and then
/// at every 5 % step, and the low-battery cue sounds once, at the first reading at or below
/// 15 % while not charging.
public struct BatteryWatch: Sendable {
    /// Battery level at which the low-battery cue sounds (once).
    public static let lowPercent = 15.0
    /// Battery readings are reported as events in steps of this many percent.
    public static let reportStep = 5

    /// What a reading asks of the device.
    public struct Outcome: Hashable, Sendable {
        /// The level crossed a 5 % step (or is the first): report it.
        public var changed: Bool
        /// The level is low for the first time: sound the low-battery cue.
        public var warnLow: Bool
    }

    /// The latest reading (nil: none yet, or the gauge gave none).
    public private(set) var reading: BatteryReading?
    private var warned = false

    public init() {}

    /// Takes a new reading.
    public mutating func observe(_ next: BatteryReading?) -> Outcome {
        let step = { (r: BatteryReading) in Int(r.percent.rounded(.down)) / BatteryWatch.reportStep }
        let changed = next.map(step) != reading.map(step)
        reading = next
        guard let next, BatteryWatch.isLow(next), !warned else { return Outcome(changed: changed, warnLow: false) }
        warned = true
        return Outcome(changed: changed, warnLow: true)
    }

    /// A reading at or below the low level, not charging.
    public static func isLow(_ reading: BatteryReading) -> Bool {
        !reading.charging && reading.percent <= lowPercent
    }
}

extension BatteryWatch {
    /// Reads the battery as the device does every minute: the board wakes for it (the energy
    /// model counts the wakeup) and the energy account is brought up to now first, so that a
    /// simulated battery reads what was spent until this instant.
    static func read(_ parts: DeviceRuntime.Parts) -> BatteryReading? {
        let now = parts.clock.now
        parts.power?.wakeup(at: now)
        parts.power?.settle(at: now)
        return parts.battery.read()
    }
}
