#if canImport(Glibc)
import PacerCore
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HAL
import Logging
import Synchronization

/// A buzzer that writes what the board would play into a WAV file (`wav:/tmp/cues.wav`): the
/// same `ToneSynthesizer` samples, 16-bit mono PCM, every played cue appended in order.
///
/// Timed (`wav:/tmp/run.wav?timed=yes`, given the device's clock): each sound is written
/// where it fell on the clock since the file was made, silence between (a hole in the file,
/// read as zeros: a 30-minute run costs its sounds' bytes on disk, not 30 minutes'), so a
/// person listens along the timeline; a sound due while the one before still plays follows
/// it, as on the board.
///
/// `play` renders and writes at once, on the caller's thread: in the simulator there is no
/// device to wait for, writing a cue takes well under a millisecond, and the file's contents
/// then follow the order of the calls exactly. The RIFF and data sizes in the header are
/// rewritten after every cue, so the file is a valid WAV at any moment between plays (and so
/// whenever `drain()` returns), even if the process is killed.
public final class WAVBuzzer: Buzzer {
    public let path: String
    public let synthesizer: ToneSynthesizer
    private let logger: Logger?

    private struct State {
        var fd: Int32
        var dataBytes: UInt32 = 0
        var failed = false
    }

    /// Guards the file descriptor and the running size, so plays from several threads append
    /// whole cues one after another.
    private let state: Mutex<State>

    /// The clock a timed file places its sounds on, and the instant its first sample stands for.
    private let timeline: (clock: any PacerClock, start: Instant)?

    public var name: String { "wav:\(path)" + (timeline == nil ? "" : "?timed=yes") }

    /// Creates (or truncates) the file and writes the header of an empty WAV; with `timedBy`,
    /// each sound is placed where it falls on that clock from now on.
    public init(path: String, synthesizer: ToneSynthesizer = ToneSynthesizer(), timedBy clock: (any PacerClock)? = nil,
                logger: Logger? = nil) throws(WAVBuzzerError) {
        self.path = path
        self.synthesizer = synthesizer
        self.logger = logger
        timeline = clock.map { ($0, $0.now) }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw WAVBuzzerError(path: path, errno: errno) }
        let header = WAVBuzzer.header(sampleRate: synthesizer.sampleRate, dataBytes: 0)
        guard WAVBuzzer.writeAll(fd, header, at: 0) else {
            let code = errno
            close(fd)
            throw WAVBuzzerError(path: path, errno: code)
        }
        state = Mutex(State(fd: fd))
    }

    deinit {
        state.withLock { _ = close($0.fd) }
    }

    /// The number of samples written so far.
    public var sampleCount: Int {
        state.withLock { Int($0.dataBytes) / 2 }
    }

    public func play(_ cue: Cue, tones: [Tone]) {
        append(synthesizer.render(tones))
    }

    /// Speech is appended like a cue, at the file's rate: the file holds words and beeps in the
    /// order they were played. Nothing plays while it is written, so there is nothing to cut.
    public func play(_ clip: SoundClip) -> Bool {
        append(clip.resampled(to: synthesizer.sampleRate).samples)
        return true
    }

    private func append(_ samples: [Int16]) {
        guard !samples.isEmpty else { return }
        // Where the sound falls on the timeline (timed), in samples from the file's start.
        let due: UInt64? = timeline.map { t in
            UInt64(max(0, (t.clock.now - t.start).inSeconds) * Double(synthesizer.sampleRate))
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(samples.count * 2)
        for sample in samples {  // WAV is little-endian
            let u = UInt16(bitPattern: sample)
            bytes.append(UInt8(truncatingIfNeeded: u))
            bytes.append(UInt8(truncatingIfNeeded: u >> 8))
        }
        let problem: WAVBuzzerError? = state.withLock { s in
            guard !s.failed else { return nil }
            // After what is written, or later where the timeline puts it (the gap a hole).
            let start = max(UInt64(s.dataBytes), (due ?? 0) * 2)
            let offset = 44 + Int(start)
            guard start + UInt64(bytes.count) <= UInt64(UInt32.max - 36) else {
                s.failed = true
                return WAVBuzzerError(path: path, reason: "the file has reached the 4 GB limit of WAV")
            }
            let newSize = UInt32(start) + UInt32(bytes.count)
            guard WAVBuzzer.writeAll(s.fd, bytes, at: offset),
                WAVBuzzer.writeAll(s.fd, WAVBuzzer.littleEndian(36 + newSize), at: 4),
                WAVBuzzer.writeAll(s.fd, WAVBuzzer.littleEndian(newSize), at: 40)
            else {
                s.failed = true
                return WAVBuzzerError(path: path, errno: errno)
            }
            s.dataBytes = newSize
            return nil
        }
        if let problem {
            logger?.warning("no sound: \(problem); later cues are not written")
        }
    }

    /// Every cue is in the file when `play` returns; nothing to wait for.
    public func drain() {}

    /// The 44-byte header of a PCM WAV file: `RIFF` size `WAVE`, a `fmt ` chunk for 16-bit
    /// mono at `sampleRate`, and the `data` chunk's size.
    public static func header(sampleRate: Int, dataBytes: UInt32) -> [UInt8] {
        var h: [UInt8] = []
        h.reserveCapacity(44)
        h += Array("RIFF".utf8) + littleEndian(36 + dataBytes) + Array("WAVE".utf8)
        h += Array("fmt ".utf8) + littleEndian(UInt32(16))
        h += littleEndian(UInt16(1))  // PCM
        h += littleEndian(UInt16(1))  // mono
        h += littleEndian(UInt32(sampleRate))
        h += littleEndian(UInt32(sampleRate * 2))  // bytes per second
        h += littleEndian(UInt16(2))  // bytes per frame
        h += littleEndian(UInt16(16))  // bits per sample
        h += Array("data".utf8) + littleEndian(dataBytes)
        return h
    }

    static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    /// `pwrite`s all of `bytes` at `offset`, retrying short writes and EINTR.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], at offset: Int) -> Bool {
        bytes.withUnsafeBytes { p in
            var done = 0
            while done < p.count {
                let n = pwrite(fd, p.baseAddress! + done, p.count - done, off_t(offset + done))
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                done += n
            }
            return true
        }
    }
}

/// A WAV file that cannot be created or written, with the path and the reason.
public struct WAVBuzzerError: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    init(path: String, errno code: Int32) {
        self.init(path: path, reason: String(cString: strerror(code)))
    }

    public var description: String { "cannot write WAV file '\(path)': \(reason)" }
}
