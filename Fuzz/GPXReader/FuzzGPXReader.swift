// libFuzzer target: the GPX reader on arbitrary bytes, as `pacer activities import` and
// `pacer nmea synth --route` read a file (`scripts/fuzz.sh gpx`).
import Coaching
import Configurator
import Foundation
import PacerCore
import Storage

/// One input: a whole file. A document that reads is then taken as far as an import and a
/// synthesis route take it without a database: its track's statistics (distance, times,
/// speeds, elevations: the numbers the file gave, converted), its route's statistics, and
/// the synthesiser's route check.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGPXReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    guard let document = try? GPXReader.parse(bytes, file: "fuzz.gpx") else { return 0 }
    var points: [TrackPoint] = []
    for (index, segment) in document.tracks.flatMap(\.segments).enumerated() {
        for p in segment {
            guard let time = p.time else { continue }
            points.append(TrackPoint(segment: index, time: time, position: p.position, altitude: p.altitude, speed: p.speed))
        }
    }
    _ = ActivityStatistics(points: points)
    let route = document.routes.flatMap(\.points) + document.tracks.flatMap { $0.segments.flatMap { $0 } }
    _ = PathStatistics(segments: [route.map { PathPoint(position: $0.position, altitude: $0.altitude, time: $0.time) }])
    _ = try? SynthRecipeLoader.route(from: document, file: "fuzz.gpx")
    return 0
}
