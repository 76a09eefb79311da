import Coaching
import PacerCore
import Testing

/// Elevation gain on a track with gaps: a 59 m climb cut into segments by auto-pauses or
/// outages counts as the climb it is, though each piece alone climbs less than the 10 m
/// threshold (counted piece by piece, it would be 0 m; the same track as a route is 60 m).
@Suite("Elevation gain across a track's gaps")
struct ElevationAcrossGapsTests {
    /// A steady climb of `metres` over `segments` pieces of a minute each at 1 Hz, with
    /// `gap` seconds without a point between pieces (the climb goes on through the gap).
    static func climb(_ metres: Double, segments: Int, gap: Int) -> [[PathPoint]] {
        let seconds = segments * 60 + (segments - 1) * gap
        let rate = metres / Double(seconds)
        var pieces: [[PathPoint]] = []
        var t = 0
        for _ in 0..<segments {
            var piece: [PathPoint] = []
            for _ in 0..<60 {
                let north = Double(t) * 2.5 / 111_195
                piece.append(PathPoint(position: GeoPoint(latitude: 45 + north, longitude: 6), altitude: 100 + rate * Double(t),
                                       time: UTCTimestamp(millisecondsSince1970: 1_777_705_200_000 + Int64(t) * 1000)))
                t += 1
            }
            pieces.append(piece)
            t += gap
        }
        return pieces
    }

    @Test func aClimbCutIntoShortPiecesCountsWhole() {
        let pieces = Self.climb(59, segments: 8, gap: 20)
        let cut = PathStatistics(segments: pieces)
        let whole = PathStatistics(segments: [pieces.flatMap { $0 }])
        // Each minute climbs about 6.6 m, under the threshold: counted piece by piece it would be 0.
        #expect(cut.elevationGain > 45, "\(cut.elevationGain)")
        #expect(abs(cut.elevationGain - whole.elevationGain) < 8, "\(cut.elevationGain) against \(whole.elevationGain)")
        #expect(cut.elevationLoss < 1)
    }

    @Test func aFlatTrackWithGapsStaysFlat() {
        let pieces = Self.climb(0, segments: 8, gap: 20)
        #expect(PathStatistics(segments: pieces).elevationGain == 0)
    }
}
