import PacerCore
import Testing

@Suite("Byte formatting")
struct ByteFormattingTests {
    private func decimal(_ value: Double, places: Int) -> String {
        var bytes: [UInt8] = []
        bytes.appendDecimal(value, places: places)
        return String(decoding: bytes, as: UTF8.self)
    }

    private func digits(_ value: Int, width: Int) -> String {
        var bytes: [UInt8] = []
        bytes.appendDigits(value, width: width)
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test(arguments: [
        (34.03294, 9, "34.03294"),
        (0.0, 9, "0.0"),
        (-117.7471233, 9, "-117.7471233"),
        (-0.0000000001, 9, "0.0"),
        (-0.0, 3, "0.0"),
        (234.7, 4, "234.7"),
        (119.27, 4, "119.27"),
        (1.25, 1, "1.3"),
        (-1.25, 1, "-1.3"),
        (0.9999999999, 9, "1.0"),
        (0.000000001, 9, "0.000000001"),
        (5.144444444444445, 3, "5.144"),
        (-19.6, 1, "-19.6"),
        (1234567.5, 1, "1234567.5"),
    ])
    func appendsDecimal(_ value: Double, _ places: Int, _ expected: String) {
        #expect(decimal(value, places: places) == expected)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, 1e10, -1e10])
    func nonFiniteOrHugeIsNull(_ value: Double) {
        #expect(decimal(value, places: 9) == "null")
    }

    @Test(arguments: [(7, 2, "07"), (0, 1, "0"), (12_345, 2, "12345"), (2010, 4, "2010"), (5, 3, "005"), (987, 4, "0987")])
    func appendsDigits(_ value: Int, _ width: Int, _ expected: String) {
        #expect(digits(value, width: width) == expected)
    }

    @Test(arguments: [
        (1.0, 2, "1.00"), (0.0044, 3, "0.004"), (77.5, 2, "77.50"), (99.996, 2, "100.00"),
        (-1.25, 1, "-1.3"), (-0.01, 1, "0.0"), (12.4, 0, "12"), (0.5, 0, "1"), (3.14159, 9, "3.141590000"),
    ])
    func appendsFixed(_ value: Double, _ places: Int, _ expected: String) {
        var bytes: [UInt8] = []
        bytes.appendFixed(value, places: places)
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
    }

    @Test func appendsAfterExistingBytes() {
        var bytes = Array("x=".utf8)
        bytes.appendDecimal(-1.5, places: 2)
        bytes.append(UInt8(ascii: ","))
        bytes.appendDigits(3, width: 2)
        #expect(String(decoding: bytes, as: UTF8.self) == "x=-1.5,03")
    }
}
