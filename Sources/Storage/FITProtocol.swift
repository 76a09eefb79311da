import PacerCore

/// The FIT protocol's pieces (Garmin's Flexible and Interoperable Data Transfer, the format
/// Garmin, Strava and intervals.icu read laps, the timer and the device's distance from),
/// written from the public protocol description: there is no Swift FIT library.
///
/// A file is a 14-byte header (its size, the protocol and profile versions, the size of the
/// records, ".FIT", the header's CRC), then records, then the CRC of everything before it.
/// A record is a definition message (which fields, of which base types, a local message
/// type stands for) or a data message (the values, in the order defined). Everything here is
/// little-endian (the definition's architecture byte is 0).
public enum FIT {
    /// Seconds from 1970-01-01T00:00:00Z to FIT's epoch, 1989-12-31T00:00:00Z.
    public static let epochOffset: Int64 = 631_065_600

    /// A time in FIT's `date_time`: whole seconds since 1989-12-31T00:00:00Z.
    public static func dateTime(_ time: UTCTimestamp) -> Int64 {
        Int64((Double(time.millisecondsSince1970) / 1000).rounded(.down)) - epochOffset
    }

    /// Degrees in FIT's semicircles (2^31 of them make 180 degrees).
    public static func semicircles(_ degrees: Double) -> Int64 {
        Int64((degrees * 2_147_483_648 / 180).rounded())
    }

    /// Semicircles in degrees.
    public static func degrees(_ semicircles: Int64) -> Double {
        Double(semicircles) * 180 / 2_147_483_648
    }

    /// The protocol version written (2.0) and the profile version (21.xx, as a number).
    static let protocolVersion: UInt8 = 0x20
    static let profileVersion: UInt16 = 2132

    /// FIT's CRC-16 (the protocol's nibble-table algorithm, polynomial 0xA001 reflected).
    public static func crc(_ bytes: some Sequence<UInt8>, start: UInt16 = 0) -> UInt16 {
        var crc = start
        for byte in bytes {
            var tmp = crcTable[Int(crc & 0xF)]
            crc = (crc >> 4) & 0x0FFF
            crc = crc ^ tmp ^ crcTable[Int(byte & 0xF)]
            tmp = crcTable[Int(crc & 0xF)]
            crc = (crc >> 4) & 0x0FFF
            crc = crc ^ tmp ^ crcTable[Int((byte >> 4) & 0xF)]
        }
        return crc
    }

    static let crcTable: [UInt16] = [
        0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
        0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400,
    ]
}

/// A field's base type: its number in a definition message, its size, and the value that
/// stands for "no value" (invalid).
public enum FITBaseType: UInt8, Hashable, Sendable {
    case enumeration = 0x00
    case sint8 = 0x01
    case uint8 = 0x02
    case sint16 = 0x83
    case uint16 = 0x84
    case sint32 = 0x85
    case uint32 = 0x86
    case string = 0x07
    case uint8z = 0x0A
    case uint16z = 0x8B
    case uint32z = 0x8C
    case byte = 0x0D

    /// Bytes of one value (a string's size is its field's).
    public var size: Int {
        switch self {
        case .enumeration, .sint8, .uint8, .uint8z, .byte, .string: 1
        case .sint16, .uint16, .uint16z: 2
        case .sint32, .uint32, .uint32z: 4
        }
    }

    /// The range a value must be in to be written; outside it the field is written invalid.
    var range: ClosedRange<Int64> {
        switch self {
        case .enumeration, .uint8, .byte, .string: 0...0xFE
        case .uint8z: 1...0xFF
        case .sint8: -127...127
        case .uint16: 0...0xFFFE
        case .uint16z: 1...0xFFFF
        case .sint16: -32767...32767
        case .uint32: 0...0xFFFF_FFFE
        case .uint32z: 1...0xFFFF_FFFF
        case .sint32: -2_147_483_647...2_147_483_647
        }
    }

    /// The invalid value, as the unsigned bits written.
    var invalid: UInt64 {
        switch self {
        case .enumeration, .uint8, .byte: 0xFF
        case .sint8: 0x7F
        case .sint16: 0x7FFF
        case .uint16: 0xFFFF
        case .sint32: 0x7FFF_FFFF
        case .uint32: 0xFFFF_FFFF
        case .uint8z, .uint16z, .uint32z, .string: 0
        }
    }
}

/// One field of a message: its number in the message's profile, its base type, and its
/// value (already scaled and offset, as the profile says), or nil for "no value".
public struct FITField: Hashable, Sendable {
    public var number: UInt8
    public var type: FITBaseType
    public var value: Int64?
    /// A string field's text and its size in bytes (with the terminating zero).
    public var text: String?
    /// An array field's values (nil each: invalid), written one after the other; nil for a
    /// field of one value.
    public var values: [Int64?]?
    public var size: Int

    public init(_ number: UInt8, _ type: FITBaseType, _ value: Int64?) {
        self.number = number
        self.type = type
        self.value = value
        self.text = nil
        self.values = nil
        self.size = type.size
    }

