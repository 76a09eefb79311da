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
