import Coaching
import HAL
import PacerCore

/// The device's events as JSON lines, for whoever watches the running device (`pacer ctl
/// watch`: a phone over SSH, `jq`, a script). One object a line, keys in a fixed order:
///
///     {"event":"cue","time":"2026-05-02T07:12:31.250Z","cue":"slow-down","phase":2,
///      "status":{"elapsed_s":751.25,"distance_m":2310.4,"phase":2,"phases":5,…,"state":"running"}}
///
/// `event` comes first (its kind: `RuntimeEvent.kind`, or `status` for the status a watcher
/// hears first), then `time` when the producer knows the wall clock (the runtime never reads
/// it: `pacer run` passes it), then the event's own fields, named as in a scenario's
/// `events.jsonl` (`phase` counts from 1, durations `_s`, distances `_m`, speeds `_kmh`),
/// then the device's status right after the event under `status`: nested, so that its
/// `phase` or `gps` never collides with the event's own.
///
/// The lines are written with PacerCore's JSON writer (`JSONValue`): strings escaped for any
/// JSON reader, numbers with fixed places and always finite, each key once (a field that
/// repeats `event` or `time` is refused); a line never holds a newline of its own.
public enum EventJSON {
    /// A value in an event line: PacerCore's, as every JSON Pacer writes.
    public typealias Value = JSONValue

    /// One event line (without its newline) for any producer: `{"event":KIND[,"time":…],FIELDS…}`.
    /// The device's other modes publish theirs through this too:
    /// `EventJSON.line(kind: "state", fields: [("state", .text("ready"))])` is
    /// `{"event":"state","state":"ready"}`. `fields` must not use the keys `event` or `time`,
    /// nor any key twice (a precondition).
    public static func line(kind: String, time: UTCTimestamp? = nil, fields: [(String, Value)]) -> String {
        var object: JSONObject = [("event", .text(kind))]
        if let time { object.add("time", .text(time.iso8601)) }
        object.add(contentsOf: fields)
        return object.compact
    }
}

extension RuntimeEvent {
    /// The event as one JSON line (without its newline), with the status right after it:
    /// what `pacer run` publishes to `pacer ctl watch`. `time`: the wall clock when the caller
    /// knows it.
    public func jsonLine(status: RuntimeStatus, time: UTCTimestamp? = nil) -> String {
        var fields = jsonFields(status: status)
        fields.append(("status", status.jsonObject))
        return EventJSON.line(kind: kind, time: time, fields: fields)
    }

