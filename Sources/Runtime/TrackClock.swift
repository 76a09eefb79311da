import Coaching
import HAL
import Logging
import PacerCore

/// The run's time line: the device's monotonic clock anchored once to GPS time (the first
/// fix of the activity), the time each track point is recorded at, and the track's segments.
///
/// A fix is recorded at the receiver's own time while that agrees with the anchored clock,
/// at the clock's while it has jumped (a reset, a week rollover of −1024 weeks, a leap
/// second handled twice), so the record has one time line, in order, whatever the receiver
/// says; a jump is logged when it starts and when it ends. Points are never stored out of
/// order or twice; after a pause or a loss of fix the next point opens a new segment.
struct TrackClock {
    /// How far the receiver's time may differ from the run's clock before it is taken as the
    /// receiver's clock jumping. Arrival delays are well under it.
    static let timeJumpTolerance = Duration.seconds(5)

    /// GPS time at an instant of the device's clock: the first fix of the activity.
    private(set) var anchor: (at: Instant, time: UTCTimestamp)?
    /// The receiver's time disagrees with the anchored clock.
    private(set) var timeJumped = false
    /// The time of the last stored track point.
    private var lastStored: UTCTimestamp?
    private var segment = 0
    private var newSegmentPending = false
    /// Track points stored.
    private(set) var points = 0
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// Anchors the run's clock at the first fix of the activity (later calls keep the first).
    mutating func anchor(at now: Instant, gpsTime: UTCTimestamp) {
        if anchor == nil { anchor = (now, gpsTime) }
    }

    /// The next point opens a new segment (a pause, a loss of fix).
    mutating func breakSegment() {
        newSegmentPending = true
    }

    /// The run's clock as UTC at `now` (nil before the first fix anchors it).
    func utc(at now: Instant) -> UTCTimestamp? {
        anchor.map { a in
            UTCTimestamp(millisecondsSince1970: a.time.millisecondsSince1970 + (now - a.at).nanoseconds / 1_000_000)
        }
    }

    /// The time a fix between points is kept at (`TrackReading`): the receiver's own while it
    /// agrees with the run's clock, the clock's while it has jumped, as a point's would be.
    func readingTime(of fix: Fix, arrival: Instant) -> UTCTimestamp {
        guard let clockTime = utc(at: arrival) else { return fix.time }
        let offset = fix.time.millisecondsSince1970 - clockTime.millisecondsSince1970
        return abs(offset) > TrackClock.timeJumpTolerance.nanoseconds / 1_000_000 ? clockTime : fix.time
    }

    /// The activity's start, `startedAt` on the device's clock, as UTC.
    func utcStart(startedAt start: Instant) -> UTCTimestamp? {
        anchor.map { a in
            UTCTimestamp(millisecondsSince1970: a.time.millisecondsSince1970 - (a.at - start).nanoseconds / 1_000_000)
        }
    }

    /// Where the fix goes in the track: its time on the run's time line and its segment;
    /// nil when it is not newer than the last point stored. `arrival`: when the fix
    /// arrived on the device's clock (a fix kept since, the latest at a pause in a profile
    /// that samples every 30 s, is old, which is no jump).
    mutating func place(_ fix: Fix, arrival: Instant) -> (time: UTCTimestamp, segment: Int)? {
        let time = recordTime(of: fix, arrival: arrival)
        if let last = lastStored, time <= last { return nil }
        if newSegmentPending {
            segment += points > 0 ? 1 : 0
            newSegmentPending = false
        }
        points += 1
        lastStored = time
        return (time, segment)
    }

    /// The time a fix is recorded at: the receiver's own while it agrees with the run's
    /// clock, the clock's while it has jumped.
    private mutating func recordTime(of fix: Fix, arrival: Instant) -> UTCTimestamp {
        guard let clockTime = utc(at: arrival) else { return fix.time }
        let offset = fix.time.millisecondsSince1970 - clockTime.millisecondsSince1970
        let jumped = abs(offset) > TrackClock.timeJumpTolerance.nanoseconds / 1_000_000
        if jumped != timeJumped {
            timeJumped = jumped
            if jumped {
                logger.warning("the GPS time jumped by \(TrackClock.describeJump(offset)) (receiver \(fix.time.iso8601), run clock \(clockTime.iso8601)): recording on the run's clock")
            } else {
                logger.notice("the GPS time agrees with the run's clock again")
            }
        }
        return jumped ? clockTime : fix.time
    }

    /// `-1 h 0 min 0 s`, `+1 d 0 h`, in the largest units that matter.
    static func describeJump(_ ms: Int64) -> String {
        let sign = ms < 0 ? "-" : "+"
        let s = abs(ms) / 1000
        if s >= 86_400 { return "\(sign)\(s / 86_400) d \(s % 86_400 / 3600) h" }
        if s >= 3600 { return "\(sign)\(s / 3600) h \(s % 3600 / 60) min" }
        return "\(sign)\(s) s"
    }
}
