import PacerCore
import HAL
import Simulation
import Testing

@Suite("Recording buzzer")
struct RecordingBuzzerTests {
    static let beep = [Tone(frequency: 3000, duration: .milliseconds(50))]

    @Test func recordsWhichCueSoundedWhenOnTheClock() {
        let clock = VirtualClock()
        let buzzer = RecordingBuzzer(clock: clock)
        buzzer.play(.phaseChange, tones: RecordingBuzzerTests.beep)
        clock.advance(by: .seconds(10))
        buzzer.play(.speedUp, tones: [])
        clock.advance(by: .milliseconds(2500))
        buzzer.play(.onPace, tones: RecordingBuzzerTests.beep)
        buzzer.drain()
        #expect(buzzer.plays == [
            RecordingBuzzer.Play(instant: .zero, cue: .phaseChange, tones: RecordingBuzzerTests.beep),
            RecordingBuzzer.Play(instant: Instant(nanoseconds: 10_000_000_000), cue: .speedUp, tones: []),
            RecordingBuzzer.Play(instant: Instant(nanoseconds: 12_500_000_000), cue: .onPace, tones: RecordingBuzzerTests.beep),
        ])
        #expect(buzzer.cues == [.phaseChange, .speedUp, .onPace])
        #expect(buzzer.plays[2].description == "t+12.5s on-pace")
    }

    @Test func playsScheduledOnTheClockAreRecordedAtTheirDeadlines() {
        let clock = VirtualClock()
        let buzzer = RecordingBuzzer(clock: clock)
        clock.scheduleRepeating(every: .seconds(60)) { buzzer.play(.slowDown, tones: RecordingBuzzerTests.beep) }
        clock.advance(by: .seconds(200))
        #expect(buzzer.plays.map(\.instant.seconds) == [60, 120, 180])
    }

    @Test func takePlaysEmptiesTheRecord() {
        let buzzer = RecordingBuzzer(clock: VirtualClock())
        buzzer.play(.gpsLost, tones: [])
        #expect(buzzer.takePlays().map(\.cue) == [.gpsLost])
        #expect(buzzer.plays.isEmpty)
        buzzer.play(.gpsBack, tones: [])
        #expect(buzzer.cues == [.gpsBack])
    }

    @Test func playsFromManyThreadsAreAllKept() async {
        let buzzer = RecordingBuzzer(clock: VirtualClock())
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<100 {
                group.addTask { buzzer.play(i.isMultiple(of: 2) ? .onPace : .speedUp, tones: []) }
            }
        }
        #expect(buzzer.plays.count == 100)
        #expect(buzzer.cues.filter { $0 == .onPace }.count == 50)
    }
}
