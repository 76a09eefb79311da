import Coaching
import PacerCore

/// A track point's readings (`TrackPoint.readings`: the fixes since the point before that
/// were no position update) as the `readings` column keeps them: one reading after another,
/// `;` between them, each `MS,LAT,LON,SPEED,COURSE` with MS the milliseconds before the
/// point's own time and each number Swift's shortest decimal that reads back to the same
/// Double (a speed or a course the receiver did not give is left empty):
/// `9000,52.0883172,4.3303835,3.0124,125.2;8000,…`. NULL when there are none.
enum TrackReadings {
    /// The most readings one point keeps: a row stays small whatever a writer hands over.
    static let maximumPerPoint = 1200

    /// What the store keeps: positions on the Earth, times before the point's, finite
    /// figures, at most `maximumPerPoint`.
    static func kept(_ readings: [TrackReading], before time: UTCTimestamp) -> [TrackReading] {
        guard !readings.isEmpty else { return [] }
        var kept: [TrackReading] = []
        for r in readings where kept.count < maximumPerPoint {
            guard r.time < time, r.position.latitude.isFinite, r.position.longitude.isFinite,
                  abs(r.position.latitude) <= 90, abs(r.position.longitude) <= 180 else { continue }
            var reading = r
            reading.speed = r.speed.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
            reading.course = r.course.flatMap { $0.isFinite ? $0 : nil }
            kept.append(reading)
        }
        return kept
    }

    static func text(_ readings: [TrackReading], pointTime: UTCTimestamp) -> String? {
        guard !readings.isEmpty else { return nil }
        return readings.map { r in
            let before = pointTime.millisecondsSince1970 - r.time.millisecondsSince1970
            return "\(before),\(r.position.latitude),\(r.position.longitude),\(r.speed.map { "\($0)" } ?? ""),\(r.course.map { "\($0)" } ?? "")"
        }.joined(separator: ";")
    }

    /// The readings of a column's text; a reading that does not read (a row edited by hand)
    /// is skipped rather than failing the whole activity's read.
    static func readings(_ text: String?, pointTime: UTCTimestamp) -> [TrackReading] {
        guard let text, !text.isEmpty else { return [] }
        var readings: [TrackReading] = []
        for item in text.split(separator: ";") {
            let f = item.split(separator: ",", omittingEmptySubsequences: false)
            guard f.count == 5, let before = Int64(f[0]), before > 0,
                  let lat = Double(f[1]), let lon = Double(f[2]) else { continue }
            readings.append(TrackReading(
                time: UTCTimestamp(millisecondsSince1970: pointTime.millisecondsSince1970 - before),
                position: GeoPoint(latitude: lat, longitude: lon), speed: Double(f[3]), course: Double(f[4])))
        }
        return kept(readings, before: pointTime)
    }
}
