#if canImport(Glibc)
import Glibc
#endif
import HAL
import LinuxHardware
import NMEA
import TestSupport
import Testing

/// `SerialNMEASource.setPower`, on real pseudo-terminals: what `setPower` writes
/// to the receiver is read back from the pty master, byte for byte.
@Suite("Serial receiver power commands")
struct SerialPowerCommandTests {
    typealias Rig = SerialNMEASourceTests.Rig


    /// What the receiver should get for each state, written out (10 s power-save period, no
    /// backup wake time).
    static func expected(_ power: GPSPowerState, _ commands: ReceiverCommandSet) -> [UInt8] {
        let wake = [UInt8](repeating: 0xFF, count: 8)
        switch (commands, power) {
        case (.ubx, .tracking), (.ubx, .acquiring):
            return wake + hexBytes("B5 62 06 11 02 00 08 00 21 91")
        case (.ubx, .powerSave):
            // UBX-CFG-PM2 v2: flags updateEPH | cyclic tracking, update and search period
            // 10000 ms, the rest 0; then UBX-CFG-RXM Power Save Mode.
            return wake
                + hexBytes("B5 62 06 3B 30 00 02 00 00 00 00 10 02 00 10 27 00 00 10 27 00 00")
                + [UInt8](repeating: 0, count: 32) + hexBytes("F3 C3")  // CK_A, CK_B
                + hexBytes("B5 62 06 11 02 00 08 01 22 92")
        case (.ubx, .backup):
            return hexBytes("B5 62 02 41 10 00 00 00 00 00 00 00 00 00 02 00 00 00 08 00 00 00 5D 4B")
        case (.pmtk, .tracking), (.pmtk, .acquiring):
            return Array("$PMTK225,0*2B\r\n".utf8)
        case (.pmtk, .powerSave):
            return Array("$PMTK225,2,3000,7000,0,0*2D\r\n".utf8)
        case (.pmtk, .backup):
            return Array("$PMTK161,0*28\r\n".utf8)
        default:
            return []
        }
    }

    @Test("backup, power save, tracking: each state's commands, in order, nothing more",
          arguments: [ReceiverCommandSet.ubx, .pmtk])
    func statesInOrder(commands: ReceiverCommandSet) async throws {
        let rig = try Rig(receiver: commands)
        defer { rig.shutdown() }
        let pty = try rig.plug()
        rig.source.start(rig.sink)
        #expect(await eventually { rig.log.count(.connected) == 1 })
        #expect(rig.source.name == "serial://\(rig.devicePath)?baud=9600&receiver=\(commands.rawValue)")

        let states: [GPSPowerState] = [.backup, .powerSave, .tracking]
        for state in states { rig.source.setPower(state) }
        let wanted = states.flatMap { Self.expected($0, commands) }
        #expect(!wanted.isEmpty)
        #expect(await pty.read(count: wanted.count) == wanted)
        #expect(await pty.read(for: .milliseconds(200)).isEmpty)
        #expect(await eventually { rig.source.powerRequestsSent == 3 })
        #expect(rig.source.wantedPower == .tracking)

        // `.acquiring` is a receiver awake and searching: the same as `.tracking`. `.off`
        // cannot be asked of a receiver over its serial line: nothing.
        rig.source.setPower(.acquiring)
        rig.source.setPower(.off)
        let awake = Self.expected(.tracking, commands)
        #expect(await pty.read(count: awake.count) == awake)
        #expect(await pty.read(for: .milliseconds(200)).isEmpty)

        // Reading goes on as before.
        await pty.write(SerialTest.cycles(0..<3))
        #expect(await eventually { rig.log.fixes.count == 2 })
    }

