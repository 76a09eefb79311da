import NMEA
import PacerCore

/// How the firmware uses the GPS receiver between position updates (a power profile's
/// `gps_mode`): the receiver's own power states are `GPSPowerState`.
public enum GPSPowerMode: String, Hashable, Sendable, CaseIterable {
    /// Kept tracking continuously (a fix every second).
    case tracking
    /// Put in the receiver's power-save mode (u-blox PSM, MediaTek periodic/standby): it
    /// tracks at a lower duty cycle and draws less.
    case powerSave = "power-save"
    /// Switched to backup between updates (only the RTC and ephemeris kept) and woken a
    /// hot-start time before the next update.
    case backup
}

/// A receiver's power state at a moment: what the energy model charges for.
public enum GPSPowerState: String, Hashable, Sendable, CaseIterable {
    /// Searching for satellites: after power-on or a wake from backup, until the first fix.
    case acquiring
    /// Tracking, a fix every epoch.
    case tracking
    /// The receiver's power-save mode.
    case powerSave = "power-save"
    /// Backup: the RTC and ephemeris kept, nothing else.
    case backup
    /// No power at all (no GPS, or the device is off).
    case off
}

/// The electrical description of a device build: the board, the GPS module, the buzzer,
/// the battery and, if it has one, the speaker, with the current each draws in each state. Read from the data files in
/// `Hardware/parts` and `Hardware/builds`; every figure there cites its source.
public struct HardwareModel: Hashable, Sendable {
    public struct Board: Hashable, Sendable {
        public var name: String
        public var supplyVolts: Double
        /// Waiting for the next wakeup.
        public var idleMilliamps: Double
        /// Working (a wakeup's processing, a commit).
        public var busyMilliamps: Double
        /// How long the board stays busy for one wakeup of the firmware's loop.
        public var busyPerWakeup: Duration
        /// Suspended to RAM between wakeups, for a board that can (nil: it cannot, it idles).
        public var suspendMilliamps: Double?
        /// For a board that can suspend: the time it is awake for each suspend besides the
        /// work itself, entering suspend as well as waking from it (the energy ledger charges
        /// it at the busy current). The data files count both directions.
        public var resume: Duration?
        /// The Wi-Fi radio's part of `idleMilliamps` (on, idle: the figure was measured with
        /// it on): what the board draws less while the radio is switched off (rfkill). 0: a
        /// board without Wi-Fi.
        public var wifiIdleMilliamps: Double
        /// The Bluetooth radio's current for the heart-rate strap, on top of `idleMilliamps`
        /// (which was measured with it powered but idle): while it scans for the strap (or
        /// reconnects to it), and while it holds the connection and hears its notifications. 0:
        /// a board without Bluetooth, or one whose radio is not charged.
        public var bluetoothScanningMilliamps: Double
        public var bluetoothConnectedMilliamps: Double

        /// What the Bluetooth radio adds to the board's current in `state` (nothing when off).
        public func bluetoothMilliamps(_ state: BluetoothRadioState) -> Double {
            switch state {
            case .off: 0
            case .scanning: bluetoothScanningMilliamps
            case .connected: bluetoothConnectedMilliamps
            }
        }

        /// The shortest wait worth suspending for: the resume time and two seconds (a real-time
        /// clock's wake alarm counts whole seconds). The firmware's clock and the energy model
        /// use the same rule.
        public var suspendThreshold: Duration { (resume ?? .zero) + .seconds(2) }

        public init(name: String, supplyVolts: Double, idleMilliamps: Double, busyMilliamps: Double,
                    busyPerWakeup: Duration, suspendMilliamps: Double? = nil, resume: Duration? = nil,
                    wifiIdleMilliamps: Double = 0, bluetoothScanningMilliamps: Double = 0,
                    bluetoothConnectedMilliamps: Double = 0) {
            self.wifiIdleMilliamps = wifiIdleMilliamps
            self.bluetoothScanningMilliamps = bluetoothScanningMilliamps
            self.bluetoothConnectedMilliamps = bluetoothConnectedMilliamps
            self.name = name
            self.supplyVolts = supplyVolts
            self.idleMilliamps = idleMilliamps
            self.busyMilliamps = busyMilliamps
            self.busyPerWakeup = busyPerWakeup
            self.suspendMilliamps = suspendMilliamps
            self.resume = resume
        }
    }

