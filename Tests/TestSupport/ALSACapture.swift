import Foundation

/// An ALSA device that plays into a file: the `file` plugin writes every frame the
/// application sends as raw S16_LE to `output`, and passes it on to a `null` device, which
/// discards it at once. The configuration is private to the buzzer (`snd_pcm_open_lconf`),
/// so no environment variable or system file is involved and each test has its own. What the
/// real libasound wrote is then read back here as plain file reading.
public struct ALSACapture: Sendable {
    public static let device = "pacer_capture"
    public let output: String

    /// A capture into `out.raw` in a fresh temporary folder named after the test.
    public init(_ name: String = #function) throws {
        try self.init(directory: makeTemporaryDirectory("alsa" + name))
    }

    /// A capture into `out.raw` in `directory`.
    public init(directory: String) {
        output = directory + "/out.raw"
    }

    /// A capture into a given file (`/dev/full` makes every write fail).
    public init(output: String) {
        self.output = output
    }

    /// The ALSA configuration that defines `device`.
    public var configuration: String {
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
    public func samples() throws -> [Int16] {
        let data = try Data(contentsOf: URL(fileURLWithPath: output))
        return data.withUnsafeBytes { raw in
            stride(from: 0, to: raw.count - 1, by: 2).map { i in
                Int16(bitPattern: UInt16(raw[i]) | UInt16(raw[i + 1]) << 8)
            }
        }
    }
}
