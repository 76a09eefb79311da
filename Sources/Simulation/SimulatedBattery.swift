import HAL
import Synchronization

/// A battery that holds a charge and loses it when told: the gauge of the simulator, and of
/// a board without a fuel gauge (where its level is the firmware's own estimate).
///
/// It knows nothing about time or current. The energy model works out what the device
/// consumed over an interval (GPS, CPU, buzzer, …) and calls `drain(milliampHours:)`; the
/// gauge only keeps the account: the charge left, in mAh, between zero and the capacity.
/// It never charges (`charging` is always false).
///
/// Thread-safe: `drain` and `read` may be called from any thread.
public final class SimulatedBattery: BatteryGauge {
    /// Full charge, in mAh.
    public let capacityMilliampHours: Double
    /// The level it started at, in percent.
    public let startPercent: Double
    private let remaining: Mutex<Double>

    /// A battery of `capacityMilliampHours` (positive) charged to `startPercent` (0…100).
    public init(capacityMilliampHours: Double, startPercent: Double = 100) {
        precondition(
            capacityMilliampHours.isFinite && capacityMilliampHours > 0,
            "a battery's capacity must be a positive number of mAh, got \(capacityMilliampHours)")
        precondition(
            startPercent.isFinite && (0...100).contains(startPercent),
            "a battery's starting level must be 0…100 %, got \(startPercent)")
        self.capacityMilliampHours = capacityMilliampHours
        self.startPercent = startPercent
        remaining = Mutex(capacityMilliampHours * startPercent / 100)
    }

    /// `sim:battery?capacity=<mAh>`.
    public var name: String { "sim:battery?capacity=\(SimulatedBattery.format(capacityMilliampHours))" }

    /// Takes `milliampHours` (zero or more) out of the charge; the charge stops at zero.
    public func drain(milliampHours: Double) {
        precondition(
            milliampHours.isFinite && milliampHours >= 0,
            "a drain must be zero or more mAh, got \(milliampHours)")
        remaining.withLock { $0 = max(0, $0 - milliampHours) }
    }

    /// Gives back `milliampHours` (zero or more) that an earlier drain overcharged: the energy
    /// account charges a gap as idle until the wakeup after it shows the board suspended.
    /// The charge stops at the capacity.
    public func refund(milliampHours: Double) {
        precondition(milliampHours.isFinite && milliampHours >= 0, "a refund must be zero or more mAh, got \(milliampHours)")
        remaining.withLock { $0 = min(capacityMilliampHours, $0 + milliampHours) }
    }

    /// Sets the charge to `percent` (0…100) of the capacity: a scenario's "the battery is at
    /// 14 % now".
    public func set(percent: Double) {
        precondition(percent.isFinite && (0...100).contains(percent), "a battery level must be 0…100 %, got \(percent)")
        remaining.withLock { $0 = capacityMilliampHours * percent / 100 }
    }

    /// The charge left, in mAh.
    public var remainingMilliampHours: Double { remaining.withLock { $0 } }

    /// The charge left as a percentage of the capacity, 0…100.
    public var percent: Double { remainingMilliampHours / capacityMilliampHours * 100 }

    /// True once the charge has run out.
    public var isEmpty: Bool { remainingMilliampHours <= 0 }

    /// Always a reading (the account is always known); never charging.
    public func read() -> BatteryReading? {
        BatteryReading(percent: percent, charging: false)
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
