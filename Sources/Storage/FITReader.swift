import Foundation
import PacerCore

/// A FIT file that cannot be read: the file, the byte offset where it went wrong (nil when
/// the problem is not at one place), and the reason.
public struct FITError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var offset: Int?
    public var reason: String

    public init(file: String, offset: Int?, reason: String) {
        self.file = file
        self.offset = offset
        self.reason = reason
    }

    public var description: String {
        if let offset { return "\(file): byte \(offset): \(reason)" }
        return "\(file): \(reason)"
    }
}

/// What Pacer takes from a FIT file: the records with a position and a time (their
/// altitude, speed and distance when given), the laps, the timer's stops, the file's type.
public struct FITActivityData: Hashable, Sendable {
    public struct Point: Hashable, Sendable {
        public var time: UTCTimestamp
        public var position: GeoPoint
        public var altitude: Double?
        public var speed: Double?
        public var distance: Double?
        /// The record's number among the file's records, from 1 (for notes).
        public var record: Int
        /// After a timer stop: the point starts a new segment.
        public var afterStop: Bool
    }

    public struct Lap: Hashable, Sendable {
        public var start: UTCTimestamp?
        public var timer: Double?
        public var distance: Double?
        public var maximumSpeed: Double?
    }

    public var fileType: Int?
    public var points: [Point] = []
    public var laps: [Lap] = []
    /// Records without a position (or without a time), not taken.
    public var recordsWithoutPosition = 0
    public var records = 0
    public var sessionDistance: Double?
}

/// Reads FIT files (the protocol as `FITProtocol.swift` describes it): the header and its
/// CRC, definition messages of either architecture (developer fields skipped by their
/// sizes), data messages with normal and compressed timestamp headers, and the file's CRC.
/// Everything is checked against the bytes there are: a broken file is refused with the byte
/// it broke at and why, never read past its end.
public enum FITReader {
    /// The largest file read: a day of 1 Hz records is a few MB.
    public static let maximumSize = 256 << 20

    private struct Definition {
        var global: UInt16
        var bigEndian: Bool
        var fields: [(number: UInt8, size: Int, type: UInt8)]
        var developerSize: Int
    }

