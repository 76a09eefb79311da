import ArgumentParser
import Configurator

extension AllowedRange {
    /// Refuses an option's number outside the range before anything converts it, as
    /// ArgumentParser refuses a malformed one: `Error: --seconds: must be above 0 and at most
    /// 604800 s, got 9300000000` with the usage, exit status 64.
    func check(_ value: Double?, option: String) throws {
        guard let value, !contains(value) else { return }
        throw ValidationError("\(option): \(refusal(of: value))")
    }

    /// The ranges of the commands' numeric options, named where the options are.
    /// `pacer gps watch --seconds`: up to a week.
    static let watchSeconds = AllowedRange(above: 0, atMost: 7 * 86_400, unit: "s")
    /// `pacer ctl --timeout`: up to ten minutes.
    static let controlTimeout = AllowedRange(above: 0, atMost: 600, unit: "s")
    /// `pacer scenario run --speed`: a hundredth of real time to ten thousand times it.
    static let scenarioSpeed = AllowedRange(0.01...10_000, unit: "times real time")
    /// `pacer hw check --listen`: up to ten minutes.
    static let listenSeconds = AllowedRange(0...600, unit: "s")
}
