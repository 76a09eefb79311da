import Foundation
import HAL

/// Reads device builds (`Hardware/builds/NAME.yaml`: one board, GPS module, buzzer and
/// battery by name) and their parts (`Hardware/parts/{boards,gps,buzzers,batteries}/NAME.yaml`)
/// into a `HardwareModel`. Every figure in those files cites its source in a comment.
public enum HardwareModelLoader {
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
        func part(_ key: String, _ folder: String) throws(DataFileError) -> YAMLMapping {
            let partName = try map.string(key)
            let partPath = "\(hardwareDir)/parts/\(folder)/\(partName).yaml"
            guard FileManager.default.fileExists(atPath: partPath) else {
                let known = (try? FileManager.default.contentsOfDirectory(atPath: "\(hardwareDir)/parts/\(folder)"))?
                    .filter { $0.hasSuffix(".yaml") }.map { String($0.dropLast(5)) }.sorted().joined(separator: ", ") ?? "none"
                throw map.error(key, "no \(folder) part '\(partName)': \(partPath) does not exist (known: \(known))")
            }
            return try YAMLMapping.load(path: partPath)
        }
        var boardMap = try part("board", "boards")
        var gpsMap = try part("gps", "gps")
        var buzzerMap = try part("buzzer", "buzzers")
        var batteryMap = try part("battery", "batteries")
        try map.finish()
        return HardwareModel(
            name: name, summary: summary, board: try board(&boardMap), gps: try gps(&gpsMap),
            buzzer: try buzzer(&buzzerMap), battery: try battery(&batteryMap))
    }

    /// Names of the builds in `hardwareDir/builds`, sorted.
    public static func available(hardwareDir: String) throws(DataFileError) -> [String] {
        let dir = "\(hardwareDir)/builds"
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: dir) else {
            throw DataFileError(file: dir, reason: "cannot be read: is hardware_dir right?")
        }
        return files.filter { $0.hasSuffix(".yaml") }.map { String($0.dropLast(5)) }.sorted()
    }

    static func current(_ map: inout YAMLMapping, _ key: String) throws(DataFileError) -> Double {
        let v = try map.number(key)
        guard v >= 0 else { throw map.error(key, "a current cannot be negative, got \(YAMLMapping.format(v))") }
        return v
    }

    static func volts(_ map: inout YAMLMapping) throws(DataFileError) -> Double {
        let v = try map.number("supply_v")
        guard v > 0 else { throw map.error("supply_v", "must be positive, got \(YAMLMapping.format(v))") }
        return v
    }

    static func board(_ map: inout YAMLMapping) throws(DataFileError) -> HardwareModel.Board {
        let name = try map.string("name")
        _ = try map.optionalString("summary")
        let v = try volts(&map)
        let idle = try current(&map, "idle_ma")
        let busy = try current(&map, "busy_ma")
        guard busy >= idle else { throw map.error("busy_ma", "is below idle_ma (\(YAMLMapping.format(idle)))") }
        let perWakeup = try map.positiveSeconds("busy_per_wakeup_ms") / 1000
        var suspend: Double?
        var resume: Duration?
        if map.has("suspend_ma") {
            let s = try current(&map, "suspend_ma")
            guard s < idle else { throw map.error("suspend_ma", "is not below idle_ma (\(YAMLMapping.format(idle)))") }
            guard map.has("resume_ms") else { throw map.error("suspend_ma", "needs resume_ms, the time to wake from suspend") }
            suspend = s
            resume = try map.positiveSeconds("resume_ms") / 1000
        } else if map.has("resume_ms") {
            throw map.error("resume_ms", "without suspend_ma")
        }
        try map.finish()
        return .init(name: name, supplyVolts: v, idleMilliamps: idle, busyMilliamps: busy, busyPerWakeup: perWakeup,
                     suspendMilliamps: suspend, resume: resume)
    }

    static func gps(_ map: inout YAMLMapping) throws(DataFileError) -> HardwareModel.GPSModule {
        let name = try map.string("name")
        _ = try map.optionalString("summary")
        let v = try volts(&map)
        let commands = try map.choice("commands", HardwareModel.GPSModule.Commands.self)
        let hot = try map.positiveSeconds("hot_start_s")
        var c = try map.mapping("current_ma")
        var milliamps: [GPSPowerState: Double] = [.off: 0]
        for state in [GPSPowerState.acquiring, .tracking, .powerSave, .backup] {
            milliamps[state] = try current(&c, state.rawValue)
        }
        guard milliamps[.backup]! < milliamps[.powerSave]!, milliamps[.powerSave]! <= milliamps[.tracking]! else {
            throw c.error(nil, "expected backup < power-save <= tracking")
        }
        try c.finish()
        try map.finish()
        return .init(name: name, supplyVolts: v, milliamps: milliamps, hotStart: hot, commands: commands)
    }

    static func buzzer(_ map: inout YAMLMapping) throws(DataFileError) -> HardwareModel.BuzzerPart {
        let name = try map.string("name")
        _ = try map.optionalString("summary")
        let v = try volts(&map)
        let sounding = try current(&map, "sounding_ma")
        try map.finish()
        return .init(name: name, supplyVolts: v, soundingMilliamps: sounding)
    }

    static func battery(_ map: inout YAMLMapping) throws(DataFileError) -> HardwareModel.BatteryPart {
        let name = try map.string("name")
        _ = try map.optionalString("summary")
        let capacity = try map.number("capacity_mah")
        guard capacity > 0 else { throw map.error("capacity_mah", "must be positive, got \(YAMLMapping.format(capacity))") }
        let v = try map.number("volts")
        guard v > 0 else { throw map.error("volts", "must be positive, got \(YAMLMapping.format(v))") }
        let e = try map.number("converter_efficiency")
        guard e > 0, e <= 1 else { throw map.error("converter_efficiency", "must be above 0 and at most 1, got \(YAMLMapping.format(e))") }
        try map.finish()
        return .init(name: name, capacityMilliampHours: capacity, volts: v, converterEfficiency: e)
    }
}