    /// An array field (hrv's `time`): `values.count` values of `type`, each nil or out of
    /// the type's range written invalid.
    public init(_ number: UInt8, _ type: FITBaseType, array values: [Int64?]) {
        precondition(type != .string && !values.isEmpty && values.count * type.size <= 255, "FIT: an array of 1 to 255 bytes")
        self.number = number
        self.type = type
        self.value = nil
        self.text = nil
        self.values = values
        self.size = values.count * type.size
    }

    /// A value in the profile's units with its scale and offset: `(value + offset) * scale`,
    /// rounded; nil (or not finite) writes the field invalid.
    public init(_ number: UInt8, _ type: FITBaseType, _ value: Double?, scale: Double, offset: Double = 0) {
        let scaled = value.flatMap { v -> Int64? in
            let s = ((v + offset) * scale).rounded()
            return s.isFinite && abs(s) < 9e18 ? Int64(s) : nil
        }
        self.init(number, type, scaled)
    }

    /// A string field: UTF-8, cut at a whole character to fit `size` bytes with its zero.
    public init(_ number: UInt8, string: String, size: Int) {
        self.number = number
        self.type = .string
        self.value = nil
        var cut = ""
        for c in string {
            guard c.utf8.count + cut.utf8.count < size, !c.utf8.contains(0) else { break }
            cut.append(c)
        }
        self.text = cut
        self.values = nil
        self.size = size
    }
}

/// A message to write: its global number (file_id 0, record 20 and so on) and its fields.
public struct FITMessage: Hashable, Sendable {
    public var global: UInt16
    public var fields: [FITField]

    public init(_ global: UInt16, _ fields: [FITField]) {
        self.global = global
        self.fields = fields
    }
}

/// Writes FIT records into memory and finishes the file with its header and CRCs.
///
/// A message's layout (its global number and its fields' numbers, sizes and types) gets a
/// local message type, 0 to 15, and a definition message the first time it is used; a
/// later message of the same layout is only a data message. When all sixteen are taken the
/// least recently defined one is redefined.
public struct FITEncoder {
    private struct Layout: Hashable {
        var global: UInt16
        var fields: [UInt32]
    }

    private var records: [UInt8] = []
    private var locals: [Layout] = []
    private var nextLocal = 0

    public init() {
        records.reserveCapacity(1 << 16)
    }

    /// Appends `message`: its definition when its layout has none, then its data.
    public mutating func append(_ message: FITMessage) {
        let layout = Layout(global: message.global, fields: message.fields.map {
            UInt32($0.number) << 16 | UInt32($0.size) << 8 | UInt32($0.type.rawValue)
        })
        let local: Int
        if let known = locals.firstIndex(of: layout) {
            local = known
        } else {
            if locals.count < 16 {
                local = locals.count
                locals.append(layout)
            } else {
                local = nextLocal
                nextLocal = (nextLocal + 1) % 16
                locals[local] = layout
            }
            records.append(0x40 | UInt8(local))
            records.append(0)  // reserved
            records.append(0)  // architecture: little-endian
            appendInteger(UInt64(message.global), size: 2)
            records.append(UInt8(message.fields.count))
            for field in message.fields {
                records.append(field.number)
                records.append(UInt8(field.size))
                records.append(field.type.rawValue)
            }
        }
        records.append(UInt8(local))
        for field in message.fields {
            if field.type == .string {
                let text = Array((field.text ?? "").utf8)
                records.append(contentsOf: text)
                records.append(contentsOf: repeatElement(0, count: field.size - text.count))
                continue
            }
            if let values = field.values {
                for value in values {
                    let bits = value.flatMap { field.type.range.contains($0) ? UInt64(bitPattern: $0) : nil }
                    appendInteger(bits ?? field.type.invalid, size: field.type.size)
                }
                continue
            }
            let bits: UInt64
            if let value = field.value, field.type.range.contains(value) {
                bits = UInt64(bitPattern: value)
            } else {
                bits = field.type.invalid
            }
            appendInteger(bits, size: field.size)
        }
    }

    private mutating func appendInteger(_ value: UInt64, size: Int) {
        for i in 0..<size { records.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
    }

    /// The whole file: the 14-byte header with its CRC, the records, the file's CRC.
    public func finish() -> [UInt8] {
        var file: [UInt8] = [14, FIT.protocolVersion,
                             UInt8(FIT.profileVersion & 0xFF), UInt8(FIT.profileVersion >> 8)]
        let size = UInt32(records.count)
        for i in 0..<4 { file.append(UInt8(truncatingIfNeeded: size >> (8 * UInt32(i)))) }
        file.append(contentsOf: Array(".FIT".utf8))
        let headerCRC = FIT.crc(file)
        file.append(UInt8(headerCRC & 0xFF))
        file.append(UInt8(headerCRC >> 8))
        file.append(contentsOf: records)
        let crc = FIT.crc(file)
        file.append(UInt8(crc & 0xFF))
        file.append(UInt8(crc >> 8))
        return file
    }

    /// Bytes of records written so far.
    public var recordsSize: Int { records.count }
}
