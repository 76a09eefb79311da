/// When a repeated reminder (the same cue again, `interval` after the last) is due: at the
/// update nearest `interval` after the last cue, within half the spacing of the updates, not
/// only at one late by it. Updates that reach a board a few milliseconds early would
/// otherwise put every other reminder off by a whole update. The pace and heart-rate coaches
/// share it.
enum Reminder {
    static func isDue(sinceLastCue elapsed: Duration, interval: Duration, updateSpacing: Duration) -> Bool {
        elapsed >= interval - min(updateSpacing, interval) / 2
    }
}
