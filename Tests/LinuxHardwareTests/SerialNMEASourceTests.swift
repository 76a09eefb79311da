#if canImport(Glibc)
import Glibc
#endif
import HAL
import LinuxHardware
import NMEA
import PacerCore
import TestSupport
import Testing

/// The serial source against real pseudo-terminals: the test writes NMEA into the master, the
/// source reads the slave through a symlink (`<tmp>/ttyGPS`), as it would a USB GPS's stable
/// udev name. Unplugging closes the master and removes the link; replugging makes a new pty
/// and points the link at it. The board's clock runs its loop on a thread; every wait is
/// bounded.
@Suite("Serial NMEA source")
struct SerialNMEASourceTests {
    /// A source on `<dir>/ttyGPS` with a running clock loop and an event log.
    struct Rig {
        let directory = TemporaryDirectory()
        let loop = SerialClockLoop()
        let log = SerialEventLog()
        let source: SerialNMEASource
        let sink: GPSEventSink

        var devicePath: String { "\(directory.path)/ttyGPS" }

        init(
            baud: Int = 9600, silenceTimeout: Duration = .seconds(5), receiver: ReceiverCommandSet = .none,
            powerSavePeriod: Duration = .seconds(10), backupWakeAfter: Duration? = nil
        ) throws {
            source = try SerialNMEASource(
                path: "\(directory.path)/ttyGPS", baud: baud, clock: loop.clock, logger: nil,
                silenceTimeout: silenceTimeout, receiver: receiver, powerSavePeriod: powerSavePeriod,
                backupWakeAfter: backupWakeAfter)
            let log = self.log
            sink = GPSEventSink(clock: loop.clock) { log.record($0) }
        }

        /// A new pty, linked at the device path.
        func plug() throws -> PseudoTerminal {
            let pty = try PseudoTerminal(raw: false)
            try directory.link("ttyGPS", to: pty.path)
            return pty
        }

        func unplug(_ pty: PseudoTerminal) {
            pty.closeMaster()
            directory.remove("ttyGPS")
            pty.closeSlave()
        }

        func shutdown() {
            source.stop()
            loop.shutdown()
        }
    }

    @Test("name is serial://<path>?baud=<baud>")
    func name() throws {
        let rig = try Rig(baud: 115200)
        defer { rig.shutdown() }
        #expect(rig.source.name == "serial://\(rig.devicePath)?baud=115200")
    }

