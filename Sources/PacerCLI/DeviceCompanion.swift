import Companion
import Configurator
import Foundation
import HAL
import Logging
import Runtime
import Storage
import Synchronization

/// The companion page's view of `pacer device`: the firmware's state and commands, the
/// device's own store. Commands are handed to the firmware, which runs them on the device's
/// clock loop: the page's threads only queue them, so a slow client never delays a cue.
final class DeviceCompanion: CompanionDevice {
    let firmware: Firmware
    let storage: DeviceStorage
    /// How long a command's answer is waited for before the page says the device is busy.
    static let replyTimeout = Duration.seconds(5)

    init(firmware: Firmware, storage: DeviceStorage) {
        self.firmware = firmware
        self.storage = storage
    }

    func snapshot() -> DeviceSnapshot {
        let phase = firmware.phase
        return DeviceSnapshot(state: phase, line: firmware.statusLine,
                              running: phase == .running ? firmware.runtime?.status : nil, time: WallClock.now,
                              offer: phase == .running ? nil : firmware.offer)
    }

    func send(_ command: ControlCommand) async -> String {
        let once = OnceReply()
        return await withCheckedContinuation { continuation in
            once.wait(continuation)
            firmware.handle(command, reply: { once.answer($0) })
            Task {
                try? await Task.sleep(for: Self.replyTimeout)
                once.answer("error: the device did not answer within \(Self.replyTimeout)")
            }
        }
    }

    func store() throws -> PacerStore { try storage.store() }

    /// A status asked for between workouts reads the plan afresh (on the device's loop).
    func planChanged() { firmware.handle(.status) }
}

/// The first answer to a command, whichever comes first: the device's or the timeout's.
final class OnceReply: Sendable {
    private let waiting = Mutex<CheckedContinuation<String, Never>?>(nil)

    func wait(_ continuation: CheckedContinuation<String, Never>) { waiting.withLock { $0 = continuation } }

    func answer(_ text: String) {
        waiting.withLock { waiting in
            waiting?.resume(returning: text)
            waiting = nil
        }
    }
}

/// Turns the page off while a workout runs and on again after (unless `during_workout: on`):
/// the device's state changes, in their order, applied one after the other off the clock loop.
final class CompanionSwitch: Sendable {
    let server: CompanionServer
    let settings: CompanionSettings
    private let changes: AsyncStream<Bool>.Continuation
    private let worker: Task<Void, Never>

    init(server: CompanionServer, settings: CompanionSettings, password: CompanionPassword) {
        self.server = server
        self.settings = settings
        let (stream, continuation) = AsyncStream<Bool>.makeStream()
        changes = continuation
        let listen = settings.listen.map { "\($0.host.contains(":") ? "[\($0.host)]" : $0.host)" } ?? "?"
        worker = Task {
            var on = false
            for await wanted in stream where wanted != on {
                if wanted {
                    do {
                        try await server.start()
                        on = true
                        Self.say("companion: on http://\(listen):\(server.port ?? 0)"
                                 + (password.isSet ? "" : " (no password set: `pacer companion password --generate`)"))
                    } catch {
                        Self.say("companion: \(error)")
                    }
                } else {
                    // The page's own start is answered first (its redirect is in flight).
                    try? await Task.sleep(for: Self.stopDelay)
                    await server.stop()
                    on = false
                    Self.say("companion: off during the workout")
                }
            }
            if on { await server.stop() }
        }
    }

    /// How long the page lingers once a workout starts, for the answers on their way.
    static let stopDelay = Duration.seconds(1)

    static func say(_ line: String) { StandardStream.output.writeQuietly(line + "\n") }

    /// On at power-on.
    func powerOn() { changes.yield(true) }

    /// A device state: off when a workout runs (unless kept on), on again when it waits.
    func deviceState(_ state: DeviceState) {
        switch state {
        case .running: if !settings.duringWorkout { changes.yield(false) }
        case .ready, .searching: changes.yield(true)
        case .starting, .off: break
        }
    }

    /// Stops the server (the device is switching off); returns once it is closed.
    func finish() {
        changes.finish()
        let done = DispatchSemaphore(value: 0)
        let worker = self.worker
        Task {
            await worker.value
            done.signal()
        }
        done.wait()
    }
}
