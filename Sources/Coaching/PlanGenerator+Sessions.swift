import PacerCore

/// The plan itself: every week's sessions, their phases and durations.
extension Builder {
    func build() -> [Workout] {
        var workouts: [Workout] = []
        // Minutes per training day of the week (the day's session may change with the weeks:
        // a timed goal's second hard session goes from repetitions to intervals to tempo).
        var largest: [Int: Double] = [:], previous: [Int: Double] = [:]
        for w in 1...weeks {
            let days = layout(week: w)
            let speeds = self.speeds(vdots[w - 1])
            let taper = w > weeks - taperWeeks
            // Minutes per session: the start for the level and BMI in week 1; then 10 % over
            // the day's largest so far, within its cap; 20 % under last week's every 4th
            // week; a share of the largest in the taper (45 % less; 40 then 55 % less over two).
            var minutes: [Double] = []
            for (d, session) in days.enumerated() {
                let cap = capMinutes(session, speeds: speeds)
                var m: Double
                if let before = largest[d], let last = previous[d] {
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
            for (d, m) in minutes.enumerated() {
                previous[d] = m
                if !taper { largest[d] = max(largest[d] ?? 0, m) }
            }
            let weekMinutes = zip(days, minutes).reduce(0) { $0 + (($1.0 == .easy || $1.0 == .long) ? $1.1 + 10 : $1.1) }
            let progress = weeks - taperWeeks <= 1 ? 1 : min(1, Double(w - 1) / Double(weeks - taperWeeks - 1))
            // Daniels' quality sessions take their volume as a share of the week's distance:
            // the week's other sessions are built first.
            var phases = [[Phase]](repeating: [], count: days.count)
            for (d, session) in days.enumerated() where !Builder.danielsSessions.contains(session) {
                phases[d] = self.phases(session, minutes: minutes[d], weekMinutes: weekMinutes, speeds: speeds, progress: progress)
            }
            let others = phases.joined().reduce(0) { $0 + $1.impliedDistance }
            for (d, session) in days.enumerated() where Builder.danielsSessions.contains(session) {
                phases[d] = daniels(session, budget: minutes[d], otherMetres: others, speeds: speeds)
            }
            for (d, session) in days.enumerated() {
                workouts.append(Workout(
                    name: "Week \(w) · day \(d + 1): \(title(session))\(taper ? " (taper)" : "")", phases: phases[d]).groupingRepeats())
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
        case .intervals, .tempo, .repetitions:
            // Built by `daniels`, which needs the rest of the week.
            return daniels(session, budget: m, otherMetres: 0, speeds: speeds)
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
    /// 5-minute cool-down (when a minute or more, in half minutes), then the cool-down.
    func finish(budget: Double, used: Double, speeds: Speeds) -> [Phase] {
        let easy = Builder.halves(budget - used - 5)
        return (easy >= 1 ? [phase("easy", easy, speeds.easy)] : []) + [phase("cool-down", 5, speeds.jog)]
    }
}
