import PacerCore

/// The plan's summary in words, and the figures it quotes.
extension Builder {
    /// A novice over BMI 30: the first week holds under 3 km of running.
    var heavyNovice: Bool { fitness.level == .novice && fitness.bodyMassIndex > 30 }

    func summary(start: CivilDate, deadline: CivilDate, days: [Weekday]) -> String {
        let f = PlanGenerator.tenths
        func range(_ r: Range) -> String { "\(f(r.lo))–\(f(r.hi)) km/h" }
        var s: [String] = []
        s.append("A \(weeks)-week plan for the goal '\(goal.name)', \(frequency) workout\(frequency == 1 ? "" : "s") "
            + "a week, from \(start) to the deadline \(deadline).")
        let v0 = fitness.vdot
        switch fitness.source {
        case .bestRace(let mark):
            s.append("Current fitness: VDOT \(f(v0)) from the best race, \(GoalCatalog.format(metres: mark.distance)) "
                + "in \(GoalCatalog.format(mark.time)) (Daniels–Gilbert).")
        case .bestMarathon(let time):
            s.append("Current fitness: VDOT \(f(v0)) from the best marathon, \(GoalCatalog.format(time)) (Daniels–Gilbert).")
        case .estimate:
            let penalty = RunningFitness.vdotPenalty(bodyMassIndex: fitness.bodyMassIndex)
            s.append("Current fitness: VDOT \(f(v0)), a cautious estimate without a race mark for a runner who "
                + "\(fitness.level)\(penalty > 0 ? ", lowered for BMI \(PlanGenerator.format(fitness.bodyMassIndex))" : ""); "
                + "a race time in the profile makes it exact.")
        }
        s.append("Speeds follow Daniels' zones: easy \(range(zone(.easy, v0))), threshold \(range(zone(.threshold, v0))), "
            + "interval \(range(zone(.interval, v0))); no phase is faster than \(f(ceilingKmh)) km/h, "
            + "5 % above today's VO2max speed\(hasRepetitions ? " (repetitions: \(f(repetitionCeilingKmh)) km/h, R pace at the VDOT that speed gives)" : "").")
        let sorted = days.sorted().map(\.description)
        let listed = sorted.count == 1 ? sorted[0] : sorted.dropLast().joined(separator: ", ") + " and " + sorted.last!
        s.append("Every workout is dated: \(listed) each week, from the first on or after \(start).")
        let build = weeks - taperWeeks
        switch kind {
        case .recreational:
            s.append("Easy runs at a conversational pace (\(range(zone(.easy, v0)))), a little longer each week up to 45 minutes of running.")
        case .finish(let distance):
            let covered = firstWeekCovering(distance)
            s.append(covered.map { "The weekly long run covers \(GoalCatalog.format(metres: distance)) from week \($0)." }
                ?? "The weekly long run reaches \("\(f(longestLongRun() / 1000)) km") by the end: not yet "
                + "the \(GoalCatalog.format(metres: distance)) of the goal, which this plan does not reach; a later "
                + "deadline gives it time.")
        case .marathon:
            let longest = longestLongRun()
            s.append("Long runs at a steady speed (\(range(speeds(vdots[build - 1]).steady))) grow at most 10 % a week, "
                + "up to \(f(longest / 1000)) km, within 2.5 hours and 32 km (Daniels).")
            if longest < 25_000 {
                s.append("That is short of the 25–32 km long runs marathon plans build to: the plan does not "
                    + "prepare the marathon itself; a later deadline gives it time.")
            }
        case .timed:
            break
        }
        if let goalVDOT, let speed = goal.speed {
            let what = goal.isMarathon ? "Marathon-pace parts of the long runs" : "Goal-pace repeats"
            let first = kmh(speeds(vdots[0]).goalPaceSpeed)
            let last = kmh(speeds(reachVDOT).goalPaceSpeed)
            let pace = "\(f(kmh(speed))) km/h, \(Pace.minutesPerKilometre(speed)) /km"
            if goalVDOT <= v0 {
                s.append("The goal (VDOT \(f(goalVDOT)), \(pace)) is within current fitness: \(what.lowercased()) "
                    + "run at the goal's pace throughout.")
            } else if goalReached {
                s.append("\(what) progress week by week from \(f(first)) km/h to the goal pace (\(pace), VDOT "
                    + "\(f(goalVDOT))) by week \(build), at most 1 VDOT per 4 weeks (after Daniels).")
            } else {
                s.append("The goal needs VDOT \(f(goalVDOT)) (\(pace)); safe progress from VDOT \(f(v0)) (at most "
                    + "1 VDOT per 4 weeks, and 5 % above today's VO2max speed) reaches VDOT \(f(reachVDOT)) by "
                    + "week \(build), so this plan does NOT reach the goal: \(what.lowercased()) end at \(f(last)) km/h. "
                    + "A later deadline, or a new race time once fitter, brings it closer.")
            }
        }
        if let quality = qualitySummary() { s.append(quality) }
        s.append("Volume grows at most 10 % a week, and every 4th week eases off by 20 %.")
        if taperWeeks > 0 {
            s.append(taperWeeks == 1
                ? "The last week is a taper: 45 % less volume, the same speeds and days (Bosquet et al. 2007)."
                : "The last two weeks taper: 40 % then 55 % less volume, the same speeds and days (Bosquet et al. 2007).")
        }
        if fitness.loadFactor < 1 {
            s.append("Durations start at \(Int((fitness.loadFactor * 100).rounded())) % for BMI \(PlanGenerator.format(fitness.bodyMassIndex))"
                + (heavyNovice ? ", and the first week holds under 3 km of running (Nielsen et al. 2014)." : "."))
        }
        return s.joined(separator: " ")
    }

