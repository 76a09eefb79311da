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
    /// How many FIT files the file held, one after the other (a chained FIT file).
    public var files = 0
    /// The sport its sessions say (FIT's `sport`: 1 running, 2 cycling, …), when one does.
    public var sport: Int?

    /// Sports a runner's activity may be: generic (0), running (1), walking (11), hiking (17).
    public static let onFootSports: Set<Int> = [0, 1, 11, 17]

    /// `sport` in words, for messages.
    public static func sportName(_ sport: Int) -> String {
        switch sport {
        case 0: "generic"
        case 1: "running"
        case 2: "cycling"
        case 5: "swimming"
        case 11: "walking"
        case 13: "alpine skiing"
        case 15: "rowing"
        case 17: "hiking"
        default: "sport \(sport)"
        }
    }
}

/// Reads FIT files (the protocol as `FITProtocol.swift` describes it): the header and its
/// CRC, definition messages of either architecture (developer fields skipped by their
/// sizes), data messages with normal and compressed timestamp headers, and the file's CRC.
/// A chained file (FIT files one after the other, each with its header and CRC, as some
/// devices and tools write them) is read whole: its records follow on, a new segment at each
/// file. Everything is checked against the bytes there are: a broken file is refused with the
/// byte it broke at and why, never read past its end.
public enum FITReader {
    /// The largest file read: a day of 1 Hz records is a few MB.
    public static let maximumSize = 256 << 20
    /// Record times outside these are no run's (a record dated 1989 is FIT's time zero; one
    /// dated 2126 a corrupted field): the file is refused at the record's byte.
    public static let earliestTime = UTCTimestamp(millisecondsSince1970: 946_684_800_000)  // 2000-01-01
    public static let latestTime = UTCTimestamp(millisecondsSince1970: 4_102_444_800_000)  // 2100-01-01
    /// The fastest a lap may be, as a track's points may (`TrackPlausibility`): 50 km/h.
    public static let maximumLapSpeed = TrackPlausibility.standard.maximumSpeed

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
        var data = FITActivityData()
        var next = 0
        while true {
            next = try parseFile(bytes, from: next, into: &data, file: file)
            let rest = bytes[next...]
            // Zeros after the last CRC are padding some writers leave.
            if rest.allSatisfy({ $0 == 0 }) { return data }
            guard rest.count >= 12, rest.first == 12 || rest.first == 14, Array(bytes[next + 8..<next + 12]) == Array(".FIT".utf8) else {
                throw FITError(file: file, offset: next, reason: "\(rest.count) bytes after the file's CRC are not another FIT file")
            }
        }
    }

    /// Reads the FIT file that starts at `base` into `data`; returns the offset after its CRC.
    private static func parseFile(
        _ bytes: [UInt8], from base: Int, into data: inout FITActivityData, file: String
    ) throws(FITError) -> Int {
        func fail(_ offset: Int?, _ reason: String) -> FITError { FITError(file: file, offset: offset, reason: reason) }
        guard bytes.count - base >= 12 else { throw fail(nil, "\(bytes.count) bytes: too short for a FIT file (a 12 or 14-byte header)") }
        let headerSize = Int(bytes[base])
        guard headerSize == 12 || headerSize == 14 else {
            throw fail(0, "header size \(headerSize): a FIT header is 12 or 14 bytes")
        }
        guard bytes.count - base >= headerSize else { throw fail(nil, "shorter than its \(headerSize)-byte header") }
        guard Array(bytes[base + 8..<base + 12]) == Array(".FIT".utf8) else {
            throw fail(base + 8, "no \".FIT\" signature: not a FIT file")
        }
        guard bytes[base + 1] >> 4 <= 2 else {
            throw fail(base + 1, "protocol version \(bytes[base + 1] >> 4).\(bytes[base + 1] & 0xF): only 1.x and 2.x are read")
        }
        if headerSize == 14 {
            let stored = UInt16(bytes[base + 12]) | UInt16(bytes[base + 13]) << 8
            if stored != 0, stored != FIT.crc(bytes[base..<base + 12]) {
                throw fail(base + 12, "the header's CRC is wrong (the header is damaged)")
            }
        }
        let dataSize = Int(bytes[base + 4]) | Int(bytes[base + 5]) << 8 | Int(bytes[base + 6]) << 16 | Int(bytes[base + 7]) << 24
        let end = base + headerSize + dataSize
        guard end + 2 <= bytes.count else {
            throw fail(nil, "the header says \(dataSize) bytes of records and a CRC, the file has \(bytes.count - base - headerSize): truncated")
        }
        let stored = UInt16(bytes[end]) | UInt16(bytes[end + 1]) << 8
        guard stored == FIT.crc(bytes[base..<end]) else { throw fail(end, "the file's CRC is wrong (the file is damaged)") }

        data.files += 1
        var definitions = [Definition?](repeating: nil, count: 16)
        var lastTimestamp: Int64?
        // The next file of a chain starts a new segment: nothing says the two join.
        var stopped = data.files > 1
        var at = base + headerSize
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
            try take(definition.global, values, at: start, into: &data, stopped: &stopped, file: file)
        }
        return end + 2
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

    private static func take(
        _ global: UInt16, _ v: [UInt8: Int64], at offset: Int, into data: inout FITActivityData, stopped: inout Bool,
        file: String
    ) throws(FITError) {
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
            guard t >= earliestTime, t < latestTime else {
                throw FITError(file: file, offset: offset, reason: "record \(data.records) is dated \(t.iso8601): "
                    + "no run's time (2000 to 2100); the file's times are damaged")
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
            let lap = FITActivityData.Lap(start: time(v[2]), timer: v[8].map { Double($0) / 1000 },
                                          distance: v[9].map { Double($0) / 100 },
                                          maximumSpeed: (v[111] ?? v[14]).map { Double($0) / 1000 })
            if let timer = lap.timer, let distance = lap.distance, distance > 0,
               distance > maximumLapSpeed * max(timer, 1) + TrackPlausibility.standard.gpsError {
                throw FITError(file: file, offset: offset, reason: "lap \(data.laps.count + 1) is "
                    + "\(Int((distance / 1000).rounded())) km in \(Int(timer.rounded())) s: faster than anyone on foot")
            }
            data.laps.append(lap)
        case FITProfile.session:
            data.sessionDistance = v[9].map { Double($0) / 100 }
            if let sport = v[5] { data.sport = Int(sport) }
        default:
            break
        }
    }
}
