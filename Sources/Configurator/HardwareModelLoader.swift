import Foundation
import HAL

/// Reads device builds (`Hardware/builds/NAME.yaml`: one board, GPS module, buzzer and
/// battery by name, and optionally a speaker) and their parts
/// (`Hardware/parts/{boards,gps,buzzers,batteries,speakers}/NAME.yaml`) into a `HardwareModel`. Every figure in those files cites its source in a comment.
///
/// ```yaml
/// # Hardware/builds/zero-m8n.yaml          # Hardware/parts/gps/ublox-neo-m8n.yaml
/// name: zero-m8n                          name: ublox-neo-m8n
/// summary: Pi Zero 2 W, NEO-M8N, …         summary: u-blox NEO-M8N on a breakout
/// board: raspberry-pi-zero-2w             supply_v: 3.3
/// gps: ublox-neo-m8n                      commands: ubx            # ubx | pmtk | none
/// buzzer: piezo                           hot_start_s: 1
/// battery: lipo-2000mah                   current_ma: {acquiring: 32, tracking: 29,
/// # speaker: usb-cm108  (optional)
///                                                      power-save: 2.1, backup: 0.03}
/// ```
///
/// A board has `supply_v`, `idle_ma`, `busy_ma`, `busy_per_wakeup_ms`, optionally
/// `wifi_idle_ma` (the Wi-Fi radio's part of `idle_ma`), optionally `bluetooth_scanning_ma`
/// with `bluetooth_connected_ma` (the Bluetooth radio's current for the heart-rate strap, on
/// top of `idle_ma`; both or neither, each at most `bluetoothRange`) and, if it can suspend
/// to RAM, `suspend_ma` with `resume_ms`; a buzzer `supply_v` and `sounding_ma`; a battery
/// `capacity_mah`, `volts` and `converter_efficiency`; a speaker `supply_v`, `speaking_ma`,
/// `standby_ma` (not above `speaking_ma`) and `render_cpu_share` (0 to 1). Every file has `name` (its file's name)
/// and `summary`. A file that cannot be used is refused with its file, line, key and reason:
/// `parts/gps/x.yaml:9: current_ma.backup: must be below power-save (2.1 mA), got 12`.
public enum HardwareModelLoader {
    /// The kinds of part a build names, with the folder of `hardwareDir/parts` each lives in.
    public enum PartKind: String, CaseIterable, Sendable {
        case board, gps, buzzer, battery, speaker

        /// The folder under `parts/`.
        public var folder: String {
            switch self {
            case .board: "boards"
            case .gps: "gps"
            case .buzzer: "buzzers"
            case .battery: "batteries"
            case .speaker: "speakers"
            }
        }
    }

    /// The build called `build` in `hardwareDir/builds`, with its parts.
    public static func load(build: String, hardwareDir: String) throws(DataFileError) -> HardwareModel {
        let path = "\(hardwareDir)/builds/\(build).yaml"
        guard FileManager.default.fileExists(atPath: path) else {
            let known = (try? available(hardwareDir: hardwareDir))?.joined(separator: ", ") ?? "none found"
            throw DataFileError(file: path, reason: "no build '\(build)' (builds: \(known))")
        }
        var map = try YAMLMapping.load(path: path)
        let name = try map.string("name")
        guard name == build else { throw map.error("name", "is '\(name)' but the file is \(build).yaml; they must match") }
        let summary = try map.string("summary")
        func part(_ kind: PartKind) throws(DataFileError) -> YAMLMapping {
            let partName = try map.string(kind.rawValue)
            let partPath = Self.path(of: kind, named: partName, hardwareDir: hardwareDir)
            guard FileManager.default.fileExists(atPath: partPath) else {
                let known = parts(kind, hardwareDir: hardwareDir)
                throw map.error(
                    kind.rawValue,
                    "no \(kind.rawValue) '\(partName)': \(partPath) does not exist (\(kind.folder): "
                        + "\(known.isEmpty ? "none" : known.joined(separator: ", ")))")
            }
            return try YAMLMapping.load(path: partPath)
        }
        var boardMap = try part(.board)
        var gpsMap = try part(.gps)
        var buzzerMap = try part(.buzzer)
        var batteryMap = try part(.battery)
        // Optional: most builds have a piezo on GPIO 18, which I2S's bit clock needs.
        let speakerMap = map.has(PartKind.speaker.rawValue) ? try part(.speaker) : nil
        try map.finish()
        var model = HardwareModel(
            name: name, summary: summary, board: try board(&boardMap), gps: try gps(&gpsMap),
            buzzer: try buzzer(&buzzerMap), battery: try battery(&batteryMap))
        if var m = speakerMap { model.speaker = try speaker(&m) }
        return model
    }

