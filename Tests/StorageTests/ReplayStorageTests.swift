import Coaching
import Foundation
import PacerCore
@testable import Storage
import TestSupport
import Testing

/// What a replay reads from the store and from files (issue 43): the fixes kept between
/// track points, and TCX files read back.
@Suite("Readings kept with points, TCX read back")
struct ReplayStorageTests {
    /// Three points 10 s apart, nine readings a second between each two.
    static func points() -> [TrackPoint] {
        (0..<3).map { i in
            let t = Double(i * 10)
            var p = TrackPoint(segment: 0, time: time(t), position: GeoPoint(latitude: 52.1 + t * 1e-5, longitude: 4.3),
                               altitude: 2, speed: 3.1, timer: .seconds(t), distance: 3.1 * t)
            if i > 0 {
                p.readings = (1...9).map { k in
                    let s = t - 10 + Double(k)
                    return TrackReading(time: time(s), position: GeoPoint(latitude: 52.1 + s * 1e-5, longitude: 4.3),
                                        speed: k == 4 ? nil : 3.0 + Double(k) / 97, course: k == 5 ? nil : 181.25)
                }
            }
            return p
        }
    }

    /// Every reading comes back exactly (times, positions, speeds and courses, the ones the
    /// receiver did not give left out), and points without any have none.
    @Test func aPointsReadingsComeBackExactly() throws {
        let dir = try makeTemporaryDirectory()
        let store = try PacerStore(directory: dir)
        let id = try store.activities.begin(ActivityStart(name: "Readings", startedAt: t0, plan: nil, workout: nil, profile: "high"))
        for p in Self.points() { try store.activities.append(p, to: id) }
        try store.activities.commit()
        let read = try store.activities.activity(id).points
        #expect(read.map(\.readings) == Self.points().map(\.readings))
        #expect(read[0].readings.isEmpty)
        #expect(read[1].readings[3].speed == nil && read[1].readings[4].course == nil)
    }

    /// What no receiver says is not kept: a reading after its point, a position off the
    /// Earth, a speed that is not a number; a column edited by hand is read as far as it goes.
    @Test func readingsNoReceiverGivesAreNotKept() throws {
        var p = Self.points()[1]
        p.readings.append(TrackReading(time: time(11), position: p.position, speed: 3, course: 0))
        p.readings[0].position.latitude = 91
        p.readings[1].speed = .nan
        let kept = TrackReadings.kept(p.readings, before: p.time)
        #expect(kept.count == 8)
        #expect(kept[0].speed == nil)
        let text = try #require(TrackReadings.text(kept, pointTime: p.time))
        #expect(TrackReadings.readings(text + ";junk;5,x,4,3,2", pointTime: p.time) == kept)
        #expect(TrackReadings.readings(nil, pointTime: p.time).isEmpty)
    }

    static let tcx = """
        <?xml version="1.0" encoding="UTF-8"?>
        <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2" xmlns:ns3="http://www.garmin.com/xmlschemas/ActivityExtension/v2">
          <Activities>
            <Activity Sport="Running">
              <Id>2024-05-01T08:00:00Z</Id>
              <Lap StartTime="2024-05-01T08:00:00Z">
                <TotalTimeSeconds>20</TotalTimeSeconds>
                <Track>
                  <Trackpoint><Time>2024-05-01T08:00:00Z</Time><Position><LatitudeDegrees>52.1</LatitudeDegrees><LongitudeDegrees>4.3</LongitudeDegrees></Position><AltitudeMeters>2.5</AltitudeMeters><DistanceMeters>0</DistanceMeters><HeartRateBpm><Value>140</Value></HeartRateBpm><Extensions><ns3:TPX><ns3:Speed>3.1</ns3:Speed></ns3:TPX></Extensions></Trackpoint>
                  <Trackpoint><Time>2024-05-01T08:00:10Z</Time><Position><LatitudeDegrees>52.1003</LatitudeDegrees><LongitudeDegrees>4.3</LongitudeDegrees></Position><DistanceMeters>31.5</DistanceMeters></Trackpoint>
                </Track>
              </Lap>
              <Lap StartTime="2024-05-01T08:00:20Z">
                <TotalTimeSeconds>20</TotalTimeSeconds>
                <Track>
                  <Trackpoint><Time>2024-05-01T08:00:20Z</Time><Position><LatitudeDegrees>52.1006</LatitudeDegrees><LongitudeDegrees>4.3</LongitudeDegrees></Position></Trackpoint>
                  <Trackpoint><Time>2024-05-01T08:00:25Z</Time></Trackpoint>
                </Track>
                <Track>
                  <Trackpoint><Time>2024-05-01T08:01:00Z</Time><Position><LatitudeDegrees>52.1009</LatitudeDegrees><LongitudeDegrees>4.3</LongitudeDegrees></Position></Trackpoint>
                </Track>
              </Lap>
            </Activity>
          </Activities>
        </TrainingCenterDatabase>
        """

