import Foundation
import NMEA
import PacerCore
@testable import Simulation
import Testing

/// A past run written as its receiver would have sent it (`TrackSynthesizer`, issue 43),
/// decoded back by the project's own NMEA engine.
@Suite("Track replay synthesis")
struct TrackSynthesizerTests {
    static let start = UTCTimestamp(millisecondsSince1970: 1_777_705_200_000)  // 2026-05-02T07:00:00Z
    static let origin = GeoPoint(latitude: 52.1, longitude: 4.3)

    static func at(_ seconds: Double) -> UTCTimestamp {
        UTCTimestamp(millisecondsSince1970: start.millisecondsSince1970 + Int64((seconds * 1000).rounded()))
    }

    /// A sample `metres` north of the origin at `seconds`.
    static func sample(_ seconds: Double, _ metres: Double, speed: Double? = nil, distance: Double? = nil,
                       heartRate: Int? = nil) -> TrackSample {
        TrackSample(time: at(seconds), position: SynthFixture.offset(origin, metres: metres, bearing: 0), altitude: 10,
                    speed: speed, distance: distance, heartRate: heartRate)
    }

    static func timeline(_ segments: [[TrackSample]], start: UTCTimestamp? = nil) throws -> TrackTimeline {
        var t = TrackTimeline(source: "test")
        t.start = start
        for segment in segments {
            t.breakSegment()
            for (i, s) in segment.enumerated() { try t.append(s, place: "point \(i + 1)") }
        }
        try t.finish()
        return t
    }

    static func decode(_ synthesizer: inout TrackSynthesizer) -> [NMEAEpoch] {
        let bytes = synthesizer.recording()
        var decoder = NMEADecoder()
        var epochs: [NMEAEpoch] = []
        bytes.withUnsafeBufferPointer { decoder.feed($0) { epochs.append($0) } }
        decoder.finish { epochs.append($0) }
        return epochs
    }

    static func fixes(_ epochs: [NMEAEpoch]) -> [Fix?] {
        epochs.map { if case .fix(let f) = $0 { f } else { nil } }
    }

    /// Samples 10 s apart with the device's odometer: a cycle a second, each sample written
    /// where and when it was with its speed; the speeds between make the sum a device's
    /// odometer counts (the mean of consecutive speeds over each second) the file's distance.
    @Test func sparseSamplesAreFilledToTheirOdometer() throws {
        let samples = [
            Self.sample(0, 0, speed: 3.0, distance: 0), Self.sample(10, 31, speed: 3.2, distance: 33),
            Self.sample(20, 60, speed: 2.8, distance: 63.5),
        ]
        var synth = TrackSynthesizer(try Self.timeline([samples]))
        let fixes = Self.fixes(Self.decode(&synth))
        #expect(fixes.count == 21 + Int(TrackSynthesizer.tailSeconds))
        #expect(fixes.allSatisfy { $0 != nil })
        for (k, s) in samples.enumerated() {
            let f = try #require(fixes[k * 10])
            #expect(f.time == s.time)
            #expect(Geodesy.distance(f.position, s.position) < 0.03)
            #expect(abs((f.speed ?? 0) - s.speed!) < 0.001)
            #expect(f.altitude == 10)
        }
        var odometer = 0.0
        for i in 1...20 { odometer += ((fixes[i - 1]?.speed ?? 0) + (fixes[i]?.speed ?? 0)) / 2 }
        #expect(abs(odometer - 63.5) < 0.02, "\(odometer)")
        // Between the samples the runner moves on north, never back.
        let north = fixes[0...20].map { $0!.position.latitude }
        #expect(zip(north, north.dropFirst()).allSatisfy { $0 < $1 })
        // After the last sample: on at its speed and course for a minute.
        let tail = try #require(fixes.last ?? nil)
        #expect(abs(Geodesy.distance(tail.position, samples[2].position) - 2.8 * TrackSynthesizer.tailSeconds) < 0.5)
    }

    /// A file without speeds or distances: each sample's speed is the mean of its legs'
    /// straight lines, the same at the end of one leg and the start of the next.
    @Test func samplesWithoutSpeedsTakeTheirLegs() throws {
        let t = try Self.timeline([[Self.sample(0, 0), Self.sample(10, 30), Self.sample(20, 50)]])
        let speeds = t.segments[0].map(\.speed)
        #expect(abs(speeds[0]! - 3) < 0.001 && abs(speeds[1]! - 2.5) < 0.001 && abs(speeds[2]! - 2) < 0.001)
        #expect(abs(t.distance - 50) < 0.01)
    }

    /// Fixes kept between the samples (a stored run's readings) are written as they were.
    @Test func readingsAreWrittenAsTheyWere() throws {
        var b = Self.sample(4, 12, speed: 3, distance: 12)
        b.readings = (1...3).map { k in
            TrackSample.Reading(time: Self.at(Double(k)), position: SynthFixture.offset(Self.origin, metres: Double(k) * 2.9, bearing: 3),
                                speed: 2.5 + Double(k) / 10, course: 3)
        }
        var synth = TrackSynthesizer(try Self.timeline([[Self.sample(0, 0, speed: 3, distance: 0), b]]))
        let fixes = Self.fixes(Self.decode(&synth))
        for r in b.readings {
            let f = try #require(fixes[Int(r.time.millisecondsSince1970 - Self.start.millisecondsSince1970) / 1000])
            #expect(Geodesy.distance(f.position, r.position) < 0.03)
            #expect(abs(f.speed! - r.speed!) < 0.001)
            #expect(abs(f.course! - 3) < 0.01)
        }
    }

