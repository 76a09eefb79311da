import Coaching
import Foundation
import HAL
import PacerCore
import Runtime
import Synchronization

/// One thing that happened in a scenario, at scenario time: what expectations are checked
/// against. The files (`timeline.txt`, `events.jsonl`) carry the same events with more detail.
public struct ScenarioEvent: Hashable, Sendable {
    public var time: Duration
    /// `cue`, `gps`, `phase-started`, `waypoint`, `power-cut`, `recovered`, …
    public var kind: String
    /// The cue's name, the GPS status, the waypoint's name, the way the activity ended.
    public var name: String?
    /// The activity it belongs to, when one was recording.
    public var activity: Int64?
    /// For `phase-started`: the phase's speed range, m/s.
    public var band: ClosedRange<Double>?
    /// For `phase-started`: the metres it ends after, when it ends on distance.
    public var goal: Double?
    /// The workout's distance (metres) right after it, for a device event of an activity:
    /// the figure the timeline and `distance_m` show.
    public var distance: Double?
}

/// Collects a scenario's events as they happen and writes them out as a readable timeline
/// and as JSON lines, streaming: a marathon's events never pile up as text in memory.
/// Called on the clock's loop; thread-safe anyway.
final class ScenarioRecorder: Sendable {
    private struct State {
        var events: [ScenarioEvent] = []
        var timeline: [UInt8] = []
        var json: [UInt8] = []
        var timelineFile: FileHandle?
        var jsonFile: FileHandle?
        var failure: String?
    }

    private let state = Mutex(State())
    /// The recording's path as the GPS source names it, and what is written instead: its file
    /// name. Paths differ between machines and checkouts; the results must not.
    private let redactions: [(String, String)]

    init(timelinePath: String, eventsPath: String, recording: String) throws {
        let name = URL(fileURLWithPath: recording).lastPathComponent
        let absolute = URL(fileURLWithPath: recording).standardizedFileURL.path
        // Longest first: the source writes `file://` before an absolute path, `file:` before a relative one.
        redactions = [("file://" + recording, "file:" + name), ("file:" + recording, "file:" + name),
                      ("file://" + absolute, "file:" + name), (recording, name), (absolute, name)]
        let t = try ScenarioOutputFile.create(timelinePath)
        let j = try ScenarioOutputFile.create(eventsPath)
        state.withLock {
            $0.timelineFile = t
            $0.jsonFile = j
        }
    }

    var events: [ScenarioEvent] { state.withLock { $0.events } }

