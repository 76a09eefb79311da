import HAL
import PacerCore
import Synchronization

/// The battery's other half in the simulator (and on a board without a fuel gauge): hears
/// what the device does (`PowerMonitor`), keeps the energy account (`EnergyLedger`) and
/// drains the simulated battery by it, so the level the runtime reads falls as the firmware
/// spends it: faster with the GPS tracking and melodies every 10 s, slower with the receiver
/// in backup and the board suspended.
public final class SimulatedPowerSupply: PowerMonitor {
    public let battery: SimulatedBattery
    private let ledger: Mutex<EnergyLedger>

    public init(model: HardwareModel, battery: SimulatedBattery, start: Instant) {
        self.battery = battery
        ledger = Mutex(EnergyLedger(model: model, start: start))
    }

    /// The account so far.
    public var account: EnergyLedger { ledger.withLock { $0 } }

    public func wakeup(at instant: Instant) { drain { $0.wakeup(at: instant) } }
    public func gps(_ state: GPSPowerState, at instant: Instant) { drain { $0.gps(state, at: instant) } }
    public func buzzer(sounding duration: Duration, at instant: Instant) {
        drain { $0.buzzer(sounding: duration, at: instant) }
    }
    public func speaker(speaking duration: Duration, at instant: Instant) {
        drain { $0.speaker(speaking: duration, at: instant) }
    }
    public func radio(blocked: Bool, at instant: Instant) { drain { $0.radio(blocked: blocked, at: instant) } }
    public func bluetooth(_ state: BluetoothRadioState, at instant: Instant) { drain { $0.bluetooth(state, at: instant) } }
    public func boardMaySuspend(_ allowed: Bool, at instant: Instant) {
        drain { $0.boardMaySuspend(allowed, at: instant) }
    }
    public func settle(at instant: Instant) { drain { $0.settle(at: instant) } }

    private func drain(_ change: (inout EnergyLedger) -> Double) {
        let used = ledger.withLock { change(&$0) }
        if used > 0 { battery.drain(milliampHours: used) } else if used < 0 { battery.refund(milliampHours: -used) }
    }
}
