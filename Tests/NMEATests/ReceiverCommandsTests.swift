import NMEA
import TestSupport
import Testing

// `ReceiverCommands`: the exact bytes sent to a u-blox M8 (UBX) or MediaTek MT3339 (PMTK)
// receiver for each power request. Known-good vectors are frames and sentences published
// with their checksums (PMTK documentation; UBX frames captured from u-center or shipped in
// receiver drivers); everything else is checked field by field against the message layout,
// with the UBX checksum written out here from its definition (frames are assembled by
// TestSupport's ubxPacket).

/// The UBX checksum written out from its definition: CK_A is the sum of the bytes, CK_B the
/// sum of the running CK_A values, both modulo 256, over class, ID, length and payload.
private func fletcher(_ bytes: [UInt8]) -> [UInt8] {
    var a = 0
    var b = 0
    for byte in bytes {
        a = (a + Int(byte)) % 256
        b = (b + a) % 256
    }
    return [UInt8(a), UInt8(b)]
}

private func le32(_ value: UInt32) -> [UInt8] {
    (0..<4).map { UInt8(value >> (8 * UInt32($0)) & 0xFF) }
}

private func ascii(_ text: String) -> [UInt8] {
    Array(text.utf8)
}

@Suite("Receiver power commands")
struct ReceiverCommandsTests {
    typealias UBX = ReceiverCommands.UBX
    typealias PMTK = ReceiverCommands.PMTK

    // MARK: UBX framing

