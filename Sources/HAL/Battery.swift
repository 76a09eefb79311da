import PacerCore

/// What a battery gauge reports.
public struct BatteryReading: Hashable, Sendable {
    /// State of charge, 0...100.
    public var percent: Double
    public var charging: Bool

    public init(percent: Double, charging: Bool) {
        self.percent = percent
        self.charging = charging
    }
}

/// A battery gauge: the board's (sysfs) or a simulated one.
public protocol BatteryGauge: AnyObject, Sendable {
    var name: String { get }
    /// The current reading, or nil when the gauge cannot be read right now.
    func read() -> BatteryReading?
}