    /// Whether any week holds repetitions.
    var hasRepetitions: Bool { (1...weeks).contains { layout(week: $0).contains(.repetitions) } }

    /// Which method prescribes the plan's quality sessions, with the citation, and how they
    /// are run: nil for a plan without them.
    func qualitySummary() -> String? {
        let workouts = build()
        var parts: [String] = []
        let v0 = speeds(vdots[0])
        for session in [Session.repetitions, .intervals, .tempo] {
            let weeksWith = (1...weeks).filter { layout(week: $0).contains(session) }
            guard let first = weeksWith.first, let last = weeksWith.last else { continue }
            let when = weeksWith.count == weeks ? "every week"
                : first == last ? "in week \(first)" : "in weeks \(first)–\(last)"
            let fast = workouts.filter { SafetyBounds.title(of: $0) == title(session) }.flatMap(\.phases)
            let metres = Set(fast.filter { ["repetition", "interval", "tempo"].contains($0.name) }.compactMap(\.distanceLimit)).sorted()
            switch session {
            case .repetitions:
                parts.append("repetitions \(when): 400 m at R pace (mile race pace, \(GoalCatalog.format(.seconds(Int((400 / v0.repetitionPace).rounded())))) "
                    + "/400 m in week 1) with 400 m jogs, at most 5 % of the week's distance and 8 km")
            case .intervals:
                let lengths = metres.isEmpty ? "4 minutes (Daniels' bouts by time: 800 m would take over 5)"
                    : metres.count == 1 ? "\(Int(metres[0])) m" : "\(Int(metres.first!))–\(Int(metres.last!)) m"
                parts.append("intervals \(when): \(lengths) at I pace (\(Pace.minutesPerKilometre(v0.intervalPace)) /km in week 1) "
                    + "with a jog as long or a little shorter, at most 8 % of the week's distance and 10 km")
            case .tempo:
                let cruise = metres.isEmpty ? "" : ", cruise intervals of 1.6 km with 1 minute's rest per 5 when they give more"
                parts.append("tempo \(when): 20 minutes at T pace (\(Pace.minutesPerKilometre(v0.thresholdPace)) /km in week 1)"
                    + "\(cruise), at most 10 % of the week's distance")
            default:
                break
            }
        }
        guard !parts.isEmpty else { return nil }
        var text = "Quality sessions as Daniels prescribes them (Daniels' Running Formula, 3rd ed., 2014, ch. 4–5), "
            + "by distance where he gives distances, at his paces for the week's VDOT, recoveries not judged: "
            + parts.joined(separator: "; ") + "."
        if case .timed = kind {
            text += " The goal-pace repeats are this generator's race-pace practice, not Daniels', and stay in minutes."
        }
        return text
    }

    /// The first week whose long run (its running phases) covers `distance`.
    func firstWeekCovering(_ distance: Double) -> Int? {
        let workouts = build()
        for w in 1...weeks {
            let week = workouts[(w - 1) * frequency..<w * frequency]
            let covers = week.contains { workout in
                SafetyBounds.title(of: workout) == "long run" && PlanGenerator.runningMetres([workout]) >= distance - 1
            }
            if covers { return w }
        }
        return nil
    }

    /// The longest long run's running distance, metres.
    func longestLongRun() -> Double {
        build().filter { SafetyBounds.title(of: $0).hasPrefix("long") }.map { PlanGenerator.runningMetres([$0]) }.max() ?? 0
    }
}
