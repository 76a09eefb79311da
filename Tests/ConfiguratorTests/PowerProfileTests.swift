import Configurator
import Foundation
import HAL
import TestSupport
import Testing

@Suite("Power profiles")
struct PowerProfileTests {
    @Test func bundledProfilesAllLoad() throws {
        let names = try PowerProfileLoader.available(hardwareDir: hardwareDirectory)
        #expect(names.contains("low") && names.contains("medium") && names.contains("high"))
        for name in names {
            let profile = try PowerProfileLoader.load(name: name, hardwareDir: hardwareDirectory)
            #expect(profile.name == name)
            #expect(!profile.summary.isEmpty)
        }
    }

    /// R16 and R17 as a floor: high updates every 10 s with melodies, low every 60 s with
    /// beeps, medium in between.
    @Test func bundledProfilesMeetTheRequirements() throws {
        let high = try PowerProfileLoader.load(name: "high", hardwareDir: hardwareDirectory)
        let medium = try PowerProfileLoader.load(name: "medium", hardwareDir: hardwareDirectory)
        let low = try PowerProfileLoader.load(name: "low", hardwareDir: hardwareDirectory)
        #expect(high.positionInterval == .seconds(10))
        #expect(high.alertInterval == .seconds(10))
        #expect(high.cueStyle == .melody)
        #expect(low.positionInterval == .seconds(60))
        #expect(low.alertInterval == .seconds(60))
        #expect(low.cueStyle == .beeps)
        #expect(medium.positionInterval > high.positionInterval && medium.positionInterval < low.positionInterval)
        #expect(medium.alertInterval > high.alertInterval && medium.alertInterval < low.alertInterval)
        #expect(medium.style(for: .phaseChange) == .melody)
        #expect(medium.style(for: .speedUp) == .beeps)
    }

    static let valid = """
        name: custom
        summary: A test profile.
        position_interval_s: 5
        alert_interval_s: 15
        cue_style: beeps
        cue_style_overrides:
          gps-lost: melody
        smoothing_window_s: 10
        track_flush_interval_s: 5
        """

