import HAL
import PacerCore
import Testing

/// The pure decision on a receiver's time (a week-rollover fault): what it is taken for,
/// against the system clock and the earliest plausible date.
@Suite("GPS time check (week rollover)")
struct GPSTimeCheckTests {
    static func at(_ y: Int, _ m: Int, _ d: Int, hour: Int = 7) -> UTCTimestamp {
        UTCTimestamp(date: CivilDate(year: y, month: m, day: d)!, millisecondOfDay: Int32(hour * 3_600_000))
    }
    static let today = at(2026, 5, 2)
    static let week = Int64(7 * 86_400_000)
    static func early(_ eras: Int64, from t: UTCTimestamp = today) -> UTCTimestamp {
        UTCTimestamp(millisecondsSince1970: t.millisecondsSince1970 - eras * 1024 * week)
    }
    static func clock(_ t: UTCTimestamp, _ q: SystemTimeReading.Quality = .set) -> SystemTimeReading {
        SystemTimeReading(time: t, quality: q)
    }

    @Test func oneEraIsTheDatesOfTheIssue() {
        #expect(Self.early(1).date == CivilDate(year: 2006, month: 9, day: 16)!)
        #expect(GPSTimeCheck.rollover == 7168 * 86_400_000)
    }

    @Test func aCorrectDateIsTakenAsItIs() {
        for q in [SystemTimeReading.Quality.set, .synchronized] {
            let v = GPSTimeCheck.judge(gps: Self.today, system: Self.clock(Self.at(2026, 5, 2, hour: 6), q))
            #expect(v == .asIs(reason: "agrees with the system clock"), "\(q)")
        }
        #expect(GPSTimeCheck.judge(gps: Self.today, system: nil) == .asIs(reason: "not before the earliest plausible date"))
        #expect(GPSTimeCheck.judge(gps: Self.today, system: Self.clock(Self.at(1970, 1, 1), .unset))
            == .asIs(reason: "not before the earliest plausible date"))
    }

    @Test func oneEraEarlyWithTheClockSetIsCorrectedByOneEra() {
        let system = Self.clock(Self.today, .synchronized)
        let v = GPSTimeCheck.judge(gps: Self.early(1), system: system)
        #expect(v == .rollover(eras: 1))
        #expect(GPSTimeCheck.correction(v, gps: Self.early(1), system: system) == 1024 * Self.week)
    }

    @Test func twoErasEarlyIsCorrectedByTwo() {
        #expect(GPSTimeCheck.judge(gps: Self.early(2), system: Self.clock(Self.today)) == .rollover(eras: 2))
        #expect(GPSTimeCheck.judge(gps: Self.early(3), system: Self.clock(Self.today)) == .rollover(eras: 3))
    }

    /// No set clock (a board without an RTC at 1970): the smallest correction that brings
    /// the date to the earliest plausible one (2026-01-01) or after.
    @Test func earlyWithNoSetClockTakesTheSmallestCorrectionPastTheEarliestDate() {
        let unset = Self.clock(Self.at(1970, 1, 1, hour: 0), .unset)
        #expect(GPSTimeCheck.judge(gps: Self.early(1), system: unset) == .rollover(eras: 1))
        #expect(GPSTimeCheck.judge(gps: Self.early(2), system: nil) == .rollover(eras: 2))
        // 2024-05-01, before the earliest plausible date: one era on is 2044, the smallest
        // correction past it (nothing better is known without a clock).
        #expect(GPSTimeCheck.judge(gps: Self.at(2024, 5, 1), system: nil) == .rollover(eras: 1))
        // A date four eras early is the 1940s: nothing makes it plausible.
        #expect(GPSTimeCheck.judge(gps: Self.early(4), system: nil) == .implausible)
    }

    @Test func withinToleranceOfTheClockIsAsIs() {
        // 20 hours apart: an RTC kept in local time.
        let v = GPSTimeCheck.judge(gps: Self.today, system: Self.clock(Self.at(2026, 5, 3, hour: 3), .synchronized))
        #expect(v == .asIs(reason: "agrees with the system clock"))
    }

    /// Far from a set clock with no rollover to explain it: the system clock dates it.
    @Test func farFromTheClockWithNoRolloverUsesTheSystemTime() {
        let system = Self.clock(Self.at(2026, 8, 1, hour: 10))
        let v = GPSTimeCheck.judge(gps: Self.today, system: system)
        #expect(v == .useSystemTime)
        #expect(GPSTimeCheck.correction(v, gps: Self.today, system: system)
            == system.time.millisecondsSince1970 - Self.today.millisecondsSince1970)
        // 1000 days early is no rollover either.
        let odd = UTCTimestamp(millisecondsSince1970: Self.today.millisecondsSince1970 - 1000 * 86_400_000)
        #expect(GPSTimeCheck.judge(gps: odd, system: Self.clock(Self.today)) == .useSystemTime)
    }

    /// A date ahead of the clock: a clock saved at shutdown (set, not synchronized) lags by as
    /// long as the board was off, so the receiver is trusted up to two years ahead of it; a
    /// synchronized clock is not wrong by months, so there the system clock is used; and no
    /// clock trusts a receiver a whole era ahead (rollover faults make dates early).
    @Test func aheadOfTheClock() {
        let saved = Self.clock(Self.at(2026, 1, 10))
        #expect(GPSTimeCheck.judge(gps: Self.today, system: saved)
            == .asIs(reason: "ahead of a system clock not synchronized (taken as lagging)"))
        #expect(GPSTimeCheck.judge(gps: Self.today, system: Self.clock(Self.at(2026, 1, 10), .synchronized)) == .useSystemTime)
        let anEraAhead = UTCTimestamp(millisecondsSince1970: Self.today.millisecondsSince1970 + 1024 * Self.week)
        #expect(GPSTimeCheck.judge(gps: anEraAhead, system: Self.clock(Self.today)) == .useSystemTime)
        // With no set clock, a date after the earliest plausible one is believed (2046).
        #expect(GPSTimeCheck.judge(gps: anEraAhead, system: nil) == .asIs(reason: "not before the earliest plausible date"))
    }

    /// Receivers past the next rollovers: 2038 (the 32-bit time_t) and 2045 are plain dates;
    /// a 2045 receiver one era early (2025-10) is corrected with a clock.
    @Test func laterYears() {
        let y2038 = Self.at(2038, 1, 19, hour: 4)
        #expect(GPSTimeCheck.judge(gps: y2038, system: Self.clock(y2038, .synchronized))
            == .asIs(reason: "agrees with the system clock"))
        let y2045 = Self.at(2045, 6, 1)
        #expect(GPSTimeCheck.judge(gps: Self.early(1, from: y2045), system: Self.clock(y2045)) == .rollover(eras: 1))
        // Without a clock, 2025-10 is before 2026-01-01: one era on, 2045, as it should be.
        #expect(GPSTimeCheck.judge(gps: Self.early(1, from: y2045), system: nil) == .rollover(eras: 1))
    }

    @Test func aClockBeforeTheEarliestDateIsNotSet() {
        #expect(SystemTimeReading.quality(of: Self.at(1970, 1, 1), synchronized: true) == .unset)
        #expect(SystemTimeReading.quality(of: Self.at(2025, 12, 31), synchronized: false) == .unset)
        #expect(SystemTimeReading.quality(of: Self.today, synchronized: false) == .set)
        #expect(SystemTimeReading.quality(of: Self.today, synchronized: true) == .synchronized)
    }

    /// The date a plan's deadline is judged on in device mode (issue 39, item 7): a replayed
    /// receiver 1024 weeks early (2006-09-16) with no system clock to correct it, on a board
    /// whose clock is set (2026-11-28), judges the deadline on 2026-11-28, so a plan that ended
    /// on 2026-01-01 does not start; a board without a real-time clock (1970) judges on the
    /// receiver's date; a receiver ahead of a lagging clock wins.
    @Test func aDeadlineIsJudgedOnTheLaterOfTheReceiversAndASetClocksDate() {
        let early = CivilDate(year: 2006, month: 9, day: 16)!
        #expect(GPSTimeCheck.deadlineDate(gps: early, system: Self.at(2026, 11, 28)) == CivilDate(year: 2026, month: 11, day: 28)!)
        #expect(GPSTimeCheck.deadlineDate(gps: CivilDate(year: 2026, month: 5, day: 2)!, system: Self.at(1970, 1, 1))
            == CivilDate(year: 2026, month: 5, day: 2)!)
        #expect(GPSTimeCheck.deadlineDate(gps: CivilDate(year: 2027, month: 3, day: 1)!, system: Self.at(2026, 11, 28))
            == CivilDate(year: 2027, month: 3, day: 1)!)
        #expect(GPSTimeCheck.deadlineDate(gps: nil, system: Self.at(2026, 11, 28)) == CivilDate(year: 2026, month: 11, day: 28)!)
    }
}
