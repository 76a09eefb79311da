import PacerCore

/// What the device did that costs energy, as it happens: the firmware's wakeups, the GPS
/// receiver's power states, the buzzer's sounding. The runtime reports to it; in the
/// simulator (and on a board without a fuel gauge) it drains the simulated battery.
public protocol PowerMonitor: AnyObject, Sendable {
    /// The firmware's loop woke up for one piece of work (a GPS epoch, a timer, a press).
    func wakeup(at instant: Instant)
    /// The receiver entered `state`.
    func gps(_ state: GPSPowerState, at instant: Instant)
    /// The buzzer sounds for `duration` from `instant`.
    func buzzer(sounding duration: Duration, at instant: Instant)
    /// The speaker (amplifier and speech rendering) speaks for `duration` from `instant`.
    func speaker(speaking duration: Duration, at instant: Instant)
    /// The Wi-Fi radio was switched off (`blocked`) or on again.
    func radio(blocked: Bool, at instant: Instant)
    /// The Bluetooth radio's state for the heart-rate strap changed: off (no strap set, or
    /// stopped), scanning (looking for it, or reconnecting), connected (notifications).
    func bluetooth(_ state: BluetoothRadioState, at instant: Instant)
    /// Whether the board may suspend between wakeups from now on (the profile says so).
    func boardMaySuspend(_ allowed: Bool, at instant: Instant)
    /// Brings the account up to `instant` (before the battery is read).
    func settle(at instant: Instant)
}

/// Integrates current over a run from the device's state changes (not from a formula on a
/// profile's settings): each part draws its state's current for as long as it is in that
/// state, converted to the battery's side of the regulator.
///
/// - GPS: the current of its state (`acquiring`, `tracking`, `power-save`, `backup`, `off`)
///   for the time spent in it.
/// - Board: idle current all the time, plus (busy − idle) for `busyPerWakeup` at every
///   wakeup. Where the board can suspend and the profile lets it, a gap between wakeups of
///   at least `suspendThreshold` is spent suspended, less the resume time (charged busy), as
///   the board's clock does it.
/// - Wi-Fi radio: part of the board's idle current (measured with it on); while the radio is
///   switched off (rfkill) the board idles at `idle − wifiIdleMilliamps` instead.
/// - Bluetooth radio (the heart-rate strap): the board's idle current was measured with it
///   powered but idle, so only scanning and connected are charged, each its own current on
///   top, for the time in it. A device without a strap never reports, and pays nothing.
/// - Buzzer: its current for the seconds it sounds.
/// - Speaker (a build with one): its standby current all the time, its speaking current
///   instead for the seconds words are said, and the board busy rendering them for its
///   share of that time. A build without a speaker counts the seconds and charges nothing.
///
/// Pure arithmetic on instants: the same events give the same answer, to the bit.
extension PowerMonitor {
    /// Nobody counts speech by default.
    public func speaker(speaking duration: Duration, at instant: Instant) {}
    /// Nor the radio.
    public func radio(blocked: Bool, at instant: Instant) {}
    /// Nor the Bluetooth radio.
    public func bluetooth(_ state: BluetoothRadioState, at instant: Instant) {}
}

/// What the Bluetooth radio does for the heart-rate strap, as the energy model counts it.
public enum BluetoothRadioState: String, Hashable, Sendable, CaseIterable {
    /// Not used: no strap set, or the source stopped (BlueZ leaves it powered off).
    case off
    /// Discovering, or connecting again after a loss.
    case scanning
    /// Connected to the strap, its notifications arriving.
    case connected

    /// The state a strap's status implies.
    public init(_ status: HeartRateStatus) {
        switch status {
        case .off: self = .off
        case .searching, .lost: self = .scanning
        case .connected, .reading: self = .connected
        }
    }
}

public struct EnergyLedger: Hashable, Sendable {
    public let model: HardwareModel

    /// Battery-side charge so far, per part, in mAh.
    public private(set) var boardMilliampHours = 0.0
    public private(set) var gpsMilliampHours = 0.0
    public private(set) var buzzerMilliampHours = 0.0
    /// The speaker (standby and speaking) and the speech's rendering.
    public private(set) var speakerMilliampHours = 0.0
    public private(set) var speakingTime = Duration.zero
    /// Time in each GPS state.
    public private(set) var gpsTime: [GPSPowerState: Duration] = [:]
    public private(set) var wakeups = 0
    public private(set) var buzzerTime = Duration.zero
    /// Time the board spent suspended.
    public private(set) var suspendedTime = Duration.zero
    /// Time the Wi-Fi radio was switched off, and the charge that saved (battery side, mAh,
    /// already left out of `boardMilliampHours`).
    public private(set) var radioOffTime = Duration.zero
    public private(set) var radioSavedMilliampHours = 0.0
    /// The Bluetooth radio's charge for the strap (scanning and connected, on top of the
    /// board's idle), and the time in each of those two states (off is the rest of the run).
    public private(set) var bluetoothMilliampHours = 0.0
    public private(set) var bluetoothTime: [BluetoothRadioState: Duration] = [:]

    public let start: Instant
    /// The account is complete up to here.
    public private(set) var settled: Instant
    public private(set) var gpsState: GPSPowerState
    public private(set) var maySuspend = false
    /// Whether the Wi-Fi radio is switched off now.
    public private(set) var radioBlocked = false
    /// What the Bluetooth radio is doing for the strap now.
    public private(set) var bluetoothState = BluetoothRadioState.off
    /// The last wakeup (the board is idle or suspended after it).
    private var lastWakeup: Instant?

    public init(model: HardwareModel, start: Instant, gps: GPSPowerState = .acquiring) {
        self.model = model
        self.start = start
        settled = start
        gpsState = gps
    }

