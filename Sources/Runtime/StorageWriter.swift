import Coaching
import HAL
import Logging
import PacerCore

/// Writes the activity through the storage port (`ActivityLog`): track points, cues, phase
/// results and waypoints as they happen, a commit when the runtime's `trackFlush` job asks, the close at the
/// end. A write that fails is logged and does not stop the workout; a commit that fails
/// (a full disk, a read-only or vanished folder) loses nothing yet, since the log keeps what it
/// could not write and tries again at the next commit, and is reported once so that the
/// runner hears the storage-fault cue once while the journal hears every failure.
final class StorageWriter: Sendable {
    /// What a commit came to.
    enum Commit: Equatable {
        case stored
        /// It failed; `first`: the first failure the runner should be told of.
        case failed(reason: String, first: Bool)
    }

    private struct State {
        /// Why commits fail now (nil: they work); whether the runner was told.
        var problem: String?
        var told = false
        /// Why the activity could not be closed, and the close to try again.
        var endProblem: String?
        var end: End?
    }

    /// An activity's close: what `finish` was given.
    struct End {
        var activity: Int64
        var totals: ActivityTotals
        var end: ActivityEnd
        var activeTime: Duration
    }

    let log: any ActivityLog
    private let clock: any PacerClock
    private let logger: Logger
    private let state: LoopBound<State>

    init(log: any ActivityLog, clock: any PacerClock, logger: Logger) {
        self.log = log
        self.clock = clock
        self.logger = logger
        state = LoopBound(State(), clock: clock)
    }

    /// Begins an activity; throws when storage refuses.
    func begin(_ start: ActivityStart) throws -> Int64 {
        try log.begin(start)
    }

    func append(_ point: TrackPoint, to activity: Int64) {
        attempt("a track point") { try log.append(point, to: activity) }
    }

    func add(_ result: PhaseResult, to activity: Int64) {
        attempt("a phase result") { try log.add(result, to: activity) }
    }

    func add(_ lap: LapMark, number: Int, to activity: Int64) {
        attempt("a lap") { try log.add(lap, number: number, to: activity) }
    }

    func add(_ cue: CueRecord, to activity: Int64) {
        attempt("a cue") { try log.add(cue, to: activity) }
    }

    /// A waypoint: its failure is the caller's to tell (the press is answered with it).
    /// Returns its number, for `revise`.
    func add(_ waypoint: Waypoint, to activity: Int64) throws -> Int {
        try log.add(waypoint, to: activity)
    }

    /// A waypoint stored before, in its refined place: a failure keeps the first place.
    func revise(_ waypoint: Waypoint, number: Int, of activity: Int64) {
        attempt("a waypoint's refined place") { try log.revise(waypoint, number: number, of: activity) }
    }

    private func attempt(_ what: String, _ write: () throws -> Void) {
        do { try write() } catch { logger.error("cannot store \(what): \(error)") }
    }

    /// Stores the running totals (when an activity records) and commits what is waiting.
    func commit(_ totals: (ActivityTotals, Int64)?) -> Commit {
        do {
            if let (totals, activity) = totals { try log.update(totals, for: activity) }
            try log.commit()
            if state.withValue({ s in defer { s.problem = nil }; return s.problem != nil }) {
                logger.notice("storage works again: what was waiting is stored")
            }
            return .stored
        } catch {
            let reason = "\(error)"
            let (first, waiting) = state.withValue { s -> (Bool, (waiting: Int, dropped: Int)) in
                defer {
                    s.problem = reason
                    s.told = true
                }
                return (!s.told, log.uncommitted)
            }
            logger.error("cannot store the track: \(reason) (\(waiting.waiting) items waiting\(waiting.dropped > 0 ? ", \(waiting.dropped) points given up" : ""))")
            return .failed(reason: reason, first: first)
        }
    }

    /// Closes the activity with its final totals; a failure is kept for `loss`, and the
    /// close for `finishAgain`.
    func finish(_ activity: Int64, totals: ActivityTotals, end: ActivityEnd, activeTime: Duration) {
        let close = End(activity: activity, totals: totals, end: end, activeTime: activeTime)
        do {
            try store(close)
        } catch {
            logger.error("cannot close the activity: \(error)")
            state.withValue { s in
                s.endProblem = "\(error)"
                s.end = close
            }
        }
    }

    /// Tries a close that failed again (storage may work again: space freed, the folder made
    /// again): true when the activity is now stored, with what waited for it.
    func finishAgain() -> Bool {
        guard let close = state.withValue({ $0.end }) else { return true }
        do {
            try store(close)
        } catch {
            state.withValue { $0.endProblem = "\(error)" }
            return false
        }
        state.withValue { s in
            s.end = nil
            s.endProblem = nil
        }
        return true
    }

    private func store(_ close: End) throws {
        try log.update(close.totals, for: close.activity)
        try log.finish(close.activity, end: close.end, endedAt: close.totals.endedAt, activeTime: close.activeTime)
    }

    /// What could not be stored when the activity ended, and why (nil: everything was).
    var loss: (reason: String, waiting: Int, dropped: Int)? {
        guard let reason = state.withValue({ $0.endProblem }) else { return nil }
        let left = log.uncommitted
        return (reason, left.waiting, left.dropped)
    }
}