    @Test("the commands are the encoder's, for the configured period and backup wake time")
    func encoderParameters() throws {
        let rig = try Rig(receiver: .ubx, powerSavePeriod: .seconds(30), backupWakeAfter: .seconds(25))
        defer { rig.shutdown() }
        #expect(rig.source.commandBytes(for: .powerSave)
            == ReceiverCommands.encode(.powerSave(updatePeriod: .seconds(30)), for: .ubx))
        #expect(rig.source.commandBytes(for: .backup)
            == ReceiverCommands.encode(.backup(wakeAfter: .seconds(25)), for: .ubx))
        #expect(rig.source.commandBytes(for: .off).isEmpty)
        for state in GPSPowerState.allCases where state != .off {
            #expect(Self.expected(state, .ubx) == (try Rig(receiver: .ubx)).source.commandBytes(for: state))
            #expect(Self.expected(state, .pmtk) == (try Rig(receiver: .pmtk)).source.commandBytes(for: state))
        }
    }

    @Test("a state asked for before the device is there is sent as soon as it opens")
    func askedWhileAway() async throws {
        let rig = try Rig(receiver: .ubx)
        defer { rig.shutdown() }
        rig.source.setPower(.tracking)  // before start: remembered
        rig.source.start(rig.sink)
        #expect(await eventually { rig.source.openAttempts >= 1 })
        rig.source.setPower(.powerSave)  // while missing: the last one wins
        #expect(!rig.source.isOpen)

        let pty = try rig.plug()
        #expect(await eventually(within: .seconds(20)) { rig.log.count(.connected) == 1 })
        let wanted = Self.expected(.powerSave, .ubx)
        #expect(await pty.read(count: wanted.count) == wanted)
        #expect(await pty.read(for: .milliseconds(200)).isEmpty)
    }

    @Test("the wanted state is sent again to a replugged receiver", arguments: [ReceiverCommandSet.ubx, .pmtk])
    func resentAfterReplug(commands: ReceiverCommandSet) async throws {
        let rig = try Rig(receiver: commands)
        defer { rig.shutdown() }
        let pty1 = try rig.plug()
        rig.source.start(rig.sink)
        #expect(await eventually { rig.log.count(.connected) == 1 })
        await pty1.write(SerialTest.cycles(0..<2))
        rig.source.setPower(.backup)
        let backup = Self.expected(.backup, commands)
        #expect(await pty1.read(count: backup.count) == backup)

        rig.unplug(pty1)
        #expect(await eventually { rig.log.count(.disconnected) == 1 })
        let pty2 = try rig.plug()
        #expect(await eventually { rig.log.count(.connected) == 2 })
        #expect(await pty2.read(count: backup.count) == backup)
        #expect(await pty2.read(for: .milliseconds(200)).isEmpty)

        rig.source.setPower(.tracking)
        let tracking = Self.expected(.tracking, commands)
        #expect(await pty2.read(count: tracking.count) == tracking)
        // Counted by the reader thread once its write returns, which may be just after the
        // bytes reach the other end.
        #expect(await eventually { rig.source.powerRequestsSent == 3 })
    }

    @Test("receiver=none: nothing is written, and the tty is opened read-only")
    func noneWritesNothing() async throws {
        let rig = try Rig()
        defer { rig.shutdown() }
        #expect(rig.source.receiver == .none)
        let pty = try rig.plug()
        rig.source.start(rig.sink)
        #expect(await eventually { rig.log.count(.connected) == 1 })
        #expect(pty.accessModesOnSlave() == [O_RDONLY, O_RDWR].sorted())
        for state in GPSPowerState.allCases { rig.source.setPower(state) }
        #expect(await pty.read(for: .milliseconds(300)).isEmpty)
        #expect(rig.source.powerRequestsSent == 0)
        #expect(rig.source.wantedPower == .off)
        await pty.write(SerialTest.cycles(0..<3))
        #expect(await eventually { rig.log.fixes.count == 2 })
    }

    @Test("with a command set the tty is opened for reading and writing")
    func writableWithCommands() async throws {
        let rig = try Rig(receiver: .pmtk)
        defer { rig.shutdown() }
        let pty = try rig.plug()
        rig.source.start(rig.sink)
        #expect(await eventually { rig.log.count(.connected) == 1 })
        #expect(pty.accessModesOnSlave() == [O_RDWR, O_RDWR])
    }

    @Test("a port that takes no more bytes never holds up reading; whole commands still arrive")
    func fullPortDoesNotBlockReading() async throws {
        let rig = try Rig(receiver: .ubx)
        defer { rig.shutdown() }
        let pty = try rig.plug()
        rig.source.start(rig.sink)
        #expect(await eventually { rig.log.count(.connected) == 1 })

        // Far more than the pty buffers, with nobody reading the master.
        let one = Self.expected(.powerSave, .ubx)
        for _ in 0..<3000 { rig.source.setPower(.powerSave) }
        await pty.write(SerialTest.cycles(0..<4))
        #expect(await eventually { rig.log.fixes.count == 3 })

        // Drained, the port carries only whole command sequences.
        var received: [UInt8] = []
        while true {
            let more = await pty.read(for: .milliseconds(300))
            if more.isEmpty { break }
            received += more
        }
        #expect(received.count % one.count == 0)
        #expect(received.count >= one.count)
        #expect(received.count < 3000 * one.count)  // requests that never started were dropped
        let chunks = stride(from: 0, to: received.count, by: one.count).map {
            Array(received[$0..<min($0 + one.count, received.count)])
        }
        #expect(chunks.allSatisfy { $0 == one })
    }
}