    public var totalMilliampHours: Double {
        // The Bluetooth part last: 0 for a device without a strap, so the sum is the same to
        // the bit as before the radio was counted.
        boardMilliampHours + gpsMilliampHours + buzzerMilliampHours + speakerMilliampHours + bluetoothMilliampHours
    }

    /// Average battery current over the run so far, mA.
    public var averageMilliamps: Double {
        let hours = (settled - start).inSeconds / 3600
        return hours > 0 ? totalMilliampHours / hours : 0
    }

    /// Hours a full battery lasts at the average current so far.
    public var projectedRuntimeHours: Double {
        averageMilliamps > 0 ? model.battery.capacityMilliampHours / averageMilliamps : .infinity
    }

    /// Brings the account up to `t`; returns the mAh it added.
    @discardableResult
    public mutating func settle(at t: Instant) -> Double {
        guard t > settled else { return 0 }
        let before = totalMilliampHours
        let span = t - settled
        let hours = span.inSeconds / 3600
        gpsMilliampHours += battery(model.gps.milliamps[gpsState] ?? 0, model.gps.supplyVolts) * hours
        gpsTime[gpsState, default: .zero] += span
        // The board idles through the span; a suspend found at the next wakeup takes back
        // the difference for the suspended part of the gap.
        boardMilliampHours += battery(idleMilliamps, model.board.supplyVolts) * hours
        if radioBlocked {
            radioOffTime += span
            radioSavedMilliampHours += battery(model.board.wifiIdleMilliamps, model.board.supplyVolts) * hours
        }
        if bluetoothState != .off {
            bluetoothTime[bluetoothState, default: .zero] += span
            bluetoothMilliampHours += battery(model.board.bluetoothMilliamps(bluetoothState), model.board.supplyVolts) * hours
        }
        if let speaker = model.speaker, speaker.standbyMilliamps > 0 {
            speakerMilliampHours += battery(speaker.standbyMilliamps, speaker.supplyVolts) * hours
        }
        settled = t
        return totalMilliampHours - before
    }

    @discardableResult
    public mutating func gps(_ state: GPSPowerState, at t: Instant) -> Double {
        let added = settle(at: t)
        gpsState = state
        return added
    }

    @discardableResult
    public mutating func wakeup(at t: Instant) -> Double {
        var added = settle(at: t)
        wakeups += 1
        let board = model.board
        // The gap since the previous wakeup, when the board was allowed to suspend in it.
        if maySuspend, let last = lastWakeup, let suspend = board.suspendMilliamps, let resume = board.resume {
            let gap = (t - last) - board.busyPerWakeup
            if gap >= board.suspendThreshold {
                let asleep = gap - resume
                suspendedTime += asleep
                // Suspended instead of idle for `asleep`; busy instead of idle while resuming.
                let saved = battery(idleMilliamps - suspend, board.supplyVolts) * asleep.inSeconds / 3600
                let resuming = battery(board.busyMilliamps - idleMilliamps, board.supplyVolts)
                    * resume.inSeconds / 3600
                boardMilliampHours += resuming - saved
                added += resuming - saved
            }
        }
        let busy = battery(board.busyMilliamps - board.idleMilliamps, board.supplyVolts) * board.busyPerWakeup.inSeconds / 3600
        boardMilliampHours += busy
        added += busy
        lastWakeup = t
        return added
    }

    @discardableResult
    public mutating func buzzer(sounding duration: Duration, at t: Instant) -> Double {
        let added = settle(at: t)
        buzzerTime += duration
        let cost = battery(model.buzzer.soundingMilliamps, model.buzzer.supplyVolts) * duration.inSeconds / 3600
        buzzerMilliampHours += cost
        return added + cost
    }

    /// Words said for `duration`: the speaker's speaking current instead of its standby
    /// current (charged by `settle`), and the board busy rendering them for
    /// `renderCPUShare` of it. Nothing but the seconds on a build without a speaker.
    @discardableResult
    public mutating func speaker(speaking duration: Duration, at t: Instant) -> Double {
        let added = settle(at: t)
        speakingTime += duration
        guard let part = model.speaker else { return added }
        let hours = duration.inSeconds / 3600
        let cost = battery(part.speakingMilliamps - part.standbyMilliamps, part.supplyVolts) * hours
            + battery(model.board.busyMilliamps - model.board.idleMilliamps, model.board.supplyVolts)
                * part.renderCPUShare * hours
        speakerMilliampHours += cost
        return added + cost
    }

    /// The radio switched off (`blocked`) or on: the board idles without its current, or
    /// with it again, from `t`.
    @discardableResult
    public mutating func radio(blocked: Bool, at t: Instant) -> Double {
        let added = settle(at: t)
        radioBlocked = blocked
        return added
    }

    /// The Bluetooth radio entered `state` for the strap: its current (the board's figure
    /// for that state, 0 when off) is added on top of the board's from `t`.
    @discardableResult
    public mutating func bluetooth(_ state: BluetoothRadioState, at t: Instant) -> Double {
        let added = settle(at: t)
        bluetoothState = state
        return added
    }

    /// The board's idle current now: without the radio's while it is off.
    private var idleMilliamps: Double {
        model.board.idleMilliamps - (radioBlocked ? model.board.wifiIdleMilliamps : 0)
    }

    @discardableResult
    public mutating func boardMaySuspend(_ allowed: Bool, at t: Instant) -> Double {
        let added = settle(at: t)
        maySuspend = allowed
        return added
    }

    private func battery(_ milliamps: Double, _ volts: Double) -> Double {
        model.batteryMilliamps(milliamps, at: volts)
    }
}
