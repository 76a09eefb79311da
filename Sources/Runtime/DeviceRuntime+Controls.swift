import Coaching
import HAL
import PacerCore

/// The runtime's answers to the controls (the socket, keys, SIGUSR1, the button, a
/// scenario's script), and the cues of the route it follows.
extension DeviceRuntime {
    /// Answers a control command (the socket, keys, SIGUSR1, a scenario's script) with one
    /// line: what was done, or `error: …` when it could not be.
    public func handle(_ command: ControlCommand, reply: @escaping @Sendable (String) -> Void) {
        switch command {
        case .waypoint(let name):
            waypoint(name) { outcome in
                switch outcome {
                case .stored(let w):
                    reply("waypoint '\(w.name)' stored at \(DeviceRuntime.describe(w.position))")
                case .storedAtLastKnownPosition(let w):
                    reply("waypoint '\(w.name)' stored at the last known position \(DeviceRuntime.describe(w.position)) (no fix now)")
                case .duplicate:
                    reply("error: a waypoint was stored less than a second ago (one press)")
                case .noPositionYet:
                    reply("error: no position yet: the GPS has had no fix since the start")
                case .notRecording:
                    reply("error: not recording")
                }
            }
        case .pause:
            pause()
            parts.clock.onLoop { [self] in reply(status.line) }
        case .resume:
            resume()
            parts.clock.onLoop { [self] in reply(status.line) }
        case .lap:
            lap()
            parts.clock.onLoop { [self] in reply(status.line) }
        case .stop, .shutdown:
            // Answer first: once the activity ends the loop stops, and a later answer would be lost.
            reply("stopping: \(status.line)")
            stop()
        case .start:
            parts.clock.onLoop { [self] in
                reply(isFinished ? "error: the workout is over" : "error: the workout is already running")
            }
        case .status:
            parts.clock.onLoop { [self] in reply(status.line) }
        case .sayStatus:
            sayStatus { [self] said in reply(said ? "saying: \(status.line)" : status.line) }
        case .markWaypoint:
            // The firmware names a waypoint before it hands it on (`Firmware.handle`).
            reply("error: a waypoint needs a name here")
        case .press(let pattern):
            // The runtime has no button_actions: whoever holds them maps a press to a command
            // first (`ButtonActions.runningCommand`, as `pacer run` and `pacer device` do).
            reply("error: a \(pattern.rawValue) press means nothing here without the button's actions")
        }
    }

    static func describe(_ p: GeoPoint) -> String {
        func f(_ v: Double) -> String {
            let scaled = Int((abs(v) * 100_000).rounded())
            let frac = String(scaled % 100_000)
            return (v < 0 ? "-" : "") + "\(scaled / 100_000)." + String(repeating: "0", count: 5 - frac.count) + frac
        }
        return "\(f(p.latitude)), \(f(p.longitude))"
    }

    /// Reports a route event and sounds its cue: off the route, back on it, a waypoint ahead,
    /// a turn-around, the end. Joining the route and passing a waypoint are silent (the
    /// waypoint was announced before it).
    func routeEvent(_ e: RouteFollower.Event) {
        report(.route(e))
        switch e {
        case .joined(let along):
            logger.info("on the route \(Int(along.rounded())) m from its start")
        case .offRoute(let by, _):
            logger.info("off the route by \(Int(by.rounded())) m")
            sound(.offRoute, phase: nil, facts: .init(offRoute: by))
        case .backOnRoute(let along):
            logger.info("back on the route \(Int(along.rounded())) m from its start")
            sound(.onRoute, phase: nil)
        case .waypointAhead(_, let name, let distance, let climb):
            logger.info("waypoint '\(name)' \(Int(distance.rounded())) m ahead\(climb.map { ", \(Int($0.rounded())) m up" } ?? "")")
            sound(.waypointAhead, phase: nil, facts: .init(waypoint: name, ahead: distance))
        case .waypointPassed(_, let name):
            logger.info("passed waypoint '\(name)'")
        case .turnAround:
            sound(.turnAround, phase: nil)
        case .finished:
            logger.info("the end of the route")
            sound(.routeEnd, phase: nil)
        }
    }
}
