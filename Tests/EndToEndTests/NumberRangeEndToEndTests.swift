import Foundation
import TestSupport
import Testing

/// Every numeric option is checked against its range before anything converts it: a value
/// out of range is refused as ArgumentParser refuses a malformed one, naming the option, the
/// range and the value, with the usage and exit status 64, never a trap in a conversion to
/// Int64 (SIGILL, exit 132) nor "got null".
@Suite("Numbers on the command line")
struct NumberRangeEndToEndTests {
    static let recording = Pacer.trackLoop

    @Test(arguments: [
        (["gps", "watch", "--source", "file:\(recording)?pace=fast", "--seconds", "9.3e9"],
         "--seconds: must be above 0 and at most 604800 s, got 9300000000"),
        (["gps", "watch", "--source", "file:\(recording)?pace=fast", "--seconds", "nan"],
         "--seconds: must be above 0 and at most 604800 s, got nan"),
        (["gps", "watch", "--source", "file:\(recording)?speed=1e-300", "--count", "1"],
         "speed=1e-300: must be from 0.01 to 10000 times real time, got 1e-300"),
        (["nmea", "synth", "--route", "\(repositoryRoot)/Scenarios/routes/park-loop.gpx", "--stretch", "60@10",
          "--rate", "1e20"],
         "--rate: must be between one a minute (0.016667) and 20 Hz, got 1e+20"),
        (["nmea", "synth", "--route", "\(repositoryRoot)/Scenarios/routes/park-loop.gpx", "--stretch", "60@10",
          "--acquire", "1e300"],
         "--acquire: must be from 0 to 3600 s, got 1e+300"),
        (["ctl", "status", "--timeout", "1e20"], "--timeout: must be above 0 and at most 600 s, got 1e+20"),
        (["scenario", "run", "\(repositoryRoot)/Scenarios/steady", "--speed", "1e-300"],
         "--speed: must be from 0.01 to 10000 times real time, got 1e-300"),
        (["hw", "check", "--listen", "inf"], "--listen: must be from 0 to 600 s, got inf"),
        (["run", "--plan", "demo", "--source", "none", "--fast", "--today", "99999999999-01-01"],
         "--today '99999999999-01-01': expected a date YYYY-MM-DD"),
        (["plan", "create", "--goal", "5km", "--weight", "1e20", "--height", "170", "--frequency", "3"],
         "--weight: must be from 30 to 250 kg, got 1e+20"),
        (["plan", "create", "--goal", "5km", "--weight", "70", "--height", "170", "--frequency", "99999999999"],
         "--frequency: must be from 1 to 7 days a week, got 99999999999"),
    ])
    func outOfRangeOptionsAreRefusedWithTheRange(arguments: [String], message: String) throws {
        let result = try Pacer.run(arguments)
        #expect(result.status == 64, "\(arguments): \(result.status) \(result.stderr)")
        #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains("Usage:") || result.stderr.contains("Help:"), "\(arguments): \(result.stderr)")
        #expect(!result.stderr.contains("null"), "\(arguments): \(result.stderr)")
    }
}
