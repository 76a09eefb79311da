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

/// How time passes for the device being built.
public enum Timing: Sendable {
    /// The board's monotonic clock: real time.
    case realTime
    /// A virtual clock that runs as fast as possible (scenarios, replays).
    case virtual
    /// A virtual clock whose `run()` keeps pace with real time, `speed` times faster than the
    /// wall (1: real time), waiting on `CLOCK_MONOTONIC`: a scenario watched as it plays, with
    /// exactly the outputs of the `.virtual` run. `speed` must be positive and finite.
    case paced(speed: Double)
}

/// Everything the runtime gets: the HAL objects for one configuration.
public struct Device: Sendable {
    public let settings: Settings
    public let profile: PowerProfile
    public let cues: CueBook
    public let clock: any RunnableClock
    /// Nil when positioning is switched off (`gps: none`).
    public let gps: (any GPSSource)?
    public let buzzer: any Buzzer
    /// The voice (`NullSpeaker` unless the settings name one).
    public var speaker: any Speaker = NullSpeaker()
    /// The phrase book of the settings' language, when the device speaks.
    public var phrases: PhraseBook?
    public let battery: any BatteryGauge
    /// The Wi-Fi radio a profile may switch off for a workout; nil: none (`radio: none`).
    public var radio: (any WirelessRadio)?
    /// The heart-rate strap; nil: none (`heart_rate:` absent or `none`).
    public var heartRate: (any HeartRateSource)?
    /// The build's electrical model, when the settings name one.
    public let hardware: HardwareModel?
    /// Drains the simulated battery by the energy model (a simulated battery and a build).
    public let power: (any PowerMonitor)?
    /// The profiles the profile steps down to, by name (the whole chain).
    public let profiles: [String: PowerProfile]
    /// The system clock the receiver's time is checked against; nil: none (a replay).
    public var systemTime: (any SystemTime)?
    /// Parts that could not be had and were left out (`makeDevice(…, tolerant: true)`):
    /// what the device's boot check tells.
    public var faults: [String] = []
    /// The simulated parts among these, by their own types: what a scenario drives and reads.
    public var simulated = SimulatedParts()

    /// The receiver's time from a wake out of backup to a fix: the build's, else a second.
    public var gpsHotStart: Duration { hardware?.gps.hotStart ?? .seconds(1) }
}

/// The simulated parts of a device, as themselves (nil: that part is real, or absent): a
/// scenario sets the battery's level, reads the replay's statistics and the energy spent.
public struct SimulatedParts: Sendable {
    /// The replayed recording (`gps: file:…`).
    public var replay: NMEAFileSource?
    /// The simulated battery (`battery: sim…`).
    public var battery: SimulatedBattery?
    /// The energy model draining it (a simulated battery and a build).
    public var supply: SimulatedPowerSupply?
    /// The simulated Wi-Fi radio (`radio: sim`).
    public var radio: SimulatedRadio?
    /// The button a scenario's script presses (`buttons: sim`).
    public var buttons: ScriptedButtons?

    public init(replay: NMEAFileSource? = nil, battery: SimulatedBattery? = nil, supply: SimulatedPowerSupply? = nil) {
        self.replay = replay
        self.battery = battery
        self.supply = supply
    }
}

/// A configuration that cannot be built, with the reason a person can act on.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    public var description: String
    /// The error underneath, when there is one (a store that cannot be opened): a caller may
    /// tell a busy data folder from a missing one by it.
    public var cause: (any Error)?

    public init(_ description: String, cause: (any Error)? = nil) {
        self.description = description
        self.cause = cause
    }
}

