import Coaching
import HAL
import PacerCore

/// Sounds the device's cues: the tones of the cue book in the profile's style on the
/// buzzer, the sounding time charged to the energy model, and each cue kept with the
/// activity (at the timer's reading) through the storage writer.
final class CuePlayer: Sendable {
    private let buzzer: any Buzzer
    private let cues: CueBook
    private let clock: any PacerClock
    private let power: (any PowerMonitor)?
    private let writer: StorageWriter
    private let last: LoopBound<Cue?>

    init(buzzer: any Buzzer, cues: CueBook, clock: any PacerClock, power: (any PowerMonitor)?, writer: StorageWriter) {
        self.buzzer = buzzer
        self.cues = cues
        self.clock = clock
        self.power = power
        self.writer = writer
        last = LoopBound(nil, clock: clock)
    }

    /// The cue sounded last (the status shows it).
    var lastCue: Cue? { last.current }

    /// Sounds `cue` in `style` (silently when `beep` is false: said in words instead);
    /// records it with `activity` (when one is recording) at the timer's reading `elapsed`,
    /// for phase `phase`. Returns how long its tones take, rests included.
    @discardableResult
    func play(_ cue: Cue, style: CueStyle, phase: Int?, activity: Int64?, elapsed: Duration, beep: Bool = true) -> Duration {
        let tones = beep ? cues.tones(for: cue, style: style) : []
        Self.play(cue, tones: tones, buzzer: buzzer, power: power, at: clock.now)
        last.withValue { $0 = cue }
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

extension CuePlayer {
    /// The device's own sounds, between workouts (no activity keeps them): `cues` one after
    /// the other, 250 ms apart, as one sound named `name`, in the profile's style. False when
    /// there was nothing to play (no tones), unless `always` plays even that.
    static func sound(_ cues: [Cue], as name: Cue, parts: DeviceRuntime.Parts, always: Bool = false) -> Bool {
        var tones: [Tone] = []
        for cue in cues {
            let t = parts.cues.tones(for: cue, style: parts.profile.style(for: cue))
            if !tones.isEmpty { tones.append(.rest(.milliseconds(250))) }
            tones += t
        }
        guard always || !tones.isEmpty else { return false }
        play(name, tones: tones, buzzer: parts.buzzer, power: parts.power, at: parts.clock.now)
        return true
    }

    /// Plays `tones` and charges their sounding time (rests are silent) to the energy model.
    private static func play(_ cue: Cue, tones: [Tone], buzzer: any Buzzer, power: (any PowerMonitor)?, at now: Instant) {
        buzzer.play(cue, tones: tones)
        power?.buzzer(sounding: tones.reduce(Duration.zero) { $0 + ($1.isRest ? .zero : $1.duration) }, at: now)
    }
}
