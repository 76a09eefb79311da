import Foundation
import PacerCore
import Storage
import TestSupport
import Testing

/// The FIT encoder's pieces (issue 26) against the protocol's figures.
@Suite("FIT protocol")
struct FITProtocolTests {
    /// FIT's CRC is CRC-16/ARC: the standard check value of "123456789" is 0xBB3D.
    @Test func theCRCIsCRC16ARC() {
        #expect(FIT.crc(Array("123456789".utf8)) == 0xBB3D)
        #expect(FIT.crc([]) == 0)
    }

    /// The 14-byte header: its size, protocol 2.0, the records' size, ".FIT", its CRC; the
    /// file ends with the CRC of everything before, so the CRC of the whole file is 0.
    @Test func theHeaderAndTheFileCRC() {
        var fit = FITEncoder()
        fit.append(FITMessage(FITProfile.fileID, [FITField(0, .enumeration, 4), FITField(1, .uint16, 255)]))
        let file = fit.finish()
        #expect(file.count == 14 + fit.recordsSize + 2)
        #expect(file[0] == 14 && file[1] == 0x20)
        #expect(Array(file[8..<12]) == Array(".FIT".utf8))
        #expect(Int(file[4]) | Int(file[5]) << 8 == fit.recordsSize)
        #expect(FIT.crc(file[0..<12]) == UInt16(file[12]) | UInt16(file[13]) << 8)
        #expect(FIT.crc(file) == 0)
        // Definition: header 0x40, reserved, little-endian, global 0, two fields; then data.
        #expect(Array(file[14..<20]) == [0x40, 0, 0, 0, 0, 2])
        #expect(Array(file[26..<30]) == [0x00, 4, 0xFF, 0x00])
    }

    /// A message of a layout already defined is data only; a value out of its type's range,
    /// or none, is written as the type's invalid value.
    @Test func layoutsAreDefinedOnceAndBadValuesAreInvalid() {
        var fit = FITEncoder()
        fit.append(FITMessage(FITProfile.record, [FITField(5, .uint32, 12.5, scale: 100)]))
        let once = fit.recordsSize
        fit.append(FITMessage(FITProfile.record, [FITField(5, .uint32, -1.0, scale: 100)]))
        fit.append(FITMessage(FITProfile.record, [FITField(5, .uint32, nil as Double?, scale: 100)]))
        #expect(once == 6 + 3 + 5)
        #expect(fit.recordsSize == once + 10)
        let file = fit.finish()
        #expect(Array(file[(14 + 9)..<(14 + 14)]) == [0, 0xE2, 0x04, 0, 0])  // 1250
        #expect(Array(file[(14 + 14)..<(14 + 19)]) == [0, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(Array(file[(14 + 19)..<(14 + 24)]) == [0, 0xFF, 0xFF, 0xFF, 0xFF])
    }

    @Test func semicirclesAndTheEpoch() {
        #expect(FIT.semicircles(180) == 2_147_483_648)
        #expect(FIT.semicircles(-90) == -1_073_741_824)
        #expect(abs(FIT.degrees(FIT.semicircles(52.0100033)) - 52.0100033) < 1e-7)
        // 1989-12-31T00:00:00Z is FIT's 0.
        #expect(FIT.dateTime(UTCTimestamp(millisecondsSince1970: 631_065_600_000)) == 0)
        #expect(FIT.dateTime(UTCTimestamp(millisecondsSince1970: 631_065_601_999)) == 1)
    }

    /// Strings are cut at a whole character to leave room for their zero.
    @Test func stringsAreCutWhole() {
        let field = FITField(8, string: "Ää Ää", size: 4)
        #expect(field.text == "Ä")
        #expect(FITField(8, string: "abc", size: 4).text == "abc")
    }
}

/// The FIT reader on files made by hand: what Pacer's writer never writes but watches do.
@Suite("FIT reader")
struct FITReaderTests {
    /// A file of `records`: the 14-byte header with its CRC, the records, the file's CRC.
    static func file(_ records: [UInt8]) -> [UInt8] {
        var file: [UInt8] = [14, 0x20, 0x54, 0x08]
        let size = UInt32(records.count)
        for i in 0..<4 { file.append(UInt8(truncatingIfNeeded: size >> (8 * UInt32(i)))) }
        file += Array(".FIT".utf8)
        let header = FIT.crc(file)
        file += [UInt8(header & 0xFF), UInt8(header >> 8)] + records
        let crc = FIT.crc(file)
        return file + [UInt8(crc & 0xFF), UInt8(crc >> 8)]
    }

    /// A time in FIT's seconds (since 1989-12-31) in 2021, with 8 in its low five bits.
    static let t0: Int64 = 1_000_000_008

