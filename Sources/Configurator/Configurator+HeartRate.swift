import Foundation
import HAL
import LinuxHardware
import Logging
import PacerCore
import Simulation
import Storage

extension Configurator {
    /// The heart-rate strap `uri` names (`heart_rate:` in the settings): `sim:FILE` replays a
    /// recorded stream (`?skip=SECONDS`: a device booted again mid-run hears the rest), `bluez`
    /// or `bluez:ADDRESS` a Bluetooth strap through BlueZ (`?adapter=hci1`); nil: none, and the
    /// Bluetooth radio is left as it is.
    public static func makeHeartRateSource(
        _ uri: DeviceURI?, clock: any PacerClock, logger: Logger
    ) throws(ConfigurationError) -> (any HeartRateSource)? {
        guard let uri else { return nil }
        switch uri.scheme {
        case "none":
            return nil
        case "sim":
            let path = uri.path
            guard !path.isEmpty else {
                throw ConfigurationError("heart_rate: sim needs a recorded stream: sim:FILE (a .csv stream)")
            }
            let stream = try loadHeartRateStream(path: path)
            var skip = Duration.zero
            if let text = uri.query["skip"] {
                guard let s = Double(text), s >= 0, s.isFinite else {
                    throw ConfigurationError("heart_rate: \(uri): skip must be seconds, got '\(text)'")
                }
                skip = .milliseconds(Int64((s * 1000).rounded()))
            }
            return RecordedHeartRateSource(
                stream: stream, name: "sim:" + (path as NSString).lastPathComponent, clock: clock, skip: skip)
        default:
            return try makeBlueZHeartRateSource(uri, logger: logger)
        }
    }

    /// Reads a recorded heart-rate stream: a `.csv` stream (`HeartRateStream`), or a FIT
    /// activity's records (their heart rates and RR intervals, at their seconds from the first
    /// record: a watch's run replayed as its strap sent it).
    public static func loadHeartRateStream(path: String) throws(ConfigurationError) -> HeartRateStream {
        if path.lowercased().hasSuffix(".fit") { return try heartRateStream(fit: path) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("\(path): cannot be read (heart_rate: sim:FILE names a recorded stream)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError("\(path): not UTF-8 text (a heart-rate stream is seconds,bpm lines)")
        }
        do {
            return try HeartRateStream.parse(text, file: path)
        } catch {
            throw ConfigurationError(error.description, cause: error)
        }
    }

    /// The heart rates of a FIT activity's records as a stream.
    static func heartRateStream(fit path: String) throws(ConfigurationError) -> HeartRateStream {
        let data: FITActivityData
        do {
            data = try FITReader.read(path: path)
        } catch {
            throw ConfigurationError("\(path): \(error)", cause: error)
        }
        guard let first = data.points.first?.time.millisecondsSince1970 else {
            throw ConfigurationError("\(path): no records: a FIT activity with heart rates is needed")
        }
        var rows: [(seconds: Double, row: HeartRateStream.Row)] = []
        for p in data.points {
            guard let bpm = p.heartRate else { continue }
            let seconds = Double(p.time.millisecondsSince1970 - first) / 1000
            guard seconds >= (rows.last?.seconds ?? 0) else { continue }  // a clock stepping back: skipped
            rows.append((seconds, .measurement(HeartRateMeasurement(bpm: bpm, contact: .detected, rrIntervals: p.rrIntervals))))
        }
        guard !rows.isEmpty else { throw ConfigurationError("\(path): its records carry no heart rate") }
        return HeartRateStream(rows: rows)
    }
}

extension Configurator {
    /// `bluez` (the first strap found) or `bluez:ADDRESS`, on `?adapter=hciN` (default: the
    /// first adapter BlueZ has).
    static func makeBlueZHeartRateSource(_ uri: DeviceURI, logger: Logger) throws(ConfigurationError) -> any HeartRateSource {
        guard uri.scheme == "bluez" else {
            throw ConfigurationError("heart_rate: unknown source '\(uri)' (known: bluez, bluez:ADDRESS, sim:FILE, none)")
        }
        do {
            return try BlueZHeartRateSource(
                address: uri.path.isEmpty ? nil : uri.path, adapter: uri.query["adapter"], logger: logger)
        } catch {
            throw ConfigurationError("heart_rate: \(uri): \(error)", cause: error)
        }
    }
}
