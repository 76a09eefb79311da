import PacerCore

/// The plan itself: every week's sessions, their phases and durations.
extension Builder {
    func build() -> [Workout] {
        let days = layout
        var workouts: [Workout] = []
        var largest: [Session: Double] = [:], previous: [Session: Double] = [:]
        for w in 1...weeks {
            let speeds = self.speeds(vdots[w - 1])
            let taper = w > weeks - taperWeeks
            // Minutes per session: the start for the level and BMI in week 1; then 10 % over
            // the session's largest so far, within its cap; 20 % under last week's every 4th
            // week; a share of the largest in the taper (45 % less; 40 then 55 % less over two).
            var minutes: [Double] = []
            for session in days {
                let cap = capMinutes(session, speeds: speeds)
                var m: Double
                if let before = largest[session], let last = previous[session] {
                    if taper {
                        let share = taperWeeks == 1 ? 0.55 : (w == weeks ? 0.45 : 0.60)
                        m = before * share
                    } else if w % 4 == 0 {
                        m = last * PlanGenerator.cutBack
                    } else {
                        m = min(cap, before * PlanGenerator.weeklyGrowth)
                    }
                } else {
                    m = min(cap, baseMinutes(session) * load)
                }
                minutes.append(max(1, Builder.halves(m)))
            }
            for (session, m) in zip(days, minutes) {
                previous[session] = m
                if !taper { largest[session] = max(largest[session] ?? 0, m) }
            }
            let weekMinutes = zip(days, minutes).reduce(0) { $0 + (($1.0 == .easy || $1.0 == .long) ? $1.1 + 10 : $1.1) }
            let progress = weeks - taperWeeks <= 1 ? 1 : min(1, Double(w - 1) / Double(weeks - taperWeeks - 1))
            for (d, (session, m)) in zip(days, minutes).enumerated() {
                let phases = self.phases(session, minutes: m, weekMinutes: weekMinutes, speeds: speeds, progress: progress)
                workouts.append(Workout(
                    name: "Week \(w) · day \(d + 1): \(title(session))\(taper ? " (taper)" : "")", phases: phases))
            }
        }
        return workouts
    }

    func phases(_ session: Session, minutes m: Double, weekMinutes: Double, speeds: Speeds, progress: Double) -> [Phase] {
        let jog = speeds.jog
        switch session {
        case .easy:
            return [phase("warm-up", 5, jog), phase("easy", m, speeds.easy), phase("cool-down", 5, jog)]
        case .long:
            if case .marathon(let time) = kind {
                var pace = 0.0
                if time != nil {
                    // Daniels: part of the long run at marathon pace, growing to a third of it.
                    pace = min(PlanGenerator.marathonPaceMinutes, Builder.halves(m * (0.1 + 0.23 * progress)))
                    if pace < 1 || m - pace < 1 { pace = 0 }
                }
                var phases = [phase("warm-up", 5, jog), phase("steady", m - pace, speeds.steady)]
                if pace > 0 { phases.append(phase("marathon pace", pace, speeds.marathonPace)) }
                return phases + [phase("cool-down", 5, jog)]
            }
            return [phase("warm-up", 5, jog), phase("long easy", m, speeds.easy), phase("cool-down", 5, jog)]
        case .goalPace:
            let distance = goal.distance ?? 5000
            let repMetres = distance < 10_000 ? 1000.0 : 2000.0
            let rep = max(1, Builder.halves(repMetres / speeds.goalPaceSpeed / 60))
            let share = distance < 10_000 ? 0.08 : 0.10
            return repeats("goal pace", rep: rep, recovery: max(1, Builder.halves(rep / 2)), range: speeds.goalPace,
                           fastMinutes: min(30, share * weekMinutes), budget: m, speeds: speeds)
        case .intervals:
            let rep = [2.0, 3, 4][fitness.level.rawValue]
            return repeats("interval", rep: rep, recovery: rep, range: speeds.interval,
                           fastMinutes: min(24, 0.08 * weekMinutes), budget: m, speeds: speeds)
        case .tempo:
            let t = max(1, Builder.halves(min(40, 0.10 * weekMinutes)))
            if t <= 20 {
                return [phase("warm-up", 10, jog), phase("tempo", t, speeds.threshold)]
                    + finish(budget: m, used: 10 + t, speeds: speeds)
            }
            // Daniels' cruise intervals: threshold repeats with a short jog, for more than 20 minutes.
            return repeats("tempo", rep: 10, recovery: 2, range: speeds.threshold,
                           fastMinutes: t, budget: m, speeds: speeds)
        }
    }

    /// Warm-up, `rep`/`recovery` pairs adding up to at most `fastMinutes` of fast running
    /// (at least one), then easy running and a cool-down filling the session to `budget`.
    func repeats(_ name: String, rep: Double, recovery: Double, range: Range, fastMinutes: Double,
                 budget: Double, speeds: Speeds) -> [Phase] {
        var n = max(1, Int(fastMinutes / rep))
        while n > 1 && 15 + Double(n) * (rep + recovery) > budget { n -= 1 }
        var phases = [phase("warm-up", 10, speeds.jog)]
        for _ in 0..<n { phases += [phase(name, rep, range), phase("recovery", recovery, speeds.jog)] }
        return phases + finish(budget: budget, used: 10 + Double(n) * (rep + recovery), speeds: speeds)
    }

    /// The end of a quality session: easy running for what the budget leaves beyond a
    /// 5-minute cool-down (when a minute or more), then the cool-down.
    func finish(budget: Double, used: Double, speeds: Speeds) -> [Phase] {
        let easy = budget - used - 5
        return (easy >= 1 ? [phase("easy", easy, speeds.easy)] : []) + [phase("cool-down", 5, speeds.jog)]
    }
}
