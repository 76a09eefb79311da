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
        let profile: PowerProfile
        let cues: CueBook
        let profiles: [String: PowerProfile]
        var hardware: HardwareModel?
        do {
            profile = try PowerProfileLoader.load(name: settings.profile, hardwareDir: settings.hardwareDirectory)
            profiles = try PowerProfileLoader.stepDownChain(from: profile, hardwareDir: settings.hardwareDirectory)
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
        if settings.gps.scheme == "file" {
            let replay = try makeReplay(
                settings.gps, clock: clock, hotStart: hardware?.gps.hotStart, powerSavePeriod: profile.positionInterval)
            simulated.replay = replay
            gps = replay
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
        faults.append(contentsOf: device.faults)
        simulated.radio = device.radio as? SimulatedRadio
        if settings.buttons?.scheme == "sim" { simulated.buttons = ScriptedButtons(clock: clock) }
        device.faults = faults
        device.simulated = simulated
        device.speaker = try makeSpeaker(
            settings.speaker, buzzer: buzzer, clock: clock, wordsPerMinute: settings.speech.wordsPerMinute, logger: logger)
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

    /// The device's activity store in the settings' data folder, for writing (SQLite, created
    /// when missing), under the folder's lock. A folder this user may not use is reported as
    /// such, with the fix; one another device holds, with its PID.
    public static func makeActivityStore(_ settings: Settings) throws(ConfigurationError) -> PacerStore {
        try openActivityStore(directory: settings.dataDirectory, access: .write)
    }

    /// The activity store in `dir`, for reading (it must exist) or for writing (under the
    /// folder's lock); a folder this user may not use is reported as such.
    public static func openActivityStore(
        directory dir: String, access mode: PacerDatabase.Access
    ) throws(ConfigurationError) -> PacerStore {
        if FileManager.default.fileExists(atPath: dir), access(dir, R_OK | W_OK | X_OK) != 0, errno == EACCES {
            var owner = ""
            if let a = try? FileManager.default.attributesOfItem(atPath: dir),
               let user = a[.ownerAccountName] as? String, let group = a[.groupOwnerAccountName] as? String,
               let mode = a[.posixPermissions] as? Int {
                owner = " (owned by \(user):\(group), mode \(String(mode, radix: 8)))"
            }
            throw ConfigurationError(
                "\(dir): permission denied\(owner): the device's data folder is for the pacer user and group. "
                    + "Add your user to the group (sudo usermod -aG pacer $USER, then log in again), or run as the pacer user")
        }
        do {
            return try PacerStore(directory: dir, access: mode)
        } catch {
            throw ConfigurationError("\(error)", cause: error)
        }
    }

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

    /// The system clock the receiver's time is checked against (issue 23, case 15: a
    /// receiver with a week-rollover fault):
    /// - `system`: the board's `CLOCK_REALTIME` (set when after the earliest plausible date,
    ///   synchronized when NTP says so);
    /// - `sim?at=2026-05-02T07:00:00Z[&synchronized=yes|no]`: a scripted clock, at that time
    ///   when the device is built and moving with its clock; `sim` alone: a clock not set;
    /// - `none`: no system clock, the receiver's time is taken as it is.
    ///
    /// Nil (no `system_clock:`): the board's for a receiver (`gpsd`, `serial`); none for a
    /// replayed recording, which is of its own day, not of today's system clock.
    public static func makeSystemTime(
        _ uri: DeviceURI?, gps: DeviceURI, clock: any PacerClock
    ) throws(ConfigurationError) -> (any SystemTime)? {
        guard let uri else {
            return ["gpsd", "serial"].contains(gps.scheme) ? RealtimeSystemTime() : nil
        }
        let known = "known: system, sim?at=YYYY-MM-DDTHH:MM:SSZ[&synchronized=yes|no], sim (not set), none"
        switch uri.scheme {
        case "system", "none":
            guard uri.path.isEmpty, uri.authority.isEmpty, uri.query.isEmpty else {
                throw ConfigurationError("system clock '\(uri)': '\(uri.scheme)' takes nothing after it (\(known))")
            }
            return uri.scheme == "system" ? RealtimeSystemTime() : nil
        case "sim":
            guard uri.path.isEmpty, uri.authority.isEmpty else {
                throw ConfigurationError("system clock '\(uri)': a simulated clock is `sim` or `sim?at=…` (\(known))")
            }
            if let unknown = uri.query.keys.sorted().first(where: { !["at", "synchronized"].contains($0) }) {
                throw ConfigurationError("system clock '\(uri)': unknown query item '\(unknown)' (known: at, synchronized)")
            }
            var start: UTCTimestamp?
            if let at = uri.query["at"] {
                guard let time = GPXReader.parseTime(Substring(at)) else {
                    throw ConfigurationError("system clock '\(uri)': at=\(at) is not a UTC time like 2026-05-02T07:00:00Z")
                }
                start = time
            }
            var synchronized = false
            if let raw = uri.query["synchronized"] {
                switch raw {
                case "yes": synchronized = true
                case "no": synchronized = false
                default: throw ConfigurationError("system clock '\(uri)': synchronized=\(raw) is not one of yes, no")
                }
                guard start != nil else {
                    throw ConfigurationError("system clock '\(uri)': synchronized= needs a time (at=…): a clock not set is not synchronized")
                }
            }
            return SimulatedSystemTime(clock: clock, start: start, synchronized: synchronized, name: uri.text)
        default:
            throw ConfigurationError("unknown system clock '\(uri)' (\(known))")
        }
    }

    /// The cue sounds, `hardwareDir/cues.yaml`.
    public static func loadCues(hardwareDir: String) throws(DataFileError) -> CueBook {
        try CueBookLoader.load(hardwareDir: hardwareDir)
    }

    /// A replayed recording's `speed=`: a hundredth of real time to ten thousand times it.
    public static let replaySpeedRange = AllowedRange(0.01...10_000, unit: "times real time")

    /// `gpsd://host:port`, `serial:///dev/tty…?baud=N&receiver=ubx|pmtk|none`,
    /// `file:PATH?pace=clock|fast&speed=N`, or `none` (positioning off: phases run on time
    /// alone).
    ///
    /// A serial receiver's `receiver=` names the commands its power modes are set with (UBX
    /// for a u-blox M8, PMTK for a MediaTek MT3339; `none`, the default: it is only listened
    /// to); the power-save mode's update period is `powerSavePeriod` (the profile's position
    /// interval, when the device is built from settings), for a serial receiver and a
    /// replayed one alike.
    ///
    /// A recording may script receiver faults (`NMEAFileSource.Faults`), in seconds from its
    /// first timed cycle: `outage=FROM-TO[,…]` (silent), `invalid=FROM-TO[,…]` (no fix),
    /// `unplug=AT-BACK[,…]` (disconnected), `skip=S` (start S seconds in). A malformed one,
    /// or an unknown query item, is refused naming the URI, the key and the reason.
    public static func makeGPSSource(
        _ uri: DeviceURI, clock: any PacerClock, hotStart: Duration? = nil, logger: Logger = Logger(label: "pacer.gps"),
        powerSavePeriod: Duration = .seconds(10)
    ) throws(ConfigurationError) -> (any GPSSource)? {
        do {
            switch uri.scheme {
            case "gpsd":
                let (host, port) = try uri.hostAndPort(defaultHost: "localhost", defaultPort: 2947)
                return GPSDSource(host: host, port: port, logger: logger)
            case "serial":
                guard !uri.path.isEmpty else {
                    throw ConfigurationError("'\(uri)' names no device (expected serial:///dev/ttyACM0?baud=9600)")
                }
                let baud = try uri.integer("baud", default: 9600)
                let receiver: ReceiverCommandSet
                if let raw = uri.query["receiver"] {
                    guard let known = ReceiverCommandSet(rawValue: raw) else {
                        let names = ReceiverCommandSet.allCases.map(\.rawValue).joined(separator: ", ")
                        throw ConfigurationError("'\(uri)': receiver=\(raw) is not one of \(names)")
                    }
                    receiver = known
                } else {
                    receiver = .none
                }
                return try SerialNMEASource(
                    path: uri.path, baud: baud, clock: clock, logger: logger, receiver: receiver,
                    powerSavePeriod: powerSavePeriod)
            case "file":
                return try makeReplay(uri, clock: clock, hotStart: hotStart, powerSavePeriod: powerSavePeriod)
            case "none":
                return nil
            default:
                throw ConfigurationError(
                    "unknown GPS source '\(uri)' (known: gpsd://HOST:PORT, serial:///DEVICE?baud=N, file:PATH, none)")
            }
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError("\(error)", cause: error)
        }
    }

    /// `file:PATH?pace=clock|fast&speed=N&…faults`: a replayed recording (see `makeGPSSource`).
    public static func makeReplay(
        _ uri: DeviceURI, clock: any PacerClock, hotStart: Duration? = nil, powerSavePeriod: Duration = .seconds(10)
    ) throws(ConfigurationError) -> NMEAFileSource {
        do {
            guard !uri.path.isEmpty else {
                throw ConfigurationError("'\(uri)' names no recording (expected file:PATH.nmea)")
            }
            // A misspelt fault must not replay a clean world and pass a scenario.
            let known = ["pace", "speed"] + NMEAFileSource.Faults.keys
            if let unknown = uri.query.keys.sorted().first(where: { !known.contains($0) }) {
                throw ConfigurationError(
                    "'\(uri)': unknown query item '\(unknown)' (known: \(known.joined(separator: ", ")))")
            }
            let pace: NMEAFileSource.Pace
            switch uri.query["pace"] ?? "clock" {
            case "clock": pace = .clock
            case "fast": pace = .asFastAsPossible
            case let other:
                throw ConfigurationError("'\(uri)': pace=\(other) is not one of clock, fast")
            }
            var speed = 1.0
            if let raw = uri.query["speed"] {
                // The replay divides the recording's times by the speed into nanoseconds.
                guard let s = Double(raw), replaySpeedRange.contains(s) else {
                    throw ConfigurationError("'\(uri)': speed=\(raw): \(replaySpeedRange.refusal(of: Double(raw) ?? .nan, written: raw))")
                }
                speed = s
            }
            let faults: NMEAFileSource.Faults
            do {
                faults = try NMEAFileSource.Faults(query: uri.query)
            } catch {
                throw ConfigurationError("'\(uri)': \(error)")
            }
            return try NMEAFileSource(
                path: uri.path, clock: clock, pace: pace, speed: speed, faults: faults,
                hotStart: hotStart ?? .seconds(1), powerSavePeriod: powerSavePeriod)
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError("\(error)", cause: error)
        }
    }

    /// `alsa:DEVICE` (`alsa` alone: the default device), `wav:PATH`, `null`, or `record`
    /// (remembers each cue and when it sounded on `clock`, plays nothing: scenarios).
    public static func makeBuzzer(
        _ uri: DeviceURI, clock: (any PacerClock)? = nil, logger: Logger = Logger(label: "pacer.buzzer")
    ) throws(ConfigurationError) -> any Buzzer {
        do {
            switch uri.scheme {
            case "alsa":
                return ALSABuzzer(device: uri.path.isEmpty ? "default" : uri.path, logger: logger)
            case "wav":
                guard !uri.path.isEmpty else { throw ConfigurationError("'\(uri)' names no file (expected wav:PATH.wav)") }
                return try WAVBuzzer(path: uri.path)
            case "null":
                return NullBuzzer()
            case "record":
                guard let clock else { throw ConfigurationError("'\(uri)': a recording buzzer needs the device's clock") }
                return RecordingBuzzer(clock: clock)
            default:
                throw ConfigurationError("unknown buzzer '\(uri)' (known: alsa:DEVICE, wav:PATH, null, record)")
            }
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError("\(error)")
        }
    }

    /// A speaker (issue 25): `espeak:DEVICE?voice=en&rate=170&volume=100` (espeak-ng's words
    /// on the ALSA PCM DEVICE, `espeak` alone: `default`), `wav:PATH?voice=…` (the same
    /// engine's words into a WAV file: the simulator's), `null` (beeps only), `record`.
    ///
    /// The words play through the buzzer's queue when `buzzer` is the same output (an
    /// `alsa:DEVICE` buzzer for `espeak:DEVICE`, a `wav:PATH` buzzer for `wav:PATH`, alone or
    /// in a tee), so a word and a beep never sound together and a scenario's cues.wav holds
    /// both; otherwise the speaker opens that output for itself.
    /// No URI: `NullSpeaker`. `record` remembers what was said and when on `clock`, saying
    /// nothing (scenarios), its lengths estimated at `wordsPerMinute`.
    public static func makeSpeaker(
        _ uri: DeviceURI?, buzzer: (any Buzzer)? = nil, clock: (any PacerClock)? = nil,
        wordsPerMinute: Double = 160, logger: Logger = Logger(label: "pacer.speaker")
    ) throws(ConfigurationError) -> any Speaker {
        guard let uri else { return NullSpeaker() }
        func parts(_ b: (any Buzzer)?) -> [any Buzzer] {
            guard let b else { return [] }
            if let tee = b as? TeeBuzzer { return tee.buzzers.flatMap { parts($0) } }
            return [b]
        }
        func voice() throws(ConfigurationError) -> ESpeakVoice {
            do {
                let rate = try uri.integer("rate", default: ESpeakVoice.defaultRate)
                let volume = try uri.integer("volume", default: 100)
                guard (80...450).contains(rate) else {
                    throw ConfigurationError("'\(uri)': rate=\(rate) is outside espeak-ng's 80 to 450 words per minute")
                }
                guard (0...200).contains(volume) else {
                    throw ConfigurationError("'\(uri)': volume=\(volume) is outside 0 to 200 (100 is normal)")
                }
                let name = uri.query["voice"] ?? "en"
                guard !name.isEmpty else { throw ConfigurationError("'\(uri)': voice= names no voice") }
                if let unknown = uri.query.keys.first(where: { !["voice", "rate", "volume"].contains($0) }) {
                    throw ConfigurationError("'\(uri)': unknown setting '\(unknown)' (known: voice, rate, volume)")
                }
                return ESpeakVoice(name: name, rate: rate, volume: volume)
            } catch let error as ConfigurationError {
                throw error
            } catch {
                throw ConfigurationError("\(error)")
            }
        }
        switch uri.scheme {
        case "espeak":
            let device = uri.path.isEmpty ? "default" : uri.path
            let output = parts(buzzer).first { ($0 as? ALSABuzzer)?.device == device }
                ?? ALSABuzzer(device: device, logger: logger)
            return ESpeakSpeaker(name: uri.text, voice: try voice(), output: output, logger: logger)
        case "wav":
            guard !uri.path.isEmpty else { throw ConfigurationError("'\(uri)' names no file (expected wav:PATH.wav)") }
            let voice = try voice()
            let output: any Buzzer
            if let shared = parts(buzzer).first(where: { ($0 as? WAVBuzzer)?.path == uri.path }) {
                output = shared
            } else {
                do {
                    output = try WAVBuzzer(path: uri.path, logger: logger)
                } catch {
                    throw ConfigurationError("\(error)", cause: error)
                }
            }
            return ESpeakSpeaker(name: uri.text, voice: voice, output: output, logger: logger)
        case "null":
            return NullSpeaker()
        case "record":
            guard let clock else { throw ConfigurationError("'\(uri)': a recording speaker needs the device's clock") }
            let recorder = RecordingSpeaker(clock: clock, wordsPerMinute: wordsPerMinute)
            // `record?wav=PATH&voice=…`: the words also rendered by the engine into the WAV
            // file the cues go to (a scenario's `--buzzer wav:PATH`), the record's estimates
            // still timing the run.
            guard let wav = uri.query["wav"] else {
                if let unknown = uri.query.keys.sorted().first {
                    throw ConfigurationError("'\(uri)': unknown setting '\(unknown)' (known: wav, voice, rate, volume)")
                }
                return recorder
            }
            let voice = uri.query.filter { $0.key != "wav" }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            let engineURI: DeviceURI
            do {
                engineURI = try DeviceURI(parsing: "wav:\(wav)" + (voice.isEmpty ? "" : "?" + voice.joined(separator: "&")))
            } catch {
                throw ConfigurationError("'\(uri)': \(error)")
            }
            let engine = try makeSpeaker(engineURI, buzzer: buzzer, clock: clock, wordsPerMinute: wordsPerMinute, logger: logger)
            return TeeSpeaker(recorder, also: [engine])
        default:
            throw ConfigurationError("unknown speaker '\(uri)' (known: espeak:DEVICE, wav:PATH, null, record)")
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
                guard let v = Double(raw), v.isFinite else {
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
