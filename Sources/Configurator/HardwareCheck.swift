import Foundation
import HAL
import LinuxHardware
import PacerCore

/// `pacer hw check`: probes each part the settings name and says, part by part, what is
/// there, what is wrong and how to fix it.
///
/// Parts: the GPS source and the buzzer (required: the device cannot coach without them, so
/// a missing one fails the check), the battery gauge and the clock (informational). A part
/// configured as simulated or absent (`file:` or `none` GPS, `null` or `wav:` buzzer, `sim` battery)
/// needs no hardware and is checked only for what it does need (a readable recording, a
/// writable folder).
public enum HardwareCheck {
    /// What to check: the settings' device strings, and how long to listen.
    public struct Configuration: Sendable {
        /// `gpsd://host:port`, `serial:///dev/ttyACM0?baud=9600`, `file:///path.nmea`, `none`.
        public var gps: String
        /// `alsa:default`, `alsa:plughw:CARD=Device,DEV=0`, `wav:/tmp/cues.wav`, `null`.
        public var buzzer: String
        /// `sysfs`, `sysfs:/sys/class/power_supply/BAT0`, `sim`, `sim?capacity=1200&level=100`.
        public var battery: String
        /// How long to wait for positions from the GPS.
        public var listen: Duration
        /// Whether a serial probe that hears garbage tries the other common baud rates.
        public var tryOtherBauds: Bool
        /// Where the probes look (changed by tests): power supplies, device nodes, sound cards.
        public var powerSupplyRoot: String
        public var deviceRoot: String
        public var soundCardsFile: String
        public var connectTimeout: Duration
        public var soundTimeout: Duration
        /// The button: `evdev:/dev/input/event0?keys=28`, or `none`.
        public var buttons: String
        /// How long to wait for a press of it; nil: only that it can be read.
        public var pressWithin: Duration?
        /// The speaker: `espeak:DEVICE?voice=…`, `wav:PATH`, `null`; nil: espeak-ng on the
        /// buzzer's ALSA device (rendering only when the buzzer is not `alsa:`).
        public var speaker: String?
        /// The Wi-Fi radio (`radio:`): `sysfs`, `sysfs:/sys/class/rfkill/rfkillN`, `sim`; nil
        /// or `none`: not checked (no block in the report).
        public var radio: String?
        /// Where rfkill switches are looked for (changed by tests).
        public var rfkillRoot = SysfsRfkill.defaultRoot
        /// The heart-rate strap (`heart_rate:`): `bluez:ADDRESS`, `bluez`, `sim:FILE`, `none`;
        /// nil: not checked (no block in the report).
        public var heartRate: String?

        public init(
            gps: String = "gpsd://localhost:2947", buzzer: String = "alsa:default", battery: String = "sysfs",
            listen: Duration = .seconds(5), tryOtherBauds: Bool = true,
            powerSupplyRoot: String = SysfsBattery.defaultRoot, deviceRoot: String = "/dev",
            soundCardsFile: String = "/proc/asound/cards", connectTimeout: Duration = .seconds(2),
            soundTimeout: Duration = .seconds(3), buttons: String = "none", pressWithin: Duration? = nil,
            speaker: String? = nil
        ) {
            self.speaker = speaker
            self.buttons = buttons
            self.pressWithin = pressWithin
            self.gps = gps
            self.buzzer = buzzer
            self.battery = battery
            self.listen = listen
            self.tryOtherBauds = tryOtherBauds
            self.powerSupplyRoot = powerSupplyRoot
            self.deviceRoot = deviceRoot
            self.soundCardsFile = soundCardsFile
            self.connectTimeout = connectTimeout
            self.soundTimeout = soundTimeout
        }
    }

    /// Runs the probes, one part after the other, and returns the report.
    public static func run(_ configuration: Configuration) -> HardwareReport {
        var parts = [
            gps(configuration),
            sound(configuration),
            speech(configuration),
            battery(configuration),
            button(configuration),
        ]
        if let radio = radio(configuration) { parts.append(radio) }
        if let heartRate = heartRate(configuration) { parts.append(heartRate) }
        parts.append(clock())
        return HardwareReport(parts: parts)
    }