    static func bigEndian(_ v: Int64) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * (3 - $0))) } }
    static func littleEndian(_ v: Int64) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

    /// A big-endian definition with a developer field (skipped by its size), then records
    /// under compressed timestamp headers, the second rolling over the 5 bits.
    @Test func bigEndianDeveloperFieldsAndCompressedTimestamps() throws {
        let lat = FIT.semicircles(45), lon = FIT.semicircles(6)
        var records: [UInt8] = [0x60, 0, 1, 0x00, 0x14, 3, 253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85, 1, 0, 2, 0]
        records += [0x00] + Self.bigEndian(Self.t0) + Self.bigEndian(lat) + Self.bigEndian(lon) + [0xAB, 0xCD]
        records += [0x41, 0, 0, 0x14, 0x00, 2, 0, 4, 0x85, 1, 4, 0x85]
        records += [0x80 | 0x20 | 11] + Self.littleEndian(lat) + Self.littleEndian(lon)
        records += [0x80 | 0x20 | 2] + Self.littleEndian(lat + 1000) + Self.littleEndian(lon)
        let data = try FITReader.parse(Self.file(records), file: "hand.fit")
        #expect(data.points.map { $0.time.millisecondsSince1970 / 1000 - FIT.epochOffset } == [Self.t0, Self.t0 + 3, Self.t0 + 26])
        #expect(data.points.allSatisfy { abs($0.position.longitude - 6) < 1e-7 })
        #expect(abs(data.points[0].position.latitude - 45) < 1e-9)
        #expect(data.points.map(\.record) == [1, 2, 3])
    }

    /// Refusals name the byte and the reason.
    @Test func brokenRecordsAreRefusedAtTheirByte() {
        // A data message of a local type never defined.
        #expect(throws: FITError(file: "x.fit", offset: 14, reason: "a data message of local type 3, which no definition came before")) {
            try FITReader.parse(Self.file([0x03, 0, 0]), file: "x.fit")
        }
        // A compressed timestamp with no full one before it.
        #expect(throws: FITError(file: "x.fit", offset: 20, reason: "a compressed timestamp before any full timestamp")) {
            try FITReader.parse(Self.file([0x40, 0, 0, 0x14, 0x00, 0, 0x85]), file: "x.fit")
        }
        // A definition cut short.
        #expect(throws: FITError(file: "x.fit", offset: 14, reason: "a definition of 2 fields cut short by the end of the records")) {
            try FITReader.parse(Self.file([0x40, 0, 0, 0x14, 0x00, 2, 0, 4]), file: "x.fit")
        }
        #expect(throws: FITError(file: "x.fit", offset: 16, reason: "architecture 7: 0 (little-endian) or 1 (big-endian)")) {
            try FITReader.parse(Self.file([0x40, 0, 7, 0x14, 0x00, 0]), file: "x.fit")
        }
    }

    /// Records at `times` (FIT seconds), 3 m apart northward, under one little-endian definition.
    static func records(_ times: [Int64]) -> [UInt8] {
        var bytes: [UInt8] = [0x40, 0, 0, 20, 0, 3, 253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85]
        for (i, t) in times.enumerated() {
            bytes += [0x00] + littleEndian(t) + littleEndian(FIT.semicircles(52 + Double(i) * 3 / 111_195))
                + littleEndian(FIT.semicircles(4.3))
        }
        return bytes
    }

    /// Issue 38, case 9: two FIT files one after the other, as some devices write them. The
    /// reader stopped at the first one's CRC and kept half the records, saying nothing.
    @Test func chainedFilesAreReadWhole() throws {
        let first = Self.file(Self.records((0..<600).map { Self.t0 + Int64($0) }))
        let second = Self.file(Self.records((0..<600).map { Self.t0 + 700 + Int64($0) }))
        let data = try FITReader.parse(first + second, file: "chained.fit")
        #expect(data.files == 2 && data.records == 1200 && data.points.count == 1200)
        #expect(data.points.filter(\.afterStop).map(\.record) == [601], "the second file starts a segment")
        // Zeros after the last file are padding; other bytes are refused where they start.
        #expect(try FITReader.parse(first + [0, 0, 0, 0], file: "padded.fit").points.count == 600)
        #expect(throws: FITError(file: "junk.fit", offset: first.count, reason: "3 bytes after the file's CRC are not another FIT file")) {
            try FITReader.parse(first + [1, 2, 3], file: "junk.fit")
        }
    }

    /// Issue 38, case 10: records dated 1989 (FIT's time zero) and 2126 (the field's largest
    /// value) are no run's, and a lap of 40,000 km is no runner's: refused at their byte.
    @Test func implausibleTimesAndLapsAreRefusedAtTheirByte() {
        let early = Self.records([Self.t0, 5])
        #expect(throws: FITError(file: "x.fit", offset: 14 + 15 + 13, reason: "record 2 is dated 1989-12-31T00:00:05.000Z: no run's time (2000 to 2100); the file's times are damaged")) {
            try FITReader.parse(Self.file(early), file: "x.fit")
        }
        let late = Self.records([4_294_967_000])
        #expect(throws: FITError.self) { try FITReader.parse(Self.file(late), file: "x.fit") }
        var lap = Self.records([Self.t0, Self.t0 + 1])
        lap += [0x42, 0, 0, 19, 0, 2, 8, 4, 0x86, 9, 4, 0x86]
        lap += [0x02] + Self.littleEndian(1_800_000) + Self.littleEndian(4_000_000_000)
        #expect(throws: FITError(file: "x.fit", offset: 14 + 15 + 26 + 12, reason: "lap 1 is 40000 km in 1800 s: faster than anyone on foot")) {
            try FITReader.parse(Self.file(lap), file: "x.fit")
        }
        // A lap a runner runs is kept.
        var good = Self.records([Self.t0, Self.t0 + 1])
        good += [0x42, 0, 0, 19, 0, 2, 8, 4, 0x86, 9, 4, 0x86]
        good += [0x02] + Self.littleEndian(1_800_000) + Self.littleEndian(600_000)
        #expect((try? FITReader.parse(Self.file(good), file: "x.fit"))?.laps.count == 1)
    }

    /// Issue 38, case 10: a bike ride imported as a run. Its session's sport is read, and an
    /// activity that is not on foot is refused with what it is; as a route it is welcome.
    @Test func aRideIsNotImportedAsARun() throws {
        var ride = Self.records((0..<30).map { Self.t0 + Int64($0) })
        ride += [0x41, 0, 0, 18, 0, 1, 5, 1, 0x00] + [0x01, 2]
        let dir = TemporaryDirectory()
        let path = try dir.file("ride.fit", "")
        try Data(Self.file(ride)).write(to: URL(fileURLWithPath: path))
        #expect(try FITReader.read(path: path).sport == 2)
        let store = try PacerStore(directory: dir.path + "/data")
        #expect(throws: FITError(file: path, offset: nil, reason: "a cycling activity, not a run: Pacer keeps runs (import its line as a route to follow instead)")) {
            try store.fit.importFIT(file: path, as: .activity)
        }
        #expect(try store.fit.importFIT(file: path, as: .route).kind == .route)
    }

    /// Issue 38, case 2: the reader held the whole file and every point (a 48 MB FIT peaked at
    /// 1,043 MB). Now a file is read 64 kB at a time and its points handed over one by one:
    /// 300,000 records (3.9 MB) go through with at most 64 kB of the file held, and none kept.
    @Test func aFileIsReadAPieceAtATimeAndItsPointsHandedOverOneByOne() throws {
        let count = 300_000
        let dir = TemporaryDirectory()
        let path = dir.path + "/long.fit"
        try Data(Self.file(Self.records((0..<count).map { Self.t0 + Int64($0) }))).write(to: URL(fileURLWithPath: path))
        var handed = 0
        var inOrder = true
        let data = try FITReader.read(path: path) { point in
            handed += 1
            if point.record != handed { inOrder = false }
        }
        #expect(handed == count && inOrder)
        #expect(data.records == count && data.pointCount == count && data.points.isEmpty)
        #expect(data.largestPiece <= 1 << 16, "held \(data.largestPiece) bytes of the file at once")
    }

    /// Issue 38, case 2: a streamed import takes the points into the store as they come, in
    /// one transaction: a record refused near the end (dated 2126) leaves nothing stored.
    @Test func aFileRefusedAtItsLastRecordStoresNothing() throws {
        let times = (0..<5_000).map { Self.t0 + Int64($0) } + [4_294_967_000]
        let dir = TemporaryDirectory()
        let path = dir.path + "/late.fit"
        try Data(Self.file(Self.records(times))).write(to: URL(fileURLWithPath: path))
        let store = try PacerStore(directory: dir.path + "/data")
        let error = #expect(throws: FITError.self) { try store.fit.importFIT(file: path, as: .activity) }
        #expect(error?.offset == 14 + 15 + 13 * 5_000, "\(String(describing: error))")
        #expect(try store.activities.activities().isEmpty, "nothing of the refused file is stored")
        #expect(throws: FITError.self) { try store.fit.importFIT(file: path, as: .route) }
        #expect(try store.routes.routes().isEmpty)
    }

    /// The window an import reads through changes nothing it reads: chained, padded and
    /// broken files read the same, point for point and error for error, through windows of a
    /// byte to 64 kB (the refills in between are where a streamed reader goes wrong).
    @Test func everyWindowReadsTheSame() {
        let first = Self.file(Self.records((0..<300).map { Self.t0 + Int64($0) }))
        let second = Self.file(Self.records((0..<300).map { Self.t0 + 400 + Int64($0) }))
        let files: [[UInt8]] = [
            first + second, first + [0, 0, 0], first + [1, 2, 3], Self.file([0x03, 0, 0]),
            Self.file(Self.records([Self.t0, 5])), Array(first.dropLast(5)), Self.file([0x40, 0, 0, 0x14, 0x00, 2, 0, 4]),
        ]
        func outcome(_ bytes: [UInt8], _ window: Int) -> String {
            do {
                let data = try FITReader.parse(bytes, file: "w.fit", window: window)
                return "\(data.points.map { "\($0.record):\($0.time.millisecondsSince1970):\($0.afterStop)" }) \(data.files) \(data.records)"
            } catch {
                return "\(error)"
            }
        }
        for (i, bytes) in files.enumerated() {
            let whole = outcome(bytes, 1 << 16)
            for window in [1, 2, 7, 13, 14, 64, 4096] {
                #expect(outcome(bytes, window) == whole, "file \(i), window \(window)")
            }
        }
    }
}
