import Configurator
import Foundation
import HAL
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

    /// Each broken file is refused with the file, the line, the key and the reason.
    @Test(arguments: [
        ("position_interval_s: 5\n", "", nil, "missing key 'position_interval_s'"),
        ("alert_interval_s: 15", "alert_interval_s: -10", "alert_interval_s", "must be positive, got -10"),
        ("alert_interval_s: 15", "alert_interval_s: 0", "alert_interval_s", "must be positive, got 0"),
        ("alert_interval_s: 15", "alert_interval_s: soon", "alert_interval_s", "expected a number, got 'soon'"),
        ("cue_style: beeps", "cue_style: trumpet", "cue_style", "'trumpet' is not one of beeps, melody"),
        ("gps-lost: melody", "gps-found: melody", "cue_style_overrides.gps-found", "unknown cue"),
        ("gps-lost: melody", "gps-lost: kazoo", "cue_style_overrides.gps-lost", "'kazoo' is not one of"),
        ("smoothing_window_s: 10", "smoothing_window_s: 2", "smoothing_window_s", "shorter than position_interval_s"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nflush_everything: yes", "flush_everything", "unknown key"),
        ("name: custom", "name: other", "name", "must match"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\ngps_mode: asleep", "gps_mode", "'asleep' is not one of tracking, power-save, backup"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nboard_suspend: maybe", "board_suspend", "expected true or false"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nstep_down: {at_percent: 120, to: low}", "step_down.at_percent", "between 0 and 100"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nstep_down: {at_percent: 20, to: custom}", "step_down.to", "steps down to itself"),
        ("track_flush_interval_s: 5", "track_flush_interval_s: 5\nstep_down: {at_percent: 20}", nil, "missing key 'step_down.to'"),
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
