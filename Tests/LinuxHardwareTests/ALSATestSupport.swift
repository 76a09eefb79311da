import Foundation
import Logging
import Synchronization

/// An ALSA device that plays into a file: the `file` plugin writes every frame the
/// application sends as raw S16_LE to `output`, and passes it on to a `null` device, which
/// discards it at once. The configuration is private to the buzzer (`snd_pcm_open_lconf`),
/// so no environment variable or system file is involved and each test has its own.
struct ALSACapture {
    static let device = "pacer_capture"
    let output: String

    init(_ name: String = #function) throws {
        let dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("pacer-alsa-\(name.filter(\.isLetter))-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        output = dir + "/out.raw"
    }

    /// A capture into a given file (`/dev/full` makes every write fail).
    init(output: String) {
        self.output = output
    }

    var configuration: String {
        """
        pcm.\(ALSACapture.device) {
            type file
            slave.pcm "pacer_discard"
            file "\(output)"
            format "raw"
        }
        pcm.pacer_discard {
            type null
        }
        """
    }

    /// The samples written so far.
    func samples() throws -> [Int16] {
        let data = try Data(contentsOf: URL(fileURLWithPath: output))
        return data.withUnsafeBytes { raw in
            stride(from: 0, to: raw.count - 1, by: 2).map { i in
                Int16(bitPattern: UInt16(raw[i]) | UInt16(raw[i + 1]) << 8)
            }
        }
    }
}

/// Keeps what a logger was told.
final class ALSALogRecorder: Sendable {
    private let entries = Mutex<[(level: Logger.Level, message: String)]>([])

    var messages: [(level: Logger.Level, message: String)] { entries.withLock { $0 } }

    var logger: Logger {
        Logger(label: "test") { _ in Handler(recorder: self) }
    }

    struct Handler: LogHandler {
        let recorder: ALSALogRecorder
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            recorder.entries.withLock { $0.append((event.level, event.message.description)) }
        }
    }
}