    /// The Wi-Fi radio a profile switches off for a workout: its rfkill switch,
    /// its state and whether this user may write it. Not required: a radio that cannot be
    /// switched stays on, and the device coaches all the same. Nil when none is configured.
    static func radio(_ c: Configuration) -> HardwareReport.Part? {
        let part = "Wi-Fi radio"
        guard let configured = c.radio, configured != "none" else { return nil }
        guard let uri = try? DeviceURI(parsing: configured), ["sysfs", "sim"].contains(uri.scheme) else {
            return .init(
                name: part, configured: configured, required: false, status: .warning, found: [],
                problem: "unknown radio setting '\(configured)': the radio will not be switched",
                fix: ["use sysfs (the board's rfkill switch), sim or none"])
        }
        if uri.scheme == "sim" {
            return .init(name: part, configured: configured, required: false, status: .ok,
                         found: ["simulated radio: nothing is switched on the board"], problem: nil, fix: [])
        }
        let radio: SysfsRfkill
        do {
            radio = uri.path.isEmpty ? try SysfsRfkill.first(root: c.rfkillRoot) : SysfsRfkill(path: uri.path)
        } catch {
            return .init(
                name: part, configured: configured, required: false, status: .warning, found: [],
                problem: "\(error): the radio stays on during workouts",
                fix: ["load the Wi-Fi driver, or set radio: none"])
        }
        let state: RadioState
        do {
            state = try radio.state()
        } catch {
            return .init(
                name: part, configured: configured, required: false, status: .warning, found: [],
                problem: "\(error): the radio stays on during workouts",
                fix: ["use radio: sysfs to take the first wlan switch, or set radio: none"])
        }
        let found = "\(radio.driverName ?? "?") (\(radio.name)): "
            + (state.hardBlocked ? "hard-blocked" : state.softBlocked ? "soft-blocked" : "on")
        if state.hardBlocked {
            return .init(
                name: part, configured: configured, required: false, status: .warning, found: [found],
                problem: "the radio is blocked by hardware (a switch or the firmware): it cannot be switched on",
                fix: ["check `rfkill list wlan`; a hard block is not lifted by software"])
        }
        let soft = radio.path + "/soft"
        guard access(soft, W_OK) == 0 else {
            return .init(
                name: part, configured: configured, required: false, status: .warning, found: [found],
                problem: "\(soft) is not writable by this user: the radio stays on during workouts",
                fix: ["install the udev rule 70-pacer-rfkill.rules (Hardware/README.md, \"Wi-Fi off during a workout\")",
                      "the service also needs CAP_NET_ADMIN (pacer.service grants it)"])
        }
        return .init(name: part, configured: configured, required: false, status: .ok, found: [found], problem: nil, fix: [])
    }

    // MARK: parts

