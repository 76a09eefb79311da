#if canImport(Glibc)
import Glibc
#endif
import PacerCore

extension HardwareProbe {
    // MARK: clock

    /// The monotonic clock the firmware times everything with, and the system time.
    /// Informational: the device takes the time of day for its tracks from the GPS.
    public static func clock() -> ProbeFinding {
        let a = monotonicNanoseconds()
        let b = monotonicNanoseconds()
        var real = timespec()
        clock_gettime(CLOCK_REALTIME, &real)
        let millis = Int64(real.tv_sec) * 1000 + Int64(real.tv_nsec) / 1_000_000
        let now = UTCTimestamp(millisecondsSince1970: millis)
        var found = ["monotonic clock (CLOCK_MONOTONIC) runs"]
        var synced: String
        if access("/run/systemd/timesync/synchronized", F_OK) == 0 {
            synced = "synchronized by systemd-timesyncd"
        } else {
            synced = "not known to be synchronized (track times come from the GPS, so this is fine)"
        }
        found.append("system time \(now.iso8601), \(synced)")
        guard b >= a else {
            return ProbeFinding(
                status: .missing, found: found, problem: "the monotonic clock went backwards",
                fix: ["report this with the output of `uname -a`"])
        }
        return ProbeFinding(status: .ok, found: found, facts: ["system_time": now.iso8601])
    }
}
