import Coaching
import Companion
import Foundation
import HAL
import PacerCore
import Storage
import TestSupport
import Testing

/// The companion's device as the sections meet it, around a real store in a temporary
/// folder (the server is not needed: the sections' handlers are called with requests).
final class StoreDevice: CompanionDevice {
    let opened: PacerStore?
    let fault: String
    let status: DeviceSnapshot

    init(_ store: PacerStore?, fault: String = "the data folder cannot be used",
         status: DeviceSnapshot = DeviceSnapshot(state: .ready, line: "ready: GPS fix, 7 satellites")) {
        opened = store
        self.fault = fault
        self.status = status
    }

    func snapshot() -> DeviceSnapshot { status }
    func send(_ command: ControlCommand) async -> String { "ok" }
    func store() throws -> PacerStore {
        guard let opened else { throw StorageError.database(fault) }
        return opened
    }
}

/// Pacer's version as `pacer version` prints it (the TCX files carry it).
let pacerVersion: String = {
    let out = (try? Pacer.run(["version"]).stdout) ?? ""
    return out.split(separator: "\n").first.map { String($0.dropFirst("pacer ".count)) } ?? "?"
}()

let start0 = UTCTimestamp(millisecondsSince1970: 1_714_550_400_000)  // 2024-05-01T08:00:00Z

func at(_ seconds: Double) -> UTCTimestamp {
    UTCTimestamp(millisecondsSince1970: start0.millisecondsSince1970 + Int64((seconds * 1000).rounded()))
}

/// A recorded workout of two phases: 300 points 1 s apart at 3 m/s northward, a waypoint.
func recordWorkout(into store: PacerStore, name: String = "Tempo run", end: ActivityEnd = .completed,
                   offset: Double = 0) throws -> Int64 {
    let id = try store.activities.begin(ActivityStart(name: name, startedAt: at(offset), plan: "10k in 50", workout: "Tempo",
                                           profile: "medium"))
    for i in 0..<300 {
        try store.activities.append(TrackPoint(segment: 0, time: at(offset + Double(i)),
                                    position: GeoPoint(latitude: 45.1 + Double(i) * 3 / 111_195, longitude: 6.2),
                                    altitude: 200 + Double(i) * 0.25, speed: 3), to: id)
    }
    try store.activities.add(Waypoint(name: "Bridge", time: at(offset + 5), position: GeoPoint(latitude: 45.10013, longitude: 6.2),
                           altitude: 201, atLastKnownPosition: false), to: id)
    try store.activities.add(PhaseResult(index: 0, name: "Warm-up", duration: .seconds(30), timeInBand: .seconds(25), distance: 90,
                              minimumSpeed: 2.5, maximumSpeed: 3.5), to: id)
    try store.activities.add(PhaseResult(index: 1, name: "Tempo", duration: .seconds(29), timeInBand: .seconds(20), distance: 87,
                              minimumSpeed: 3.2, maximumSpeed: 4.0), to: id)
    try store.activities.finish(id, end: end, endedAt: at(offset + 299), activeTime: .seconds(299))
    return id
}

/// A GPX 1.1 track of `count` points 1 s and about 3 m apart (a run), from `lat`.
func gpxTrack(name: String = "Morning run", count: Int = 40, lat: Double = 45.2, times: Bool = true) -> String {
    var s = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
        <trk><name>\(name)</name><trkseg>

        """
    for i in 0..<count {
        let time = times ? "<time>2024-05-02T07:00:\(String(format: "%02d", i % 60))Z</time>" : ""
        s += "<trkpt lat=\"\(String(format: "%.7f", lat + Double(i) * 3 / 111_195))\" lon=\"6.3\"><ele>150</ele>\(time)</trkpt>\n"
    }
    return s + "</trkseg></trk></gpx>\n"
}

/// The body of a `.page`, or a failed expectation.
func pageBody(_ response: PageResponse, sourceLocation: SourceLocation = #_sourceLocation) -> String {
    guard case .page(_, let body) = response else {
        Issue.record("expected a page, got \(response)", sourceLocation: sourceLocation)
        return ""
    }
    return body
}

/// The route of `section` for `method` and `pattern`, called with `request`.
func call(_ section: any CompanionSection, _ method: PageRequest.Method, _ pattern: String, path: String? = nil,
          parameters: [String: String] = [:], form: [String: String] = [:], uploads: [String: Upload] = [:],
          sourceLocation: SourceLocation = #_sourceLocation) async throws -> PageResponse {
    guard let route = section.routes.first(where: { $0.method == method && $0.pattern == pattern }) else {
        Issue.record("no route \(method.rawValue) \(pattern)", sourceLocation: sourceLocation)
        throw CancellationError()
    }
    var concrete = path ?? pattern
    for (k, v) in parameters { concrete = concrete.replacingOccurrences(of: ":" + k, with: v) }
    return try await route.handler(PageRequest(method: method, path: concrete, parameters: parameters, form: form,
                                               uploads: uploads, csrfToken: "token-1"))
}

func bytes(_ path: String) -> [UInt8] { [UInt8](FileManager.default.contents(atPath: path) ?? Data()) }
