import Coaching
import HAL
import PacerCore

/// What the device shows the runner (R1, R20): the live status line, `pacer ctl status`.
public struct RuntimeStatus: Hashable, Sendable {
    public var plan: String
    public var workout: String
    public var profile: String
    public var coach: CoachStatus
    public var gps: GPSStatus
    public var positioning: Bool
    public var activityID: Int64?
    public var points: Int
    public var waypoints: Int
    public var lastCue: Cue?
    public var battery: BatteryReading?
    /// The route being followed, when there is one.
    public var route: RouteFollower.Progress?
    /// The heart rate, when a strap is set or the workout is coached by heart rate.
    public var heart: HeartStatus?
    /// Where the runner stands against the ghost, when racing one (at the last position).
    public var ghost: GhostGap?

    public init(plan: String, workout: String, profile: String, coach: CoachStatus, gps: GPSStatus, positioning: Bool,
                activityID: Int64?, points: Int, waypoints: Int, lastCue: Cue?, battery: BatteryReading?,
                route: RouteFollower.Progress?, heart: HeartStatus? = nil, ghost: GhostGap? = nil) {
        self.ghost = ghost
        self.plan = plan
        self.workout = workout
        self.profile = profile
        self.coach = coach
        self.gps = gps
        self.positioning = positioning
        self.activityID = activityID
        self.points = points
        self.waypoints = waypoints
        self.lastCue = lastCue
        self.battery = battery
        self.route = route
        self.heart = heart
    }

    /// `00:12:31  phase 2/5 Tempo  11.4 km/h  band 10.0–11.0  SLOW DOWN  1.23 km  fix`
    public var line: String {
        var parts = [
            RuntimeStatus.clock(coach.elapsed),
            "phase \(coach.phaseIndex + 1)/\(coach.phaseCount) \(coach.phaseName)"
                + (coach.phase.repetition.map { " (repeat \($0.number)/\($0.count))" } ?? ""),
        ]
        if let metres = coach.phaseDistanceLeft {
            parts.append("left \(Int(metres.rounded())) m")
        } else if coach.phase.timeLimit != nil {
            parts.append("left \(RuntimeStatus.clock(coach.phaseTimeLeft))")
        }
        if positioning {
            let speed = coach.smoothedSpeed.map { RuntimeStatus.kmh($0) + " km/h" } ?? "-- km/h"
            parts.append(speed)
        }
        if let band = coach.phase.speedBand {
            parts.append("band \(RuntimeStatus.kmh(band.lowerBound))–\(RuntimeStatus.kmh(band.upperBound))")
        }
        if positioning, let needed = coach.neededSpeed {
            parts.append("need \(RuntimeStatus.kmh(needed))")
        }
        switch coach.pace {
        case .slow: parts.append("SPEED UP")
        case .fast: parts.append("SLOW DOWN")
        case .onPace: parts.append("on pace")
        case .unsure: parts.append("pace unsure")
        case .unknown: break
        }
        if let heart { parts.append(heart.line) }
        parts.append(String(format3(coach.distance / 1000)) + " km")
        if let route { parts.append(RuntimeStatus.describe(route)) }
        if let ghost { parts.append(RuntimeStatus.describe(ghost)) }
        parts.append(positioning ? gps.rawValue : "positioning off")
        if coach.paused { parts.append("PAUSED") }
        if coach.finished { parts.append("FINISHED") }
        return parts.joined(separator: "  ")
    }

    /// `ghost +12 s (+40 m)`, `ghost level`, `ghost −8 s (−25 m)`: the runner ahead (+) or
    /// behind (−) of the ghost.
    public static func describe(_ gap: GhostGap) -> String {
        "ghost " + gapText(gap)
    }

    /// `+12 s (+40 m)`, `level`, `−8 s (−25 m)`.
    public static func gapText(_ gap: GhostGap) -> String {
        guard gap.standing != .level else { return "level" }
        let sign = gap.metres >= 0 ? "+" : "−"
        return "\(sign)\(Int(abs(gap.seconds).rounded())) s (\(sign)\(Int(abs(gap.metres).rounded())) m)"
    }

    /// How a starting phase ends, when not on time, and its repeat: ` (800 m, repeat 3 of 6)`,
    /// ` (until lap)`; empty for a timed phase outside a repeat.
    public static func describeEnd(_ phase: Phase) -> String {
        var parts: [String] = []
        switch phase.end {
        case .time: break
        case .distance(let m): parts.append(metres(m))
        case .lapPress: parts.append("until lap")
        case .stop: parts.append("until stop")
        }
        if let r = phase.repetition { parts.append("repeat \(r.number) of \(r.count)") }
        return parts.isEmpty ? "" : " (\(parts.joined(separator: ", ")))"
    }

    /// A phase's distance: `400 m`, `1 km`, `1.609 km`.
    public static func metres(_ m: Double) -> String {
        guard m >= 1000 else { return "\(Int(m.rounded())) m" }
        var text = format3(m / 1000)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return "\(text) km"
    }

    /// `route 1.20/4.35 km  next Bridge 0.42 km +12 m  left 3.15 km`, `OFF ROUTE by 55 m`, `route
    /// start 0.30 km away`, `route done`.
    public static func describe(_ r: RouteFollower.Progress) -> String {
        var parts: [String] = []
        switch r.place {
        case .approaching(let toStart):
            return toStart.map { "route start \(format3($0 / 1000).dropLast()) km away" } ?? "route: no position yet"
        case .finished:
            return "route done"
        case .offRoute(let by):
            parts.append("OFF ROUTE by \(Int(by.rounded())) m")
        case .onRoute:
            parts.append("route \(format3(r.along / 1000).dropLast())/\(format3(r.length / 1000).dropLast()) km")
        }
        if let next = r.ahead.first {
            var text = "next \(next.name) \(format3(next.distance / 1000).dropLast()) km"
            if let climb = next.climb {
                let m = Int(climb.rounded())
                text += m >= 0 ? " +\(m) m" : " \(m) m"
            }
            parts.append(text)
        }
        parts.append("left \(format3(r.left / 1000).dropLast()) km")
        return parts.joined(separator: "  ")
    }

    /// `11.4`: a speed in km/h to a tenth.
    public static func kmh(_ metresPerSecond: Double) -> String {
        let tenths = Int((metresPerSecond * 36).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// `hh:mm:ss`.
    public static func clock(_ d: Duration) -> String {
        let s = max(0, Int(d.inSeconds.rounded(.down)))
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(two(s / 3600)):\(two(s / 60 % 60)):\(two(s % 60))"
    }
}

private func format3(_ v: Double) -> String {
    let thousandths = Int((v * 1000).rounded())
    let frac = thousandths % 1000
    return "\(thousandths / 1000)." + (frac < 10 ? "00" : frac < 100 ? "0" : "") + "\(frac)"
}
