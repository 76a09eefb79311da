import Coaching
import HAL
import PacerCore
import Synchronization

/// Sounds the device's cues: the tones of the cue book in the profile's style on the
/// buzzer, the sounding time charged to the energy model, and each cue kept with the
/// activity (at the timer's reading) through the storage writer.
final class CuePlayer: Sendable {
    private let buzzer: any Buzzer
    private let cues: CueBook
    private let clock: any PacerClock
    private let power: (any PowerMonitor)?
    private let writer: StorageWriter
    private let last = Mutex<Cue?>(nil)

    init(buzzer: any Buzzer, cues: CueBook, clock: any PacerClock, power: (any PowerMonitor)?, writer: StorageWriter) {
        self.buzzer = buzzer
        self.cues = cues
        self.clock = clock
        self.power = power
        self.writer = writer
    }

    /// The cue sounded last (the status shows it).
    var lastCue: Cue? { last.withLock { $0 } }

    /// Sounds `cue` in `style` (silently when `beep` is false: said in words instead);
    /// records it with `activity` (when one is recording) at the timer's reading `elapsed`,
    /// for phase `phase`. Returns how long its tones take, rests included.
    @discardableResult
    func play(_ cue: Cue, style: CueStyle, phase: Int?, activity: Int64?, elapsed: Duration, beep: Bool = true) -> Duration {
        let tones = beep ? cues.tones(for: cue, style: style) : []
        buzzer.play(cue, tones: tones)
        power?.buzzer(sounding: tones.reduce(Duration.zero) { $0 + ($1.isRest ? .zero : $1.duration) }, at: clock.now)
        last.withLock { $0 = cue }
        if let activity {
            writer.add(CueRecord(elapsed: elapsed, cue: cue.rawValue, phase: phase), to: activity)
        }
        return tones.reduce(Duration.zero) { $0 + $1.duration }
    }

    /// Lets the last cue finish (the activity is over).
    func drain() {
        buzzer.drain()
    }
}
