import PacerCore

/// A running watch's auto-pause: the timer stops while the runner stands still (a traffic
/// light, a crossing) and runs again when they move on, so that the timer, the average speed
/// and the phases count the running, not the waiting.
///
/// Pure: fed the Doppler speed of every fix the receiver delivers, with its instant, it
/// decides; the runtime pauses and resumes the coach. Rules:
/// - Stop: every fix's speed below `below` from a first such fix for at least `after`: a
///   pause, dated back to that first fix, the moment the runner stopped. A watch's timer
///   stops when the runner does; the seconds spent making sure are not run time, and
///   counting them would shorten every average by them.
/// - Resume: a fix faster than `resumeAbove` while auto-paused, at that fix. The gap
///   between the two thresholds keeps a runner walking at one of them from pausing and
///   resuming at every fix. A standing receiver's Doppler noise stays far under it.
/// - Only a running workout is auto-paused. A pause by hand is the runner's: moving does
///   not end it (they resume by hand), and a press ends an auto-pause (`handOver`).
/// - No speed is not zero speed: a fix without a speed, or a loss of fix, is no evidence
///   of standing, and the stop must be seen again from its next fix.
/// - A phase whose range reaches below `below` (a standing rest between repeats) asks the
///   runner to go that slowly: it is not auto-paused, or its time would never run out.
public struct AutoPause: Sendable {
    public struct Settings: Hashable, Sendable {
        /// m/s: at or above it the runner is moving.
        public var below: Double
        /// How long every fix must stay below `below` before the pause.
        public var after: Duration
        /// m/s: above it an auto-paused runner is moving again.
        public var resumeAbove: Double

        public init(below: Double, after: Duration, resumeAbove: Double) {
            precondition(resumeAbove > below, "the resume threshold is above the pause threshold")
            self.below = below
            self.after = after
            self.resumeAbove = resumeAbove
        }
    }

    public enum Decision: Hashable, Sendable {
        /// Pause, from `since` (when the runner stopped).
        case pause(since: Instant)
        /// Resume now; `speed` is the fix's (m/s).
        case resume(speed: Double)
    }

    /// Nil: no new auto-pause (the profile has none); an auto-pause in force still resumes.
    public private(set) var settings: Settings?
    /// The first fix of a stop that is not a pause yet.
    public private(set) var stoppedSince: Instant?
    /// While auto-paused: the speed that resumes, kept from when it paused, so that a change of
    /// profile never leaves the runner paused.
    private var resumeAbove: Double?

    public init(settings: Settings?) {
        self.settings = settings
    }

    /// Whether the timer is stopped by auto-pause (not by a press).
    public var isPaused: Bool { resumeAbove != nil }
    /// A stop has been seen and will be a pause if it lasts.
    public var isPending: Bool { stoppedSince != nil }

    /// A fix: `speed` in m/s (nil when the receiver gave none). `running`: the workout is
    /// running (not paused, not over). `phaseMinimumSpeed`: the current phase's slowest
    /// acceptable speed.
    public mutating func observe(
        speed: Double?, at t: Instant, running: Bool, phaseMinimumSpeed: Double
    ) -> Decision? {
        guard let speed, speed.isFinite, speed >= 0 else {
            stoppedSince = nil
            return nil
        }
        if let resume = resumeAbove {
            guard speed > resume else { return nil }
            resumeAbove = nil
            stoppedSince = nil
            return .resume(speed: speed)
        }
        guard running, let settings, phaseMinimumSpeed >= settings.below, speed < settings.below else {
            stoppedSince = nil
            return nil
        }
        let since = min(stoppedSince ?? t, t)
        guard t - since >= settings.after else {
            stoppedSince = since
            return nil
        }
        stoppedSince = nil
        resumeAbove = settings.resumeAbove
        return .pause(since: since)
    }

    /// The fix is lost (or the receiver went away): what was seen of a stop is forgotten.
    /// An auto-pause in force stays: the runner resumes when a fix shows them moving.
    public mutating func fixLost() {
        stoppedSince = nil
    }

    /// The runner paused or resumed by hand: the pause, or the run, is theirs now.
    public mutating func handOver() {
        stoppedSince = nil
        resumeAbove = nil
    }

    /// A new profile's thresholds (nil: none) from the next fix.
    public mutating func change(settings new: Settings?) {
        settings = new
        if new == nil { stoppedSince = nil }
    }
}