    /// A device event with the status right after it.
    func record(_ event: RuntimeEvent, status: RuntimeStatus, at time: Duration) {
        let activity = status.activityID
        var name: String?
        var text: String
        var fields: [(String, JSONValue)] = []
        switch event {
        case .started(let id):
            text = "START activity \(id): \(status.plan): \(status.workout) (profile \(status.profile))"
            fields = [("plan", .text(status.plan)), ("workout", .text(status.workout)), ("profile", .text(status.profile))]
        case .phaseStarted(let index):
            let phase = status.coach.phase
            text = "phase \(index + 1) starts" + RuntimeStatus.describeEnd(phase)
            fields = event.jsonFields(status: status)
        case .phaseFinished(let r), .phaseRevised(let r):
            let revised = { if case .phaseRevised = event { true } else { false } }()
            text = "phase \(r.index + 1) \(revised ? "measured to its end" : "done"): \(RuntimeStatus.clock(r.duration)), "
                + "\(km(r.distance)) km" + (r.maximumSpeed > 0 ? ", \(RuntimeStatus.clock(r.timeInBand)) in band" : "")
            fields = [("phase", .int(r.index + 1)), ("name", .text(r.name)), ("duration_s", .number(r.duration.inSeconds, places: 3)),
                      ("in_band_s", .number(r.timeInBand.inSeconds, places: 3)), ("phase_distance_m", .number(r.distance, places: 1))]
        case .cue(let cue, let phase):
            name = cue.rawValue
            text = ScenarioRecorder.shout(cue)
            fields = [("cue", .text(cue.rawValue))]
            if let phase { fields.append(("phase", .int(phase + 1))) }
        case .gps(let s, var detail):
            name = s.rawValue
            for (path, replacement) in redactions { detail = detail?.replacingOccurrences(of: path, with: replacement) }
            text = "gps \(s.rawValue)" + (detail.map { " (\($0))" } ?? "")
            fields = [("gps", .text(s.rawValue))]   // the name `pacer ctl watch` and the status object use
            if let detail { fields.append(("detail", .text(detail))) }
        case .waypoint(let wname, let outcome):
            name = wname
            switch outcome {
            case .stored(let w), .storedAtLastKnownPosition(let w):
                let last = { if case .storedAtLastKnownPosition = outcome { true } else { false } }()
                text = "waypoint '\(wname)' stored" + (last ? " at the last known position" : "")
                    + " \(coordinate(w.position.latitude)), \(coordinate(w.position.longitude))"
                fields = [("name", .text(wname)), ("outcome", .text(last ? "stored-at-last-known-position" : "stored")),
                          ("lat", .number(w.position.latitude, places: 7)), ("lon", .number(w.position.longitude, places: 7))]
            case .duplicate, .noPositionYet, .notRecording:
                let reason = outcome == .duplicate ? "duplicate" : outcome == .noPositionYet ? "no-position-yet" : "not-recording"
                text = "waypoint '\(wname)' refused: \(reason)"
                fields = [("name", .text(wname)), ("outcome", .text(reason))]
                record(ScenarioEvent(time: time, kind: "waypoint-refused", name: wname, activity: activity),
                       text: text, fields: fields, status: status)
                return
            }
        case .paused:
            text = "PAUSED"
        case .resumed:
            text = "resumed"
        case .lap(let number, let timer, let distance):
            text = "lap \(number) ends at \(RuntimeStatus.clock(timer)), \(km(distance)) km"
            fields = event.jsonFields(status: status)
        case .autoPaused(let standing):
            text = "AUTO-PAUSED after \(RuntimeStatus.clock(standing)) standing still, the timer held at "
                + RuntimeStatus.clock(status.coach.elapsed)
            fields = [("standing_s", .number(standing.inSeconds, places: 3)), ("timer_s", .number(status.coach.elapsed.inSeconds, places: 3))]
        case .autoResumed(let speed):
            text = "auto-resumed: moving at \(kmh(speed)) km/h"
            fields = [("moving_kmh", .number(speed * 3.6, places: 2))]
        case .battery(let percent):
            text = "battery \(Int(percent.rounded())) %"
            fields = [("percent", .number(percent, places: 1))]
        case .profileChanged(let from, let to, let percent):
            name = to
            text = "PROFILE \(from) -> \(to) (battery \(Int(percent.rounded(.down))) %)"
            fields = [("from", .text(from)), ("to", .text(to)), ("percent", .number(percent, places: 1))]
        case .finished(let end):
            name = end.rawValue
            text = "FINISHED (\(end.rawValue)) after \(RuntimeStatus.clock(status.coach.elapsed)) active, \(km(status.coach.distance)) km"
            fields = [("end", .text(end.rawValue)), ("active_s", .number(status.coach.elapsed.inSeconds, places: 3))]
        case .storageFault(let reason):
            text = "STORAGE FAULT: \(reason)"
            fields = [("reason", .text(reason))]
        case .calibrated(let factor, let stretches):
            text = factor == 1
                ? "CALIBRATED: the receiver's speeds counted as they are (\(stretches) stretches compared)"
                : "CALIBRATED: the receiver's speeds counted × \(String(format: "%.4f", factor)) (\(stretches) stretches compared)"
            fields = [("speed_factor", .number(factor, places: 4)), ("stretches", .int(stretches))]
        case .radio(let off, let failure):
            name = off ? "off" : "on"
            text = "RADIO \(off ? "off" : "on")" + (failure.map { " failed: \($0)" } ?? "")
            fields = [("state", .text(off ? "off" : "on"))] + (failure.map { [("error", .text($0))] } ?? [])
        case .strap(let strap, let detail):
            name = strap.rawValue
            text = "strap \(strap.rawValue)" + (detail.map { " (\($0))" } ?? "")
            fields = event.jsonFields(status: status)
        case .strapBattery(let percent):
            text = "strap battery \(percent) %"
            fields = event.jsonFields(status: status)
        case .route(let e):
            (name, text, fields) = ScenarioRecorder.describe(e)
        case .said(let u, let duration, let after):
            name = u.key
            text = "SAY \"\(u.text)\"" + (after > .zero ? " (after \(km(after.inSeconds * 1000)) s)" : "")
            fields = [("key", .text(u.key)), ("priority", .text(u.priorityName)), ("text", .text(u.text)),
                      ("duration_s", .number(duration.inSeconds, places: 3))]
                + (after > .zero ? [("after_s", .number(after.inSeconds, places: 3))] : [])
        case .speechCut(let key):
            name = key
            text = "SAY CUT (\(key))"
            fields = [("key", .text(key))]
        case .speechDropped(let key, let reason):
            name = key
            text = "SAY DROPPED (\(key): \(reason))"
            fields = [("key", .text(key)), ("reason", .text(reason))]
        case .ghost(let gap):
            name = gap.standing.rawValue
            text = "GHOST: \(RuntimeStatus.gapText(gap))"
            fields = [("standing", .text(gap.standing.rawValue)), ("ahead_m", .number(gap.metres, places: 1)),
                      ("ahead_s", .number(gap.seconds, places: 1))]
        }
        var recorded = ScenarioEvent(time: time, kind: event.kind, name: name, activity: activity)
        if case .phaseStarted = event {
            recorded.band = status.coach.phase.speedBand
            recorded.goal = status.coach.phase.distanceLimit
        }
        recorded.distance = status.coach.distance
        record(recorded, text: text, fields: fields, status: status)
    }