    static func gps(_ c: Configuration) -> HardwareReport.Part {
        let part = "GPS"
        let uri: DeviceURI
        do {
            uri = try DeviceURI(parsing: c.gps)
        } catch {
            return .init(
                name: part, configured: c.gps, required: true, status: .missing,
                found: [], problem: "the GPS setting \(error.description)",
                fix: ["use gpsd://localhost:2947, serial:///dev/ttyACM0?baud=9600, file:///path/to/run.nmea or none"])
        }
        switch uri.scheme {
        case "gpsd":
            do {
                let (host, port) = try uri.hostAndPort(defaultHost: "localhost", defaultPort: 2947)
                let finding = HardwareProbe.gpsd(
                    host: host, port: port, connectTimeout: c.connectTimeout, listen: c.listen)
                return .init(name: part, configured: c.gps, required: true, finding)
            } catch {
                return settingError(part, c.gps, error, "gpsd://localhost:2947")
            }
        case "serial":
            guard !uri.path.isEmpty else {
                let candidates = HardwareProbe.serialCandidates(devRoot: c.deviceRoot)
                return .init(
                    name: part, configured: c.gps, required: true, status: .missing,
                    found: candidates.isEmpty ? ["no serial devices present"]
                        : ["serial devices present: \(candidates.map(\.description).joined(separator: ", "))"],
                    problem: "the GPS setting names no serial device",
                    fix: ["name the device: serial:///dev/ttyACM0?baud=9600 (or /dev/gps0 with the udev rule)"])
            }
            do {
                let baud = try uri.integer("baud", default: 9600)
                let finding = HardwareProbe.serialGPS(
                    path: uri.path, baud: baud, listen: c.listen, tryOtherBauds: c.tryOtherBauds,
                    devRoot: c.deviceRoot)
                return .init(name: part, configured: c.gps, required: true, finding)
            } catch {
                return settingError(part, c.gps, error, "serial:///dev/ttyACM0?baud=9600")
            }
        case "file":
            return recording(part, c.gps, path: uri.path)
        case "none":
            return .init(
                name: part, configured: c.gps, required: true, status: .ok,
                found: ["no GPS configured: the device runs without positions"], problem: nil, fix: [])
        default:
            return .init(
                name: part, configured: c.gps, required: true, status: .missing, found: [],
                problem: "unknown GPS source '\(uri.scheme):'",
                fix: ["use gpsd://host:port, serial:///dev/…?baud=…, or file:///path/to/run.nmea"])
        }
    }

    static func sound(_ c: Configuration) -> HardwareReport.Part {
        let part = "sound"
        let uri: DeviceURI
        do {
            uri = try DeviceURI(parsing: c.buzzer)
        } catch {
            return .init(
                name: part, configured: c.buzzer, required: true, status: .missing, found: [],
                problem: "the buzzer setting \(error.description)",
                fix: ["use alsa:default, alsa:plughw:CARD=<name>,DEV=0, wav:/path/cues.wav or null"])
        }
        switch uri.scheme {
        case "alsa":
            let device = uri.path.isEmpty ? "default" : uri.path
            let finding = HardwareProbe.alsa(device: device, timeout: c.soundTimeout, cardsFile: c.soundCardsFile)
            return .init(name: part, configured: c.buzzer, required: true, finding)
        case "null":
            return .init(
                name: part, configured: c.buzzer, required: true, status: .ok,
                found: ["no buzzer: the device runs silent (cues are logged only)"], problem: nil, fix: [])
        case "wav":
            return wavOutput(part, c.buzzer, path: uri.path)
        default:
            return .init(
                name: part, configured: c.buzzer, required: true, status: .missing, found: [],
                problem: "unknown buzzer '\(uri.scheme):'",
                fix: ["use alsa:default, alsa:plughw:CARD=<name>,DEV=0, wav:/path/cues.wav or null"])
        }
    }

    /// Speech, never required: without it the device beeps.
    static func speech(_ c: Configuration) -> HardwareReport.Part {
        let part = "speech"
        let buzzer = try? DeviceURI(parsing: c.buzzer)
        let text = c.speaker ?? (buzzer?.scheme == "alsa" ? "espeak:\(buzzer!.path.isEmpty ? "default" : buzzer!.path)" : "espeak")
        let uri: DeviceURI
        do {
            uri = try DeviceURI(parsing: text)
        } catch {
            return .init(
                name: part, configured: text, required: false, status: .warning, found: [],
                problem: "the speaker setting \(error.description)", fix: ["use espeak:DEVICE?voice=en, wav:PATH or null"])
        }
        switch uri.scheme {
        case "null":
            return .init(
                name: part, configured: text, required: false, status: .ok,
                found: ["no speaker: the device beeps only"], problem: nil, fix: [])
        case "espeak", "wav":
            let voice = ESpeakVoice(
                name: uri.query["voice"] ?? "en", rate: Int(uri.query["rate"] ?? "") ?? ESpeakVoice.defaultRate,
                volume: Int(uri.query["volume"] ?? "") ?? 100)
            // `espeak` alone beside a buzzer that is not ALSA: the engine is checked, nothing played.
            let device: String? = uri.scheme == "espeak" && !(c.speaker == nil && buzzer?.scheme != "alsa")
                ? (uri.path.isEmpty ? "default" : uri.path) : nil
            return .init(name: part, configured: text, required: false, HardwareProbe.speech(voice: voice, device: device))
        default:
            return .init(
                name: part, configured: text, required: false, status: .warning, found: [],
                problem: "unknown speaker '\(uri.scheme):'", fix: ["use espeak:DEVICE?voice=en, wav:PATH or null"])
        }
    }