    public struct GPSModule: Hashable, Sendable {
        /// The command set the receiver understands, for its power modes (NMEA's
        /// `ReceiverCommandSet`: UBX, PMTK or none).
        public typealias Commands = ReceiverCommandSet

        public var name: String
        public var supplyVolts: Double
        /// Current in each state, milliamps (`off` is 0; the loader fills in every state).
        public var milliamps: [GPSPowerState: Double]
        /// From a wake out of backup to a fix (hot start).
        public var hotStart: Duration
        public var commands: Commands

        public init(name: String, supplyVolts: Double, milliamps: [GPSPowerState: Double], hotStart: Duration,
                    commands: Commands) {
            self.name = name
            self.supplyVolts = supplyVolts
            self.milliamps = milliamps
            self.hotStart = hotStart
            self.commands = commands
        }
    }

    public struct BuzzerPart: Hashable, Sendable {
        public var name: String
        public var supplyVolts: Double
        /// While sounding; nothing otherwise.
        public var soundingMilliamps: Double

        public init(name: String, supplyVolts: Double, soundingMilliamps: Double) {
            self.name = name
            self.supplyVolts = supplyVolts
            self.soundingMilliamps = soundingMilliamps
        }
    }

    /// The speech output: an amplifier or a USB sound card and what it drives,
    /// and the CPU that renders the words. Read from `Hardware/parts/speakers/NAME.yaml`,
    /// where every figure cites its source. A build without one (a piezo on GPIO 18, where
    /// I2S needs its bit clock) has `speaker` nil.
    public struct SpeakerPart: Hashable, Sendable {
        public var name: String
        public var supplyVolts: Double
        /// The average current while words are said (the standby current included).
        public var speakingMilliamps: Double
        /// The current while it says nothing: charged all the time the device is on (an
        /// amplifier left enabled, a USB card enumerated); 0 for a part that is off between
        /// utterances.
        public var standbyMilliamps: Double
        /// The board's CPU time, in seconds, spent rendering one second of speech (busy
        /// instead of idle current for that time).
        public var renderCPUShare: Double

        public init(name: String, supplyVolts: Double, speakingMilliamps: Double, standbyMilliamps: Double = 0,
                    renderCPUShare: Double) {
            self.name = name
            self.supplyVolts = supplyVolts
            self.speakingMilliamps = speakingMilliamps
            self.standbyMilliamps = standbyMilliamps
            self.renderCPUShare = renderCPUShare
        }
    }

    public struct BatteryPart: Hashable, Sendable {
        public var name: String
        public var capacityMilliampHours: Double
        /// Nominal cell voltage.
        public var volts: Double
        /// The regulator between the cell and the parts (a boost converter to 5 V): the
        /// fraction of the cell's power that reaches them.
        public var converterEfficiency: Double

        public init(name: String, capacityMilliampHours: Double, volts: Double, converterEfficiency: Double) {
            self.name = name
            self.capacityMilliampHours = capacityMilliampHours
            self.volts = volts
            self.converterEfficiency = converterEfficiency
        }
    }

    public var name: String
    public var summary: String
    public var board: Board
    public var gps: GPSModule
    public var buzzer: BuzzerPart
    public var battery: BatteryPart
    /// The speech output (the build's `speaker:`); nil: the build has none, and words said
    /// cost nothing in the energy model.
    public var speaker: SpeakerPart?

    public init(name: String, summary: String, board: Board, gps: GPSModule, buzzer: BuzzerPart, battery: BatteryPart,
                speaker: SpeakerPart? = nil) {
        self.name = name
        self.summary = summary
        self.board = board
        self.gps = gps
        self.buzzer = buzzer
        self.battery = battery
        self.speaker = speaker
    }

    /// The battery current (mA, at the cell) that `milliamps` drawn at `volts` costs,
    /// through the converter.
    public func batteryMilliamps(_ milliamps: Double, at volts: Double) -> Double {
        milliamps * volts / (battery.volts * battery.converterEfficiency)
    }
}

/// Suspends the board: a wake alarm, then suspend-to-RAM.
public protocol BoardSuspender: Sendable {
    /// Suspends for about `duration` (whole seconds); returns how long the board was really
    /// suspended (the time a monotonic clock did not count), zero when it could not.
    func suspend(for duration: Duration) -> Duration
}
