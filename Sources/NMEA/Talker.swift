/// The two-letter talker id in front of a sentence's formatter: which constellation (or
/// combination) the receiver is speaking for.
public struct Talker: Hashable, Sendable, CustomStringConvertible {
    public let first: UInt8
    public let second: UInt8

    public init(_ first: UInt8, _ second: UInt8) {
        self.first = first
        self.second = second
    }

    public init(_ text: StaticString) {
        precondition(text.utf8CodeUnitCount == 2)
        first = text.utf8Start[0]
        second = text.utf8Start[1]
    }

    public static let gps = Talker("GP")
    public static let combined = Talker("GN")
    public static let glonass = Talker("GL")
    public static let galileo = Talker("GA")
    public static let beidou = Talker("GB")
    public static let beidouLegacy = Talker("BD")
    public static let qzss = Talker("GQ")
    public static let qzssLegacy = Talker("QZ")
    public static let navic = Talker("GI")

    /// The talkers satellite receivers use; others (`II`, `IN`, ...) are instruments.
    public static let satelliteTalkers: [Talker] = [
        .gps, .combined, .glonass, .galileo, .beidou, .beidouLegacy, .qzss, .qzssLegacy, .navic,
    ]

    public var description: String {
        String(decoding: [first, second], as: UTF8.self)
    }
}
