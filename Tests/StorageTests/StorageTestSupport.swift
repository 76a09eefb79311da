import Coaching
import Foundation
import PacerCore
import Storage
import TestSupport
import Testing

/// The GPX 1.1 schema, beside the repository (`../shared/schemas/gpx-1.1.xsd`).
let gpxSchema = (repositoryRoot as NSString).deletingLastPathComponent + "/shared/schemas/gpx-1.1.xsd"

/// Validates a GPX file against the GPX 1.1 schema with xmllint.
func validateGPX(_ path: String) throws {
    let xmllint = ["/usr/bin/xmllint", "/usr/local/bin/xmllint", "/opt/homebrew/bin/xmllint"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }
    guard let xmllint else {
        Issue.record("xmllint is missing: install it with `apt-get install libxml2-utils`")
        return
    }
    guard FileManager.default.fileExists(atPath: gpxSchema) else {
        Issue.record("the GPX 1.1 schema is missing at \(gpxSchema)")
        return
    }
    let result = try Program.run(xmllint, ["--noout", "--nonet", "--schema", gpxSchema, path])
    #expect(result.status == 0, "xmllint refused \(path): \(result.output)")
}

let t0 = UTCTimestamp(millisecondsSince1970: 1_714_550_400_000)  // 2024-05-01T08:00:00Z
let metresPerDegree = Geodesy.earthRadius * .pi / 180

func time(_ seconds: Double) -> UTCTimestamp {
    UTCTimestamp(millisecondsSince1970: t0.millisecondsSince1970 + Int64((seconds * 1000).rounded()))
}

/// A recording in two segments, with waypoints, cues and phase results. Coordinates have at
/// most seven decimals and altitudes and speeds at most three, so they survive GPX text exactly.
struct SampleActivity {
    var start = ActivityStart(name: "Tempo <Tuesday> & co", startedAt: t0, plan: "10k in 50", workout: "Tempo",
                              profile: "medium")
    var points: [TrackPoint] = []
    var waypoints: [Waypoint] = []
    var cues: [CueRecord] = []
    var results: [PhaseResult] = []

    init() {
        for i in 0..<20 {
            points.append(TrackPoint(segment: 0, time: time(Double(i)),
                                     position: GeoPoint(latitude: (451_000_000 + Double(i) * 300) / 1e7, longitude: 6.2),
                                     altitude: 200 + Double(i) * 0.5, speed: 3.25))
        }
        for i in 0..<15 {
            points.append(TrackPoint(segment: 1, time: time(Double(60 + i)),
                                     position: GeoPoint(latitude: 45.1006, longitude: (62_000_000 + Double(i) * 400) / 1e7),
                                     altitude: i == 3 ? nil : 210.125, speed: i == 0 ? nil : 2.75))
        }
        waypoints = [
            Waypoint(name: "Bridge", time: time(5), position: GeoPoint(latitude: 45.10015, longitude: 6.2),
                     altitude: 202.5, atLastKnownPosition: false),
            Waypoint(name: "Fountain \"north\"", time: time(61), position: GeoPoint(latitude: 45.1006, longitude: 6.20004),
                     altitude: nil, atLastKnownPosition: true),
        ]
        cues = [
            CueRecord(elapsed: .seconds(0), cue: "start", phase: 0),
            CueRecord(elapsed: .milliseconds(12_500), cue: "faster", phase: 0),
            CueRecord(elapsed: .seconds(30), cue: "end", phase: nil),
        ]
        results = [
            PhaseResult(index: 0, name: "Warm-up", duration: .seconds(20), timeInBand: .milliseconds(15_500),
                        distance: 63.25, minimumSpeed: 2.5, maximumSpeed: 3.5),
            PhaseResult(index: 1, name: "Tempo", duration: .seconds(15), timeInBand: .seconds(12),
                        distance: 44.5, minimumSpeed: 3.0, maximumSpeed: 4.0),
        ]
    }

    /// Records it into a store, committing at the end; returns the id.
    func record(into store: PacerStore, end: ActivityEnd = .completed) throws -> Int64 {
        let id = try store.activities.begin(start)
        for p in points { try store.activities.append(p, to: id) }
        for w in waypoints { try store.activities.add(w, to: id) }
        for c in cues { try store.activities.add(c, to: id) }
        for r in results { try store.activities.add(r, to: id) }
        try store.activities.finish(id, end: end, endedAt: time(75), activeTime: .seconds(34))
        return id
    }
}
