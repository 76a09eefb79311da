import HAL
import PacerCore

/// The device's periodic jobs, declared in one table (as ArduPilot's `scheduler_tasks[]`):
/// a reader sees every job, when it runs and who owns it, here. The firmware and the
/// workout's runtime each keep a `TaskTable` of the jobs they own; a job runs on the clock's
/// loop, and the table is loop-bound state.
///
/// | job | owner | when |
/// |---|---|---|
/// | `powerOnCheck` | firmware | once, `bootCheckDelay` (3 s) after power-on: the parts judged, heard |
/// | `idleBattery` | firmware | every 60 s between workouts: the level, the low-battery cue |
/// | `searching` | firmware | every `searchingCueInterval` (20 s) while searching: the faint tick |
/// | `storageRetry` | firmware | every 5 s while a workout's end waits in memory (a full card) |
/// | `trackFlush` | runtime | every profile's `trackFlushInterval` during a workout: the track's points committed with the running totals |
/// | `workoutBattery` | runtime | every 60 s during a workout: the level, the cue, a profile's step-down |
/// | `coach` | runtime | at the coach's next deadline: pace reminders, phase ends, the end |
/// | `heartSilence` | runtime | `DeviceRuntime.strapSilence` (10 s) after each heart-rate measurement: the strap lost |
public enum DeviceJob: String, CaseIterable, Sendable {
    case powerOnCheck = "power-on-check"
    case idleBattery = "idle-battery"
    case searching
    case storageRetry = "storage-retry"
    case trackFlush = "track-flush"
    case workoutBattery = "workout-battery"
    case coach
    case heartSilence = "heart-silence"
}

/// The jobs one owner has scheduled, by name: starting a job again replaces it; cancelling
/// all ends the owner's jobs at once.
struct TaskTable {
    private var scheduled: [DeviceJob: ScheduledTask] = [:]

    /// `job` every `interval`, first at `first` (default: an interval from now).
    mutating func every(
        _ job: DeviceJob, _ interval: Duration, firstAt first: Instant? = nil, on clock: any PacerClock,
        _ action: @escaping @Sendable () -> Void
    ) {
        scheduled[job]?.cancel()
        scheduled[job] = clock.scheduleRepeating(every: interval, firstAt: first, action)
    }

    /// `job` once, at `deadline`.
    mutating func once(_ job: DeviceJob, at deadline: Instant, on clock: any PacerClock, _ action: @escaping @Sendable () -> Void) {
        scheduled[job]?.cancel()
        scheduled[job] = clock.schedule(at: deadline, action)
    }

    mutating func cancel(_ job: DeviceJob) {
        scheduled.removeValue(forKey: job)?.cancel()
    }

    func isScheduled(_ job: DeviceJob) -> Bool { scheduled[job] != nil }

    mutating func cancelAll() {
        for task in scheduled.values { task.cancel() }
        scheduled.removeAll()
    }
}