    /// A route event: its name (a waypoint's), its timeline text and its fields.
    static func describe(_ e: RouteFollower.Event) -> (String?, String, [(String, JSONValue)]) {
        let m = { (v: Double) in JSONValue.number(v, places: 1) }
        switch e {
        case .joined(let along):
            return (nil, "on the route, \(km(along)) km along", [("along_m", m(along))])
        case .offRoute(let by, let along):
            return (nil, "off the route by \(Int(by.rounded())) m (last on it \(km(along)) km along)",
                    [("off_by_m", m(by)), ("along_m", m(along))])
        case .backOnRoute(let along):
            return (nil, "back on the route, \(km(along)) km along", [("along_m", m(along))])
        case .waypointAhead(let index, let name, let distance, let climb):
            let up = climb.map { c in ", " + (c >= 0 ? "+" : "") + "\(Int(c.rounded())) m" } ?? ""
            return (name, "waypoint \(index + 1) '\(name)' \(km(distance)) km ahead\(up)",
                    // "ahead_m", not "distance_m": the line ends with the runner's distance_m.
                    [("waypoint", .int(index + 1)), ("name", .text(name)), ("ahead_m", m(distance))]
                        + (climb.map { [("climb_m", m($0))] } ?? []))
        case .waypointPassed(let index, let name):
            return (name, "passed waypoint \(index + 1) '\(name)'", [("waypoint", .int(index + 1)), ("name", .text(name))])
        case .turnAround(let along):
            return (nil, "the route turns back, \(km(along)) km along", [("along_m", m(along))])
        case .finished(let length):
            return (nil, "the end of the route (\(km(length)) km)", [("length_m", m(length))])
        }
    }