    @Test("an unsupported baud rate is refused at init, naming the rate and the supported ones")
    func unsupportedBaud() {
        let clock = MonotonicClock()
        let error = #expect(throws: SerialPortError.self) {
            _ = try SerialNMEASource(path: "/dev/ttyGPS", baud: 9601, clock: clock, logger: nil)
        }
        let text = error.map { "\($0)" } ?? ""
        #expect(text.contains("/dev/ttyGPS"))
        #expect(text.contains("unsupported baud rate 9601"))
        #expect(text.contains("4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800"))
        for baud in SerialPort.supportedBaudRates {
            #expect(SerialPort.speed(forBaud: baud) != nil)
        }
    }

    @Test("opens the tty in raw 8N1 mode at the configured speed", arguments: [
        (4800, speed_t(B4800)), (9600, speed_t(B9600)), (115200, speed_t(B115200)), (460800, speed_t(B460800)),
    ])
    func termiosApplied(baud: Int, speed: speed_t) async throws {
        let rig = try Rig(baud: baud)
        defer { rig.shutdown() }
        let pty = try rig.plug()
        // A fresh pty is a cooked terminal: the source must change it.
        let before = try #require(pty.attributes())
        #expect(before.c_lflag & tcflag_t(ICANON) != 0)

        rig.source.start(rig.sink)
        #expect(await eventually { rig.log.count(.connected) == 1 })
        #expect(rig.source.isOpen)
        #expect(rig.log.details(of: .connected) == [rig.source.name])

        var t = try #require(pty.attributes())
        #expect(cfgetispeed(&t) == speed)
        #expect(cfgetospeed(&t) == speed)
        #expect(t.c_lflag & tcflag_t(ICANON | ECHO | ECHONL | ISIG | IEXTEN) == 0)
        #expect(t.c_iflag & tcflag_t(ICRNL | INLCR | IGNCR | ISTRIP | IXON | IXOFF | IXANY) == 0)
        #expect(t.c_oflag & tcflag_t(OPOST) == 0)
        #expect(t.c_cflag & tcflag_t(CSIZE) == tcflag_t(CS8))
        #expect(t.c_cflag & tcflag_t(PARENB | CSTOPB) == 0)
        #expect(t.c_cflag & tcflag_t(CRTSCTS) == 0)
        #expect(t.c_cflag & tcflag_t(CLOCAL | CREAD) == tcflag_t(CLOCAL | CREAD))
        let (vmin, vtime) = withUnsafeBytes(of: t.c_cc) { ($0[Int(VMIN)], $0[Int(VTIME)]) }
        #expect(vmin == 1)
        #expect(vtime == 0)
    }

    @Test("every fix arrives exactly once, through odd-sized chunks, an unplug and a replug")
    func unplugAndReplug() async throws {
        // Silence is not this test's subject: under a loaded machine the waits between the
        // writes can pass the usual 5 s and add a fix-lost the test does not mean.
        let rig = try Rig(silenceTimeout: .seconds(60))
        defer { rig.shutdown() }

        // Session 1: twenty cycles, then the first half of a GGA the unplug cuts off.
        let cut = SerialTest.cycle(500)
        let cutAt = cut.utf8.count / 3
        let session1 = SerialTest.cycles(0..<20) + Array(cut.utf8.prefix(cutAt))
        // Session 2 begins with the rest of that cycle. Glued onto the old half, the GGA
        // would be whole again and give the first fix an altitude; on a fresh stream the
        // remainder is noise and the cycle has only its RMC.
        let session2 = Array(cut.utf8.dropFirst(cutAt)) + SerialTest.cycles(501..<530)
        let expected1 = SerialTest.decode(session1)
        let expected2 = SerialTest.decode(session2)
        #expect(expected1.fixes.count == 20)
        #expect(expected2.fixes.count == 30)
        #expect(expected2.fixes.first?.altitude == nil)
        #expect(SerialTest.decode(session1 + session2).fixes.count == 50)  // what gluing gives

        let pty1 = try rig.plug()
        rig.source.start(rig.sink)
        #expect(await eventually { rig.log.count(.connected) == 1 })
        await pty1.write(session1)
        // The source has read every byte before the unplug (a hang-up discards unread input).
        #expect(await eventually { rig.source.statistics.bytes == session1.count })
        #expect(await eventually { rig.log.fixes.count == 19 })

        rig.unplug(pty1)
        #expect(await eventually { rig.log.count(.disconnected) == 1 })
        // The stream ended: its last cycle is complete and delivered.
        #expect(rig.log.fixes == expected1.fixes)
        #expect(rig.log.details(of: .disconnected).first?.hasPrefix("\(rig.devicePath): device gone") == true)
        #expect(!rig.source.isOpen)

        let pty2 = try rig.plug()
        #expect(await eventually { rig.log.count(.connected) == 2 })
        #expect(rig.source.connections == 2)
        await pty2.write(session2)
        #expect(await eventually {
            rig.source.statistics.bytes == session1.count + session2.count
        })
        rig.unplug(pty2)
        #expect(await eventually { rig.log.count(.disconnected) == 2 })

        #expect(rig.log.fixes == expected1.fixes + expected2.fixes)
        #expect(rig.log.statuses == [.connected, .fix, .disconnected, .connected, .fix, .disconnected])
        #expect(rig.source.statistics == SerialTest.sum(expected1.statistics, expected2.statistics))
        #expect(rig.source.statistics.fixes == 50)
    }

    @Test("a missing device is retried with backoff until it appears")
    func missingDevice() async throws {
        let rig = try Rig()
        defer { rig.shutdown() }
        let started = ContinuousClock.now
        rig.source.start(rig.sink)

        // Attempts at 0, 0.25 and 0.75 s.
        #expect(await eventually { rig.source.openAttempts >= 3 })
        let attempts = rig.source.openAttempts
        let elapsed = (ContinuousClock.now - started) / .seconds(1)
        let reason = try #require(rig.source.lastError)
        #expect(reason.contains(rig.devicePath))
        #expect(reason.contains("No such file or directory"))
        #expect(rig.sink.status == .disconnected)
        #expect(!rig.log.statuses.contains(.connected))
        // Backoff, not a busy loop: the attempts come 0.25, 0.5, 1, 2, 4, 4… s apart, so by
        // now (however late a loaded machine let this test look) there were at most as many
        // as that schedule allows.
        var schedule: [Double] = [0, 0.25, 0.75, 1.75, 3.75]
        while schedule.last! < elapsed + 4 { schedule.append(schedule.last! + 4) }
        #expect(attempts <= schedule.filter { $0 <= elapsed + 0.2 }.count)

        let pty = try rig.plug()
        // The next attempt may be up to the 4 s maximum backoff away.
        #expect(await eventually(within: .seconds(20)) { rig.log.count(.connected) == 1 })
        #expect(await eventually { rig.source.lastError == nil })
        let bytes = SerialTest.cycles(0..<3)
        await pty.write(bytes)
        #expect(await eventually { rig.log.fixes.count == 2 })
        #expect(rig.log.fixes == Array(SerialTest.decode(bytes).fixes.prefix(2)))
    }

    @Test("stop is prompt, closes the tty, and nothing is reported after it")
    func stopWhileOpen() async throws {
        let rig = try Rig()
        defer { rig.loop.shutdown() }
        let pty = try rig.plug()
        #expect(pty.descriptorsOnSlave() == 1)
        rig.source.start(rig.sink)
        #expect(await eventually { rig.log.count(.connected) == 1 })
        #expect(pty.descriptorsOnSlave() == 2)
        await pty.write(SerialTest.cycles(0..<3))
        #expect(await eventually { rig.log.fixes.count == 2 })

        let (_, took) = elapsed { rig.source.stop() }
        #expect(took < .seconds(2))
        #expect(pty.descriptorsOnSlave() == 1)
        #expect(!rig.source.isOpen)

        let heard = rig.log.all.count
        await pty.write(SerialTest.cycles(3..<6))
        #expect(await holdsThroughout(.milliseconds(300)) { rig.log.all.count == heard })
        rig.source.stop()  // a second stop is harmless
    }

    @Test("stop while waiting for the next cycle returns at once, not after a poll timeout")
    func stopBetweenCyclesIsPrompt() async throws {
        // The reader waits for the port and its wake-up pipe with no timeout: nothing wakes
        // it to look at a stop flag, and stop() does not wait for such a wake-up.
        let rig = try Rig()
        defer { rig.loop.shutdown() }
        let pty = try rig.plug()
        rig.source.start(rig.sink)
        #expect(await eventually { rig.log.count(.connected) == 1 })
        await pty.write(SerialTest.cycles(0..<3))
        #expect(await eventually { rig.log.fixes.count == 2 })
        // The stimulus: 50 ms, well inside any timeout a reader might poll with, puts the
        // reader in its wait for data (nothing reports that it waits).
        try await Task.sleep(for: .milliseconds(50))

        // Monotonic (ContinuousClock): the wall clock plays no part.
        let (_, took) = elapsed { rig.source.stop() }
        #expect(took < .milliseconds(200), "stop() took \(took)")
        #expect(!rig.source.isOpen)
    }

    @Test("stop is prompt while waiting to retry a missing device")
    func stopWhileRetrying() async throws {
        let rig = try Rig()
        defer { rig.loop.shutdown() }
        rig.source.start(rig.sink)
        // Attempts at 0, 0.25, 0.75 and 1.75 s; the next is 2 s away.
        #expect(await eventually { rig.source.openAttempts >= 4 })
        let (_, took) = elapsed { rig.source.stop() }
        #expect(took < .milliseconds(1500), "stop() slept out the 2 s retry wait")
        let attempts = rig.source.openAttempts
        #expect(await holdsThroughout(.milliseconds(600)) { rig.source.openAttempts == attempts })
    }

    @Test("a device that falls silent loses its fix, and regains it when it talks again")
    func silence() async throws {
        let rig = try Rig(silenceTimeout: .milliseconds(300))
        defer { rig.shutdown() }
        let pty = try rig.plug()
        rig.source.start(rig.sink)
        #expect(await eventually { rig.log.count(.connected) == 1 })
        await pty.write(SerialTest.cycles(0..<2))
        #expect(await eventually { rig.log.count(.fixLost) == 1 })
        #expect(rig.log.details(of: .fixLost).first?.contains("no data from \(rig.devicePath)") == true)
        #expect(rig.source.isOpen)  // silence is not a disconnection

        await pty.write(SerialTest.cycles(2..<4))
        #expect(await eventually { rig.log.fixes.count == 3 })
        // After the last write the device is silent again: on a loaded machine that second
        // loss may be heard before this test looks.
        #expect(Array(rig.log.statuses.prefix(4)) == [.connected, .fix, .fixLost, .fix])
        #expect(rig.log.statuses.dropFirst(4).allSatisfy { $0 == .fixLost || $0 == .fix })
    }
}
