// libFuzzer target: the TCX reader on arbitrary bytes, as `pacer run --source file:RUN.tcx`
// and `pacer nmea synth --track` read a file (`scripts/fuzz.sh tcx`).
import Foundation
import PacerCore
import Simulation
import Storage

/// One input: a whole file. Its trackpoints go into a replay's timeline as the loader puts
/// them (`TrackReplayLoader`), and a timeline that holds a run is written as the replay
/// writes it: its first cycles, and its heart rates when the run is short.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTCXReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    var timeline = TrackTimeline(source: "fuzz.tcx")
    do {
        _ = try TCXReader.parse(bytes, file: "fuzz.tcx") { point in
            if point.startsTrack { timeline.breakSegment() }
            try timeline.append(
                TrackSample(time: point.time, position: point.position, altitude: point.altitude, speed: point.speed,
                            distance: point.distance, heartRate: point.heartRate),
                place: "line \(point.line)")
        }
        timeline.forgetSegmentEndDistances()
        try timeline.finish()
    } catch {
        return 0
    }
    var synthesizer = TrackSynthesizer(timeline)
    var out: [UInt8] = []
    for _ in 0..<300 {
        guard synthesizer.next(appendingTo: &out) != nil else { break }
    }
    if timeline.duration < 600 { _ = synthesizer.heartRateStream() }
    return 0
}
