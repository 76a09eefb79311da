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
/// altitude, speed, distance and heart rate when given, and the RR intervals of the hrv
/// messages after them), the laps, the timer's stops, the file's type.
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
        /// The record's heart_rate (field 3), beats per minute; nil without one (or 0).
        public var heartRate: Int? = nil
        /// Seconds between beats: the hrv messages' `time` values between this record and the
        /// next (hrv messages carry no time; a watch writes them as the beats come, after the
        /// record they follow), at most `HeartRateRecords.maximumIntervalsPerPoint`.
        public var rrIntervals: [Double] = []
    }

    public struct Lap: Hashable, Sendable {
        public var start: UTCTimestamp?
        public var timer: Double?
        public var distance: Double?
        public var maximumSpeed: Double?
    }

    public var fileType: Int?
    /// The records with a position and a time, when read whole (`FITReader.read(path:)`,
    /// `parse`); a streamed read hands them over instead and leaves this empty.
    public var points: [Point] = []
    /// How many records had a position and a time.
    public var pointCount = 0
    /// How many of those had a heart rate.
    public var heartRateCount = 0
    /// RR intervals read from hrv messages, and those dropped: past a point's
    /// `HeartRateRecords.maximumIntervalsPerPoint`, or before the file's first point.
    public var rrIntervalCount = 0
    public var rrIntervalsDropped = 0
    /// The most bytes of the file held at once while it was read.
    public var largestPiece = 0
    public var laps: [Lap] = []
    /// Records without a position (or without a time), not taken.
    public var recordsWithoutPosition = 0
    public var records = 0
    public var sessionDistance: Double?
    /// The session's start, and its elapsed and timer times in seconds (the watch's own
    /// totals: an import keeps them, as it keeps the distance).
    public var sessionStart: UTCTimestamp?
    public var sessionElapsed: Double?
    public var sessionTimer: Double?
    /// How many session messages the file held.
    public var sessions = 0
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
///
/// A file is read as a stream, in two passes of 64 kB at a time, as the GPX import reads
/// its file: the first checks each chained file's header, size and CRC (so a damaged file is
/// refused before any of it is taken); the second hands the records to the caller one by one
/// (`read(path:point:)`). Only the laps and the file's figures are kept: a FIT file of any
/// size costs the same few hundred kB.
public enum FITReader {
    /// The largest file read: a day of 1 Hz records is a few MB.
    public static let maximumSize = 256 << 20
    /// The most laps a file may have (a lap a kilometre over 100 km is 100).
    public static let maximumLaps = 10_000
    /// Record times outside these are no run's (a record dated 1989 is FIT's time zero; one
    /// dated 2126 a corrupted field): the file is refused at the record's byte.
    public static let earliestTime = TrackPlausibility.earliestTime
    public static let latestTime = TrackPlausibility.latestTime
    /// The fastest a lap may be, as a track's points may (`TrackPlausibility`): 50 km/h.
    public static let maximumLapSpeed = TrackPlausibility.standard.maximumSpeed

    private struct Definition {
        var global: UInt16
        var bigEndian: Bool
        var fields: [(number: UInt8, size: Int, type: UInt8)]
        var developerSize: Int
        var size: Int
    }

    /// One FIT file of a chain: where its header starts, its header's size, where its
    /// records end (its CRC's offset).
    struct Segment {
        var base: Int
        var headerSize: Int
        var end: Int
    }

    /// Whether `path` is a FIT file: named .fit, or starting with a FIT header's signature.
    public static func looksLikeFIT(path: String) -> Bool {
        if path.lowercased().hasSuffix(".fit") { return true }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return startsWithHeader([UInt8]((try? handle.read(upToCount: 12)) ?? Data()))
    }

    /// Whether `head` (a file's first bytes) starts with a FIT header: its size, 12 or 14, and
    /// ".FIT" at bytes 8 to 11.
    public static func startsWithHeader(_ head: [UInt8]) -> Bool {
        head.count >= 12 && (head[0] == 12 || head[0] == 14) && Array(head[8..<12]) == Array(".FIT".utf8)
    }

    /// The whole file read, its points collected (for small files and tests: an import
    /// takes them one by one through `read(path:point:)`).
    public static func read(path: String) throws(FITError) -> FITActivityData {
        var points: [FITActivityData.Point] = []
        var data = try stream(try FITBytes(path: path)) { points.append($0) }
        data.points = points
        return data
    }

