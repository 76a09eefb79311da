import Coaching
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import PacerCore
@testable import Storage
import TestSupport
import Testing

/// A run with a strap (issue 41): two segments and two phases, each point with its timer and
/// odometer as the runtime stores them, and a heart rate on most: one point without (the
/// strap lost), one at 0 (the strap off the skin, as straps say it). RR intervals on most,
/// in BLE's 1/1024 s (exact in binary, not in milliseconds) and in whole milliseconds, one
/// point with more than an hrv message holds.
struct StrapRun {
    var start = ActivityStart(name: "Strap run", startedAt: t0, plan: "Plan", workout: "Tempo", profile: "high")
    var points: [TrackPoint] = []
    var results: [PhaseResult] = []

    init() {
        for i in 0..<35 {
            let segment = i < 20 ? 0 : 1
            let seconds = segment == 0 ? Double(i) : Double(40 + i)  // a 40 s pause
            let timer = Double(i)
            var p = TrackPoint(segment: segment, time: time(seconds),
                               position: GeoPoint(latitude: (451_000_000 + Double(i) * 300) / 1e7, longitude: 6.2),
                               altitude: 200 + Double(i) * 0.5, speed: 3.25, timer: .seconds(timer),
                               distance: 3.25 * timer)
            switch i {
            case 5: p.heartRate = nil
            case 7: p.heartRate = 0
            default: p.heartRate = 120 + 2 * i
            }
            if i % 4 != 3 {
                p.rrIntervals = i == 10 ? [0.8203125, 0.81, 0.799, 0.80078125, 0.788, 0.777, 0.765]
                    : [Double(820 - i) / 1024, Double(400 + i) / 1000]
            }
            points.append(p)
        }
        results = [
            PhaseResult(index: 0, name: "Warm-up", duration: .seconds(20), timeInBand: .seconds(15), distance: 65,
                        minimumSpeed: 2.5, maximumSpeed: 3.5),
            PhaseResult(index: 1, name: "Tempo", duration: .seconds(15), timeInBand: .seconds(12), distance: 48.75,
                        minimumSpeed: 3.0, maximumSpeed: 4.0),
        ]
    }

    func record(into store: PacerStore) throws -> Int64 {
        let id = try store.activities.begin(start)
        for p in points { try store.activities.append(p, to: id) }
        for r in results { try store.activities.add(r, to: id) }
        try store.activities.finish(id, end: .completed, endedAt: time(75), activeTime: .seconds(35))
        return id
    }

    /// The rates a file carries: 0 is none.
    var fileRates: [Int?] { points.map { $0.heartRate == 0 ? nil : $0.heartRate } }

    /// The intervals as FIT carries them: whole milliseconds.
    var fitIntervals: [[Double]] { points.map { $0.rrIntervals.map { ($0 * 1000).rounded() / 1000 } } }

    /// The mean (rounded) and maximum of the rates of points `range`, 0 and nil left out.
    func figures(_ range: Range<Int>) -> (average: Int, maximum: Int) {
        let rates = range.compactMap { fileRates[$0] }
        return (Int((Double(rates.reduce(0, +)) / Double(rates.count)).rounded()), rates.max()!)
    }
}

let hasSQLite3 = FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")