    /// The event's own fields, named as in a scenario's `events.jsonl`.
    public func jsonFields(status: RuntimeStatus) -> [(String, EventJSON.Value)] {
        switch self {
        case .started(let activity):
            return [("activity", .int(Int(activity))), ("plan", .text(status.plan)), ("workout", .text(status.workout)),
                    ("profile", .text(status.profile))]
        case .phaseStarted(let index):
            return [("phase", .int(index + 1)), ("name", .text(status.coach.phaseName))] + EventJSON.phaseFields(status.coach.phase)
        case .phaseFinished(let r), .phaseRevised(let r):
            return [("phase", .int(r.index + 1)), ("name", .text(r.name)), ("duration_s", .number(r.duration.inSeconds, places: 3)),
                    ("in_band_s", .number(r.timeInBand.inSeconds, places: 3)), ("phase_distance_m", .number(r.distance, places: 1))]
        case .cue(let cue, let phase):
            return [("cue", .text(cue.rawValue))] + (phase.map { [("phase", .int($0 + 1))] } ?? [])
        case .gps(let gps, let detail):
            // "gps", as the status object names the same state (and as events.jsonl names it):
            // "status" is the status object these lines carry.
            return [("gps", .text(gps.rawValue))] + (detail.map { [("detail", .text($0))] } ?? [])
        case .waypoint(let name, let outcome):
            switch outcome {
            case .stored(let w), .storedAtLastKnownPosition(let w):
                let last = if case .storedAtLastKnownPosition = outcome { true } else { false }
                return [("name", .text(name)), ("outcome", .text(last ? "stored-at-last-known-position" : "stored")),
                        ("lat", .number(w.position.latitude, places: 7)), ("lon", .number(w.position.longitude, places: 7))]
            case .duplicate: return [("name", .text(name)), ("outcome", .text("duplicate"))]
            case .noPositionYet: return [("name", .text(name)), ("outcome", .text("no-position-yet"))]
            case .notRecording: return [("name", .text(name)), ("outcome", .text("not-recording"))]
            }
        case .paused, .resumed:
            return []
        case .lap(let number, let timer, let distance):
            return [("lap", .int(number)), ("timer_s", .number(timer.inSeconds, places: 3)),
                    ("lap_end_m", .number(distance, places: 1))]
        case .autoPaused(let standing):
            return [("standing_s", .number(standing.inSeconds, places: 3)),
                    ("timer_s", .number(status.coach.elapsed.inSeconds, places: 3))]
        case .autoResumed(let speed):
            return [("moving_kmh", .number(speed * 3.6, places: 2))]
        case .battery(let percent):
            return [("percent", .number(percent, places: 1))]
        case .profileChanged(let from, let to, let percent):
            return [("from", .text(from)), ("to", .text(to)), ("percent", .number(percent, places: 1))]
        case .finished(let end):
            return [("end", .text(end.rawValue)), ("active_s", .number(status.coach.elapsed.inSeconds, places: 3))]
        case .storageFault(let reason):
            return [("reason", .text(reason))]
        case .calibrated(let factor, let stretches):
            return [("speed_factor", .number(factor, places: 4)), ("stretches", .int(stretches))]
        case .radio(let off, let failure):
            return [("state", .text(off ? "off" : "on"))] + (failure.map { [("error", .text($0))] } ?? [])
        case .strap(let status, let detail):
            return [("strap", .text(status.rawValue))] + (detail.map { [("detail", .text($0))] } ?? [])
        case .strapBattery(let percent):
            return [("percent", .int(percent))]
        case .route(let e):
            return e.jsonFields
        case .said(let u, let duration, let after):
            return [("key", .text(u.key)), ("priority", .text(u.priorityName)), ("text", .text(u.text)),
                    ("duration_s", .number(duration.inSeconds, places: 3))]
                + (after > .zero ? [("after_s", .number(after.inSeconds, places: 3))] : [])
        case .speechCut(let key):
            return [("key", .text(key))]
        case .speechDropped(let key, let reason):
            return [("key", .text(key)), ("reason", .text(reason))]
        case .ghost(let gap):
            return [("standing", .text(gap.standing.rawValue)), ("ahead_m", .number(gap.metres, places: 1)),
                    ("ahead_s", .number(gap.seconds, places: 1))]
        }
    }
}

extension RuntimeStatus {
    /// `{"event":"status",…}`: where things stand, with the plan, workout and profile. What a
    /// watcher hears first, so that a phone connecting mid-run need not wait for an event.
    public func jsonLine(time: UTCTimestamp? = nil) -> String {
        EventJSON.line(kind: "status", time: time, fields: [
            ("plan", .text(plan)), ("workout", .text(workout)), ("profile", .text(profile)), ("status", jsonObject),
        ])
    }

    /// The compact status every runtime line carries: `elapsed_s` (active time), `distance_m`,
    /// `phase` (from 1) of `phases`, `phase_name`, `phase_left_s`, `speed_kmh` (smoothed; when
    /// known), `pace` (`slow`, `on-pace`, `fast`, `unsure`, `unknown`), `gps` (its status, or
    /// `off` without positioning), `activity` (its id; null before the start), `state`
    /// (`starting`, `running`, `paused`, `finished`), `battery_pct` when read, `route` when
    /// one is followed, and `heart` when a strap is set or the workout is coached by heart rate
    /// (`strap`, `bpm`, `zone`, `limit_bpm` [low, high] or `ceiling_bpm`, `hr`: `low`, `in-zone`,
    /// `high`, `unknown`; `strap_battery_pct`).
    public var jsonObject: EventJSON.Value {
        let state = coach.finished ? "finished" : coach.paused ? "paused" : activityID == nil ? "starting" : "running"
        var fields: [(String, EventJSON.Value)] = [
            ("elapsed_s", .number(coach.elapsed.inSeconds, places: 3)),
            ("distance_m", .number(coach.distance, places: 1)),
            ("phase", .int(coach.phaseIndex + 1)),
            ("phases", .int(coach.phaseCount)),
            ("phase_name", .text(coach.phaseName)),
            ("phase_left_s", .number(coach.phaseTimeLeft.inSeconds, places: 3)),
        ]
        if positioning, let speed = coach.smoothedSpeed { fields.append(("speed_kmh", .number(speed * 3.6, places: 2))) }
        fields.append(("pace", .text(coach.pace.rawValue)))
        fields.append(("gps", .text(positioning ? gps.rawValue : "off")))
        fields.append(("activity", activityID.map { .int(Int($0)) } ?? .null))
        fields.append(("state", .text(state)))
        if let battery { fields.append(("battery_pct", .number(battery.percent, places: 1))) }
        if let route { fields.append(("route", route.jsonObject)) }
        if let heart { fields.append(("heart", heart.jsonObject)) }
        return .object(JSONObject(fields))
    }
}