    /// Reads the file at `path`, handing each record with a position and a time to `point`
    /// in order; returns the rest (its `points` empty). A damaged file is refused before the
    /// first point is handed over; a record refused later (its date) after those before it.
    public static func read(path: String, point: (FITActivityData.Point) throws -> Void) throws -> FITActivityData {
        try streamThrowing(try FITBytes(path: path), point: point)
    }

    /// `bytes` read as a file is, through a window of `window` bytes (64 kB; the fuzz target
    /// and the tests give small ones, to try its refills).
    public static func parse(_ bytes: [UInt8], file: String, window: Int = 1 << 16) throws(FITError) -> FITActivityData {
        var points: [FITActivityData.Point] = []
        var data = try stream(FITBytes(bytes: bytes, file: file, window: window)) { points.append($0) }
        data.points = points
        return data
    }

    /// `streamThrowing` with a point handler that cannot fail.
    private static func stream(_ input: FITBytes, point: (FITActivityData.Point) -> Void) throws(FITError) -> FITActivityData {
        do {
            return try streamThrowing(input, point: point)
        } catch let error as FITError {
            throw error
        } catch {
            throw FITError(file: input.file, offset: nil, reason: "\(error)")
        }
    }

    private static func streamThrowing(_ input: FITBytes, point: (FITActivityData.Point) throws -> Void) throws -> FITActivityData {
        var input = input
        let segments = try checkChain(&input)
        var data = FITActivityData()
        for segment in segments {
            data.files += 1
            try readRecords(segment, &input, into: &data, point: point)
        }
        data.largestPiece = input.largestBuffer
        return data
    }

    /// The first pass: each chained file's header, size and CRC, and that nothing but zeros
    /// (padding some writers leave) follows the last.
    static func checkChain(_ input: inout FITBytes) throws(FITError) -> [Segment] {
        var segments: [Segment] = []
        var next = 0
        while true {
            segments.append(try checkFile(&input, from: next))
            next = segments[segments.count - 1].end + 2
            let rest = input.size - next
            if rest == 0 { return segments }
            input.seek(to: next)
            let head = try input.take(min(12, rest))
            if rest >= 12, head[0] == 12 || head[0] == 14, Array(head[8..<12]) == Array(".FIT".utf8) { continue }
            input.seek(to: next)
            var zeros = true
            while input.offset < input.size, zeros {
                zeros = try input.take(min(1 << 16, input.size - input.offset)).allSatisfy { $0 == 0 }
            }
            if zeros { return segments }
            throw FITError(file: input.file, offset: next, reason: "\(rest) bytes after the file's CRC are not another FIT file")
        }
    }

    /// The FIT file that starts at `base`: its header checked, its CRC over its bytes.
    private static func checkFile(_ input: inout FITBytes, from base: Int) throws(FITError) -> Segment {
        func fail(_ offset: Int?, _ reason: String) -> FITError { FITError(file: input.file, offset: offset, reason: reason) }
        let size = input.size
        guard size - base >= 12 else { throw fail(nil, "\(size) bytes: too short for a FIT file (a 12 or 14-byte header)") }
        input.seek(to: base)
        let first = try input.take(12)
        let headerSize = Int(first[0])
        guard headerSize == 12 || headerSize == 14 else {
            throw fail(0, "header size \(headerSize): a FIT header is 12 or 14 bytes")
        }
        guard size - base >= headerSize else { throw fail(nil, "shorter than its \(headerSize)-byte header") }
        guard Array(first[8..<12]) == Array(".FIT".utf8) else {
            throw fail(base + 8, "no \".FIT\" signature: not a FIT file")
        }
        guard first[1] >> 4 <= 2 else {
            throw fail(base + 1, "protocol version \(first[1] >> 4).\(first[1] & 0xF): only 1.x and 2.x are read")
        }
        var crc = FIT.crc(first)
        if headerSize == 14 {
            let headerCRC = try input.take(2)
            let stored = UInt16(headerCRC[0]) | UInt16(headerCRC[1]) << 8
            if stored != 0, stored != crc {
                throw fail(base + 12, "the header's CRC is wrong (the header is damaged)")
            }
            crc = FIT.crc(headerCRC, start: crc)
        }
        let dataSize = Int(first[4]) | Int(first[5]) << 8 | Int(first[6]) << 16 | Int(first[7]) << 24
        let end = base + headerSize + dataSize
        guard end + 2 <= size else {
            throw fail(nil, "the header says \(dataSize) bytes of records and a CRC, the file has \(size - base - headerSize): truncated")
        }
        while input.offset < end {
            crc = FIT.crc(try input.take(min(1 << 16, end - input.offset)), start: crc)
        }
        let tail = try input.take(2)
        let stored = UInt16(tail[0]) | UInt16(tail[1]) << 8
        guard stored == crc else { throw fail(end, "the file's CRC is wrong (the file is damaged)") }
        return Segment(base: base, headerSize: headerSize, end: end)
    }

