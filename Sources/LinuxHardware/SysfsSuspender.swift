#if canImport(Glibc)
import Glibc
#endif
import HAL
import PacerCore
import Synchronization

/// Suspends the board to RAM through sysfs, as `rtcwake -m mem` does: the real-time clock's
/// wake alarm set `+N` seconds ahead (`/sys/class/rtc/rtc0/wakealarm`, cleared first), then
/// `mem` written to `/sys/power/state`, which returns when the board has resumed.
///
/// The time the board really spent suspended is measured as what `CLOCK_BOOTTIME` counted
/// and `CLOCK_MONOTONIC` did not: the kernel's own account, right whether the alarm woke it,
/// something else did, or the suspend was refused (zero).
///
/// Needs write access to those files (root, or a udev rule for the pacer user); a failure is
/// not an error for the device: it idles instead, and the reason is kept in `lastError`.
public final class SysfsSuspender: BoardSuspender {
    public let root: String
    private let error = Mutex<String?>(nil)

    /// `root`: where sysfs is (`/sys`; a folder of the same shape in tests).
    public init(root: String = "/sys") {
        self.root = root
    }

    public var lastError: String? { error.withLock { $0 } }

    public func suspend(for duration: Duration) -> Duration {
        let seconds = Int64(duration.inSeconds.rounded(.down))
        guard seconds >= 1 else { return .zero }
        let alarm = "\(root)/class/rtc/rtc0/wakealarm"
        let state = "\(root)/power/state"
        let before = Self.unmeasured()
        guard write("0", to: alarm), write("+\(seconds)", to: alarm), write("mem", to: state) else { return .zero }
        error.withLock { $0 = nil }
        // The two clocks are read one after the other, so the difference jitters by a few
        // microseconds: anything under 50 ms is no suspend (a real one takes far longer).
        let slept = Self.unmeasured() - before
        return slept >= .milliseconds(50) ? slept : .zero
    }

    /// Boot time minus monotonic time: grows only while suspended.
    static func unmeasured() -> Duration {
        var boot = timespec(), mono = timespec()
        clock_gettime(CLOCK_BOOTTIME, &boot)
        clock_gettime(CLOCK_MONOTONIC, &mono)
        return .seconds(Int64(boot.tv_sec) - Int64(mono.tv_sec)) + .nanoseconds(Int64(boot.tv_nsec) - Int64(mono.tv_nsec))
    }

    private func write(_ text: String, to path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            error.withLock { $0 = "cannot open \(path): \(reason)" }
            return false
        }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard n == bytes.count else {
            let reason = String(cString: strerror(errno))
            error.withLock { $0 = "cannot write '\(text)' to \(path): \(reason)" }
            return false
        }
        return true
    }
}
