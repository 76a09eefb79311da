import Logging
import Synchronization

/// Keeps what a logger was told, for the tests of the parts that log (the ALSA buzzer, the
/// signal and socket controls).
final class LogRecorder: Sendable {
    private let kept = Mutex<[(level: Logger.Level, message: String)]>([])

    /// Every message with its level, in order.
    var entries: [(level: Logger.Level, message: String)] { kept.withLock { $0 } }

    /// The messages alone.
    var messages: [String] { entries.map(\.message) }

    var logger: Logger {
        Logger(label: "test") { _ in Handler(recorder: self) }
    }

    struct Handler: LogHandler {
        let recorder: LogRecorder
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            recorder.kept.withLock { $0.append((event.level, event.message.description)) }
        }
    }
}