    /// Whether `path` is a FIT file: named .fit, or starting with a FIT header's signature.
    public static func looksLikeFIT(path: String) -> Bool {
        if path.lowercased().hasSuffix(".fit") { return true }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 12)) ?? Data())
        return head.count == 12 && (head[0] == 12 || head[0] == 14) && Array(head[8..<12]) == Array(".FIT".utf8)
    }

    public static func read(path: String) throws(FITError) -> FITActivityData {
        var folder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &folder) else {
            throw FITError(file: path, offset: nil, reason: "no such file")
        }
        guard !folder.boolValue else { throw FITError(file: path, offset: nil, reason: "is a folder, not a FIT file") }
        let data: Data
        do {
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw FITError(file: path, offset: nil, reason: "cannot read the file (permission?)")
            }
            defer { try? handle.close() }
            data = try handle.read(upToCount: maximumSize + 1) ?? Data()
        } catch let error as FITError {
            throw error
        } catch {
            throw FITError(file: path, offset: nil, reason: "cannot read the file: \(error.localizedDescription)")
        }
        guard data.count <= maximumSize else {
            throw FITError(file: path, offset: nil, reason: "larger than \(maximumSize >> 20) MB: not a run's FIT file")
        }
        return try parse([UInt8](data), file: path)
    }

    public static func parse(_ bytes: [UInt8], file: String) throws(FITError) -> FITActivityData {
        func fail(_ offset: Int?, _ reason: String) -> FITError { FITError(file: file, offset: offset, reason: reason) }
        guard bytes.count >= 12 else { throw fail(nil, "\(bytes.count) bytes: too short for a FIT file (a 12 or 14-byte header)") }
        let headerSize = Int(bytes[0])
        guard headerSize == 12 || headerSize == 14 else {
            throw fail(0, "header size \(headerSize): a FIT header is 12 or 14 bytes")
        }
        guard bytes.count >= headerSize else { throw fail(nil, "shorter than its \(headerSize)-byte header") }
        guard Array(bytes[8..<12]) == Array(".FIT".utf8) else { throw fail(8, "no \".FIT\" signature: not a FIT file") }
        guard bytes[1] >> 4 <= 2 else { throw fail(1, "protocol version \(bytes[1] >> 4).\(bytes[1] & 0xF): only 1.x and 2.x are read") }
        if headerSize == 14 {
            let stored = UInt16(bytes[12]) | UInt16(bytes[13]) << 8
            if stored != 0, stored != FIT.crc(bytes[0..<12]) {
                throw fail(12, "the header's CRC is wrong (the header is damaged)")
            }
        }
        let dataSize = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
        let end = headerSize + dataSize
        guard end + 2 <= bytes.count else {
            throw fail(nil, "the header says \(dataSize) bytes of records and a CRC, the file has \(bytes.count - headerSize): truncated")
        }
        let stored = UInt16(bytes[end]) | UInt16(bytes[end + 1]) << 8
        guard stored == FIT.crc(bytes[0..<end]) else { throw fail(end, "the file's CRC is wrong (the file is damaged)") }

        var data = FITActivityData()
        var definitions = [Definition?](repeating: nil, count: 16)
        var lastTimestamp: Int64?
        var stopped = false
        var at = headerSize
        while at < end {
            let start = at
            let header = bytes[at]
            at += 1
            if header & 0x80 == 0, header & 0x40 != 0 {
                // A definition message.
                guard at + 5 <= end else { throw fail(start, "a definition message cut short by the end of the records") }
                let bigEndian: Bool
                switch bytes[at + 1] {
                case 0: bigEndian = false
                case 1: bigEndian = true
                default: throw fail(at + 1, "architecture \(bytes[at + 1]): 0 (little-endian) or 1 (big-endian)")
                }
                let global = bigEndian ? UInt16(bytes[at + 2]) << 8 | UInt16(bytes[at + 3])
                                       : UInt16(bytes[at + 2]) | UInt16(bytes[at + 3]) << 8
                let count = Int(bytes[at + 4])
                at += 5
                guard at + 3 * count <= end else { throw fail(start, "a definition of \(count) fields cut short by the end of the records") }
                var fields: [(number: UInt8, size: Int, type: UInt8)] = []
                for i in 0..<count {
                    let size = Int(bytes[at + 3 * i + 1])
                    guard size > 0 else { throw fail(at + 3 * i + 1, "field \(bytes[at + 3 * i]) of size 0") }
                    fields.append((bytes[at + 3 * i], size, bytes[at + 3 * i + 2]))
                }
                at += 3 * count
                var developerSize = 0
                if header & 0x20 != 0 {
                    guard at < end else { throw fail(start, "a definition's developer fields cut short by the end of the records") }
                    let developer = Int(bytes[at])
                    at += 1
                    guard at + 3 * developer <= end else {
                        throw fail(start, "a definition's \(developer) developer fields cut short by the end of the records")
                    }
                    for i in 0..<developer { developerSize += Int(bytes[at + 3 * i + 1]) }
                    at += 3 * developer
                }
                definitions[Int(header & 0x0F)] = Definition(global: global, bigEndian: bigEndian, fields: fields,
                                                             developerSize: developerSize)
                continue
            }
            // A data message: a normal header, or a compressed timestamp header (the time's
            // low 5 bits, after the last full timestamp).
            let compressed = header & 0x80 != 0
            let local = compressed ? Int((header >> 5) & 0x03) : Int(header & 0x0F)
            guard let definition = definitions[local] else {
                throw fail(start, "a data message of local type \(local), which no definition came before")
            }
            let size = definition.fields.reduce(0) { $0 + $1.size } + definition.developerSize
            guard at + size <= end else { throw fail(start, "a data message cut short by the end of the records") }
            var values: [UInt8: Int64] = [:]
            for field in definition.fields {
                if let value = integer(bytes, at: at, size: field.size, type: field.type, bigEndian: definition.bigEndian) {
                    values[field.number] = value
                }
                at += field.size
            }
            at += definition.developerSize
            if compressed {
                let offset = Int64(header & 0x1F)
                guard let last = lastTimestamp else {
                    throw fail(start, "a compressed timestamp before any full timestamp")
                }
                var time = (last & ~0x1F) + offset
                if offset < last & 0x1F { time += 0x20 }
                values[253] = time
                lastTimestamp = time
            } else if let time = values[253] {
                lastTimestamp = time
            }
            take(definition.global, values, into: &data, stopped: &stopped)
        }
        return data
    }

    /// A field's value as an integer, nil when it is the type's invalid value (or not an
    /// integer type of its size).
    static func integer(_ bytes: [UInt8], at: Int, size: Int, type: UInt8, bigEndian: Bool) -> Int64? {
        let base = type & 0x1F
        let width: Int
        switch base {
        case 0x00, 0x01, 0x02, 0x0A, 0x0D: width = 1
        case 0x03, 0x04, 0x0B: width = 2
        case 0x05, 0x06, 0x0C: width = 4
        default: return nil
        }
        guard size == width else { return nil }
        var raw: UInt64 = 0
        for i in 0..<width {
            let byte = UInt64(bytes[at + (bigEndian ? i : width - 1 - i)])
            raw = raw << 8 | byte
        }
        switch base {
        case 0x00, 0x02, 0x0D: return raw == 0xFF ? nil : Int64(raw)
        case 0x0A: return raw == 0 ? nil : Int64(raw)
        case 0x01: return raw == 0x7F ? nil : Int64(Int8(truncatingIfNeeded: raw))
        case 0x03: return raw == 0x7FFF ? nil : Int64(Int16(truncatingIfNeeded: raw))
        case 0x04: return raw == 0xFFFF ? nil : Int64(raw)
        case 0x0B: return raw == 0 ? nil : Int64(raw)
        case 0x05: return raw == 0x7FFF_FFFF ? nil : Int64(Int32(truncatingIfNeeded: raw))
        case 0x06: return raw == 0xFFFF_FFFF ? nil : Int64(raw)
        default: return raw == 0 ? nil : Int64(raw)
        }
    }

    private static func take(_ global: UInt16, _ v: [UInt8: Int64], into data: inout FITActivityData, stopped: inout Bool) {
        func time(_ seconds: Int64?) -> UTCTimestamp? {
            seconds.map { UTCTimestamp(millisecondsSince1970: ($0 + FIT.epochOffset) * 1000) }
        }
        switch global {
        case FITProfile.fileID:
            data.fileType = v[0].map(Int.init)
        case FITProfile.record:
            data.records += 1
            guard let t = time(v[253]), let lat = v[0], let lon = v[1] else {
                data.recordsWithoutPosition += 1
                return
            }
            let position = GeoPoint(latitude: FIT.degrees(lat), longitude: FIT.degrees(lon))
            guard position.latitude.magnitude <= 90, position.longitude.magnitude <= 180 else {
                data.recordsWithoutPosition += 1
                return
            }
            let altitude = (v[78] ?? v[2]).map { Double($0) / 5 - 500 }
            let speed = (v[73] ?? v[6]).map { Double($0) / 1000 }
            data.points.append(.init(time: t, position: position, altitude: altitude, speed: speed,
                                     distance: v[5].map { Double($0) / 100 }, record: data.records,
                                     afterStop: stopped && !data.points.isEmpty))
            stopped = false
        case FITProfile.event:
            // The timer (event 0): a stop (1, or stop_all 4) ends a segment.
            if v[0] == FITProfile.eventTimer, let type = v[1], type == 1 || type == 4 { stopped = true }
        case FITProfile.lap:
            data.laps.append(.init(start: time(v[2]), timer: v[8].map { Double($0) / 1000 },
                                   distance: v[9].map { Double($0) / 100 },
                                   maximumSpeed: (v[111] ?? v[14]).map { Double($0) / 1000 }))
        case FITProfile.session:
            data.sessionDistance = v[9].map { Double($0) / 100 }
        default:
            break
        }
    }
}