@Suite("Heart rate in the store and every file format (issue 41)")
struct HeartRateStorageTests {
    @Test(.enabled(if: hasSQLite3, "needs the sqlite3 shell (apt-get install sqlite3)"))
    func theStoreKeepsEachPointsRateAndIntervalsExactly() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = StrapRun()
        let store = try PacerStore(directory: dir)
        let id = try run.record(into: store)
        #expect(try store.activities.activity(id).points == run.points)
        // The column as sqlite3 shows it: seconds, the shortest text that reads back the same.
        let db = "\(dir)/pacer.sqlite"
        #expect(try PacerTestShell.sqlite3(db, "SELECT rr_intervals FROM track_points WHERE activity_id = \(id) AND seq = 10;")
            == "0.8203125,0.81,0.799,0.80078125,0.788,0.777,0.765\n")
        #expect(try PacerTestShell.sqlite3(db, "SELECT COUNT(*) FROM track_points WHERE rr_intervals IS NULL;")
            == "\(run.points.filter(\.rrIntervals.isEmpty).count)\n")
    }

    /// What no strap sends is not stored: a rate outside a byte, intervals that are not
    /// finite or not above zero; a row's text edited by hand is read as far as it makes sense.
    @Test(.enabled(if: hasSQLite3, "needs the sqlite3 shell (apt-get install sqlite3)"))
    func ratesAndIntervalsNoStrapSendsAreNotStored() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        let id = try store.activities.begin(StrapRun().start)
        var p = StrapRun().points[0]
        p.heartRate = 300
        p.rrIntervals = [.nan, -0.5, 0, .infinity, 0.75, 70]
        try store.activities.append(p, to: id)
        p.heartRate = -1
        p.rrIntervals = Array(repeating: 0.5, count: HeartRateRecords.maximumIntervalsPerPoint + 5)
        p.time = time(1)
        try store.activities.append(p, to: id)
        try store.activities.commit()
        var points = try store.activities.activity(id).points
        #expect(points.map(\.heartRate) == [nil, nil])
        #expect(points[0].rrIntervals == [0.75])
        #expect(points[1].rrIntervals.count == HeartRateRecords.maximumIntervalsPerPoint)
        let db = "\(dir)/pacer.sqlite"
        _ = try PacerTestShell.sqlite3(db, "UPDATE track_points SET rr_intervals = '0.8, x,,-1, 0.7' WHERE seq = 0;")
        points = try store.activities.activity(id).points
        #expect(points[0].rrIntervals == [0.8, 0.7])
        // The column's own check, for a writer that is not Pacer's.
        let refused = try Program.run("/usr/bin/sqlite3", [db, "UPDATE track_points SET heart_rate = 256 WHERE seq = 0;"])
        #expect(refused.status != 0 && refused.output.contains("CHECK constraint failed"), "\(refused.output)")
    }

    @Test(.enabled(if: hasSQLite3, "needs the sqlite3 shell (apt-get install sqlite3)"))
    func aDataFolderOfVersion8KeepsItsPointsAndProfileWithoutHeartRate() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var run = StrapRun()
        for i in run.points.indices {
            run.points[i].heartRate = nil
            run.points[i].rrIntervals = []
        }
        let profile = AthleteProfile(weight: 70, height: 178, weeklyFrequency: 4, hasRaced: false, hasRunMarathon: false)
        let id: Int64
        do {
            let store = try PacerStore(directory: dir)
            id = try run.record(into: store)
            try store.athlete.setAthlete(profile, at: t0)
            try store.database.close()
        }
        // Back to the schema of version 8: no heart-rate columns, v9 not run.
        let db = "\(dir)/pacer.sqlite"
        let downgrade = try PacerTestShell.sqlite3(db, PacerTestShell.undoV9 + """
            SELECT COUNT(*) FROM pragma_table_info('track_points');
            """)
        #expect(downgrade == "10\n", "the table as version 8 had it")

        let reopened = try PacerStore(directory: dir)
        #expect(try reopened.activities.activity(id).points == run.points, "every point, without a heart rate")
        #expect(try reopened.athlete.athlete()?.profile == profile)
        #expect(try reopened.athlete.athlete()?.profile.heartRate.isEmpty == true)
        #expect(try PacerTestShell.sqlite3(db, "SELECT COUNT(*) FROM track_points WHERE heart_rate IS NULL;")
            == "\(run.points.count)\n")
        // And it takes heart rates from now on.
        let strap = try StrapRun().record(into: reopened)
        #expect(try reopened.activities.activity(strap).points == StrapRun().points)
    }

    // MARK: - The athlete's figures

    @Test func theProfilesHeartRateFiguresAreStoredWithItsHistory() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        var profile = AthleteProfile(weight: 70, height: 178, weeklyFrequency: 4, hasRaced: false, hasRunMarathon: false)
        try store.athlete.setAthlete(profile, at: t0)
        profile.heartRate = HeartRateFigures(maximum: 188, resting: 52, threshold: 171, age: 41)
        #expect(try store.athlete.setAthlete(profile, at: time(60)))
        #expect(try store.athlete.setAthlete(profile, at: time(120)) == false, "the same figures again store nothing")
        #expect(try store.athlete.athlete()?.profile.heartRate == profile.heartRate)
        let since = try store.athlete.athleteFieldsSince()
        #expect(since[.maximumHeartRate] == time(60) && since[.age] == time(60) && since[.weight] == t0)
        profile.heartRate.threshold = nil
        try store.athlete.setAthlete(profile, at: time(180))
        let history = try store.athlete.athleteHistory()
        #expect(history.map(\.0.heartRate.threshold) == [nil, 171, nil])
        #expect(history.last?.0.fields(differingFrom: history[1].0) == [.thresholdHeartRate])

        // Figures out of range, or that disagree, are refused by the store whoever calls.
        var bad = profile
        bad.heartRate = HeartRateFigures(maximum: 250)
        #expect(throws: StorageError.invalidAthlete("max HR 250 bpm is outside 120 to 230 bpm")) {
            try store.athlete.setAthlete(bad, at: time(240))
        }
        bad.heartRate = HeartRateFigures(maximum: 180, resting: 150)
        #expect(throws: StorageError.self) { try store.athlete.setAthlete(bad, at: time(240)) }
        #expect(try store.athlete.athleteHistory().count == 3)
    }

    // MARK: - GPX

    @Test func gpxCarriesTheRatesInTrackPointExtensionAndReadsThemBack() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = StrapRun()
        let store = try PacerStore(directory: "\(dir)/a")
        let id = try run.record(into: store)
        let path = "\(dir)/strap.gpx"
        try store.gpx.exportGPX(activity: id, to: path)
        // The GPX 1.1 schema checks the document; Garmin's extension schema is not beside the
        // repository, and the schema's <extensions> takes other namespaces laxly.
        try validateGPX(path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains(#"xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2""#))
        #expect(text.contains("<extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>140</gpxtpx:hr><gpxtpx:speed>3.25"
                              + "</gpxtpx:speed></gpxtpx:TrackPointExtension></extensions>"))
        // Another XML reader sees a rate on each point that has one, in the point's order.
        let parsed = try ParsedXML(path: path)
        let rates = parsed.all("trkpt").map { point in
            parsed.elements.first { $0.localName == "hr" && $0.parent?.parent?.parent === point }
                .flatMap { Int($0.stringValue ?? "") }
        }
        #expect(rates == run.fileRates)

        let back = try PacerStore(directory: "\(dir)/b")
        let result = try back.gpx.importGPX(file: path, as: .activity)
        #expect(result.heartRatesNotKept == 0)
        #expect(try back.activities.activity(result.id).points.map(\.heartRate) == run.fileRates)
        // As a route: none kept, and said.
        #expect(try back.gpx.importGPX(file: path, as: .route).heartRatesNotKept == run.fileRates.compactMap { $0 }.count)

        // A share leaves them out (health data no share item chooses), namespace and all.
        let shared = "\(dir)/shared.gpx"
        try store.gpx.share(activity: id, to: shared, choice: ShareChoice(items: [.track, .times]))
        #expect(try !String(contentsOfFile: shared, encoding: .utf8).contains("gpxtpx"))
    }

    /// A run without a strap is written as before: no `hr`, and no namespace declared for it.
    @Test func gpxWithoutRatesIsAsBefore() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        let id = try SampleActivity().record(into: store)
        let text = String(decoding: try store.gpx.gpx(activity: id, options: GPXExportOptions(speeds: false)), as: UTF8.self)
        #expect(!text.contains("gpxtpx") && !text.contains("hr>"))
        let withSpeeds = String(decoding: try store.gpx.gpx(activity: id), as: UTF8.self)
        #expect(!withSpeeds.contains("hr>"))
    }

    /// Watches' and services' files: v1 with Strava's `ns3:` prefix, v2 with Garmin's, an `hr`
    /// in a namespace Pacer does not read (counted, not kept), a 0 (no rate), a decimal.
    @Test func gpxHeartRateIsReadInV1AndV2WhateverThePrefix() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func point(_ i: Int, _ ext: String) -> String {
            #"<trkpt lat="\#(45.0 + Double(i) * 0.0001)" lon="6"><time>2024-05-01T08:00:0\#(i)Z</time>"#
                + "<extensions>\(ext)</extensions></trkpt>\n"
        }
        let gpx = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="StravaGPX" xmlns="http://www.topografix.com/GPX/1/1"
                 xmlns:ns3="http://www.garmin.com/xmlschemas/TrackPointExtension/v1"
                 xmlns:tpx2="http://www.garmin.com/xmlschemas/TrackPointExtension/v2"
                 xmlns:other="urn:example:other">
            <trk><name>Mixed</name><trkseg>
            \(point(0, "<ns3:TrackPointExtension><ns3:hr>141</ns3:hr><ns3:cad>88</ns3:cad></ns3:TrackPointExtension>"))\
            \(point(1, "<tpx2:TrackPointExtension><tpx2:hr> 142 </tpx2:hr></tpx2:TrackPointExtension>"))\
            \(point(2, "<other:hr>143</other:hr>"))\
            \(point(3, "<ns3:TrackPointExtension><ns3:hr>0</ns3:hr></ns3:TrackPointExtension>"))\
            \(point(4, "<ns3:TrackPointExtension><ns3:hr>144.4</ns3:hr></ns3:TrackPointExtension>"))\
            </trkseg></trk></gpx>

            """
        let path = "\(dir)/mixed.gpx"
        try gpx.write(toFile: path, atomically: true, encoding: .utf8)
        let document = try GPXReader.read(path: path)
        #expect(document.tracks[0].segments[0].map(\.heartRate) == [141, 142, nil, nil, 144])
        #expect(document.heartRateCount == 5 && document.heartRatesRead == 3)
        let store = try PacerStore(directory: "\(dir)/data")
        let result = try store.gpx.importGPX(file: path, as: .activity)
        #expect(try store.activities.activity(result.id).points.map(\.heartRate) == [141, 142, nil, nil, 144])
        #expect(result.heartRatesNotKept == 2 && result.cadencesNotKept == 1)

        // A rate that is no rate refuses the file, with its line, as a bad speed does.
        for bad in ["fast", "-3", "256", ""] {
            let broken = gpx.replacingOccurrences(of: "<ns3:hr>141</ns3:hr>", with: "<ns3:hr>\(bad)</ns3:hr>")
            try broken.write(toFile: path, atomically: true, encoding: .utf8)
            #expect(throws: GPXError(file: path, line: 7, reason: "<hr> \"\(bad)\" is not a heart rate (beats per minute, 0 to 255)")) {
                try GPXReader.read(path: path)
            }
        }
    }

    // MARK: - TCX

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/xmllint"),
                   "needs xmllint (apt-get install libxml2-utils)"))
    func tcxCarriesTheRatesWhereTheSchemaPutsThem() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = StrapRun()
        let store = try PacerStore(directory: dir)
        let id = try run.record(into: store)
        let path = "\(dir)/strap.tcx"
        try store.tcx.exportTCX(activity: id, to: path, version: "1.2.3")
        let schema = (repositoryRoot as NSString).deletingLastPathComponent + "/shared/schemas/TrainingCenterDatabasev2.xsd"
        let valid = try Program.run("/usr/bin/xmllint", ["--noout", "--nonet", "--schema", schema, path])
        #expect(valid.status == 0, "xmllint refused \(path): \(valid.output)")

        let parsed = try ParsedXML(path: path)
        let rates = parsed.all("Trackpoint").filter { ParsedXML.child($0, "Position") != nil }.map { point in
            ParsedXML.child(point, "HeartRateBpm").flatMap { ParsedXML.number($0, "Value") }.map { Int($0) }
        }
        #expect(rates == run.fileRates)
        // A lap per phase, each with its points' average and maximum.
        let laps = parsed.all("Lap")
        #expect(laps.count == 2)
        for (lap, range) in zip(laps, [0..<20, 20..<35]) {
            let figures = run.figures(range)
            #expect(ParsedXML.child(lap, "AverageHeartRateBpm").flatMap { ParsedXML.number($0, "Value") }
                == Double(figures.average))
            #expect(ParsedXML.child(lap, "MaximumHeartRateBpm").flatMap { ParsedXML.number($0, "Value") }
                == Double(figures.maximum))
        }
        // A share leaves them out, and stays valid.
        let shared = try store.tcx.tcx(activity: id, options: ShareChoice(items: [.track, .times]).options, version: "1.2.3")
        #expect(!String(decoding: shared, as: UTF8.self).contains("HeartRate"))
    }

    // MARK: - FIT

    @Test func fitCarriesRatesAndIntervalsAndReadsThemBack() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = StrapRun()
        let store = try PacerStore(directory: "\(dir)/a")
        let id = try run.record(into: store)
        let path = "\(dir)/strap.fit"
        try store.fit.exportFIT(activity: id, to: path)

        let read = try FITReader.read(path: path)
        #expect(read.points.map(\.heartRate) == run.fileRates)
        #expect(read.points.map(\.rrIntervals) == run.fitIntervals)
        #expect(read.heartRateCount == run.fileRates.compactMap { $0 }.count)
        #expect(read.rrIntervalsDropped == 0)
        // Read through a window smaller than a message too.
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(try FITReader.parse(bytes, file: path, window: 7).points.map(\.rrIntervals) == run.fitIntervals)

        let back = try PacerStore(directory: "\(dir)/b")
        let result = try back.fit.importFIT(file: path, as: .activity)
        let points = try back.activities.activity(result.id).points
        #expect(points.map(\.heartRate) == run.fileRates)
        #expect(points.map(\.rrIntervals) == run.fitIntervals)
        #expect(try back.fit.importFIT(file: path, as: .route).heartRatesNotKept == run.fileRates.compactMap { $0 }.count)
    }

    /// Garmin's FIT SDK reads the records' heart_rate, the laps' and the session's average
    /// and maximum, and the hrv messages' intervals (`scripts/fit-dump.py`).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs /usr/bin/python3"))
    func garminsSDKReadsTheRatesAndTheIntervals() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = StrapRun()
        let store = try PacerStore(directory: dir)
        let id = try run.record(into: store)
        let path = "\(dir)/strap.fit"
        try store.fit.exportFIT(activity: id, to: path)
        let dump = try Program.run("/usr/bin/python3", [repositoryRoot + "/scripts/fit-dump.py", path])
        try #require(dump.status == 0, "fit-dump.py: \(dump.stderr) (scripts/setup.sh installs garmin-fit-sdk)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        #expect(json["integrity"] as? Bool == true)
        #expect((json["errors"] as? [Any])?.isEmpty == true, "\(json["errors"] ?? "")")
        let messages = try #require(json["messages"] as? [String: [[String: Any]]])
        func int(_ m: [String: Any]?, _ key: String) -> Int? { (m?[key] as? NSNumber)?.intValue }

        let records = (messages["record_mesgs"] ?? []).filter { $0["position_lat"] != nil }
        #expect(records.map { int($0, "heart_rate") } == run.fileRates)
        let session = messages["session_mesgs"]?.first
        let all = run.figures(0..<35)
        #expect(int(session, "avg_heart_rate") == all.average && int(session, "max_heart_rate") == all.maximum)
        let laps = messages["lap_mesgs"] ?? []
        #expect(laps.count == 2)
        for (lap, range) in zip(laps, [0..<20, 20..<35]) {
            let figures = run.figures(range)
            #expect(int(lap, "avg_heart_rate") == figures.average && int(lap, "max_heart_rate") == figures.maximum,
                    "\(lap["avg_heart_rate"] ?? "none"), \(lap["max_heart_rate"] ?? "none") against \(figures)")
        }
        // hrv: `time` in seconds, five to a message; the SDK gives the unused ones as None.
        let intervals = (messages["hrv_mesgs"] ?? []).flatMap { ($0["time"] as? [Any]) ?? [] }
            .compactMap { ($0 as? NSNumber)?.doubleValue }
        #expect(intervals.count == run.fitIntervals.joined().count)
        for (sdk, ours) in zip(intervals, run.fitIntervals.joined()) {
            #expect(abs(sdk - ours) < 1e-9, "\(sdk) against \(ours)")
        }
    }

    /// A watch's file: hrv messages before the first record (nowhere to go: dropped, counted),
    /// a record at 0 bpm, and more intervals after one record than a point keeps.
    @Test func fitIntervalsAreBoundedAndPlacedOnTheRecordBefore() throws {
        var fit = FITEncoder()
        FITWriter.appendHeader(to: &fit, start: t0)
        fit.append(FITMessage(FITProfile.hrv, [FITField(0, .uint16, array: [800, 810, nil])]))
        fit.append(FITWriter.record(time: t0, position: GeoPoint(latitude: 45, longitude: 6), altitude: nil, speed: nil,
                                    distance: nil, heartRate: 150))
        for _ in 0..<(HeartRateRecords.maximumIntervalsPerPoint / 5 + 1) {
            fit.append(FITMessage(FITProfile.hrv, [FITField(0, .uint16, array: [500, 500, 500, 500, 500])]))
        }
        var zero = FITWriter.record(time: time(1), position: GeoPoint(latitude: 45.0001, longitude: 6), altitude: nil,
                                    speed: nil, distance: nil)
        zero.fields.append(FITField(3, .uint8, 0))
        fit.append(zero)
        fit.append(FITMessage(FITProfile.hrv, [FITField(0, .uint16, 700)]))  // one value, not an array
        let data = try FITReader.parse(fit.finish(), file: "watch.fit")
        #expect(data.points.map(\.heartRate) == [150, nil])
        #expect(data.points[0].rrIntervals.count == HeartRateRecords.maximumIntervalsPerPoint)
        #expect(data.points[1].rrIntervals == [0.7])
        #expect(data.rrIntervalsDropped == 2 + 5)
        #expect(data.rrIntervalCount == 2 + HeartRateRecords.maximumIntervalsPerPoint + 5 + 1)
    }
}
