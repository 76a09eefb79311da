import PacerCore

/// A ghost to race (issue 43, R39): a past run, or a target time over a distance, as the
/// distance it has run at each reading of the runner's timer. The race is judged on distance
/// run, not on where: a ghost from another route races as well as one from this route.
public struct Ghost: Hashable, Sendable {
    /// A point of the ghost's run: its timer (seconds, pauses left out) and its metres.
    public struct Mark: Hashable, Sendable {
        public var seconds: Double
        public var metres: Double

        public init(seconds: Double, metres: Double) {
            self.seconds = seconds
            self.metres = metres
        }
    }

    /// How the runner hears of it: `activity 3`, `10 km in 50:00`.
    public var name: String
    /// Timer and metres, both rising, from (0, 0).
    public private(set) var marks: [Mark]

    /// Nil for a run that does not move (fewer than two marks, no distance).
    public init?(name: String, marks: [Mark]) {
        var kept: [Mark] = [Mark(seconds: 0, metres: 0)]
        for m in marks where m.seconds.isFinite && m.metres.isFinite {
            guard let last = kept.last, m.seconds > last.seconds else { continue }
            kept.append(Mark(seconds: m.seconds, metres: max(m.metres, last.metres)))
        }
        guard kept.count >= 2, let last = kept.last, last.metres > 0 else { return nil }
        self.name = name
        self.marks = kept
    }

    /// A target: `metres` in `time`, at an even pace, or with a negative split (`split`: the
    /// second half this fraction faster than the first, 0.02 for 2 %).
    public static func target(metres: Double, time: Duration, negativeSplit split: Double = 0, name: String) -> Ghost? {
        let total = time.inSeconds
        guard metres > 0, total > 0, split >= 0, split < 0.5 else { return nil }
        // First half in t1, second in t1 × (1 − split): t1 (2 − split) = total.
        let first = total / (2 - split)
        return Ghost(name: name, marks: [Mark(seconds: first, metres: metres / 2), Mark(seconds: total, metres: metres)])
    }

    /// The ghost's finish: its timer and metres at the end.
    public var finish: Mark { marks[marks.count - 1] }

    /// Metres the ghost has run at `seconds` on the timer; past its finish, as if it ran on at
    /// its average pace (a runner slower than a target falls further behind it, as the
    /// seconds say).
    public func metres(at seconds: Double) -> Double {
        guard seconds > 0 else { return 0 }
        guard seconds < finish.seconds else { return finish.metres * seconds / finish.seconds }
        let i = index(seconds: seconds)
        let a = marks[i], b = marks[i + 1]
        return a.metres + (b.metres - a.metres) * (seconds - a.seconds) / (b.seconds - a.seconds)
    }

    /// The timer when the ghost reached `metres`; past its finish, as if it had run on at its
    /// average pace.
    public func seconds(at metres: Double) -> Double {
        guard metres > 0 else { return 0 }
        if metres >= finish.metres {
            return finish.seconds + (metres - finish.metres) * finish.seconds / finish.metres
        }
        var lo = 0, hi = marks.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if marks[mid].metres < metres { lo = mid } else { hi = mid }
        }
        let a = marks[lo], b = marks[hi]
        guard b.metres > a.metres else { return b.seconds }
        return a.seconds + (b.seconds - a.seconds) * (metres - a.metres) / (b.metres - a.metres)
    }

    /// The last mark at or before `seconds` (with one after it).
    private func index(seconds: Double) -> Int {
        var lo = 0, hi = marks.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if marks[mid].seconds <= seconds { lo = mid } else { hi = mid }
        }
        return lo
    }
}

/// Where the runner stands against the ghost.
public struct GhostGap: Hashable, Sendable {
    public enum Standing: String, Hashable, Sendable {
        case ahead, level, behind
    }

    /// Metres the runner is ahead of the ghost (negative: behind).
    public var metres: Double
    /// Seconds the runner is ahead (negative: behind): when the ghost reached (or will reach)
    /// the runner's distance, less the runner's timer.
    public var seconds: Double
    public var standing: Standing

    public init(metres: Double, seconds: Double, standing: Standing) {
        self.metres = metres
        self.seconds = seconds
        self.standing = standing
    }
}

/// Races the runner against a ghost: the gap at each position update, the beeps for falling
/// behind and for taking the lead back, and the gap said on the profile's schedule. Pure, as
/// the pace coach: the runtime hands it the timer and the odometer.
///
/// - Level while the runner is within `levelMetres` of the ghost; leaving level needs the gap
///   past it, coming back needs it `hysteresis` metres inside, so a runner on the ghost's
///   heels does not flip between the two.
/// - Falling behind (from ahead, or from the start): `ghost-behind` at once; while behind,
///   again at each scheduled telling the gap has grown by `reminderMetres` since the last.
///   Taking the lead back from behind: `ghost-ahead`. Level on the way does not count.
/// - The gap is told (`GhostOutput.tell`) every `interval`, from `interval` after the start.
public struct GhostCoach: Sendable {
    public struct Settings: Hashable, Sendable {
        public var interval: Duration
        public var levelMetres: Double
        public var hysteresis: Double
        public var reminderMetres: Double

        public init(interval: Duration = .seconds(60), levelMetres: Double = 5, hysteresis: Double = 2,
                    reminderMetres: Double = 10) {
            self.interval = interval
            self.levelMetres = levelMetres
            self.hysteresis = hysteresis
            self.reminderMetres = reminderMetres
        }
    }

    public let ghost: Ghost
    public var settings: Settings
    public private(set) var gap: GhostGap?
    private var nextTelling: Duration
    private var behindTold: Double?
    /// The side of the ghost the runner was on when last not level.
    private var side = GhostGap.Standing.level

    public init(ghost: Ghost, settings: Settings) {
        self.ghost = ghost
        self.settings = settings
        nextTelling = settings.interval
    }

    /// The runner at `timer` with `metres` run: the gap, and what to sound or say.
    public mutating func update(timer: Duration, metres: Double) -> [GhostOutput] {
        let t = timer.inSeconds
        let ahead = metres - ghost.metres(at: t)
        let seconds = ghost.seconds(at: metres) - t
        let previous = gap?.standing ?? .level
        let inside = settings.levelMetres - (previous == .level ? 0 : settings.hysteresis)
        let standing: GhostGap.Standing = abs(ahead) <= inside ? .level : (ahead > 0 ? .ahead : .behind)
        let now = GhostGap(metres: ahead, seconds: seconds, standing: standing)
        gap = now
        var out: [GhostOutput] = []
        // Level between does not count: behind, level, behind is still behind; behind,
        // level, ahead is the lead taken back.
        if standing == .behind, side != .behind {
            out.append(.cue(.ghostBehind))
            behindTold = ahead
        } else if standing == .ahead, side == .behind {
            out.append(.cue(.ghostAhead))
        }
        if standing != .level { side = standing }
        if standing != .behind { behindTold = nil }
        if timer >= nextTelling {
            while nextTelling <= timer { nextTelling += settings.interval }
            if standing == .behind, let told = behindTold, ahead <= told - settings.reminderMetres, !out.contains(.cue(.ghostBehind)) {
                out.append(.cue(.ghostBehind))
                behindTold = ahead
            }
            out.append(.tell(now))
        }
        return out
    }
}

/// What the ghost coach decides.
public enum GhostOutput: Hashable, Sendable {
    case cue(Cue)
    /// The gap, to be said (and shown).
    case tell(GhostGap)
}