    /// A device-mode event (`pacer device`): the workout's own as `record` writes them, the
    /// device's states, cues, offers and presses as notes.
    func record(_ event: DeviceEvent, at time: Duration) {
        switch event {
        case .workout(let e, let status):
            record(e, status: status, at: time)
        case .state(let state, let detail):
            note("state", name: state.rawValue, text: "STATE \(state.rawValue)" + (detail.map { ": \($0)" } ?? ""),
                 fields: [("state", .text(state.rawValue))] + (detail.map { [("detail", .text($0))] } ?? []), at: time)
        case .cue(let cue):
            note("cue", name: cue.rawValue, text: ScenarioRecorder.shout(cue), fields: [("cue", .text(cue.rawValue))], at: time)
        case .counted(let n):
            let cue = n % 5 == 0 ? Cue.countFive : .count
            note("cue", name: cue.rawValue, text: "COUNT \(n)", fields: [("cue", .text(cue.rawValue)), ("count", .int(n))], at: time)
        case .fault(let text):
            let text = redact(text)
            note("fault", text: "FAULT: \(text)", fields: [("detail", .text(text))], at: time)
        case .offered(let plan, let workout, let of, let name, let again):
            note("offered", name: String(workout),
                 text: "offers workout \(workout)/\(of) '\(name)' of '\(plan)'" + (again ? " (all done: the plan again)" : ""),
                 fields: [("plan", .text(plan)), ("workout", .int(workout)), ("name", .text(name))], at: time)
        case .refused(let reason):
            note("refused", text: "START REFUSED: \(redact(reason))", fields: [("reason", .text(redact(reason)))], at: time)
        case .pressed(let pattern, let action):
            note("button", name: pattern.rawValue, text: "button \(pattern.rawValue) press: \(action)",
                 fields: [("press", .text(pattern.rawValue)), ("action", .text(action))], at: time)
        case .gps(let status, let detail):
            let detail = detail.map(redact)
            note("gps", name: status.rawValue, text: "gps \(status.rawValue)" + (detail.map { " (\($0))" } ?? ""),
                 fields: [("gps", .text(status.rawValue))] + (detail.map { [("detail", .text($0))] } ?? []), at: time)
        }
    }

    /// A text with the recording's path written as its file name (paths differ between machines).
    func redact(_ text: String) -> String {
        var text = text
        for (path, replacement) in redactions { text = text.replacingOccurrences(of: path, with: replacement) }
        return text
    }

    /// Something the scenario itself did (a power cut, a restart, a recovery, a battery set).
    func note(_ kind: String, name: String? = nil, text: String, fields: [(String, JSONValue)] = [], at time: Duration) {
        record(ScenarioEvent(time: time, kind: kind, name: name, activity: nil), text: text, fields: fields, status: nil)
    }

    /// Writes what is buffered and closes the files.
    func close() throws {
        try flush(force: true)
        try state.withLock { s in
            try s.timelineFile?.close()
            try s.jsonFile?.close()
            s.timelineFile = nil
            s.jsonFile = nil
        }
    }

    private func record(_ event: ScenarioEvent, text: String, fields: [(String, JSONValue)], status: RuntimeStatus?) {
        state.withLock { s in
            s.events.append(event)
            // timeline: `00:12:31  phase 2/5 Tempo  11.4 km/h  band 10.0–11.0  SLOW DOWN  1.234 km`
            s.timeline.append(contentsOf: ScenarioRecorder.clock(event.time).utf8)
            if let status {
                let c = status.coach
                var line = "  phase \(c.phaseIndex + 1)/\(c.phaseCount) \(c.phaseName)"
                if status.positioning { line += "  " + (c.smoothedSpeed.map { kmh($0) } ?? "--") + " km/h" }
                // With a heart rate shown, its limit says what a phase without a band targets.
                line += c.phase.speedBand.map { "  band \(kmh($0.lowerBound))–\(kmh($0.upperBound))" }
                    ?? (status.heart == nil ? "  no target" : "")
                if let heart = status.heart { line += "  " + heart.line }
                line += "  \(text)  \(km(c.distance)) km"
                s.timeline.append(contentsOf: line.utf8)
            } else {
                s.timeline.append(contentsOf: "  \(text)".utf8)
            }
            s.timeline.append(0x0A)

            // One key twice would stop the run (JSONObject refuses it): an event's own fields
            // never use the names of the ones around them (a waypoint ahead says ahead_m).
            var j: JSONObject = [("t", .number(event.time.inSeconds, places: 3)),
                                 ("time", .text(ScenarioRecorder.clock(event.time))), ("event", .text(event.kind))]
            if let activity = event.activity { j.add("activity", .int(Int(activity))) }
            j.add(contentsOf: fields)
            if let status {
                if let speed = status.coach.smoothedSpeed { j.add("speed_kmh", .number(speed * 3.6, places: 2)) }
                if let bpm = status.heart?.bpm { j.add("heart_bpm", .int(bpm)) }
                j.add("distance_m", .number(status.coach.distance, places: 1))
            }
            j.write(to: &s.json)
            s.json.append(0x0A)
        }
        try? flush(force: false)
    }

