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

/// The receiver and its time: a GPS source by its URI (gpsd, a serial port, a replayed
/// recording, none), and the system clock its time is checked against.
extension Configurator {
    /// The system clock the receiver's time is checked against (a receiver with a
    /// week-rollover fault dates its fixes 1024 weeks early):
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
            if let refusal = notARecording(uri.path) {
                throw ConfigurationError("\(uri.path): \(refusal)", cause: DataFileError(file: uri.path, reason: refusal))
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

    /// Why the file at `path` is no NMEA recording, when its first bytes say so: a GPX, TCX
    /// or other XML document, or a FIT file (a track from a watch, given as a source, replayed
    /// as nothing: "end of recording", 75 gps-lost cues and a "completed" run of 0 km). Nil
    /// when it may be NMEA (or cannot be read: the replay says why).
    static func notARecording(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 1024)) ?? Data())
        if FITReader.startsWithHeader(head) {
            return "a FIT file, not an NMEA recording: a source replays a receiver's NMEA (import the run "
                + "with pacer activities import; follow its line with pacer run --route)"
        }
        let text = String(decoding: head.drop { [0xEF, 0xBB, 0xBF, 0x20, 0x09, 0x0A, 0x0D].contains($0) }, as: UTF8.self)
        guard text.hasPrefix("<") else { return nil }
        if text.contains("<gpx") {
            return "a GPX file, not an NMEA recording: a source replays a receiver's NMEA (make one from its track "
                + "with pacer nmea synth --route FILE --out FILE.nmea; import the run with pacer activities import)"
        }
        let kind = text.contains("TrainingCenterDatabase") ? "TCX" : "XML"
        return "a \(kind) file, not an NMEA recording: a source replays a receiver's NMEA"
    }
}