    static func battery(_ c: Configuration) -> HardwareReport.Part {
        let part = "battery"
        let uri: DeviceURI
        do {
            uri = try DeviceURI(parsing: c.battery)
        } catch {
            return .init(
                name: part, configured: c.battery, required: false, status: .warning, found: [],
                problem: "the battery setting \(error.description)", fix: ["use sysfs or sim"])
        }
        switch uri.scheme {
        case "sysfs":
            guard !uri.path.isEmpty else {
                return .init(name: part, configured: c.battery, required: false, HardwareProbe.battery(root: c.powerSupplyRoot))
            }
            let gauge = SysfsBattery(path: uri.path)
            if let reading = gauge.read() {
                let status = gauge.readStatus()?.rawValue.lowercased() ?? (reading.charging ? "charging" : "discharging")
                let percent = reading.percent == reading.percent.rounded()
                    ? String(Int(reading.percent)) : String(format: "%.1f", reading.percent)
                return .init(
                    name: part, configured: c.battery, required: false, status: .ok,
                    found: ["\(gauge.supply): \(percent) %, \(status) (\(gauge.name))"], problem: nil, fix: [])
            }
            let others = SysfsBattery.discover(root: c.powerSupplyRoot)
            return .init(
                name: part, configured: c.battery, required: false, status: .warning,
                found: others.isEmpty ? ["no battery gauge in \(c.powerSupplyRoot)"]
                    : ["gauges present: \(others.map(\.name).joined(separator: ", "))"],
                problem: "\(uri.path) cannot be read as a battery gauge: the simulated battery's estimate will be used",
                fix: ["use battery: sysfs to take the first gauge found, or name one of those present"])
        case "sim":
            var details: [String] = []
            if let capacity = uri.query["capacity"] { details.append("\(capacity) mAh") }
            if let level = uri.query["level"] { details.append("starting at \(level) %") }
            let what = details.isEmpty ? "" : " (\(details.joined(separator: ", ")))"
            return .init(
                name: part, configured: c.battery, required: false, status: .ok,
                found: ["simulated battery\(what): the level is the energy model's estimate, no gauge is read"],
                problem: nil, fix: [])
        default:
            return .init(
                name: part, configured: c.battery, required: false, status: .warning, found: [],
                problem: "unknown battery setting '\(c.battery)': the simulated battery's estimate will be used",
                fix: ["use sysfs (the board's fuel gauge) or sim"])
        }
    }

