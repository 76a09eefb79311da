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
            case "file", "activity":
                return try makeReplay(uri, clock: clock, hotStart: hotStart, powerSavePeriod: powerSavePeriod)
            case "none":
                return nil
            default:
                throw ConfigurationError(
                    "unknown GPS source '\(uri)' (known: gpsd://HOST:PORT, serial:///DEVICE?baud=N, file:PATH, activity:ID, none)")
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
        try makeTrackReplay(uri, clock: clock, hotStart: hotStart, powerSavePeriod: powerSavePeriod).source
    }

    /// A replayed recording and, when it is a past run with heart rates (a GPX, TCX or FIT
    /// file, a stored activity), the strap's stream that goes with it.
    ///
    /// `file:RUN.gpx` (or `.tcx`, `.fit`, told by the file's first bytes): the run is written
    /// as its receiver would have sent it (`TrackSynthesizer`) into a temporary recording,
    /// unlinked once opened, and replayed like an NMEA file, named by the track's file.
    /// `activity:ID[?data=DIR]`: a stored activity of the data folder (`dataDirectory`, or
    /// `data=`), read and closed before the device opens its store.
    public static func makeTrackReplay(
        _ uri: DeviceURI, clock: any PacerClock, hotStart: Duration? = nil, powerSavePeriod: Duration = .seconds(10),
        dataDirectory: String? = nil
    ) throws(ConfigurationError) -> (source: NMEAFileSource, heartRate: HeartRateStream?) {
        if uri.scheme == "activity" {
            var recording = uri
            recording.scheme = "file"
            recording.query["data"] = nil
            let timeline = try storedActivity(uri, dataDirectory: dataDirectory)
            return try replay(timeline, uri: recording, label: "activity:\(uri.path)", clock: clock, hotStart: hotStart,
                              powerSavePeriod: powerSavePeriod)
        }
        if !uri.path.isEmpty, TrackReplayLoader.format(of: uri.path) != nil {
            let timeline = try TrackReplayLoader.load(path: uri.path)
            return try replay(timeline, uri: uri, label: uri.path, clock: clock, hotStart: hotStart, powerSavePeriod: powerSavePeriod)
        }
        return (try makeNMEAReplay(uri, clock: clock, hotStart: hotStart, powerSavePeriod: powerSavePeriod), nil)
    }

    /// `activity:ID[?data=DIR]`'s run, read from the store (opened for reading, and closed).
    public static func storedActivity(_ uri: DeviceURI, dataDirectory: String?) throws(ConfigurationError) -> TrackTimeline {
        guard let id = Int64(uri.path), id > 0 else {
            throw ConfigurationError("'\(uri)': an activity is named by its number (activity:12; pacer activities list)")
        }
        guard let directory = uri.query["data"] ?? dataDirectory else {
            throw ConfigurationError("'\(uri)': no data folder to read the activity from (activity:\(id)?data=DIR)")
        }
        let store: PacerStore
        do {
            store = try openActivityStore(directory: directory, access: .read)
        } catch {
            throw ConfigurationError("'\(uri)': \(error)", cause: error)
        }
        defer { try? store.database.close() }
        return try TrackReplayLoader.load(activity: id, store: store)
    }

    /// `timeline` written as a recording into a temporary file, opened as `uri`'s replay (its
    /// pace and faults) and unlinked: nothing is left behind, whatever happens next.
    static func replay(
        _ timeline: TrackTimeline, uri: DeviceURI, label: String, clock: any PacerClock, hotStart: Duration?,
        powerSavePeriod: Duration
    ) throws(ConfigurationError) -> (source: NMEAFileSource, heartRate: HeartRateStream?) {
        let path = try TrackRecordingFile.write(timeline)
        defer { unlink(path) }
        var temporary = uri
        temporary.path = path
        let source = try makeNMEAReplay(temporary, clock: clock, hotStart: hotStart, powerSavePeriod: powerSavePeriod, label: label)
        return (source, TrackSynthesizer(timeline).heartRateStream())
    }

    static func makeNMEAReplay(
        _ uri: DeviceURI, clock: any PacerClock, hotStart: Duration? = nil, powerSavePeriod: Duration = .seconds(10),
        label: String? = nil
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
            if label == nil, let refusal = notARecording(uri.path) {
                throw ConfigurationError("\(uri.path): \(refusal)", cause: DataFileError(file: uri.path, reason: refusal))
            }
            return try NMEAFileSource(
                path: uri.path, clock: clock, pace: pace, speed: speed, faults: faults,
                hotStart: hotStart ?? .seconds(1), powerSavePeriod: powerSavePeriod, label: label)
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError("\(error)", cause: error)
        }
    }

    /// Why the file at `path` is no recording, when its first bytes say so: an XML document
    /// that is not a GPX or TCX file (those, and FIT files, are replayed as the runs they
    /// hold). Nil when it may be NMEA (or cannot be read: the replay says why).
    static func notARecording(_ path: String) -> String? {
        guard TrackReplayLoader.format(of: path) == nil, let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 1024)) ?? Data())
        let text = String(decoding: head.drop { [0xEF, 0xBB, 0xBF, 0x20, 0x09, 0x0A, 0x0D].contains($0) }, as: UTF8.self)
        guard text.hasPrefix("<") else { return nil }
        return "an XML file that is neither GPX nor TCX, not a recording: a source replays a receiver's NMEA or a run's GPX, TCX or FIT file"
    }
}
