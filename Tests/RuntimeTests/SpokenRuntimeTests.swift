import Coaching
import HAL
import PacerCore
import Runtime
import Simulation
import Testing

/// The runtime with a voice: what the runner hears, in order, never over a beep.
@Suite("Spoken coaching in the runtime")
struct SpokenRuntimeTests {
    static let book = PhraseBook(
        language: "en", decimalSeparator: ".",
        templates: ["split": "Split {split}: {split_time}, pace {split_pace}.", "phase-start": "{phase}: {duration}.",
                    "finish": "Done: {time}, {distance}.", "status": "{phase}, {left} left.", "status-needed": "",
                    "faster": "Faster.", "ease-off": "Ease off.", "on-pace": "On pace.",
                    "band-slow": "", "band-fast": "", "band-on": "", "band-unknown": ""],
        words: ["minute": "minute", "minutes": "minutes", "second": "second", "seconds": "seconds",
                "kilometre": "kilometre", "kilometres": "kilometres", "per-kilometre": "per kilometre"])

    /// Three minutes too slow at 2.5 m/s against a 3–3.5 m/s band, pace cues in words only.
    @Test func paceCuesInWordsSplitsAndTheEndNeverOverABeep() throws {
        let rig = try Rig(
            recording(seconds: 200, speed: { _ in 2.5 }), plan: plan(("steady", 180, 3, 3.5)),
            speech: SpeechSettings(enabled: true, splitEvery: 200, paceCues: .words, maximumShare: 1),
            phrases: Self.book)
        try rig.run()
        let said = rig.speaker.said
        let texts = said.map(\.utterance.text)
        #expect(texts.first == "steady: 3 minutes.")
        #expect(texts.contains("Faster."))
        #expect(texts.contains { $0.hasPrefix("Split 1: 1 minute 20 seconds, pace 6 40 per kilometre") }, "\(texts)")
        #expect(texts.last?.hasPrefix("Done: 3 minutes") == true, "\(texts)")
        // Issue 39, item 10: the end's summary is told before the end itself, so a watcher
        // whose stream ends at `finished` (`ctl watch --until-end`) has it.
        let kinds = rig.events.all.map(\.1.kind)
        #expect(kinds.suffix(2) == ["say", "finished"], "\(kinds.suffix(4))")
        // The speed-up cue is kept (the activity's record) but sounds no tones: words instead.
        let speedUps = rig.buzzer.plays.filter { $0.cue == .speedUp }
        #expect(!speedUps.isEmpty && speedUps.allSatisfy { $0.tones.isEmpty })
        // No word starts while a cue's tones sound (the end's summary waits, with `after`).
        for play in rig.buzzer.plays {
            let end = play.instant + play.tones.reduce(Duration.zero) { $0 + $1.duration }
            for s in said where s.utterance.key != "finish" {
                #expect(!(s.instant >= play.instant && s.instant < end), "\(s) during \(play)")
            }
        }
    }

    @Test func withoutSpeechNothingIsSaidAndTheCuesAreAsBefore() throws {
        let rig = try Rig(recording(seconds: 100, speed: { _ in 2.5 }), plan: plan(("steady", 60, 3, 3.5)))
        try rig.run()
        #expect(rig.speaker.said.isEmpty)
        #expect(rig.events.times("say").isEmpty)
        #expect(rig.buzzer.plays.filter { $0.cue == .speedUp }.allSatisfy { !$0.tones.isEmpty })
    }
}
