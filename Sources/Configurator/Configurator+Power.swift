import Coaching
import Foundation
import HAL
import LinuxHardware
import Logging
import NMEA
import PacerCore
import Runtime
import Simulation
import Storage

/// The board's power: its clock (suspending where the board can), the battery gauge, the
/// Wi-Fi radio a workout may switch off, and that radio switched on again after a power cut.
extension Configurator {
    /// The clock for `timing`. A paced clock's speed must be positive and finite
    /// (`makeDevice` refuses others with a `ConfigurationError`; here it is a precondition).
    ///
    /// On the board (`.realTime`), a build whose board can suspend to RAM gets a clock that
    /// suspends it through sysfs during long waits, when the profile allows.
    public static func makeClock(_ timing: Timing, board: HardwareModel.Board? = nil) -> any RunnableClock {
        switch timing {
        case .realTime:
            if let board, board.suspendMilliamps != nil, let resume = board.resume {
                MonotonicClock(suspender: SysfsSuspender(), suspendThreshold: board.suspendThreshold, resume: resume)
            } else {
                MonotonicClock()
            }
        case .virtual: VirtualClock()
        case .paced(let speed): VirtualClock(pacedBy: MonotonicWaiter(), speed: speed)
        }
    }

    /// The Wi-Fi radio (`radio:`): `sysfs` (the first wlan switch under /sys/class/rfkill),
    /// `sysfs:PATH` (one switch's folder), `sim[?blocked=yes&hard=yes]` (simulated, left off by a
    /// power cut, hard-blocked), or nil for none.
    ///
    /// `sysfs` on a board with no Wi-Fi switch (no rfkill, or none of type wlan) is no radio:
    /// there is nothing to switch off, so nothing to save, and the device runs as with `none`
    /// (a note in the log, no fault). A `sysfs:PATH` is the settings' own choice: it is used.
    public static func makeRadio(
        _ uri: DeviceURI?, clock: any PacerClock, rfkillRoot: String = SysfsRfkill.defaultRoot,
        logger: Logger = Logger(label: "pacer")
    ) throws(ConfigurationError) -> (any WirelessRadio)? {
        guard let uri else { return nil }
        switch uri.scheme {
        case "none":
            return nil
        case "sysfs":
            if !uri.path.isEmpty { return SysfsRfkill(path: uri.path) }
            do {
                return try SysfsRfkill.first(root: rfkillRoot)
            } catch {
                logger.notice("radio 'sysfs': \(error); no Wi-Fi radio to switch off during workouts")
                return nil
            }
        case "sim":
            func flag(_ key: String) throws(ConfigurationError) -> Bool {
                guard let text = uri.query[key] else { return false }
                guard let value = ["yes": true, "no": false, "true": true, "false": false][text] else {
                    throw ConfigurationError("radio '\(uri)': \(key) must be yes or no, not '\(text)'")
                }
                return value
            }
            if let unknown = uri.query.keys.sorted().first(where: { !["blocked", "hard"].contains($0) }) {
                throw ConfigurationError("radio '\(uri)': unknown option '\(unknown)' (known: blocked, hard)")
            }
            return SimulatedRadio(clock: clock, blocked: try flag("blocked"), hard: try flag("hard"), name: uri.text)
        default:
            throw ConfigurationError("unknown radio '\(uri)' (known: sysfs, sysfs:/sys/class/rfkill/rfkillN, sim, none)")
        }
    }

    /// A power cut in a workout that had switched the Wi-Fi radio off leaves it off, and the
    /// companion page unreachable: at the next power-on, the radio Pacer switched off (its
    /// marker there) is switched on again. A radio switched off by someone else stays off.
    /// True when it was switched on.
    @discardableResult
    public static func recoverRadio(_ device: Device, logger: Logger) -> Bool {
        guard let radio = device.radio else { return false }
        let marker = radioMarker(device.settings)
        guard FileManager.default.fileExists(atPath: marker) else { return false }
        do {
            try radio.unblock()
            try? FileManager.default.removeItem(atPath: marker)
            logger.notice("radio \(radio.name): on again (left off by a workout that did not end: a power cut)")
            return true
        } catch {
            logger.warning("radio \(radio.name): left off by a workout that did not end, cannot be switched on: \(error)")
            return false
        }
    }