    /// The second pass over one file of the chain: its messages, the records handed to `point`.
    /// A point is handed over when the next record comes (or the file ends), so that the hrv
    /// messages written after it reach it first; a record refused (its date) is refused after
    /// the points before it were handed over, as without hrv.
    private static func readRecords(
        _ segment: Segment, _ input: inout FITBytes, into data: inout FITActivityData,
        point: (FITActivityData.Point) throws -> Void
    ) throws {
        let file = input.file
        // The next file of a chain starts a new segment: nothing says the two join.
        var stopped = data.files > 1
        var pending: FITActivityData.Point?
        try messages(segment, &input) { message in
            if message.global == FITProfile.hrv {
                // time (field 0): uint16 seconds x 1000, one value or an array of them.
                let times = message.arrays[0] ?? message.values[0].map { [$0] } ?? []
                for ms in times where ms > 0 {
                    data.rrIntervalCount += 1
                    if pending != nil, pending!.rrIntervals.count < HeartRateRecords.maximumIntervalsPerPoint {
                        pending!.rrIntervals.append(Double(ms) / 1000)
                    } else {
                        data.rrIntervalsDropped += 1
                    }
                }
                return
            }
            if message.global == FITProfile.record, let p = pending {
                pending = nil
                try point(p)
            }
            if let taken = try take(message.global, message.values, at: message.offset, into: &data, stopped: &stopped,
                                    file: file) {
                pending = taken
            }
        }
        if let p = pending { try point(p) }
    }

    /// One data message as read: its global message number, the byte it starts at, its
    /// integer fields' values by field number (a field holding its type's invalid value is
    /// absent; a compressed header's time is field 253) and its string fields' bytes, up to
    /// their first zero.
    struct DataMessage {
        var global: UInt16
        var offset: Int
        var values: [UInt8: Int64]
        var strings: [UInt8: [UInt8]]
        /// An hrv message's array fields: their values that are not invalid, in order
        /// (other messages' arrays are not read).
        var arrays: [UInt8: [Int64]] = [:]
    }