    /// Before the first sample (a stored run's start), the receiver searches; between two
    /// segments it stands where the runner stopped when the next starts close by (a pause),
    /// and has no fix when it starts far away (the runner went on, unseen).
    @Test func theStartAndTheGapsBetweenSegments() throws {
        let pause = [[Self.sample(0, 0, speed: 3), Self.sample(5, 15, speed: 3)], [Self.sample(15, 20, speed: 3), Self.sample(20, 35, speed: 3)]]
        var synth = TrackSynthesizer(try Self.timeline(pause, start: Self.at(-3)))
        #expect(synth.lead == 3)
        var fixes = Self.fixes(Self.decode(&synth))
        #expect(fixes[0...2].allSatisfy { $0 == nil })
        #expect(fixes[3]?.time == Self.at(0))
        for i in 9...17 {
            #expect(fixes[i]?.speed == 0, "\(i)")
            #expect(fixes[i].map { Geodesy.distance($0.position, pause[0][1].position) < 0.03 } == true)
        }
        #expect(fixes[18]?.time == Self.at(15))

        let loss = [[Self.sample(0, 0, speed: 3), Self.sample(5, 15, speed: 3)], [Self.sample(25, 75, speed: 3), Self.sample(30, 90, speed: 3)]]
        synth = TrackSynthesizer(try Self.timeline(loss))
        fixes = Self.fixes(Self.decode(&synth))
        #expect(fixes[6...24].allSatisfy { $0 == nil })
        #expect(fixes[25]?.time == Self.at(25))
    }

    /// The heart rates as a strap would have sent them: one a second, drawn between the
    /// samples, held across a strap off the skin.
    @Test func heartRatesOneASecond() throws {
        let t = try Self.timeline([[Self.sample(0, 0, heartRate: 120), Self.sample(4, 12, heartRate: 140),
                                    Self.sample(6, 18, heartRate: 0), Self.sample(8, 24, heartRate: 150), Self.sample(10, 30)]])
        let stream = try #require(TrackSynthesizer(t).heartRateStream())
        let bpm = stream.rows.map { row -> Int in if case .measurement(let m) = row.row { m.bpm } else { -1 } }
        #expect(stream.rows.map(\.seconds) == [0, 1, 2, 3, 4, 5, 6, 7, 8])
        #expect(bpm == [120, 125, 130, 135, 140, 140, 0, 0, 150])
        #expect(try TrackSynthesizer(Self.timeline([[Self.sample(0, 0), Self.sample(5, 10)]])).heartRateStream() == nil)
    }

    /// What a replay cannot take: fewer than two timed points, a run over a day; points
    /// closer than a second or going back are left out and counted.
    @Test func whatATimelineRefusesAndLeavesOut() throws {
        var t = TrackTimeline(source: "run.gpx")
        try t.append(Self.sample(0, 0), place: "line 3")
        #expect(throws: TrackTimelineError.self) { try t.finish() }
        try t.append(Self.sample(0.5, 1), place: "line 4")
        try t.append(Self.sample(-10, 1), place: "line 5")
        #expect(t.dropped == 2)
        let error = #expect(throws: TrackTimelineError.self) { try t.append(Self.sample(86_401, 5), place: "line 6") }
        #expect(error?.description == "run.gpx: line 6: more than 24 hours after the first point (2026-05-02T07:00:00.000Z): a replay runs a day at most")
        var off = Self.sample(1, 0)
        off.position.latitude = 95
        #expect(throws: TrackTimelineError.self) { try t.append(off, place: "line 7") }
        var odd = Self.sample(2, 5, speed: .nan, heartRate: 400)
        odd.hdop = -1
        try t.append(odd, place: "line 8")
        try t.finish()
        #expect(t.segments[0][1].heartRate == nil && t.segments[0][1].hdop == nil)
        #expect(t.segments[0][1].speed != nil, "a speed that is no number is the legs' instead")
    }

    /// A new segment's first point is held to the rules too: the fuzzer's find (an out of
    /// memory, `scripts/fuzz.sh tcx`) was a TCX whose next track began in the year 1013, which
    /// the checks, looking only inside the open segment, let through; the 2026 points after it
    /// made a leg of a thousand years, laid out a cycle a second.
    @Test func aNewSegmentIsCheckedAgainstTheRunBeforeIt() throws {
        var t = TrackTimeline(source: "run.tcx")
        try t.append(Self.sample(0, 0), place: "line 9")
        try t.append(Self.sample(10, 30), place: "line 10")
        t.breakSegment()
        let error = #expect(throws: TrackTimelineError.self) { try t.append(Self.sample(5.4e8, 60), place: "line 16") }
        #expect(error?.description.contains("line 16: more than 24 hours after the first point") == true)
        try t.append(Self.sample(5, 60), place: "line 17")
        #expect(t.dropped == 1, "a new segment going back in time is left out")
        try t.append(Self.sample(20, 60), place: "line 18")
        try t.finish()
        #expect(t.segments.map(\.count) == [2, 1])
    }

    /// The recording starts with lines that say what it is, and is the same bytes each time.
    @Test func theHeaderSaysWhatItIsAndTheBytesRepeat() throws {
        let t = try Self.timeline([[Self.sample(0, 0, speed: 3), Self.sample(10, 30, speed: 3)]])
        var a = TrackSynthesizer(t)
        var b = TrackSynthesizer(t)
        let bytes = a.recording()
        #expect(bytes == b.recording())
        let text = String(decoding: bytes.prefix(400), as: UTF8.self)
        #expect(text.hasPrefix("# Pacer track replay (pacer nmea synth --track)"))
        #expect(text.contains("# track test: 2 points in 1 segment, 0.03 km over 0:10"))
    }
}