    /// The button: required once one is configured (it is how a runner talks to the device);
    /// none is fine, as a GPS of none is (`pacer ctl`, signals and the keys still reach it).
    static func button(_ c: Configuration) -> HardwareReport.Part {
        let part = "button"
        let uri: DeviceURI
        do {
            uri = try DeviceURI(parsing: c.buttons)
        } catch {
            return .init(
                name: part, configured: c.buttons, required: true, status: .missing, found: [],
                problem: "the buttons setting \(error.description)", fix: ["for example: evdev:/dev/input/event0?keys=28"])
        }
        switch uri.scheme {
        case "none":
            return .init(
                name: part, configured: c.buttons, required: false, status: .ok,
                found: ["no button configured: pacer ctl (ctl press), signals and the terminal's keys reach the device"],
                problem: nil, fix: [])
        case "evdev":
            var keys: Set<UInt16>?
            if let list = uri.query["keys"] {
                keys = Set(list.split(separator: ",").compactMap { UInt16($0) })
            }
            guard !uri.path.isEmpty else {
                return .init(name: part, configured: c.buttons, required: true, status: .missing, found: [],
                             problem: "the buttons setting names no device", fix: ["for example: evdev:/dev/input/event0?keys=28"])
            }
            return .init(name: part, configured: c.buttons, required: true,
                         HardwareProbe.button(path: uri.path, keys: keys, pressWithin: c.pressWithin))
        default:
            return .init(
                name: part, configured: c.buttons, required: true, status: .missing, found: [],
                problem: "unknown buttons '\(uri.scheme):'", fix: ["use evdev:/dev/input/eventN?keys=CODE,… or none"])
        }
    }

    static func clock() -> HardwareReport.Part {
        .init(name: "clock", configured: "monotonic", required: false, HardwareProbe.clock())
    }

    // MARK: simulated parts

    static func recording(_ part: String, _ configured: String, path: String) -> HardwareReport.Part {
        var isDirectory: ObjCBool = false
        guard !path.isEmpty, FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
              !isDirectory.boolValue
        else {
            return .init(
                name: part, configured: configured, required: true, status: .missing,
                found: path.isEmpty ? [] : ["\(path) does not exist"],
                problem: "the recording to replay is missing",
                fix: ["name an NMEA recording: file:///full/path/run.nmea (the bundled one: Hardware/recordings/track-loop.nmea)"])
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            return .init(
                name: part, configured: configured, required: true, status: .missing,
                found: ["\(path) exists"], problem: "the recording \(path) cannot be read",
                fix: ["check its permissions: ls -l \(path)"])
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue
        return .init(
            name: part, configured: configured, required: true, status: .ok,
            found: ["replays the recording \(path)\(size.map { " (\($0) bytes)" } ?? ""); no receiver needed"],
            problem: nil, fix: [])
    }

    static func wavOutput(_ part: String, _ configured: String, path: String) -> HardwareReport.Part {
        let directory = path.isEmpty ? "" : (path as NSString).deletingLastPathComponent
        let folder = directory.isEmpty ? "." : directory
        guard !path.isEmpty, FileManager.default.isWritableFile(atPath: folder) else {
            return .init(
                name: part, configured: configured, required: true, status: .missing,
                found: path.isEmpty ? [] : ["\(folder) is missing or not writable"],
                problem: "the WAV file for the cues cannot be written",
                fix: ["name a file in a writable folder: wav:/tmp/cues.wav"])
        }
        return .init(
            name: part, configured: configured, required: true, status: .ok,
            found: ["cues are written to \(path); no sound card needed"], problem: nil, fix: [])
    }

    static func settingError(_ part: String, _ configured: String, _ error: DeviceURIError, _ example: String) -> HardwareReport.Part {
        .init(
            name: part, configured: configured, required: true, status: .missing, found: [],
            problem: "the setting \(error.description)", fix: ["for example: \(example)"])
    }
}

/// The outcome of `pacer hw check`: one entry per part.
public struct HardwareReport: Hashable, Sendable {
    /// A part's verdict: the probes' own (ok, warning, missing), also for the parts checked
    /// here without a probe.
    public typealias Status = ProbeFinding.Status

    public struct Part: Hashable, Sendable {
        /// `GPS`, `sound`, `battery`, `clock`.
        public var name: String
        /// The setting the part was checked against (`gpsd://localhost:2947`).
        public var configured: String
        /// A required part that is missing fails the check.
        public var required: Bool
        public var status: Status
        public var found: [String]
        public var problem: String?
        public var fix: [String]
        /// Machine-readable facts from the probe.
        public var facts: [String: String]

