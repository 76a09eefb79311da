import Coaching
import HAL
import PacerCore

extension DeviceRuntime {
    /// What the runtime runs on: the HAL objects, the profile and its step-downs, the cue
    /// sounds and the storage port. `Configurator.firmware` makes them from the settings.
    public struct Parts: Sendable {
        public var clock: any PacerClock
        public var gps: (any GPSSource)?
        public var buzzer: any Buzzer
        public var battery: any BatteryGauge
        public var profile: PowerProfile
        public var cues: CueBook
        public var log: any ActivityLog
        /// Hears what costs energy (the simulator's battery drains by it); nil: nobody counts.
        public var power: (any PowerMonitor)?
        /// The profiles a step-down may switch to, by name.
        public var profiles: [String: PowerProfile]
        /// The receiver's time from a wake out of backup to a fix.
        public var gpsHotStart: Duration
        /// Where the receiver's time is checked against the system clock (a week-rollover
        /// fault); the default checks nothing.
        public var receiverTime: ReceiverTime
        /// The voice beside the buzzer; the device speaks when `speech.enabled`, a
        /// phrase book is given and the speaker works.
        public var speaker: any Speaker = NullSpeaker()
        /// The Wi-Fi radio a profile's `wifiOffDuringWorkout` switches off for the workout;
        /// nil: none, nothing switched.
        public var radio: (any WirelessRadio)?
        public var speech = SpeechSettings()
        public var phrases: PhraseBook?
        /// The heart-rate strap; nil: none (the Bluetooth radio is left off).
        public var heartRate: (any HeartRateSource)?
        /// The athlete's heart-rate zones, when their profile has the figures for them.
        public var zones: HeartRateZones?

        public init(clock: any PacerClock, gps: (any GPSSource)?, buzzer: any Buzzer, battery: any BatteryGauge,
                    profile: PowerProfile, cues: CueBook, log: any ActivityLog, power: (any PowerMonitor)? = nil,
                    profiles: [String: PowerProfile] = [:], gpsHotStart: Duration = .seconds(1),
                    receiverTime: ReceiverTime? = nil) {
            self.clock = clock
            self.gps = gps
            self.buzzer = buzzer
            self.battery = battery
            self.profile = profile
            self.cues = cues
            self.log = log
            self.power = power
            self.profiles = profiles
            self.gpsHotStart = gpsHotStart
            self.receiverTime = receiverTime ?? ReceiverTime(system: nil, clock: clock)
        }
    }

    /// A waypoint press that could not be stored, and why.
    public enum WaypointOutcome: Hashable, Sendable {
        case stored(Waypoint)
        case storedAtLastKnownPosition(Waypoint)
        case duplicate
        case noPositionYet
        case notRecording
    }
}
