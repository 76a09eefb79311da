import HAL
import PacerCore
import Synchronization

/// Buttons pressed by a script (a scenario's `do: press`): each press is a down edge and an
/// up edge `hold` later, handed to the sink as a real button's would be, so that the same
/// decoder and the same actions run as on the board.
public final class ScriptedButtons: ButtonSource {
    public let name = "scripted buttons"
    private let clock: any PacerClock
    private let sink = Mutex<ButtonSink?>(nil)

    /// `clock`: the clock the release waits on (the device's).
    public init(clock: any PacerClock) {
        self.clock = clock
    }

    public func start(_ sink: ButtonSink) {
        self.sink.withLock { $0 = sink }
    }

    public func stop() {
        sink.withLock { $0 = nil }
    }

    /// Presses `button` now and lets go `hold` later, each edge when it happens (a very long
    /// press is told while still held, before the release).
    public func press(_ button: UInt16 = ButtonSink.anyButton, hold: Duration) {
        guard let sink = sink.withLock({ $0 }) else { return }
        let now = clock.now
        sink.edge(button, down: true, at: now)
        clock.schedule(at: now + hold) { sink.edge(button, down: false, at: now + hold) }
    }
}