    /// Names of the builds in `hardwareDir/builds`, sorted.
    public static func available(hardwareDir: String) throws(DataFileError) -> [String] {
        let dir = "\(hardwareDir)/builds"
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: dir) else {
            throw DataFileError(file: dir, reason: "cannot be read: is hardware_dir right?")
        }
        return files.filter { $0.hasSuffix(".yaml") }.map { String($0.dropLast(5)) }.sorted()
    }

    /// The part files of `kind` in `hardwareDir/parts`, by name, sorted (empty when the folder
    /// cannot be read).
    public static func parts(_ kind: PartKind, hardwareDir: String) -> [String] {
        let dir = "\(hardwareDir)/parts/\(kind.folder)"
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return [] }
        return files.filter { $0.hasSuffix(".yaml") }.map { String($0.dropLast(5)) }.sorted()
    }

    /// Where the part of `kind` called `name` lives.
    public static func path(of kind: PartKind, named name: String, hardwareDir: String) -> String {
        "\(hardwareDir)/parts/\(kind.folder)/\(name).yaml"
    }

    /// Reads one part file on its own (its `name` must match the file's name).
    public static func loadBoard(path: String) throws(DataFileError) -> HardwareModel.Board {
        var map = try YAMLMapping.load(path: path)
        return try board(&map)
    }

    public static func loadGPS(path: String) throws(DataFileError) -> HardwareModel.GPSModule {
        var map = try YAMLMapping.load(path: path)
        return try gps(&map)
    }

    public static func loadBuzzer(path: String) throws(DataFileError) -> HardwareModel.BuzzerPart {
        var map = try YAMLMapping.load(path: path)
        return try buzzer(&map)
    }

    public static func loadBattery(path: String) throws(DataFileError) -> HardwareModel.BatteryPart {
        var map = try YAMLMapping.load(path: path)
        return try battery(&map)
    }

    public static func loadSpeaker(path: String) throws(DataFileError) -> HardwareModel.SpeakerPart {
        var map = try YAMLMapping.load(path: path)
        return try speaker(&map)
    }

    /// The speaker part called `name` in `hardwareDir/parts/speakers`, for a build without
    /// one (`pacer battery compare --speech --speaker NAME`); a missing one names the file
    /// looked for and the speakers there are.
    public static func loadSpeaker(named name: String, hardwareDir: String) throws(DataFileError) -> HardwareModel.SpeakerPart {
        let path = path(of: .speaker, named: name, hardwareDir: hardwareDir)
        guard FileManager.default.fileExists(atPath: path) else {
            let known = parts(.speaker, hardwareDir: hardwareDir)
            throw DataFileError(
                file: path, reason: "no speaker '\(name)' (speakers: \(known.isEmpty ? "none" : known.joined(separator: ", ")))")
        }
        return try loadSpeaker(path: path)
    }

    /// Parses `text`, the contents of the part file `file` (named in errors; its name is the
    /// one the part's `name` must match). Likewise for the other kinds of part below.
    public static func loadBoard(file: String, text: String) throws(DataFileError) -> HardwareModel.Board {
        var map = try YAMLMapping.load(file: file, text: text)
        return try board(&map)
    }

    public static func loadGPS(file: String, text: String) throws(DataFileError) -> HardwareModel.GPSModule {
        var map = try YAMLMapping.load(file: file, text: text)
        return try gps(&map)
    }

    public static func loadBuzzer(file: String, text: String) throws(DataFileError) -> HardwareModel.BuzzerPart {
        var map = try YAMLMapping.load(file: file, text: text)
        return try buzzer(&map)
    }

    public static func loadBattery(file: String, text: String) throws(DataFileError) -> HardwareModel.BatteryPart {
        var map = try YAMLMapping.load(file: file, text: text)
        return try battery(&map)
    }

    public static func loadSpeaker(file: String, text: String) throws(DataFileError) -> HardwareModel.SpeakerPart {
        var map = try YAMLMapping.load(file: file, text: text)
        return try speaker(&map)
    }

    /// The part's `name`, which must match its file's name, and its `summary`.
    static func identity(_ map: inout YAMLMapping) throws(DataFileError) -> String {
        let expected = ((map.file as NSString).lastPathComponent as NSString).deletingPathExtension
        let name = try map.string("name")
        guard name == expected else {
            throw map.error("name", "is '\(name)' but the file is \(expected).yaml; they must match")
        }
        _ = try map.string("summary")
        return name
    }

    // The ranges of the parts' figures. Wide enough for any board, receiver, buzzer or battery
    // a wearable is built from; narrow enough that the energy model's sums and the simulated
    // battery's conversions stay in bounds. The parts' header comments state them.

    /// A current, mA: up to 5 A (a Raspberry Pi 4 under load draws about 1.3 A).
    public static let currentRange = AllowedRange(0...5000, unit: "mA")
    /// A supply or battery voltage: up to 24 V.
    public static let voltageRange = AllowedRange(above: 0, atMost: 24, unit: "V")
    /// A board's busy time per wakeup or resume time: up to a minute.
    public static let wakeupRange = AllowedRange(above: 0, atMost: 60_000, unit: "ms")
    /// A receiver's hot start: up to ten minutes (a cold start takes about half a minute).
    public static let hotStartRange = AllowedRange(above: 0, atMost: 600, unit: "s")
    /// The Bluetooth radio's current on top of the board's idle: up to 500 mA, what a USB 2.0
    /// port may give a dongle. A BLE radio scanning draws tens of mA at most; a figure past the
    /// port's limit is a typo (µA for mA, a board's current for the radio's).
    public static let bluetoothRange = AllowedRange(0...500, unit: "mA")
    /// A battery's capacity: up to 100 Ah.
    public static let capacityRange = AllowedRange(above: 0, atMost: 100_000, unit: "mAh")

    static func current(_ map: inout YAMLMapping, _ key: String) throws(DataFileError) -> Double {
        try map.number(key, in: currentRange)
    }

    static func volts(_ map: inout YAMLMapping) throws(DataFileError) -> Double {
        try map.number("supply_v", in: voltageRange)
    }

    static func board(_ map: inout YAMLMapping) throws(DataFileError) -> HardwareModel.Board {
        let name = try identity(&map)
        let v = try volts(&map)
        let idle = try current(&map, "idle_ma")
        let busy = try current(&map, "busy_ma")
        guard busy >= idle else {
            throw map.error("busy_ma", "must not be below idle_ma (\(YAMLMapping.format(idle)) mA), got \(YAMLMapping.format(busy))")
        }
        let perWakeup = try map.duration("busy_per_wakeup_ms", in: wakeupRange)
        var suspend: Double?
        var resume: Duration?
        if map.has("suspend_ma") {
            let s = try current(&map, "suspend_ma")
            guard s < idle else {
                throw map.error("suspend_ma", "must be below idle_ma (\(YAMLMapping.format(idle)) mA), got \(YAMLMapping.format(s))")
            }
            guard map.has("resume_ms") else {
                throw map.error("suspend_ma", "needs resume_ms, the time the board is awake for each suspend")
            }
            suspend = s
            resume = try map.duration("resume_ms", in: wakeupRange)
        } else if map.has("resume_ms") {
            throw map.error("resume_ms", "is given without suspend_ma: only a board that can suspend has a resume time")
        }
        var wifi = 0.0
        if map.has("wifi_idle_ma") {
            wifi = try current(&map, "wifi_idle_ma")
            guard wifi <= idle - (suspend ?? 0) else {
                throw map.error("wifi_idle_ma", "is the Wi-Fi radio's part of idle_ma (\(YAMLMapping.format(idle)) mA"
                    + (suspend.map { ", less suspend_ma, \(YAMLMapping.format($0)) mA" } ?? "") + "): it cannot be more, got \(YAMLMapping.format(wifi))")
            }
        }
        // The Bluetooth radio for the strap: both states or neither (a board that can scan for
        // a strap can hold a connection to it, and the firmware reports both).
        var scanning = 0.0, connected = 0.0
        switch (map.has("bluetooth_scanning_ma"), map.has("bluetooth_connected_ma")) {
        case (true, true):
            scanning = try map.number("bluetooth_scanning_ma", in: bluetoothRange)
            connected = try map.number("bluetooth_connected_ma", in: bluetoothRange)
        case (true, false):
            throw map.error("bluetooth_scanning_ma", "needs bluetooth_connected_ma: give the radio's current in both states, or neither")
        case (false, true):
            throw map.error("bluetooth_connected_ma", "needs bluetooth_scanning_ma: give the radio's current in both states, or neither")
        case (false, false):
            break
        }
        try map.finish()
        return .init(name: name, supplyVolts: v, idleMilliamps: idle, busyMilliamps: busy, busyPerWakeup: perWakeup,
                     suspendMilliamps: suspend, resume: resume, wifiIdleMilliamps: wifi,
                     bluetoothScanningMilliamps: scanning, bluetoothConnectedMilliamps: connected)
    }

    static func gps(_ map: inout YAMLMapping) throws(DataFileError) -> HardwareModel.GPSModule {
        let name = try identity(&map)
        let v = try volts(&map)
        let commands = try map.choice("commands", HardwareModel.GPSModule.Commands.self)
        let hot = try map.duration("hot_start_s", in: hotStartRange)
        var c = try map.mapping("current_ma")
        // `off` draws nothing; the four powered states are in the file.
        var milliamps: [GPSPowerState: Double] = [.off: 0]
        for state in [GPSPowerState.acquiring, .tracking, .powerSave, .backup] {
            milliamps[state] = try current(&c, state.rawValue)
        }
        let tracking = milliamps[.tracking]!, powerSave = milliamps[.powerSave]!, backup = milliamps[.backup]!
        guard tracking > 0 else { throw c.error("tracking", "must be positive: a receiver draws current to track") }
        guard powerSave <= tracking else {
            throw c.error(
                "power-save", "must not be above tracking (\(YAMLMapping.format(tracking)) mA), got \(YAMLMapping.format(powerSave))")
        }
        guard backup < powerSave else {
            throw c.error(
                "backup", "must be below power-save (\(YAMLMapping.format(powerSave)) mA), got \(YAMLMapping.format(backup))")
        }
        try c.finish()
        try map.finish()
        return .init(name: name, supplyVolts: v, milliamps: milliamps, hotStart: hot, commands: commands)
    }

    static func buzzer(_ map: inout YAMLMapping) throws(DataFileError) -> HardwareModel.BuzzerPart {
        let name = try identity(&map)
        let v = try volts(&map)
        let sounding = try current(&map, "sounding_ma")
        try map.finish()
        return .init(name: name, supplyVolts: v, soundingMilliamps: sounding)
    }

    static func battery(_ map: inout YAMLMapping) throws(DataFileError) -> HardwareModel.BatteryPart {
        let name = try identity(&map)
        let capacity = try map.number("capacity_mah", in: capacityRange)
        let v = try map.number("volts", in: voltageRange)
        let e = try map.number("converter_efficiency", in: AllowedRange(above: 0, atMost: 1))
        try map.finish()
        return .init(name: name, capacityMilliampHours: capacity, volts: v, converterEfficiency: e)
    }

    static func speaker(_ map: inout YAMLMapping) throws(DataFileError) -> HardwareModel.SpeakerPart {
        let name = try identity(&map)
        let v = try volts(&map)
        let speaking = try current(&map, "speaking_ma")
        let standby = try current(&map, "standby_ma")
        guard standby <= speaking else {
            throw map.error(
                "standby_ma", "must not be above speaking_ma (\(YAMLMapping.format(speaking)) mA), got \(YAMLMapping.format(standby))")
        }
        let share = try map.number("render_cpu_share", in: AllowedRange(0...1))
        try map.finish()
        return .init(name: name, supplyVolts: v, speakingMilliamps: speaking, standbyMilliamps: standby, renderCPUShare: share)
    }
}