    @Test("UBX frames match published ones, byte for byte")
    func publishedUBXFrames() {
        // UBX-CFG-RXM, Power Save Mode and Continuous Mode, as u-center sends them.
        #expect(UBX.cfgRXM(.powerSave) == hexBytes("B5 62 06 11 02 00 08 01 22 92"))
        #expect(UBX.cfgRXM(.continuous) == hexBytes("B5 62 06 11 02 00 08 00 21 91"))
        // UBX-CFG-RXM with reserved1 = 0 (a SAM-M8Q driver).
        #expect(UBX.frame(class: 0x06, id: 0x11, payload: [0x00, 0x01]) == hexBytes("B5 62 06 11 02 00 00 01 1A 82"))
        // UBX-RXM-PMREQ, 16 bytes: infinite backup, woken by UART RX (a ZOE-M8B driver).
        #expect(UBX.rxmPMREQ(wakeAfter: nil) == hexBytes(
            "B5 62 02 41 10 00 00 00 00 00 00 00 00 00 02 00 00 00 08 00 00 00 5D 4B"))
        // …and without the backup flag (a SAM-M8Q driver): the same framing.
        #expect(UBX.frame(class: 0x02, id: 0x41, payload: hexBytes(
            "00 00 00 00 00 00 00 00 00 00 00 00 08 00 00 00")).suffix(2) == [0x5B, 0x3B])
        // UBX-CFG-PM2 as u-center writes it (version 1, 44 bytes, u-blox 7), two update periods.
        func pm2(period: String) -> String {
            "01 06 00 00 00 98 02 00 " + period + " 10 27 00 00 00 00 00 00 00 00 00 00 "
                + "2C 01 00 00 4F C1 03 00 86 02 00 00 FE 00 00 00 64 40 01 00"
        }
        #expect(UBX.frame(class: 0x06, id: 0x3B, payload: hexBytes(pm2(period: "E8 03 00 00")))
            == hexBytes("B5 62 06 3B 2C 00 " + pm2(period: "E8 03 00 00") + " 9B CD"))
        #expect(UBX.frame(class: 0x06, id: 0x3B, payload: hexBytes(pm2(period: "88 13 00 00"))).suffix(2) == [0x4B, 0x7D])
        // UBX-CFG-PM2 version 2, 48 bytes (a SAM-M8Q driver).
        let pm2v2 = "02 00 00 00 00 00 01 00 14 00 00 00 00 00 00 00 00 00 00 00 05 00 1E 00 "
            + [String](repeating: "00", count: 24).joined(separator: " ")
        #expect(UBX.frame(class: 0x06, id: 0x3B, payload: hexBytes(pm2v2)).suffix(2) == [0xAB, 0x9B])
    }

    @Test("the UBX checksum is the 8-bit Fletcher sum over class, ID, length and payload")
    func fletcherChecksum() {
        var generator = SystemRandomNumberGenerator()
        for length in [0, 1, 2, 47, 48, 300] {
            let payload = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let frame = UBX.frame(class: 0x06, id: 0x3B, payload: payload)
            #expect(frame == ubxPacket(class: 0x06, id: 0x3B, payload: payload))
            #expect(frame.count == 8 + length)
            let (a, b) = UBX.checksum(frame[2..<(frame.count - 2)])
            #expect([a, b] == Array(frame.suffix(2)))
        }
    }

    // MARK: UBX per request

    @Test("continuous: the 0xFF wake train, then UBX-CFG-RXM Continuous Mode")
    func ubxContinuous() {
        let bytes = ReceiverCommands.encode(.continuous, for: .ubx)
        #expect(bytes == [UInt8](repeating: 0xFF, count: 8) + hexBytes("B5 62 06 11 02 00 08 00 21 91"))
        #expect(bytes.count == 18)
    }

    @Test("power save: wake train, UBX-CFG-PM2 cyclic tracking up to 10 s, then CFG-RXM Power Save Mode",
          arguments: [1, 5, 10])
    func ubxPowerSaveCyclic(seconds: Int) {
        let ms = UInt32(seconds * 1000)
        // Built a field at a time: as one expression, Swift 6.2 gives up type-checking it.
        var payload: [UInt8] = [0x02, 0x00, 0x00, 0x00]  // version 2, reserved1, maxStartupStateDur 0, reserved2
        payload += le32(1 << 12 | 1 << 17)               // flags: updateEPH, mode 1 (cyclic tracking)
        payload += le32(ms) + le32(ms)                   // updatePeriod, searchPeriod
        payload += le32(0)                               // gridOffset
        payload += [0, 0, 0, 0]                          // onTime, minAcqTime
        payload += [UInt8](repeating: 0, count: 20) + le32(0)  // reserved3, extintInactivityMs
        let pm2 = ubxPacket(class: 0x06, id: 0x3B, payload: payload)
        #expect(pm2.count == 56)
        #expect(UBX.cfgPM2(updatePeriod: .seconds(seconds)) == pm2)
        let bytes = ReceiverCommands.encode(.powerSave(updatePeriod: .seconds(seconds)), for: .ubx)
        #expect(bytes == [UInt8](repeating: 0xFF, count: 8) + pm2 + hexBytes("B5 62 06 11 02 00 08 01 22 92"))
        #expect(bytes.count == 74)
    }

    @Test("power save beyond 10 s: UBX-CFG-PM2 ON/OFF operation", arguments: [11, 30, 60, 3600])
    func ubxPowerSaveOnOff(seconds: Int) {
        let ms = UInt32(seconds * 1000)
        let pm2 = UBX.cfgPM2(updatePeriod: .seconds(seconds))
        #expect(Array(pm2[6..<10]) == [0x02, 0x00, 0x00, 0x00])
        #expect(Array(pm2[10..<14]) == le32(1 << 12))  // updateEPH, mode 0 (ON/OFF)
        #expect(Array(pm2[14..<18]) == le32(ms))
        #expect(Array(pm2[18..<22]) == le32(ms))
        #expect(pm2[22..<54].allSatisfy { $0 == 0 })
        #expect(Array(pm2.suffix(2)) == fletcher(Array(pm2[2..<54])))
    }

    @Test("the 30 s profile's UBX-CFG-PM2, in full")
    func ubxPowerSave30Seconds() {
        // updatePeriod = searchPeriod = 30000 ms = 0x7530.
        let payload = "02 00 00 00 00 10 00 00 30 75 00 00 30 75 00 00 "
            + [String](repeating: "00", count: 32).joined(separator: " ")
        #expect(UBX.cfgPM2(updatePeriod: .seconds(30)) == ubxPacket(class: 0x06, id: 0x3B, payload: hexBytes(payload)))
    }

    @Test("power save periods are whole milliseconds, at least 1 s")
    func ubxPowerSaveClamps() {
        #expect(UBX.cfgPM2(updatePeriod: .milliseconds(2500))[14..<18] == le32(2500)[...])
        #expect(UBX.cfgPM2(updatePeriod: .microseconds(2_500_999))[14..<18] == le32(2500)[...])
        #expect(UBX.cfgPM2(updatePeriod: .milliseconds(200))[14..<18] == le32(1000)[...])
        #expect(UBX.cfgPM2(updatePeriod: .zero)[14..<18] == le32(1000)[...])
        #expect(UBX.cfgPM2(updatePeriod: .seconds(-5))[14..<18] == le32(1000)[...])
        #expect(UBX.cfgPM2(updatePeriod: .seconds(10), operation: .onOff)[10..<14] == le32(1 << 12)[...])
    }

    @Test("backup: UBX-RXM-PMREQ, backup flag, woken by UART RX; forever or for a duration")
    func ubxBackup() {
        func pmreq(_ duration: UInt32) -> [UInt8] {
            ubxPacket(class: 0x02, id: 0x41, payload: [0x00, 0x00, 0x00, 0x00] + le32(duration) + le32(1 << 1) + le32(1 << 3))
        }
        #expect(ReceiverCommands.encode(.backup(wakeAfter: nil), for: .ubx) == pmreq(0))
        #expect(ReceiverCommands.encode(.backup(wakeAfter: nil), for: .ubx).count == 24)
        // 50 s = 50000 ms = 0xC350.
        #expect(ReceiverCommands.encode(.backup(wakeAfter: .seconds(50)), for: .ubx)
            == hexBytes("B5 62 02 41 10 00 00 00 00 00 50 C3 00 00 02 00 00 00 08 00 00 00")
                + fletcher(hexBytes("02 41 10 00 00 00 00 00 50 C3 00 00 02 00 00 00 08 00 00 00")))
        #expect(UBX.rxmPMREQ(wakeAfter: .milliseconds(1500)) == pmreq(1500))
        // Never 0 (that would be forever), never beyond 12 days.
        #expect(UBX.rxmPMREQ(wakeAfter: .zero) == pmreq(1))
        #expect(UBX.rxmPMREQ(wakeAfter: .microseconds(10)) == pmreq(1))
        #expect(UBX.rxmPMREQ(wakeAfter: .seconds(13 * 24 * 3600)) == pmreq(1_036_800_000))
        #expect(UBX.rxmPMREQ(wakeAfter: .seconds(Int64.max)) == pmreq(1_036_800_000))
    }

    // MARK: PMTK

    @Test("PMTK sentences match the published examples, checksum and all")
    func publishedPMTKSentences() {
        #expect(PMTK.sentence("PMTK225,0") == ascii("$PMTK225,0*2B\r\n"))
        #expect(PMTK.sentence("PMTK161,0") == ascii("$PMTK161,0*28\r\n"))
        #expect(PMTK.sentence("PMTK225,2,3000,12000,18000,72000") == ascii("$PMTK225,2,3000,12000,18000,72000*15\r\n"))
        #expect(PMTK.sentence("PMTK225,1,3000,12000,18000,72000") == ascii("$PMTK225,1,3000,12000,18000,72000*16\r\n"))
        #expect(PMTK.sentence("PMTK225,8") == ascii("$PMTK225,8*23\r\n"))
        #expect(PMTK.sentence("PMTK225,9") == ascii("$PMTK225,9*22\r\n"))
        #expect(PMTK.sentence("PMTK183") == ascii("$PMTK183*38\r\n"))
        #expect(PMTK.sentence("PMTK251,38400") == ascii("$PMTK251,38400*27\r\n"))
    }

    @Test("continuous: $PMTK225,0*2B; backup: $PMTK161,0*28, whatever the wake time")
    func pmtkContinuousAndBackup() {
        #expect(ReceiverCommands.encode(.continuous, for: .pmtk) == ascii("$PMTK225,0*2B\r\n"))
        #expect(ReceiverCommands.encode(.backup(wakeAfter: nil), for: .pmtk) == ascii("$PMTK161,0*28\r\n"))
        #expect(ReceiverCommands.encode(.backup(wakeAfter: .seconds(50)), for: .pmtk) == ascii("$PMTK161,0*28\r\n"))
    }

    @Test("power save: periodic standby, 3 s run, the rest of the period asleep", arguments: [
        (10, "PMTK225,2,3000,7000,0,0"),
        (30, "PMTK225,2,3000,27000,0,0"),
        (60, "PMTK225,2,3000,57000,0,0"),
        (4, "PMTK225,2,3000,1000,0,0"),
        (3, "PMTK225,2,2000,1000,0,0"),
        (2, "PMTK225,2,1000,1000,0,0"),
        (1, "PMTK225,2,1000,1000,0,0"),
        (0, "PMTK225,2,1000,1000,0,0"),
        (10 * 24 * 3600, "PMTK225,2,3000,518400000,0,0"),
    ])
    func pmtkPowerSave(seconds: Int, body: String) {
        let expected = ascii("$\(body)*\(checksum(body))\r\n")
        #expect(ReceiverCommands.encode(.powerSave(updatePeriod: .seconds(seconds)), for: .pmtk) == expected)
    }

    @Test func pmtkPowerSaveAt10Seconds() {
        // The XOR of the bytes of "PMTK225,2,3000,7000,0,0" is 0x2D.
        #expect(PMTK.periodicStandby(updatePeriod: .seconds(10)) == ascii("$PMTK225,2,3000,7000,0,0*2D\r\n"))
    }

    // MARK: none

    @Test("receiver=none: nothing, for every request")
    func noneSendsNothing() {
        for request in [ReceiverPowerRequest.continuous, .powerSave(updatePeriod: .seconds(10)),
                        .backup(wakeAfter: nil), .backup(wakeAfter: .seconds(5))] {
            #expect(ReceiverCommands.encode(request, for: .none).isEmpty)
        }
        #expect(ReceiverCommandSet.allCases.map(\.rawValue) == ["ubx", "pmtk", "none"])
    }
}