/// The configurator factory: the one place that reads the chosen profile and parts and
/// builds the HAL objects (R24, R27). Nothing else in Pacer chooses an adapter; a new kind
/// of part is one more case here. An unknown part fails loudly, naming what is known.
public enum Configurator {
    /// Builds the device described by `settings`. `alsoBuzzers` sound every cue as well
    /// (a scenario renders its recording buzzer's cues to a WAV file).
    ///
    /// `tolerant`: a part that is missing rather than misconfigured (no battery gauge under
    /// sysfs) is left out and named in `faults` instead of failing the whole device: a
    /// device at power-on reports it and coaches without it.
    public static func makeDevice(
        settings: Settings, timing: Timing = .realTime, alsoBuzzers: [DeviceURI] = [],
        tolerant: Bool = false, logger: Logger = Logger(label: "pacer")
    ) throws(ConfigurationError) -> Device {
        var profile: PowerProfile
        let cues: CueBook
        var profiles: [String: PowerProfile]
        var hardware: HardwareModel?
        do {
            profile = try PowerProfileLoader.load(name: settings.profile, hardwareDir: settings.hardwareDirectory)
            profiles = try PowerProfileLoader.stepDownChain(from: profile, hardwareDir: settings.hardwareDirectory)
            if let anticipation = settings.anticipation {
                profile.anticipation = anticipation
                for name in profiles.keys { profiles[name]?.anticipation = anticipation }
            }
            cues = try loadCues(hardwareDir: settings.hardwareDirectory)
            if let build = settings.hardware {
                hardware = try HardwareModelLoader.load(build: build, hardwareDir: settings.hardwareDirectory)
                if hardware?.speaker == nil { hardware?.speaker = settings.assumedSpeaker }
            }
        } catch {
            throw ConfigurationError(error.description)
        }
        if case .paced(let speed) = timing, !(speed > 0 && speed.isFinite) {
            throw ConfigurationError("a paced clock's speed must be a positive number, not \(speed)")
        }
        // A recording replayed `speed` times faster than the wall (`file:RUN.nmea?speed=20`)
        // on a device that keeps real time: the device's clock keeps pace with the replay (a
        // virtual clock `speed` times faster than the wall), so the timer, the phases and the
        // receiver's times agree, and the replay runs at the clock's own pace.
        var timing = timing
        var gpsURI = settings.gps
        if case .realTime = timing, gpsURI.scheme == "file", let raw = gpsURI.query["speed"],
           let speed = Double(raw), replaySpeedRange.contains(speed) {
            if speed != 1 { timing = .paced(speed: speed) }
            gpsURI.query["speed"] = nil
        }
        let clock = makeClock(timing, board: hardware?.board)
        var buzzer = try makeBuzzer(settings.buzzer, clock: clock, logger: logger)
        if !alsoBuzzers.isEmpty {
            var parts = [buzzer]
            for uri in alsoBuzzers { parts.append(try makeBuzzer(uri, clock: clock, logger: logger)) }
            buzzer = TeeBuzzer(parts)
        }
        var faults: [String] = []
        var simulated = SimulatedParts()
        let battery: any BatteryGauge
        do {
            if settings.battery.scheme == "sim" {
                let sim = try makeSimulatedBattery(settings.battery, hardware: hardware)
                simulated.battery = sim
                battery = sim
            } else {
                battery = try makeBattery(settings.battery, hardware: hardware)
            }
        } catch where tolerant && settings.battery.scheme == "sysfs" {
            faults.append("\(error)")
            battery = MissingBattery(name: "\(settings.battery)")
        }
        // A simulated battery (the simulator's, or the estimate of a board without a gauge)
        // drains by the energy model of the build.
        if let hardware, let sim = simulated.battery {
            simulated.supply = SimulatedPowerSupply(model: hardware, battery: sim, start: clock.now)
        }
        let gps: (any GPSSource)?
        var trackHeartRate: HeartRateStream?
        if settings.gps.scheme == "file" || settings.gps.scheme == "activity" {
            let replay = try makeTrackReplay(
                gpsURI, clock: clock, hotStart: hardware?.gps.hotStart, powerSavePeriod: profile.positionInterval,
                dataDirectory: settings.dataDirectory)
            simulated.replay = replay.source
            gps = replay.source
            trackHeartRate = replay.heartRate
        } else {
            gps = try makeGPSSource(
                settings.gps, clock: clock, hotStart: hardware?.gps.hotStart, logger: logger,
                powerSavePeriod: profile.positionInterval)
        }
        var device = Device(
            settings: settings, profile: profile, cues: cues, clock: clock, gps: gps,
            buzzer: buzzer, battery: battery, hardware: hardware, power: simulated.supply, profiles: profiles)
        do {
            device.radio = try makeRadio(settings.radio, clock: clock, logger: logger)
        } catch where tolerant && settings.radio?.scheme == "sysfs" {
            device.faults.append("\(error)")
        }
        device.heartRate = try makeHeartRateSource(settings.heartRate, clock: clock, logger: logger)
        // A past run replayed with its heart rates brings its strap, unless the settings name one.
        if device.heartRate == nil, settings.heartRate == nil, let stream = trackHeartRate {
            device.heartRate = RecordedHeartRateSource(stream: stream, name: "\(settings.gps.path) heart rate", clock: clock)
        }
        faults.append(contentsOf: device.faults)
        simulated.radio = device.radio as? SimulatedRadio
        if settings.buttons?.scheme == "sim" { simulated.buttons = ScriptedButtons(clock: clock) }
        device.faults = faults
        device.simulated = simulated
        device.speaker = try makeSpeaker(
            settings.speaker, buzzer: buzzer, clock: clock, wordsPerMinute: settings.speech.wordsPerMinute,
            language: settings.speech.language, logger: logger)
        if settings.speech.speaksAnywhere {
            do throws(DataFileError) {
                let known = try PowerProfileLoader.available(hardwareDir: settings.hardwareDirectory)
                if let unknown = settings.speech.perProfile.keys.sorted().first(where: { !known.contains($0) }) {
                    throw DataFileError(
                        file: settings.source,
                        reason: "speech.profiles.\(unknown): no such power profile (profiles: \(known.joined(separator: ", ")))")
                }
                device.phrases = try PhraseBookLoader.load(language: settings.speech.language, hardwareDir: settings.hardwareDirectory)
            } catch {
                throw ConfigurationError(error.description)
            }
        }
        device.systemTime = try makeSystemTime(settings.systemClock, gps: settings.gps, clock: clock)
        return device
    }

    /// The cue sounds, `hardwareDir/cues.yaml`.
    public static func loadCues(hardwareDir: String) throws(DataFileError) -> CueBook {
        try CueBookLoader.load(hardwareDir: hardwareDir)
    }
}
