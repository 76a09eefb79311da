import Coaching
import Foundation
import HAL
import PacerCore

/// Reads power profiles from `<hardware_dir>/profiles/NAME.yaml`.
public enum PowerProfileLoader {
    /// Loads one profile file. The profile's `name` must match the file's name.
    public static func load(path: String) throws(DataFileError) -> PowerProfile {
        try profile(from: YAMLMapping.load(path: path))
    }

    /// Parses `text`, the contents of `file` (named in errors; its name is the one the
    /// profile's `name` must match).
    public static func load(file: String, text: String) throws(DataFileError) -> PowerProfile {
        try profile(from: YAMLMapping.load(file: file, text: text))
    }

    static func profile(from top: YAMLMapping) throws(DataFileError) -> PowerProfile {
        var map = top
        let expected = ((map.file as NSString).lastPathComponent as NSString).deletingPathExtension
        let name = try map.string("name")
        guard name == expected else {
            throw map.error("name", "is '\(name)' but the file is \(expected).yaml; they must match")
        }
        let summary = try map.string("summary")
        let position = try map.duration("position_interval_s", in: intervalRange)
        let alert = try map.duration("alert_interval_s", in: intervalRange)
        let style = try map.choice("cue_style", CueStyle.self)
        var overrides: [Cue: CueStyle] = [:]
        if var o = try map.optionalMapping("cue_style_overrides") {
            for key in o.keys {
                guard let cue = Cue(rawValue: key) else {
                    throw o.error(key, "unknown cue (cues: \(Cue.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                overrides[cue] = try o.choice(key, CueStyle.self)
            }
            try o.finish()
        }
        let window = try map.duration("smoothing_window_s", in: intervalRange)
        guard window >= position else {
            throw map.error(
                "smoothing_window_s",
                "is shorter than position_interval_s (\(position.inSeconds) s): the window would hold a single position")
        }
        let flush = try map.duration("track_flush_interval_s", in: intervalRange)
        var gpsMode = GPSPowerMode.tracking
        if map.has("gps_mode") { gpsMode = try map.choice("gps_mode", GPSPowerMode.self) }
        var suspend = false
        if let text = try map.optionalString("board_suspend") {
            guard let value = yesNo[text] else {
                throw map.error("board_suspend", "expected true or false, got '\(text)'")
            }
            suspend = value
        }
        var wifiOff = false
        if let text = try map.optionalString("wifi_off_during_workout") {
            guard let value = yesNo[text] else {
                throw map.error("wifi_off_during_workout", "expected yes or no (switch the Wi-Fi radio off for the workout), got '\(text)'")
            }
            wifiOff = value
        }
        var stepDown: PowerProfile.StepDown?
        if var step = try map.optionalMapping("step_down") {
            let percent = try step.number("at_percent")
            guard percent > 0, percent < 100 else {
                throw step.error("at_percent", "must be between 0 and 100 (a battery level), got \(YAMLMapping.format(percent))")
            }
            let to = try step.string("to")
            guard to != name else { throw step.error("to", "steps down to itself") }
            try step.finish()
            stepDown = .init(percent: percent, to: to)
        }
        let autoPause = try autoPause(&map)
        let split = try splitDistance(&map)
        let route = try routeGuidance(&map)
        var calibration = Duration.zero
        if let seconds = try map.optionalNumber("calibration_s", in: calibrationRange) {
            calibration = calibrationRange.duration(seconds)
        }
        let anticipation = try anticipation(&map)
        let heartRate = try heartRateJudging(&map)
        let ghost = try map.optionalNumber("ghost_interval_s", in: ghostIntervalRange)
        try map.finish()
        var profile = PowerProfile(
            name: name, summary: summary, positionInterval: position, alertInterval: alert, cueStyle: style,
            cueStyleOverrides: overrides, smoothingWindow: window, trackFlushInterval: flush, gpsMode: gpsMode,
            boardSuspend: suspend, stepDown: stepDown, autoPause: autoPause, splitDistance: split,
            route: route, wifiOffDuringWorkout: wifiOff, calibration: calibration, anticipation: anticipation)
        profile.heartRate = heartRate
        if let ghost {
            profile.ghostInterval = ghostIntervalRange.duration(ghost)
            guard profile.ghostInterval >= position else {
                throw map.error("ghost_interval_s", "is shorter than position_interval_s (\(YAMLMapping.format(position.inSeconds)) s): the gap is measured at each position")
            }
        } else {
            profile.ghostInterval = max(.seconds(60), position)
        }
        return profile
    }

    /// How often the gap to a ghost is told: every 10 s to every 30 minutes.
    public static let ghostIntervalRange = AllowedRange(10...1800, unit: "s")

    /// `heart_rate: {settle_s: 45, window_s: 20}`, each optional (the defaults).
    public static func heartRateJudging(_ map: inout YAMLMapping) throws(DataFileError) -> PowerProfile.HeartRateJudging {
        var judging = PowerProfile.HeartRateJudging()
        guard var h = try map.optionalMapping("heart_rate") else { return judging }
        if let s = try h.optionalNumber("settle_s", in: heartRateSettleRange) { judging.settle = heartRateSettleRange.duration(s) }
        if let s = try h.optionalNumber("window_s", in: heartRateWindowRange) { judging.window = heartRateWindowRange.duration(s) }
        try h.finish()
        return judging
    }

    /// How long the heart is left to settle: none to three minutes.
    public static let heartRateSettleRange = AllowedRange(0...180, unit: "s")
    /// The window heart rate is averaged over: 5 s (five beats' measurements) to two minutes.
    public static let heartRateWindowRange = AllowedRange(5...120, unit: "s")

    /// `to_go: {m: 200, s: 30, countdown_s: 3}`, each optional, or `off` (the default).
    public static func anticipation(_ map: inout YAMLMapping) throws(DataFileError) -> PowerProfile.Anticipation {
        if let node = map.optionalNode("to_go"), let text = node.scalar?.string {
            guard offWords.contains(text) else {
                throw map.error("to_go", "expected {m: METRES, s: SECONDS, countdown_s: N} or off, got '\(text)'")
            }
            return .none
        }
        guard var t = try map.optionalMapping("to_go") else { return .none }
        let metres = try t.optionalNumber("m", in: toGoMetresRange)
        let seconds = try t.optionalNumber("s", in: toGoSecondsRange)
        let countdown = try t.optionalNumber("countdown_s", in: countdownRange)
        if let countdown, countdown != countdown.rounded() {
            throw t.error("countdown_s", "must be a whole number of seconds, got \(YAMLMapping.format(countdown))")
        }
        try t.finish()
        return PowerProfile.Anticipation(metres: metres, time: seconds.map { toGoSecondsRange.duration($0) },
                                         countdown: Int(countdown ?? 0))
    }

    /// Metres before a distance phase's end that "to go" sounds: 50 m to 2 km.
    public static let toGoMetresRange = AllowedRange(50...2000, unit: "m")
    /// Seconds before a timed phase's end: 5 s to 10 minutes.
    public static let toGoSecondsRange = AllowedRange(5...600, unit: "s")
    /// Countdown beeps: at most the last 10 seconds.
    public static let countdownRange = AllowedRange(0...10, unit: "s")

    /// The words a yes-or-no key takes.
    static let yesNo = ["true": true, "false": false, "yes": true, "no": false]

    /// Every interval and window of a profile, seconds: a tenth of a second (a 10 Hz
    /// receiver's epoch) to an hour (longer, and a run would go by without a position or a
    /// cue). The profiles' header comments state it.
    public static let intervalRange = AllowedRange(0.1...3600, unit: "s")

    /// A calibration's length, seconds: up to an hour (0: none).
    public static let calibrationRange = AllowedRange(0...3600, unit: "s")

    /// The words that turn an optional feature off (`auto_pause: off`).
    static let offWords: Set<String> = ["off", "false", "no"]
    /// The highest pause threshold, km/h: a walk. Above it a runner's timer would stop while
    /// they move.
    static let autoPauseMaximumKmh = 6.0
    /// The highest resume threshold, km/h: a slow jog. Above it a runner setting off slowly
    /// would run on paused.
    static let autoPauseResumeMaximumKmh = 8.0
    /// Longer than this, and a stop at a crossing would end before it paused.
    static let autoPauseMaximumDelay = 60.0
    /// A split shorter than this would sound every minute or so; longer than this, never in a run.
    static let splitKm = 0.1...50.0

    /// `auto_pause: {below_kmh: 2, after_s: 5, resume_above_kmh: 4}`, or `off` (or absent).
    static func autoPause(_ map: inout YAMLMapping) throws(DataFileError) -> PowerProfile.AutoPause? {
        guard let node = map.optionalNode("auto_pause") else { return nil }
        if let text = node.scalar?.string {
            guard offWords.contains(text) else {
                throw map.error("auto_pause", "expected off or {below_kmh, after_s, resume_above_kmh}, got '\(text)'")
            }
            return nil
        }
        var a = try map.mapping("auto_pause")
        let below = try a.number("below_kmh")
        guard below > 0, below <= autoPauseMaximumKmh else {
            throw a.error("below_kmh", "must be above 0 and at most \(YAMLMapping.format(autoPauseMaximumKmh)) km/h "
                + "(a walk: faster, and a runner's timer would stop while they move), got \(YAMLMapping.format(below))")
        }
        let after = try a.number("after_s")
        guard after >= 0, after <= autoPauseMaximumDelay else {
            throw a.error("after_s", "must be 0 to \(YAMLMapping.format(autoPauseMaximumDelay)) s "
                + "(longer, and a stop at a crossing would be over before it paused), got \(YAMLMapping.format(after))")
        }
        let resume = try a.number("resume_above_kmh")
        guard resume > below, resume <= autoPauseResumeMaximumKmh else {
            throw a.error("resume_above_kmh", "must be above below_kmh (\(YAMLMapping.format(below)) km/h) and at most "
                + "\(YAMLMapping.format(autoPauseResumeMaximumKmh)) km/h (a slow jog: a runner setting off slower would "
                + "stay paused; at one threshold a runner moving at that speed would pause and resume at every "
                + "fix), got \(YAMLMapping.format(resume))")
        }
        try a.finish()
        return .init(below: Pace.metresPerSecond(kilometresPerHour: below), after: .milliseconds(Int64((after * 1000).rounded())),
                     resumeAbove: Pace.metresPerSecond(kilometresPerHour: resume))
    }

    /// `split_cue_km: 1` (metres out), or `off` (or absent).
    static func splitDistance(_ map: inout YAMLMapping) throws(DataFileError) -> Double? {
        guard let node = map.optionalNode("split_cue_km") else { return nil }
        if let text = node.scalar?.string, offWords.contains(text) { return nil }
        guard let text = node.scalar?.string, let km = YAMLMapping.decimal(text), km.isFinite else {
            throw map.error("split_cue_km", "expected a number of km or off, got '\(node.scalar?.string ?? "a \(YAMLMapping.kind(node))")'")
        }
        guard splitKm.contains(km) else {
            throw map.error("split_cue_km", "must be \(YAMLMapping.format(splitKm.lowerBound)) to \(YAMLMapping.format(splitKm.upperBound)) km, got \(YAMLMapping.format(km))")
        }
        return km * 1000
    }

    /// Off-route distances: beyond the error of a good fix (a few metres) plus half a wide
    /// street, and within a distance a runner would not take for "this street".
    static let offRouteMetres = 15.0...500.0
    /// How early a waypoint is announced: at least a few strides, at most a few minutes.
    static let waypointAheadMetres = 20.0...2000.0

    /// `route: {off_m: 40, back_on_m: 20, waypoint_ahead_m: 150}` (absent: the standard).
    static func routeGuidance(_ map: inout YAMLMapping) throws(DataFileError) -> PowerProfile.RouteGuidance {
        guard var r = try map.optionalMapping("route") else { return .standard }
        let off = try r.number("off_m")
        guard offRouteMetres.contains(off) else {
            throw r.error("off_m", "must be \(YAMLMapping.format(offRouteMetres.lowerBound)) to "
                + "\(YAMLMapping.format(offRouteMetres.upperBound)) m (closer, and GPS error alone would take a runner "
                + "off the route), got \(YAMLMapping.format(off))")
        }
        let back = try r.number("back_on_m")
        guard back >= 5, back < off else {
            throw r.error("back_on_m", "must be at least 5 m and below off_m (\(YAMLMapping.format(off)) m), so that "
                + "a runner at the edge does not go off and on at every fix; got \(YAMLMapping.format(back))")
        }
        let ahead = try r.number("waypoint_ahead_m")
        guard waypointAheadMetres.contains(ahead) else {
            throw r.error("waypoint_ahead_m", "must be \(YAMLMapping.format(waypointAheadMetres.lowerBound)) to "
                + "\(YAMLMapping.format(waypointAheadMetres.upperBound)) m, got \(YAMLMapping.format(ahead))")
        }
        try r.finish()
        return .init(offRoute: off, backOn: back, waypointAhead: ahead)
    }

    /// The profile called `name` in `hardwareDir/profiles`.
    public static func load(name: String, hardwareDir: String) throws(DataFileError) -> PowerProfile {
        let path = "\(hardwareDir)/profiles/\(name).yaml"
        guard FileManager.default.fileExists(atPath: path) else {
            let known = (try? available(hardwareDir: hardwareDir))?.joined(separator: ", ") ?? "none found"
            throw DataFileError(file: path, reason: "no profile '\(name)' (profiles: \(known))")
        }
        return try load(path: path)
    }

    /// The profiles `profile` steps down to, one after another, by name: a step-down to a
    /// profile that does not exist, or back into the chain, is refused.
    public static func stepDownChain(
        from profile: PowerProfile, hardwareDir: String
    ) throws(DataFileError) -> [String: PowerProfile] {
        var chain: [String: PowerProfile] = [:]
        var current = profile
        var seen: Set<String> = [profile.name]
        while let step = current.stepDown {
            let path = "\(hardwareDir)/profiles/\(current.name).yaml"
            guard !seen.contains(step.to) else {
                throw DataFileError(file: path, key: "step_down.to", reason: "'\(step.to)' steps back into the chain (\(seen.sorted().joined(separator: ", ")))")
            }
            guard FileManager.default.fileExists(atPath: "\(hardwareDir)/profiles/\(step.to).yaml") else {
                let known = (try? available(hardwareDir: hardwareDir))?.joined(separator: ", ") ?? "none found"
                throw DataFileError(file: path, key: "step_down.to", reason: "no profile '\(step.to)' (profiles: \(known))")
            }
            let next = try load(name: step.to, hardwareDir: hardwareDir)
            chain[next.name] = next
            seen.insert(next.name)
            current = next
        }
        return chain
    }

    /// Names of the profiles in `hardwareDir/profiles`, sorted.
    public static func available(hardwareDir: String) throws(DataFileError) -> [String] {
        let dir = "\(hardwareDir)/profiles"
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: dir) else {
            throw DataFileError(file: dir, reason: "cannot be read: is hardware_dir right?")
        }
        return files.filter { $0.hasSuffix(".yaml") }.map { String($0.dropLast(5)) }.sorted()
    }
}
