import HAL
import Testing

/// The Heart Rate Measurement (0x2A37) reader and writer, field by field, against bytes
/// written out by hand from the GATT Specification Supplement's layout.
@Suite("Heart Rate Measurement")
struct HeartRateMeasurementTests {
    private func read(_ bytes: [UInt8]) throws -> HeartRateMeasurement {
        try HeartRateMeasurement(bytes: bytes)
    }

    @Test("an 8-bit value, and a 16-bit one in little-endian order")
    func values() throws {
        let eight = try read([0x00, 72])
        #expect(eight == HeartRateMeasurement(bpm: 72))
        #expect(eight.heartRate == 72)
        #expect(try read([0x01, 0x2C, 0x01]).bpm == 300)
        #expect(try read([0x01, 0x48, 0x00]).bpm == 72)
        #expect(try read([0x00, 255]).bpm == 255)
    }

    @Test("the contact bits: bit 2 says the strap can tell, bit 1 that it touches skin")
    func contact() throws {
        #expect(try read([0x00, 70]).contact == .unsupported)
        #expect(try read([0x02, 70]).contact == .unsupported)
        #expect(try read([0x04, 70]).contact == .notDetected)
        #expect(try read([0x06, 70]).contact == .detected)
        // Off the chest: no heart rate for the runner, whatever the value.
        #expect(try read([0x04, 70]).heartRate == nil)
        #expect(try read([0x06, 0]).heartRate == nil)
        #expect(try read([0x06, 70]).heartRate == 70)
    }

    @Test("the energy expended, kilojoules as a UINT16")
    func energy() throws {
        let m = try read([0x08, 100, 0x10, 0x27])
        #expect(m.bpm == 100)
        #expect(m.energyExpended == 10_000)
        #expect(try read([0x00, 100]).energyExpended == nil)
    }

    @Test("several RR intervals in 1/1024 s, and the flag with none")
    func rrIntervals() throws {
        #expect(try read([0x10, 60, 0x00, 0x04, 0x00, 0x02, 0x9A, 0x01]).rrIntervals == [1.0, 0.5, 410.0 / 1024])
        #expect(try read([0x10, 60]).rrIntervals == [])
        let all = try read([0x1F, 0x2C, 0x01, 0xE8, 0x03, 0x00, 0x04, 0x00, 0x02])
        #expect(all == HeartRateMeasurement(bpm: 300, contact: .detected, energyExpended: 1000, rrIntervals: [1.0, 0.5]))
    }

    @Test("each truncation names the field it ends in", arguments: [
        ([0x00], HeartRateMeasurementError.truncated(.heartRate, length: 1)),
        ([0x01, 0x48], .truncated(.heartRate, length: 2)),
        ([0x08, 72], .truncated(.energyExpended, length: 2)),
        ([0x08, 72, 0x01], .truncated(.energyExpended, length: 3)),
        ([0x10, 72, 0x00, 0x04, 0x01], .truncated(.rrInterval, length: 5)),
        ([0x19, 72, 0x00, 0x01, 0x00, 0x00, 0x04, 0x00], .truncated(.rrInterval, length: 8)),
    ] as [([UInt8], HeartRateMeasurementError)])
    func truncations(bytes: [UInt8], error: HeartRateMeasurementError) {
        #expect(throws: error) { try read(bytes) }
        guard case .truncated(let field, let length) = error else { return }
        #expect(error.description.contains(field.rawValue))
        #expect(error.description.contains("\(length) bytes"))
    }

    @Test("no bytes at all: no flags byte")
    func empty() {
        #expect(throws: HeartRateMeasurementError.empty) { try read([]) }
        #expect(HeartRateMeasurementError.empty.description.contains("no flags byte"))
    }

    @Test("the reserved bits 5 to 7 are ignored, and so are bytes after the last field")
    func reserved() throws {
        #expect(try read([0xE0, 72]) == read([0x00, 72]))
        #expect(try read([0xE6, 72]).contact == .detected)
        #expect(try read([0xF0, 72, 0x00, 0x04]).rrIntervals == [1.0])
        #expect(try read([0x00, 72, 0xFF, 0xFF]) == HeartRateMeasurement(bpm: 72))
    }

    @Test("what `bytes` writes reads back the same", arguments: [
        HeartRateMeasurement(bpm: 72),
        HeartRateMeasurement(bpm: 0, contact: .notDetected),
        HeartRateMeasurement(bpm: 255, contact: .detected),
        HeartRateMeasurement(bpm: 256, contact: .detected, energyExpended: 0),
        HeartRateMeasurement(bpm: 142, contact: .detected, energyExpended: 65_535, rrIntervals: [0.421875, 0.419921875]),
        HeartRateMeasurement(bpm: 61, rrIntervals: [1.0, 0.9765625, 1.0234375, 0.5]),
    ])
    func roundTrip(_ m: HeartRateMeasurement) throws {
        #expect(try HeartRateMeasurement(bytes: m.bytes) == m)
    }

    @Test("`bytes` is the smallest form: a UINT8 value when it fits, only the flags used")
    func smallestBytes() {
        #expect(HeartRateMeasurement(bpm: 72).bytes == [0x00, 72])
        #expect(HeartRateMeasurement(bpm: 300).bytes == [0x01, 0x2C, 0x01])
        #expect(HeartRateMeasurement(bpm: 72, contact: .detected, rrIntervals: [0.5]).bytes == [0x16, 72, 0x00, 0x02])
        #expect(HeartRateMeasurement(bpm: 72, energyExpended: 5).bytes == [0x08, 72, 0x05, 0x00])
    }
}
