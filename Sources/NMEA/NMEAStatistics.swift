/// What the engine made of a stream, for the decode summary and the device's diagnostics.
public struct NMEAStatistics: Hashable, Sendable {
    /// Bytes fed in.
    public var bytes = 0
    /// Sentences of a known type that passed every check and were used.
    public var sentences = 0
    /// Proprietary (`$P…`) and unknown sentences: skipped, never an error.
    public var skipped = 0
    /// Checksum present but wrong.
    public var badChecksum = 0
    /// No checksum, from a receiver that sends them (see `NMEADecoder`'s checksum policy).
    public var missingChecksum = 0
    /// Cut off by a new `$`, corrupted by a control or binary byte, or fields that do not parse.
    public var malformed = 0
    /// Longer than `NMEAFramer.maximumLineLength`: dropped without buffering the rest.
    public var overlong = 0
    /// u-blox UBX and SiRF binary packets passed over.
    public var binaryPackets = 0
    /// Bytes outside any sentence or packet (line noise, NUL padding).
    public var garbageBytes = 0
    /// Fixes emitted.
    public var fixes = 0

    public init() {}

    /// Every line refused for a reason of its own.
    public var rejected: Int { badChecksum + missingChecksum + malformed + overlong }
}