    private func flush(force: Bool) throws {
        try state.withLock { s in
            if force || s.timeline.count > 1 << 16 {
                try s.timelineFile?.write(contentsOf: s.timeline)
                s.timeline.removeAll(keepingCapacity: true)
            }
            if force || s.json.count > 1 << 16 {
                try s.jsonFile?.write(contentsOf: s.json)
                s.json.removeAll(keepingCapacity: true)
            }
        }
    }

    static func shout(_ cue: Cue) -> String {
        switch cue {
        case .speedUp: "SPEED UP"
        case .slowDown: "SLOW DOWN"
        case .onPace: "ON PACE"
        case .phaseChange: "NEXT PHASE"
        case .workoutComplete: "DONE"
        case .gpsLost: "GPS LOST"
        case .gpsBack: "GPS BACK"
        case .waypointSaved: "WAYPOINT SAVED"
        case .lowBattery: "LOW BATTERY"
        case .started: "GO"
        case .paused: "PAUSE"
        case .resumed: "RESUME"
        case .stopped: "STOPPED"
        case .split: "KM SPLIT"
        case .lap: "LAP"
        case .toGo: "TO GO"
        case .countdown: "COUNTDOWN"
        case .storageFault: "STORAGE FAULT"
        case .hrHigh: "HR HIGH"
        case .hrLow: "HR LOW"
        case .hrInZone: "HR IN ZONE"
        case .strapLost: "STRAP LOST"
        case .strapBack: "STRAP BACK"
        case .powerOn: "POWER ON"
        case .fault: "FAULT"
        case .searching: "searching"
        case .ready: "READY"
        case .planExpired: "PLAN EXPIRED"
        case .count: "COUNT 1"
        case .countFive: "COUNT 5"
        case .offRoute: "OFF ROUTE"
        case .onRoute: "ON ROUTE"
        case .waypointAhead: "WAYPOINT AHEAD"
        case .turnAround: "TURN AROUND"
        case .routeEnd: "ROUTE END"
        case .ghostBehind: "GHOST AHEAD OF YOU"
        case .ghostAhead: "AHEAD OF THE GHOST"
        }
    }

    /// `hh:mm:ss`, with `.mmm` when the time is not a whole second.
    static func clock(_ d: Duration) -> String {
        let ms = Int64((d.inSeconds * 1000).rounded())
        var text = RuntimeStatus.clock(.milliseconds(ms))
        if ms % 1000 != 0 { text += "." + String(String(1000 + ms % 1000).dropFirst()) }
        return text
    }
}

private func kmh(_ metresPerSecond: Double) -> String { RuntimeStatus.kmh(metresPerSecond) }

func km(_ metres: Double) -> String {
    var out: [UInt8] = []
    let thousandths = Int((metres).rounded())
    out.appendDigits(thousandths / 1000, width: 1)
    out.append(UInt8(ascii: "."))
    out.appendDigits(thousandths % 1000, width: 3)
    return String(decoding: out, as: UTF8.self)
}

private func coordinate(_ v: Double) -> String {
    var out: [UInt8] = []
    out.appendDecimal(v, places: 5)
    return String(decoding: out, as: UTF8.self)
}