    /// The data messages of one file of the chain, in order, each handed to `body`: the
    /// definitions (either architecture, developer fields skipped by their sizes) and the
    /// compressed timestamp headers resolved on the way. Holds only the 16 local definitions
    /// and the message at hand, whatever the file's size.
    static func messages(_ segment: Segment, _ input: inout FITBytes, _ body: (DataMessage) throws -> Void) throws {
        let file = input.file
        func fail(_ offset: Int?, _ reason: String) -> FITError { FITError(file: file, offset: offset, reason: reason) }
        let end = segment.end
        var definitions = [Definition?](repeating: nil, count: 16)
        var lastTimestamp: Int64?
        input.seek(to: segment.base + segment.headerSize)
        while input.offset < end {
            let start = input.offset
            let header = try input.take(1)[0]
            if header & 0x80 == 0, header & 0x40 != 0 {
                // A definition message: reserved, architecture, global number (2), field count.
                guard start + 6 <= end else { throw fail(start, "a definition message cut short by the end of the records") }
                let fixed = try input.take(5)
                let bigEndian: Bool
                switch fixed[1] {
                case 0: bigEndian = false
                case 1: bigEndian = true
                default: throw fail(start + 2, "architecture \(fixed[1]): 0 (little-endian) or 1 (big-endian)")
                }
                let global = bigEndian ? UInt16(fixed[2]) << 8 | UInt16(fixed[3]) : UInt16(fixed[2]) | UInt16(fixed[3]) << 8
                let count = Int(fixed[4])
                guard input.offset + 3 * count <= end else {
                    throw fail(start, "a definition of \(count) fields cut short by the end of the records")
                }
                let fieldsAt = input.offset
                let raw = try input.take(3 * count)
                var fields: [(number: UInt8, size: Int, type: UInt8)] = []
                for i in 0..<count {
                    let size = Int(raw[3 * i + 1])
                    guard size > 0 else { throw fail(fieldsAt + 3 * i + 1, "field \(raw[3 * i]) of size 0") }
                    fields.append((raw[3 * i], size, raw[3 * i + 2]))
                }
                var developerSize = 0
                if header & 0x20 != 0 {
                    guard input.offset < end else {
                        throw fail(start, "a definition's developer fields cut short by the end of the records")
                    }
                    let developer = Int(try input.take(1)[0])
                    guard input.offset + 3 * developer <= end else {
                        throw fail(start, "a definition's \(developer) developer fields cut short by the end of the records")
                    }
                    let described = try input.take(3 * developer)
                    for i in 0..<developer { developerSize += Int(described[3 * i + 1]) }
                }
                let size = fields.reduce(0) { $0 + $1.size } + developerSize
                definitions[Int(header & 0x0F)] = Definition(global: global, bigEndian: bigEndian, fields: fields,
                                                             developerSize: developerSize, size: size)
                continue
            }
            // A data message: a normal header, or a compressed timestamp header (the time's
            // low 5 bits, after the last full timestamp).
            let compressed = header & 0x80 != 0
            let local = compressed ? Int((header >> 5) & 0x03) : Int(header & 0x0F)
            guard let definition = definitions[local] else {
                throw fail(start, "a data message of local type \(local), which no definition came before")
            }
            guard input.offset + definition.size <= end else { throw fail(start, "a data message cut short by the end of the records") }
            let message = try input.take(definition.size)
            var values: [UInt8: Int64] = [:]
            var strings: [UInt8: [UInt8]] = [:]
            var arrays: [UInt8: [Int64]] = [:]
            var at = 0
            for field in definition.fields {
                if field.type & 0x1F == FITBaseType.string.rawValue {
                    strings[field.number] = Array(message[at..<at + field.size].prefix { $0 != 0 })
                } else if definition.global == FITProfile.hrv, let width = width(field.type), field.size > width,
                          field.size % width == 0 {
                    arrays[field.number] = stride(from: at, to: at + field.size, by: width).compactMap {
                        integer(message, at: $0, size: width, type: field.type, bigEndian: definition.bigEndian)
                    }
                } else if let value = integer(message, at: at, size: field.size, type: field.type,
                                              bigEndian: definition.bigEndian) {
                    values[field.number] = value
                }
                at += field.size
            }
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
            try body(DataMessage(global: definition.global, offset: start, values: values, strings: strings,
                                 arrays: arrays))
        }
    }

    /// The size of one value of an integer base type; nil for another type.
    static func width(_ type: UInt8) -> Int? {
        switch type & 0x1F {
        case 0x00, 0x01, 0x02, 0x0A, 0x0D: 1
        case 0x03, 0x04, 0x0B: 2
        case 0x05, 0x06, 0x0C: 4
        default: nil
        }
    }

    /// A field's value as an integer, nil when it is the type's invalid value (or not an
    /// integer type of its size).
    static func integer(_ bytes: [UInt8], at: Int, size: Int, type: UInt8, bigEndian: Bool) -> Int64? {
        let base = type & 0x1F
        guard let width = width(type), size == width else { return nil }
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

    /// Takes a data message's values into `data`; a record with a position and a time is
    /// returned, for the caller to hand over.
    private static func take(
        _ global: UInt16, _ v: [UInt8: Int64], at offset: Int, into data: inout FITActivityData, stopped: inout Bool,
        file: String
    ) throws(FITError) -> FITActivityData.Point? {
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
                return nil
            }
            guard t >= earliestTime, t < latestTime else {
                throw FITError(file: file, offset: offset, reason: "record \(data.records) is dated \(t.iso8601): "
                    + "no run's time (2000 to 2100); the file's times are damaged")
            }
            let position = GeoPoint(latitude: FIT.degrees(lat), longitude: FIT.degrees(lon))
            guard position.latitude.magnitude <= 90, position.longitude.magnitude <= 180 else {
                data.recordsWithoutPosition += 1
                return nil
            }
            let altitude = (v[78] ?? v[2]).map { Double($0) / 5 - 500 }
            let speed = (v[73] ?? v[6]).map { Double($0) / 1000 }
            // heart_rate (3): a uint8 of bpm; 0 is a strap off the skin, no heart rate.
            let heartRate = v[3].flatMap { $0 > 0 && $0 <= 255 ? Int($0) : nil }
            let taken = FITActivityData.Point(time: t, position: position, altitude: altitude, speed: speed,
                                              distance: v[5].map { Double($0) / 100 }, record: data.records,
                                              afterStop: stopped && data.pointCount > 0, heartRate: heartRate)
            data.pointCount += 1
            if heartRate != nil { data.heartRateCount += 1 }
            stopped = false
            return taken
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
            guard data.laps.count < maximumLaps else {
                throw FITError(file: file, offset: offset, reason: "more than \(maximumLaps) laps: not a run's file")
            }
            data.laps.append(lap)
        case FITProfile.session:
            data.sessions += 1
            data.sessionDistance = v[9].map { Double($0) / 100 }
            data.sessionStart = time(v[2])
            data.sessionElapsed = v[7].map { Double($0) / 1000 }
            data.sessionTimer = v[8].map { Double($0) / 1000 }
            if let sport = v[5] { data.sport = Int(sport) }
        default:
            break
        }
        return nil
    }
}