    static func read(_ text: String) throws -> (TCXDocument, [TCXPoint]) {
        var points: [TCXPoint] = []
        let document = try TCXReader.parse(Data(text.utf8), file: "run.tcx") { points.append($0) }
        return (document, points)
    }

    /// Each trackpoint with a time and a position, with its altitude, odometer, heart rate
    /// and speed; a lap's first track follows on from the lap before, a second track in a
    /// lap is a break.
    @Test func tcxTrackpointsAreReadWithTheirFields() throws {
        let (document, points) = try Self.read(Self.tcx)
        #expect(document.laps == 2 && document.activities == 1)
        #expect(document.pointCount == 4 && document.pointsWithoutPosition == 1)
        #expect(points.map(\.time) == [t0, time(10), time(20), time(60)])
        #expect(points[0].altitude == 2.5 && points[0].distance == 0 && points[0].heartRate == 140 && points[0].speed == 3.1)
        #expect(points[1].distance == 31.5 && points[1].speed == nil && points[1].heartRate == nil)
        #expect(points.map(\.startsTrack) == [false, false, false, true])
        #expect(points[2].position.latitude == 52.1006)
        #expect(points.map(\.line) == [9, 10, 16, 20])
    }

    /// A file that is not TCX v2, or has a field the schema does not allow there, is refused
    /// with its line and why.
    @Test func aBrokenTCXIsRefusedWithItsLineAndReason() throws {
        func refusal(_ text: String) -> TCXError? {
            do {
                _ = try Self.read(text)
                return nil
            } catch let error as TCXError {
                return error
            } catch {
                return TCXError(file: "?", line: nil, reason: "\(error)")
            }
        }
        let gpx = refusal(#"<gpx xmlns="http://www.topografix.com/GPX/1/1" version="1.1"/>"#)
        #expect(gpx?.reason.contains("not a TCX file: the root element is <gpx>") == true, "\(String(describing: gpx))")
        let noNamespace = refusal("<TrainingCenterDatabase/>")
        #expect(noNamespace?.reason.contains("has no namespace") == true)
        let latitude = refusal(Self.tcx.replacingOccurrences(of: "52.1003", with: "252.1"))
        #expect(latitude?.line == 10 && latitude?.reason.contains("<LatitudeDegrees> \"252.1\" is not a number from -90 to 90") == true,
                "\(String(describing: latitude))")
        let badTime = refusal(Self.tcx.replacingOccurrences(of: "2024-05-01T08:00:10Z", with: "yesterday"))
        #expect(badTime?.line == 10 && badTime?.reason.contains("<Time> \"yesterday\"") == true)
        let truncated = refusal(String(Self.tcx.prefix(900)))
        #expect(truncated?.reason.contains("not well-formed XML") == true, "\(String(describing: truncated))")
        let empty = refusal("  \n")
        #expect(empty?.reason.contains("empty") == true)
        let long = refusal(Self.tcx.replacingOccurrences(of: "<AltitudeMeters>2.5", with: "<AltitudeMeters>" + String(repeating: "1", count: 5000)))
        #expect(long?.reason.contains("longer than") == true)
    }

    /// The fuzzer's find (scripts/fuzz.sh tcx): four bytes that say UCS-4, then digits. libxml2
    /// handed them to iconv and died of SIGSEGV in xmlParseChunk; the file is refused first.
    @Test func aTCXInAnEncodingLibxml2CannotTakeIsRefused() throws {
        let bytes: [UInt8] = [0, 0, 0, 0x3C] + Array("2222222222".utf8) + [0xB2] + Array("2222222222222".utf8) + [0, 0]
        do {
            _ = try TCXReader.parse(Data(bytes), file: "crash.tcx") { _ in }
            Issue.record("read")
        } catch let error as TCXError {
            #expect(error.file == "crash.tcx" && error.line == 1, "\(error)")
            #expect(error.reason.contains("TCX is read as UTF-8"), "\(error)")
        }
    }

    /// What `TCXWriter` writes is what the reader reads.
    @Test func whatTheWriterWritesIsReadBack() throws {
        var writer = TCXWriter(id: t0)
        writer.beginLap(start: t0, totalTime: .seconds(20), distance: 60, maximumSpeed: 3.2, resting: false, trigger: .time)
        writer.beginTrack()
        for p in Self.points() {
            writer.trackpoint(time: p.time, position: p.position, altitude: p.altitude, distance: p.distance, speed: p.speed)
        }
        let (_, points) = try Self.read(String(decoding: writer.finish(notes: nil, version: "test"), as: UTF8.self))
        #expect(points.map(\.time) == Self.points().map(\.time))
        #expect(points.map(\.distance) == Self.points().map(\.distance))
        #expect(points.map(\.speed) == Self.points().map(\.speed))
        for (p, q) in zip(points, Self.points()) {
            #expect(abs(p.position.latitude - q.position.latitude) < 1e-7 && p.position.longitude == q.position.longitude)
        }
    }
}
