@testable import Charts
import Coaching
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import PacerCore
import Testing

/// Fails the test when `text` is not well-formed XML (the SVG pictures and the report pages
/// are both written to be).
func expectWellFormed(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let parser = XMLParser(data: Data(text.utf8))
    let ok = parser.parse()
    #expect(ok, "not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "?") at line \(parser.lineNumber)",
            sourceLocation: sourceLocation)
}

/// `count` points going north from (lat, lon) at `speed` m/s, one every `every` seconds,
/// from `start`; in `segment`.
func northbound(
    count: Int, from lat: Double = 52, lon: Double = 4.3, speed: Double, every: Double = 10,
    start: UTCTimestamp, segment: Int = 0, altitude: (Int) -> Double = { _ in 10 }
) -> [TrackPoint] {
    let metresPerDegree = Geodesy.earthRadius * .pi / 180
    return (0..<count).map { i in
        TrackPoint(segment: segment, time: start.adding(seconds: Double(i) * every),
                   position: GeoPoint(latitude: lat + Double(i) * every * speed / metresPerDegree, longitude: lon),
                   altitude: altitude(i), speed: speed)
    }
}

extension UTCTimestamp {
    func adding(seconds: Double) -> UTCTimestamp {
        UTCTimestamp(millisecondsSince1970: millisecondsSince1970 + Int64((seconds * 1000).rounded()))
    }
}

let morning = UTCTimestamp(millisecondsSince1970: 1_777_705_200_000)  // 2026-05-02 07:00:00 UTC

/// An activity as the store would give it.
func activity(
    name: String = "Test run", points: [TrackPoint], waypoints: [Waypoint] = [], cues: [CueRecord] = [],
    phases: [PhaseResult] = [], timer: Duration? = nil, source: String? = nil
) -> ActivityReportInput {
    let statistics = ActivityStatistics(points: points)
    let elapsed = points.count > 1
        ? Duration.milliseconds(points.last!.time.millisecondsSince1970 - points.first!.time.millisecondsSince1970) : .zero
    return ActivityReportInput(
        id: 7, name: name, state: "completed", startedAt: points.first?.time, endedAt: points.last?.time,
        plan: source == nil ? "Plan" : nil, workout: source == nil ? "Workout" : nil, profile: source == nil ? "medium" : nil,
        source: source, distance: statistics.distance, timer: timer ?? elapsed, elapsedTime: elapsed,
        movingTime: statistics.movingTime, averageSpeed: statistics.averageSpeed, maximumSpeed: statistics.maximumSpeed,
        points: points, waypoints: waypoints, cues: cues, phases: phases, statistics: statistics)
}