/// A FIT file's bytes read forward a piece at a time through a window of `window` bytes (64 kB):
/// from a file (never held whole), or from memory through the same window, so that the code
/// an import runs is the code the fuzz target and the tests run (with a small window, its
/// refills too). `take(n)` hands the next `n` bytes, which the caller has checked are there.
struct FITBytes {
    let file: String
    let size: Int
    /// Reads `count` bytes at `offset` from the source.
    private let source: (_ offset: Int, _ count: Int) throws(FITError) -> [UInt8]
    private let window: Int
    private var buffer: [UInt8] = []
    /// The file offset of `buffer[0]`.
    private var bufferStart = 0
    /// The offset of the next byte `take` hands.
    private(set) var offset = 0
    /// The most bytes held at once.
    private(set) var largestBuffer = 0

    init(bytes: [UInt8], file: String, window: Int = 1 << 16) {
        self.file = file
        size = bytes.count
        self.window = max(1, window)
        source = { offset, count in Array(bytes[offset..<offset + count]) }
    }

    /// The file at `path`, refused when larger than `maximumSize` bytes (`FITReader.maximumSize`).
    init(path: String, window: Int = 1 << 16, maximumSize: Int = FITReader.maximumSize,
         kind: String = "a run's FIT file") throws(FITError) {
        file = path
        self.window = max(1, window)
        var folder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &folder) else {
            throw FITError(file: path, offset: nil, reason: "no such file")
        }
        guard !folder.boolValue else { throw FITError(file: path, offset: nil, reason: "is a folder, not a FIT file") }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw FITError(file: path, offset: nil, reason: "cannot read the file (permission?)")
        }
        let end: UInt64
        do {
            end = try handle.seekToEnd()
            try handle.seek(toOffset: 0)
        } catch {
            try? handle.close()
            throw FITError(file: path, offset: nil, reason: "cannot read the file: \(error.localizedDescription)")
        }
        guard end <= UInt64(maximumSize) else {
            try? handle.close()
            throw FITError(file: path, offset: nil, reason: "larger than \(maximumSize >> 20) MB: not \(kind)")
        }
        size = Int(end)
        source = { offset, count throws(FITError) in
            do {
                try handle.seek(toOffset: UInt64(offset))
                return [UInt8](try handle.read(upToCount: count) ?? Data())
            } catch {
                throw FITError(file: path, offset: offset, reason: "cannot read the file: \(error.localizedDescription)")
            }
        }
    }

    /// Moves to `offset` (within the file).
    mutating func seek(to offset: Int) {
        self.offset = offset
        guard offset < bufferStart || offset > bufferStart + buffer.count else { return }
        buffer = []
        bufferStart = offset
    }

    /// The next `count` bytes (`offset + count <= size`, checked by the caller).
    mutating func take(_ count: Int) throws(FITError) -> [UInt8] {
        precondition(count >= 0 && offset + count <= size, "FITBytes.take past the end")
        if offset + count > bufferStart + buffer.count { try fill(count) }
        let from = offset - bufferStart
        offset += count
        return Array(buffer[from..<from + count])
    }

    /// Reads on, so that the buffer holds `count` bytes from `offset` (and up to the window).
    private mutating func fill(_ count: Int) throws(FITError) {
        // Keep what is still ahead, read the rest.
        let keep = max(0, bufferStart + buffer.count - offset)
        buffer = keep > 0 ? Array(buffer[(buffer.count - keep)...]) : []
        bufferStart = offset
        let wanted = min(max(count, window) - keep, size - offset - keep)
        buffer += try source(offset + keep, wanted)
        largestBuffer = max(largestBuffer, buffer.count)
        guard buffer.count >= count else {
            throw FITError(file: file, offset: offset + buffer.count, reason: "the file ended while being read (it changed?)")
        }
    }
}
