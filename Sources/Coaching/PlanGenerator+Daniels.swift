import PacerCore

/// Daniels' quality sessions as his book prescribes them (Daniels' Running Formula, 3rd ed.,
/// 2014, ch. 4): by distance where he gives distances, at his T, I and R paces
/// (`DanielsPace`), each within his share of the week's distance (all of it, warm-ups and
/// recoveries included: his "weekly mileage").
///
/// | session | the fast part | recovery | the week's share at most |
/// |---|---|---|---|
/// | repetitions | 400 m at R pace | 400 m jog, not judged (equal distance) | the lesser of 8 km and 5 % |
/// | intervals | 800, 1000 or 1200 m at I pace, the longest within 4 min (5 min after a marathon) | a jog as long in time or a little less (half minutes), not judged | the lesser of 10 km and 8 % |
/// | tempo | 20 minutes at T pace (or less when 10 % is less); cruise intervals of 1.6 km when they give more | 1 minute per 5 of T, not judged | 10 % |
///
/// A runner whose 800 m at I pace takes more than 5 minutes runs Daniels' time-based I
/// bouts instead (4 minutes "hard", as long a jog). Every session keeps at least one repeat.
extension Builder {
    /// The sessions built here.
    static let danielsSessions: Set<Session> = [.repetitions, .intervals, .tempo]

    /// The longest repetition: Daniels' R repeats are 200–400 m.
    static let repetitionMetres = 400.0
    /// Daniels' cruise interval: a mile, rounded to the metric track.
    static let cruiseMetres = 1600.0
    /// The continuous tempo run: 20 minutes.
    static let tempoMinutes = 20.0

    /// `session`'s phases filling `budget` minutes, its fast running within Daniels' share of
    /// the week: `otherMetres` (the week's other sessions) and this one.
    func daniels(_ session: Session, budget: Double, otherMetres: Double, speeds: Speeds) -> [Phase] {
        let pace = { (kind: DanielsPace, speed: Double) -> String in
            let per = kind == .repetition
                ? "\(GoalCatalog.format(.seconds(Int((400 / speed).rounded())))) /400 m" : "\(Pace.minutesPerKilometre(speed)) /km"
            return "\(kind.rawValue) pace \(per), VDOT \(PlanGenerator.tenths(speeds.vdot)) (Daniels)"
        }
        switch session {
        case .repetitions:
            let metres = Builder.repetitionMetres
            let pass = [phase("repetition", metres: metres, speeds.repetition, notes: pace(.repetition, speeds.repetitionPace)),
                        jog(metres: metres)]
            return repeated(pass, fast: metres, limit: { min(8000, 0.05 * $0) }, budget: budget, others: otherMetres, speeds: speeds)
        case .intervals:
            let limit = { (week: Double) in min(10_000, 0.08 * week) }
            let speed = mid(speeds.interval)
            let longest = fitness.level >= .marathoner ? 5.0 : 4.0
            let minutes = { (metres: Double) in metres / speed / 60 }
            guard let metres = [1200.0, 1000, 800].first(where: { minutes($0) <= longest })
                ?? (minutes(800) <= 5 ? 800 : nil)
            else {
                let pass = [phase("interval", 4, speeds.interval), jog(minutes: 4)]
                return repeated(pass, fast: 4 * 60 * speed, limit: limit, budget: budget, others: otherMetres, speeds: speeds)
            }
            let pass = [phase("interval", metres: metres, speeds.interval, notes: pace(.interval, speeds.intervalPace)),
                        jog(minutes: max(1, Builder.halves(minutes(metres))))]
            return repeated(pass, fast: metres, limit: limit, budget: budget, others: otherMetres, speeds: speeds)
        case .tempo:
            let limit = { (week: Double) in 0.10 * week }
            let speed = mid(speeds.tempo)
            let notes = pace(.threshold, speeds.thresholdPace)
            // Cruise intervals when they give more T running than the 20-minute tempo run.
            let cruise = Builder.cruiseMetres / speed / 60
            let pass = [phase("tempo", metres: Builder.cruiseMetres, speeds.tempo, notes: notes),
                        jog(minutes: max(1, Builder.halves(cruise / 5)))]
            let cruising = repeated(pass, fast: Builder.cruiseMetres, limit: limit, budget: budget, others: otherMetres, speeds: speeds)
            let count = cruising.filter { $0.name == "tempo" }.count
            if count >= 2 && Double(count) * cruise > Builder.tempoMinutes { return cruising }
            // The tempo run: 20 minutes, or what the budget and the 10 % leave, at least 1.
            var t = max(1, min(Builder.tempoMinutes, Builder.halves(budget - 15)))
            while true {
                var tempo = phase("tempo", t, speeds.tempo)
                tempo.notes = notes
                let phases = [phase("warm-up", 10, speeds.jog), tempo] + finish(budget: budget, used: 10 + t, speeds: speeds)
                if t <= 1 || t * 60 * speed <= limit(otherMetres + metres(phases)) + 1e-9 { return phases }
                t -= 0.5
            }
        default:
            preconditionFailure("\(session) is not one of Daniels' quality sessions")
        }
    }

    /// A warm-up, `n` passes of `pass` (a fast phase of `fast` metres and its recovery), easy
    /// running and a cool-down to `budget` minutes: `n` the most that fits the budget and
    /// keeps `n · fast` within `limit` of the week's metres (`others` and this session), at
    /// least 1.
    func repeated(_ pass: [Phase], fast: Double, limit: (Double) -> Double, budget: Double, others: Double,
                  speeds: Speeds) -> [Phase] {
        let passMinutes = pass.reduce(0) { $0 + $1.duration.inSeconds / 60 }
        func session(_ n: Int) -> [Phase] {
            [phase("warm-up", 10, speeds.jog)] + Array([[Phase]](repeating: pass, count: n).joined())
                + finish(budget: budget, used: 10 + Double(n) * passMinutes, speeds: speeds)
        }
        var n = max(1, Int((budget - 15) / passMinutes))
        while n > 1 {
            let phases = session(n)
            if Double(n) * fast <= limit(others + metres(phases)) + 1e-9 { return phases }
            n -= 1
        }
        return session(1)
    }

    /// The metres `phases` plan: their distances, or time at target speed (none for a jog
    /// on time without a target, which is not counted).
    func metres(_ phases: [Phase]) -> Double {
        phases.reduce(0) { $0 + $1.impliedDistance }
    }
}