    @Test func aValidProfileLoadsExactly() throws {
        let dir = try makeTemporaryDirectory()
        let path = try write(Self.valid, to: "custom.yaml", in: dir)
        let profile = try PowerProfileLoader.load(path: path)
        #expect(profile == PowerProfile(
            name: "custom", summary: "A test profile.", positionInterval: .seconds(5), alertInterval: .seconds(15),
            cueStyle: .beeps, cueStyleOverrides: [.gpsLost: .melody], smoothingWindow: .seconds(10),
            trackFlushInterval: .seconds(5)))
    }

    /// Auto-pause and the split cue, in km/h and km in the file, in m/s and metres loaded;
    /// `off`, like leaving them out, is none.
    @Test func autoPauseAndSplitsLoadOrAreOff() throws {
        let dir = try makeTemporaryDirectory()
        let on = try PowerProfileLoader.load(path: write(
            Self.valid + "\nauto_pause: {below_kmh: 1.8, after_s: 4.5, resume_above_kmh: 3.6}\nsplit_cue_km: 0.4\n",
            to: "custom.yaml", in: dir))
        #expect(on.autoPause == .init(below: 0.5, after: .milliseconds(4500), resumeAbove: 1.0))
        #expect(on.splitDistance == 400)
        let off = try PowerProfileLoader.load(path: write(
            Self.valid + "\nauto_pause: off\nsplit_cue_km: off\n", to: "custom.yaml", in: dir))
        #expect(off.autoPause == nil && off.splitDistance == nil)
        let absent = try PowerProfileLoader.load(path: write(Self.valid, to: "custom.yaml", in: dir))
        #expect(absent.autoPause == nil && absent.splitDistance == nil)
    }

    /// Route guidance: the file's distances, the standard ones when it says nothing; every
    /// bundled profile's corridor is wider the sparser its fixes.
    @Test func routeGuidanceLoadsOrIsTheStandard() throws {
        let dir = try makeTemporaryDirectory()
        let set = try PowerProfileLoader.load(path: write(
            Self.valid + "\nroute: {off_m: 35, back_on_m: 12.5, waypoint_ahead_m: 120}\n", to: "custom.yaml", in: dir))
        #expect(set.route == .init(offRoute: 35, backOn: 12.5, waypointAhead: 120))
        let absent = try PowerProfileLoader.load(path: write(Self.valid, to: "custom.yaml", in: dir))
        #expect(absent.route == .standard)
        let load = { (name: String) in try PowerProfileLoader.load(name: name, hardwareDir: hardwareDirectory) }
        let (high, medium, low) = (try load("high").route, try load("medium").route, try load("low").route)
        #expect(high.offRoute < medium.offRoute && medium.offRoute < low.offRoute)
        #expect(high.waypointAhead < medium.waypointAhead && medium.waypointAhead < low.waypointAhead)
    }

    /// Low and medium leave both out of the runner's way; high, the profile that tracks every
    /// second, has both.
    @Test func theBundledProfilesAutoPauseAndSplitOnlyOnHigh() throws {
        let load = { (name: String) in try PowerProfileLoader.load(name: name, hardwareDir: hardwareDirectory) }
        for name in ["low", "medium"] {
            #expect(try load(name).autoPause == nil && load(name).splitDistance == nil)
        }
        let high = try load("high")
        #expect(high.autoPause != nil && high.splitDistance == 1000)
    }

    /// The Wi-Fi radio off during a workout on low and medium, left on on high;
    /// a profile that does not say leaves it on.
    @Test func theWiFiRadioIsOffInAWorkoutOnLowAndMedium() throws {
        let load = { (name: String) in try PowerProfileLoader.load(name: name, hardwareDir: hardwareDirectory) }
        #expect(try load("low").wifiOffDuringWorkout)
        #expect(try load("medium").wifiOffDuringWorkout)
        #expect(try load("high").wifiOffDuringWorkout == false)
        let dir = try makeTemporaryDirectory()
        let plain = try write(Self.valid, to: "custom.yaml", in: dir)
        #expect(try PowerProfileLoader.load(path: plain).wifiOffDuringWorkout == false)
        for (word, value) in [("yes", true), ("no", false), ("true", true), ("false", false)] {
            let path = try write(Self.valid + "\nwifi_off_during_workout: \(word)\n", to: "custom.yaml", in: dir)
            #expect(try PowerProfileLoader.load(path: path).wifiOffDuringWorkout == value, "\(word)")
        }
    }

    /// Medium and low track for their first five minutes, so the positions can calibrate the
    /// receiver's speeds (issue 39, item 4): a workout starts in the same profile with the
    /// receiver tracking and the board awake. High tracks anyway, and a profile that does not
    /// say calibrates nothing.
    @Test func mediumAndLowStartTrackingToCalibrateTheSpeeds() throws {
        let load = { (name: String) in try PowerProfileLoader.load(name: name, hardwareDir: hardwareDirectory) }
        for name in ["medium", "low"] {
            let profile = try load(name)
            #expect(profile.calibration == .seconds(300), "\(name)")
            let starting = profile.starting
            #expect(starting.gpsMode == .tracking && !starting.boardSuspend, "\(name)")
            #expect(starting.positionInterval == profile.positionInterval && starting.alertInterval == profile.alertInterval)
            #expect(starting.name == profile.name && starting != profile)
        }
        let high = try load("high")
        #expect(high.calibration == .zero && high.starting == high)
        let dir = try makeTemporaryDirectory()
        let plain = try PowerProfileLoader.load(path: try write(Self.valid, to: "custom.yaml", in: dir))
        #expect(plain.calibration == .zero && plain.starting == plain)
        let saving = try write(Self.valid + "\ngps_mode: backup\ncalibration_s: 120\n", to: "custom.yaml", in: dir)
        let calibrating = try PowerProfileLoader.load(path: saving)
        #expect(calibrating.calibration == .seconds(120) && calibrating.starting.gpsMode == .tracking)
    }

    /// `to_go`: what sounds before a phase ends; off on every bundled profile (their goldens
    /// and energy stand), `battery compare --to-go` tries it.
    @Test func anticipationLoadsOrIsOff() throws {
        for name in ["high", "medium", "low"] {
            #expect(try PowerProfileLoader.load(name: name, hardwareDir: hardwareDirectory).anticipation.isNone, "\(name)")
        }
        let dir = try makeTemporaryDirectory()
        let on = try PowerProfileLoader.load(path: try write(Self.valid + "\nto_go: {m: 200, s: 30, countdown_s: 3}\n", to: "custom.yaml", in: dir))
        #expect(on.anticipation == .init(metres: 200, time: .seconds(30), countdown: 3))
        let off = try PowerProfileLoader.load(path: try write(Self.valid + "\nto_go: off\n", to: "custom.yaml", in: dir))
        #expect(off.anticipation.isNone)
    }

    /// Each broken file is refused with the file, the line, the key and the reason.
    @Test(arguments: [
        ("position_interval_s: 5\n", "", nil, "missing key 'position_interval_s'"),
        ("alert_interval_s: 15", "alert_interval_s: -10", "alert_interval_s", "must be from 0.1 to 3600 s, got -10"),
        ("alert_interval_s: 15", "alert_interval_s: 0", "alert_interval_s", "must be from 0.1 to 3600 s, got 0"),
        ("alert_interval_s: 15", "alert_interval_s: soon", "alert_interval_s", "expected a number, got 'soon'"),
        ("cue_style: beeps", "cue_style: trumpet", "cue_style", "'trumpet' is not one of beeps, melody"),
        ("gps-lost: melody", "gps-found: melody", "cue_style_overrides.gps-found", "unknown cue"),
        ("gps-lost: melody", "gps-lost: kazoo", "cue_style_overrides.gps-lost", "'kazoo' is not one of"),
        ("smoothing_window_s: 10", "smoothing_window_s: 2", "smoothing_window_s", "shorter than position_interval_s"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nflush_everything: yes", "flush_everything", "unknown key"),
        ("name: custom", "name: other", "name", "must match"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\ngps_mode: asleep", "gps_mode", "'asleep' is not one of tracking, power-save, backup"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nboard_suspend: maybe", "board_suspend", "expected true or false"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nwifi_off_during_workout: sometimes", "wifi_off_during_workout",
         "expected yes or no (switch the Wi-Fi radio off for the workout), got 'sometimes'"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nstep_down: {at_percent: 120, to: low}", "step_down.at_percent", "between 0 and 100"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nstep_down: {at_percent: 20, to: custom}", "step_down.to", "steps down to itself"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nstep_down: {at_percent: 20}", nil, "missing key 'step_down.to'"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nauto_pause: {below_kmh: 0, after_s: 5, resume_above_kmh: 4}", "auto_pause.below_kmh", "must be above 0 and at most 6 km/h"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nauto_pause: {below_kmh: 7, after_s: 5, resume_above_kmh: 8}", "auto_pause.below_kmh", "got 7"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nauto_pause: {below_kmh: 2, after_s: -1, resume_above_kmh: 4}", "auto_pause.after_s", "must be 0 to 60 s"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nauto_pause: {below_kmh: 2, after_s: 90, resume_above_kmh: 4}", "auto_pause.after_s", "got 90"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nauto_pause: {below_kmh: 2, after_s: 5, resume_above_kmh: 2}", "auto_pause.resume_above_kmh", "must be above below_kmh (2 km/h)"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nauto_pause: {below_kmh: 2, after_s: 5, resume_above_kmh: 12}", "auto_pause.resume_above_kmh", "and at most 8 km/h"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nauto_pause: {below_kmh: 2, after_s: 5}", nil, "missing key 'auto_pause.resume_above_kmh'"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nauto_pause: {below_kmh: 2, after_s: 5, resume_above_kmh: 4, after_m: 3}", "auto_pause.after_m", "unknown key"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nauto_pause: sometimes", "auto_pause", "expected off or {below_kmh, after_s, resume_above_kmh}, got 'sometimes'"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nauto_pause: [2, 5, 4]", "auto_pause", "expected a mapping"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nsplit_cue_km: 0", "split_cue_km", "must be 0.1 to 50 km, got 0"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nsplit_cue_km: 100", "split_cue_km", "got 100"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nsplit_cue_km: every", "split_cue_km", "expected a number of km or off, got 'every'"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nroute: {off_m: 5, back_on_m: 3, waypoint_ahead_m: 100}", "route.off_m", "must be 15 to 500 m"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nroute: {off_m: 40, back_on_m: 40, waypoint_ahead_m: 100}", "route.back_on_m", "below off_m (40 m)"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nroute: {off_m: 40, back_on_m: 20, waypoint_ahead_m: 1e20}", "route.waypoint_ahead_m", "must be 20 to 2000 m"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nroute: {off_m: 40, back_on_m: 20}", nil, "missing key 'route.waypoint_ahead_m'"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\ncalibration_s: -5", "calibration_s", "must be from 0 to 3600 s, got -5"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\ncalibration_s: soon", "calibration_s", "expected a number, got 'soon'"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nto_go: {m: 10}", "to_go.m", "must be from 50 to 2000 m, got 10"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nto_go: {s: 900}", "to_go.s", "must be from 5 to 600 s, got 900"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nto_go: {countdown_s: 2.5}", "to_go.countdown_s", "must be a whole number of seconds"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nto_go: {metres: 200}", "to_go.metres", "unknown key"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nto_go: soon", "to_go", "expected {m: METRES, s: SECONDS, countdown_s: N} or off, got 'soon'"),
    ] as [(String, String, String?, String)])
    func brokenProfilesAreRefused(replace: String, with replacement: String, key: String?, reason: String) throws {
        let dir = try makeTemporaryDirectory()
        let path = try write(Self.valid.replacingOccurrences(of: replace, with: replacement), to: "custom.yaml", in: dir)
        let error = #expect(throws: DataFileError.self) { try PowerProfileLoader.load(path: path) }
        #expect(error?.file == path)
        #expect(error?.line != nil)
        #expect(error?.key == key)
        #expect(error?.reason.contains(reason) == true, "\(String(describing: error))")
    }

    @Test func aStepDownChainIsFollowedAndAMissingOrCircularOneRefused() throws {
        // The bundled chain: high steps to medium, medium to low.
        let high = try PowerProfileLoader.load(name: "high", hardwareDir: hardwareDirectory)
        let chain = try PowerProfileLoader.stepDownChain(from: high, hardwareDir: hardwareDirectory)
        #expect(Set(chain.keys) == ["medium", "low"])
        #expect(high.stepDown == .init(percent: 30, to: "medium"))
        #expect(chain["low"]?.gpsMode == .backup && chain["low"]?.boardSuspend == true)

        let dir = try makeTemporaryDirectory()
        _ = try write(Self.valid + "\nstep_down: {at_percent: 20, to: nowhere}\n", to: "profiles/custom.yaml", in: dir)
        let custom = try PowerProfileLoader.load(name: "custom", hardwareDir: dir)
        let missing = #expect(throws: DataFileError.self) { try PowerProfileLoader.stepDownChain(from: custom, hardwareDir: dir) }
        #expect(missing?.description.contains("step_down.to: no profile 'nowhere'") == true, "\(String(describing: missing))")
        _ = try write(Self.valid.replacingOccurrences(of: "name: custom", with: "name: other")
            + "\nstep_down: {at_percent: 10, to: custom}\n", to: "profiles/other.yaml", in: dir)
        _ = try write(Self.valid + "\nstep_down: {at_percent: 20, to: other}\n", to: "profiles/custom.yaml", in: dir)
        let loop = try PowerProfileLoader.load(name: "custom", hardwareDir: dir)
        let circular = #expect(throws: DataFileError.self) { try PowerProfileLoader.stepDownChain(from: loop, hardwareDir: dir) }
        #expect(circular?.description.contains("steps back into the chain") == true)
    }

    @Test func notYAMLIsRefusedWithTheLine() throws {
        let dir = try makeTemporaryDirectory()
        let path = try write("name: custom\nsummary: [unclosed\n", to: "custom.yaml", in: dir)
        let error = #expect(throws: DataFileError.self) { try PowerProfileLoader.load(path: path) }
        #expect(error?.reason.hasPrefix("not valid YAML") == true)
        #expect(error?.line != nil)
    }

    @Test func emptyAndMissingFilesAreRefused() throws {
        let dir = try makeTemporaryDirectory()
        let empty = try write("", to: "custom.yaml", in: dir)
        #expect(throws: DataFileError.self) { try PowerProfileLoader.load(path: empty) }
        let error = #expect(throws: DataFileError.self) {
            try PowerProfileLoader.load(name: "turbo", hardwareDir: hardwareDirectory)
        }
        #expect(error?.reason.contains("no profile 'turbo'") == true)
        #expect(error?.reason.contains("high") == true)
    }
}