        public init(
            name: String, configured: String, required: Bool, status: Status, found: [String],
            problem: String?, fix: [String], facts: [String: String] = [:]
        ) {
            self.name = name
            self.configured = configured
            self.required = required
            self.status = status
            self.found = found
            self.problem = problem
            self.fix = fix
            self.facts = facts
        }

        init(name: String, configured: String, required: Bool, _ finding: ProbeFinding) {
            self.init(
                name: name, configured: configured, required: required, status: finding.status, found: finding.found,
                problem: finding.problem, fix: finding.fix, facts: finding.facts)
        }
    }

    public var parts: [Part]

    public init(parts: [Part]) {
        self.parts = parts
    }

    /// The required parts that are missing.
    public var missingRequired: [Part] { parts.filter { $0.required && $0.status == .missing } }

    /// True when every required part is there.
    public var passed: Bool { missingRequired.isEmpty }

    /// 0 when every required part is there, else 69 (`EX_UNAVAILABLE`: a part is missing).
    public var exitStatus: Int32 { passed ? 0 : 69 }

    public func part(_ name: String) -> Part? { parts.first { $0.name == name } }

    // MARK: text

    /// The report for a person: one block per part, its verdict and setting on the first
    /// line, then what was found, what is wrong and how to fix it, aligned; a verdict last.
    ///
    ///     GPS       MISSING   gpsd://localhost:2947   (required)
    ///               found     cannot connect to localhost:2947: nothing accepts a connection there
    ///               problem   gpsd not reachable at localhost:2947
    ///               fix       start gpsd: sudo systemctl start gpsd …
    public func text() -> String {
        let nameWidth = max(9, (parts.map(\.name.count).max() ?? 0) + 2)
        let labelWidth = 10
        let indent = String(repeating: " ", count: nameWidth)
        func pad(_ s: String, _ width: Int) -> String {
            s.count >= width ? s + " " : s + String(repeating: " ", count: width - s.count)
        }
        var out = "Pacer hardware check\n"
        for part in parts {
            out += "\n"
            let verdict = part.status == .missing ? "MISSING" : part.status.rawValue
            out += pad(part.name, nameWidth) + pad(verdict, labelWidth) + part.configured
            out += part.required ? "   (required)\n" : "\n"
            func lines(_ label: String, _ items: [String]) {
                for (i, item) in items.enumerated() {
                    out += indent + pad(i == 0 ? label : "", labelWidth) + item + "\n"
                }
            }
            lines("found", part.found)
            lines("problem", part.problem.map { [$0] } ?? [])
            lines("fix", part.fix)
        }
        out += "\n"
        let missing = missingRequired
        let warnings = parts.filter { $0.status == .warning }.map(\.name)
        if missing.isEmpty {
            out += "Result: ready: every required part works"
            out += warnings.isEmpty ? ".\n" : " (warnings: \(warnings.joined(separator: ", "))).\n"
        } else {
            let names = missing.map(\.name).joined(separator: ", ")
            out += "Result: not ready: \(missing.count) required part\(missing.count == 1 ? "" : "s") missing (\(names)).\n"
        }
        return out
    }

    // MARK: JSON

    /// The report as one JSON object:
    /// `{"ok":false,"parts":[{"part":"GPS","configured":"…","required":true,"status":"missing","found":[…],"problem":"…","fix":[…],"facts":{…}},…]}`.
    public func json() -> String {
        JSONValue.object([
            ("ok", .bool(passed)),
            ("parts", .array(parts.map { part in
                .object([
                    ("part", .text(part.name)), ("configured", .text(part.configured)), ("required", .bool(part.required)),
                    ("status", .text(part.status.rawValue)), ("found", .array(part.found.map { .text($0) })),
                    ("problem", part.problem.map { .text($0) } ?? .null), ("fix", .array(part.fix.map { .text($0) })),
                    ("facts", .object(JSONObject(part.facts.sorted { $0.key < $1.key }.map { ($0.key, .text($0.value)) }))),
                ])
            })),
        ]).compact
    }
}