    /// Where the runtime notes that Pacer switched the radio off, so that the next power-on
    /// after a power cut mid-workout switches it on again: beside the activities.
    public static func radioMarker(_ settings: Settings) -> String {
        (settings.dataDirectory as NSString).appendingPathComponent("radio-off-by-pacer")
    }

    /// `sysfs` (the first battery under /sys/class/power_supply), `sysfs:PATH`, or
    /// `sim?capacity=MAH&level=PERCENT`.
    public static func makeBattery(
        _ uri: DeviceURI, hardware: HardwareModel? = nil
    ) throws(ConfigurationError) -> any BatteryGauge {
        do {
            switch uri.scheme {
            case "sysfs":
                if !uri.path.isEmpty { return SysfsBattery(path: uri.path) }
                guard let found = SysfsBattery.discover().first else {
                    throw ConfigurationError(
                        "battery 'sysfs': no battery under /sys/class/power_supply (use battery: sim on a board without a gauge)")
                }
                return found
            case "sim":
                return try makeSimulatedBattery(uri, hardware: hardware)
            default:
                throw ConfigurationError("unknown battery '\(uri)' (known: sysfs, sysfs:PATH, sim?capacity=MAH)")
            }
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError("\(error)")
        }
    }

    /// `sim?capacity=MAH&level=PERCENT`: the simulated battery (see `makeBattery`).
    public static func makeSimulatedBattery(
        _ uri: DeviceURI, hardware: HardwareModel? = nil
    ) throws(ConfigurationError) -> SimulatedBattery {
        do {
            // The build's battery, unless the URI says otherwise.
            let capacity = try uri.integer(
                "capacity", default: hardware.map { Int($0.battery.capacityMilliampHours.rounded()) } ?? 1200)
            guard HardwareModelLoader.capacityRange.contains(Double(capacity)) else {
                throw ConfigurationError(
                    "'\(uri)': capacity=\(capacity): \(HardwareModelLoader.capacityRange.refusal(of: Double(capacity)))")
            }
            // A level may have decimals: a device that boots again after a power cut finds
            // its battery where the last one left it.
            var level = 100.0
            if let raw = uri.query["level"] {
                guard let v = YAMLMapping.decimal(raw), v.isFinite else {
                    throw ConfigurationError("'\(uri)': level=\(raw) is not a number")
                }
                level = v
            }
            guard (0...100).contains(level) else {
                throw ConfigurationError("'\(uri)': level=\(uri.query["level"] ?? ""): must be from 0 to 100 %")
            }
            return SimulatedBattery(capacityMilliampHours: Double(capacity), startPercent: level)
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError("\(error)")
        }
    }
}

/// A battery gauge that is not there: no readings (the device runs without a level).
public final class MissingBattery: BatteryGauge {
    public let name: String

    public init(name: String) {
        self.name = name
    }

    public func read() -> BatteryReading? { nil }
}

/// A radio whose blocks by Pacer are noted in a file (`Configurator.radioMarker`), so that
/// a power cut mid-workout does not leave the radio off for good (`recoverRadio`).
final class MarkedRadio: WirelessRadio {
    let radio: any WirelessRadio
    let marker: String

    init(_ radio: any WirelessRadio, marker: String) {
        self.radio = radio
        self.marker = marker
    }

    var name: String { radio.name }
    func read() -> RadioState? { radio.read() }
    var unavailableReason: String? { radio.unavailableReason }

    func block() throws(RadioError) {
        // Noted first: a power cut between the two leaves a marker for a radio still on,
        // which the next power-on switches on, harmlessly.
        _ = FileManager.default.createFile(atPath: marker, contents: Data("Pacer switched the radio \(radio.name) off for a workout\n".utf8))
        do {
            try radio.block()
        } catch {
            try? FileManager.default.removeItem(atPath: marker)
            throw error
        }
    }

    /// The note goes once Pacer's block is lifted, even when a hard block keeps the radio
    /// off; it stays when the unblock itself failed (refused, say), for the next power-on.
    func unblock() throws(RadioError) {
        do {
            try radio.unblock()
        } catch {
            if radio.read()?.softBlocked == false { try? FileManager.default.removeItem(atPath: marker) }
            throw error
        }
        try? FileManager.default.removeItem(atPath: marker)
    }
}