extension RouteFollower.Event {
    /// Named as in a scenario's `events.jsonl`: metres along the route, to a decimetre.
    public var jsonFields: [(String, EventJSON.Value)] {
        switch self {
        case .joined(let along): [("along_m", .number(along, places: 1))]
        case .offRoute(let by, let along): [("off_by_m", .number(by, places: 1)), ("along_m", .number(along, places: 1))]
        case .backOnRoute(let along): [("along_m", .number(along, places: 1))]
        case .waypointAhead(let index, let name, let distance, let climb):
            // "ahead_m": the cue's line adds the runner's own "distance_m" after these fields.
            [("waypoint", .int(index + 1)), ("name", .text(name)), ("ahead_m", .number(distance, places: 1))]
                + (climb.map { [("climb_m", .number($0, places: 1))] } ?? [])
        case .waypointPassed(let index, let name): [("waypoint", .int(index + 1)), ("name", .text(name))]
        case .turnAround(let along): [("along_m", .number(along, places: 1))]
        case .finished(let length): [("length_m", .number(length, places: 1))]
        }
    }
}

extension RouteFollower.Progress {
    /// `{"name", "length_m", "along_m", "left_m", "place" (approaching, on-route, off-route,
    /// finished), "off_by_m" or "to_start_m", "next": {"name", "distance_m", "climb_m"}}`.
    public var jsonObject: EventJSON.Value {
        var fields: [(String, EventJSON.Value)] = [
            ("name", .text(route)), ("length_m", .number(length, places: 1)), ("along_m", .number(along, places: 1)),
            ("left_m", .number(left, places: 1)),
        ]
        switch place {
        case .approaching(let toStart):
            fields += [("place", .text("approaching")), ("to_start_m", toStart.map { .number($0, places: 1) } ?? .null)]
        case .onRoute: fields.append(("place", .text("on-route")))
        case .offRoute(let by): fields += [("place", .text("off-route")), ("off_by_m", .number(by, places: 1))]
        case .finished: fields.append(("place", .text("finished")))
        }
        if let next = ahead.first {
            fields.append(("next", .object(JSONObject([("name", .text(next.name)), ("distance_m", .number(next.distance, places: 1))]
                + (next.climb.map { [("climb_m", .number($0, places: 1))] } ?? [])))))
        }
        return .object(JSONObject(fields))
    }
}

extension EventJSON {
    /// A starting phase's fields: its band (when it has one), how it ends when not on time
    /// (`m`, `until`), its place in a repeated group.
    static func phaseFields(_ phase: Phase) -> [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = []
        if let band = phase.speedBand {
            fields.append(("band_kmh", .array([.number(band.lowerBound * 3.6, places: 2), .number(band.upperBound * 3.6, places: 2)])))
        }
        switch phase.heartRateTarget {
        case .zone(let n)?: fields.append(("hr_zone", .int(n)))
        case .bpm(let lo, let hi)?: fields.append(("hr_bpm", .array([.int(lo), .int(hi)])))
        case nil: break
        }
        switch phase.heartRateCeiling {
        case .bpm(let b)?: fields.append(("hr_max_bpm", .int(b)))
        case .zoneTop(let n)?: fields.append(("hr_max_zone", .int(n)))
        case nil: break
        }
        switch phase.end {
        case .time: break
        case .distance(let m): fields.append(("phase_goal_m", .number(m, places: 1)))
        case .lapPress: fields.append(("until", .text("lap")))
        case .stop: fields.append(("until", .text("stop")))
        }
        if let r = phase.repetition { fields += [("repeat", .int(r.number)), ("repeats", .int(r.count))] }
        return fields
    }
}
