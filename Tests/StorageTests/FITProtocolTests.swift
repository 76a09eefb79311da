import PacerCore
import Storage
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

    static func bigEndian(_ v: Int64) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * (3 - $0))) } }
    static func littleEndian(_ v: Int64) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

    /// A big-endian definition with a developer field (skipped by its size), then records
    /// under compressed timestamp headers, the second rolling over the 5 bits.
    @Test func bigEndianDeveloperFieldsAndCompressedTimestamps() throws {
        let lat = FIT.semicircles(45), lon = FIT.semicircles(6)
        var records: [UInt8] = [0x60, 0, 1, 0x00, 0x14, 3, 253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85, 1, 0, 2, 0]
        records += [0x00] + Self.bigEndian(1000) + Self.bigEndian(lat) + Self.bigEndian(lon) + [0xAB, 0xCD]
        records += [0x41, 0, 0, 0x14, 0x00, 2, 0, 4, 0x85, 1, 4, 0x85]
        records += [0x80 | 0x20 | 11] + Self.littleEndian(lat) + Self.littleEndian(lon)
        records += [0x80 | 0x20 | 2] + Self.littleEndian(lat + 1000) + Self.littleEndian(lon)
        let data = try FITReader.parse(Self.file(records), file: "hand.fit")
        #expect(data.points.map { $0.time.millisecondsSince1970 / 1000 - FIT.epochOffset } == [1000, 1003, 1026])
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
}
