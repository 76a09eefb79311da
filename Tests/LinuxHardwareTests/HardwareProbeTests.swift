import Foundation
import Glibc
@testable import LinuxHardware
import Synchronization
import TestSupport
import Testing

// MARK: - test fixtures (real sockets, real ptys, real files)

private func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// A pseudo-terminal pair standing in for a receiver: the probe opens the slave's path
/// (`/dev/pts/N`); a thread writes `chunk(i)` to the master every 100 ms until `stop()`
/// (or ten seconds).
private final class FakeReceiver: @unchecked Sendable {
    private let terminal: PseudoTerminal
    var path: String { terminal.path }

    private final class Flags: Sendable {
        let stopped = Atomic<Bool>(false)
        let finished = Atomic<Bool>(false)
    }
    private let flags = Flags()

    convenience init(chunk: @escaping @Sendable (Int) -> [UInt8]) throws {
        try self.init(chunkAtSpeed: { i, _ in chunk(i) })
    }

    /// `chunkAtSpeed(i, speed)` gets the speed the port is set to now (a pty keeps the
    /// setting, though it does not act on it): a receiver that only makes sense at one rate.
    init(chunkAtSpeed chunk: @escaping @Sendable (Int, speed_t) -> [UInt8]) throws {
        // Raw on the slave side from the start: no echo back into the master, no line editing.
        let terminal = try PseudoTerminal(raw: true)
        self.terminal = terminal
        let masterFD = terminal.master, slaveFD = terminal.slave
        let flags = self.flags
        // The thread holds the terminal: its descriptors stay open while it writes.
        let thread = Thread {
            defer { withExtendedLifetime(terminal) {} }
            let end = monotonicSeconds() + 10
            var i = 0
            while !flags.stopped.load(ordering: .relaxed), monotonicSeconds() < end {
                var settings = termios()
                tcgetattr(slaveFD, &settings)
                let bytes = chunk(i, cfgetispeed(&settings))
                _ = bytes.withUnsafeBytes { write(masterFD, $0.baseAddress, $0.count) }
                i += 1
                usleep(100_000)  // the stimulus: a chunk every 0.1 s, as a receiver writes
            }
            flags.finished.store(true, ordering: .relaxed)
        }
        thread.start()
    }

    func stop() {
        flags.stopped.store(true, ordering: .relaxed)
        _ = eventuallyBlocking(within: .seconds(2), every: .milliseconds(10)) { flags.finished.load(ordering: .relaxed) }
        terminal.close()
    }
}

/// One receiver cycle (RMC + GGA) at 07:00:00 + `i` seconds, with a 3D fix.
private func cycle(_ i: Int) -> [UInt8] {
    let t = 7 * 3600 + i
    let time = nmeaTime(secondOfDay: t)
    let rmc = nmeaLine("GPRMC,\(time),A,5204.2316,N,00418.0978,E,5.8,357.3,020526,,,A")
    let gga = nmeaLine("GPGGA,\(time),5204.2316,N,00418.0978,E,1,08,0.9,2.0,M,47.0,M,,")
    return Array((rmc + gga).utf8)
}

/// One cycle of a receiver that has no position yet.
private func noFixCycle(_ i: Int) -> [UInt8] {
    let t = 7 * 3600 + i
    let time = nmeaTime(secondOfDay: t)
    return Array((nmeaLine("GPRMC,\(time),V,,,,,,,020526,,,N") + nmeaLine("GPGGA,\(time),,,,,0,00,99.99,,,,,,")).utf8)
}

/// What NMEA at 9600 baud looks like through a port set to another rate: bytes, no `$`.
private func garbage(_ i: Int) -> [UInt8] {
    var state = UInt32(truncatingIfNeeded: i &* 2_654_435_761 &+ 12345)
    return (0..<120).map { _ in
        state = state &* 1_103_515_245 &+ 12345
        let b = UInt8(truncatingIfNeeded: state >> 16)
        return b == UInt8(ascii: "$") ? 0xFE : b
    }
}

/// A u-blox UBX packet (NAV-PVT sized payload of zeros) with its Fletcher checksum.
private func ubx(_ i: Int) -> [UInt8] {
    ubxPacket(class: 0x01, id: 0x07, payload: [UInt8](repeating: 0, count: 92))
}

// MARK: - gpsd

@Suite("Hardware probe: gpsd", .timeLimit(.minutes(1)))
struct HardwareProbeGPSDTests {
    static let banner = #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#

    @Test func reportsTheVersionFromTheBanner() throws {
        let server = try FakeGPSD(banner: Self.banner)
        let finding = HardwareProbe.gpsd(host: "127.0.0.1", port: server.port, listen: .zero)
        #expect(finding.status == .ok)
        #expect(finding.facts["gpsd_release"] == "3.22")
        #expect(finding.facts["gpsd_protocol"] == "3.14")
        #expect(finding.found.first == "gpsd 3.22 (protocol 3.14) at 127.0.0.1:\(server.port)")
        #expect(finding.problem == nil)
    }

    @Test func reportsTheReceiverAndItsFix() throws {
        let server = try FakeGPSD(banner: Self.banner, onWatch: [
            // What gpsd 3.22 sends: the device before its driver is known, then again with it.
            #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/gps0","activated":"2026-05-02T07:00:00.000Z","native":0,"bps":9600,"parity":"N","stopbits":1,"cycle":1.00}]}"#,
            #"{"class":"WATCH","enable":true,"json":true,"nmea":false,"raw":0,"scaled":false,"timing":false,"split24":false,"pps":false}"#,
            #"{"class":"DEVICE","path":"/dev/gps0","driver":"u-blox","activated":"2026-05-02T07:00:00.000Z","flags":1,"native":0,"bps":9600,"parity":"N","stopbits":1,"cycle":1.00}"#,
            #"{"class":"TPV","device":"/dev/gps0","mode":1}"#,
            #"{"class":"TPV","device":"/dev/gps0","mode":3,"time":"2026-05-02T07:00:01.000Z","lat":52.070527,"lon":4.301629,"altMSL":2.0,"speed":3.0}"#,
        ])
        let start = monotonicSeconds()
        let finding = HardwareProbe.gpsd(host: "127.0.0.1", port: server.port, listen: .seconds(5))
        #expect(monotonicSeconds() - start < 4, "stops listening at the first fix")
        #expect(finding.status == .ok)
        #expect(finding.facts["gpsd_devices"] == "/dev/gps0")
        #expect(finding.facts["fix"] == "3D")
        #expect(finding.found.contains("receiver: /dev/gps0 (u-blox, 9600 baud)"), "one entry per device, updated")
        #expect(finding.found.contains("position 3D fix at 52.07053, 4.30163"))
    }

    @Test func gpsdWithoutAReceiverIsMissing() throws {
        let server = try FakeGPSD(banner: Self.banner, onWatch: [
            #"{"class":"DEVICES","devices":[]}"#,
            #"{"class":"WATCH","enable":true,"json":true}"#,
        ])
        let finding = HardwareProbe.gpsd(host: "127.0.0.1", port: server.port, listen: .milliseconds(600))
        #expect(finding.status == .missing)
        #expect(finding.problem == "gpsd runs but has no GPS receiver")
        #expect(finding.found.contains("gpsd has no GPS receiver"))
        #expect(finding.fix.contains { $0.contains("USBAUTO=\"true\" in /etc/default/gpsd") })
        #expect(finding.fix.contains { $0.contains("gpsdctl add /dev/gps0") })
    }

    @Test func receiverWithoutPositionIsOK() throws {
        let server = try FakeGPSD(banner: Self.banner, onWatch: [
            #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyACM0","driver":"NMEA0183"}]}"#,
            #"{"class":"TPV","device":"/dev/ttyACM0","mode":1}"#,
        ])
        let finding = HardwareProbe.gpsd(host: "127.0.0.1", port: server.port, listen: .milliseconds(600))
        #expect(finding.status == .ok)
        #expect(finding.found.contains { $0.contains("no position yet") })
        #expect(finding.facts["fix"] == nil)
    }

    @Test func nothingListeningSaysHowToStartGPSD() throws {
        let port = try freeLoopbackPort()
        let start = monotonicSeconds()
        let finding = HardwareProbe.gpsd(host: "127.0.0.1", port: port, listen: .seconds(1))
        #expect(monotonicSeconds() - start < 3)
        #expect(finding.status == .missing)
        #expect(finding.problem == "gpsd not reachable at 127.0.0.1:\(port)")
        #expect(finding.found == ["cannot connect to 127.0.0.1:\(port): nothing accepts a connection there"])
        #expect(finding.fix.contains { $0.contains("sudo systemctl start gpsd") })
        #expect(finding.fix.contains { $0.contains("GPSD_OPTIONS") })
        #expect(finding.facts["gps_open"] == "-6", "libgps's NL_NOCONNECT")
    }

    @Test func aSilentListenerIsNotGPSD() throws {
        let server = try FakeGPSD(banner: nil)
        let start = monotonicSeconds()
        let finding = HardwareProbe.gpsd(
            host: "127.0.0.1", port: server.port, connectTimeout: .seconds(1), listen: .seconds(1))
        #expect(monotonicSeconds() - start < 3)
        #expect(finding.status == .missing)
        #expect(finding.problem == "no gpsd greeting from 127.0.0.1:\(server.port): is it gpsd?")
    }

    @Test func anotherServiceIsNotGPSD() throws {
        let server = try FakeGPSD(banner: "SSH-2.0-OpenSSH_9.2p1")
        let finding = HardwareProbe.gpsd(host: "127.0.0.1", port: server.port, listen: .zero)
        #expect(finding.status == .missing)
        #expect(finding.problem?.contains("is not gpsd") == true)
        #expect(finding.found == ["127.0.0.1:\(server.port) answered: SSH-2.0-OpenSSH_9.2p1"])
    }

    /// Name resolution can be slow without a network; either way the probe ends in time.
    @Test func anUnknownHostIsReported() {
        let start = monotonicSeconds()
        let finding = HardwareProbe.gpsd(
            host: "no-such-host.invalid", port: 2947, connectTimeout: .seconds(1), listen: .zero)
        #expect(monotonicSeconds() - start < 6)
        #expect(finding.status == .missing)
        #expect(finding.problem == "gpsd host 'no-such-host.invalid' is unknown"
            || finding.problem == "gpsd at no-such-host.invalid:2947 did not answer in time")
    }
}

// MARK: - serial

@Suite("Hardware probe: serial GPS", .timeLimit(.minutes(1)))
struct HardwareProbeSerialTests {
    @Test func nmeaWithAFixOnAPseudoTerminal() throws {
        let receiver = try FakeReceiver(chunk: cycle)
        defer { receiver.stop() }
        let start = monotonicSeconds()
        let finding = HardwareProbe.serialGPS(path: receiver.path, baud: 9600, listen: .seconds(5))
        #expect(monotonicSeconds() - start < 4, "stops at the first fix")
        #expect(finding.status == .ok, "\(finding)")
        #expect(Int(finding.facts["sentences"] ?? "") ?? 0 >= 2)
        #expect(Int(finding.facts["fixes"] ?? "") ?? 0 >= 1)
        #expect(finding.facts["baud"] == "9600")
        #expect(finding.found.contains { $0.hasPrefix("position 3D fix at 52.07053, 4.30163, 8 satellites") })
        #expect(finding.problem == nil)
    }

    @Test func nmeaWithoutAFixIsStillAWorkingReceiver() throws {
        let receiver = try FakeReceiver(chunk: noFixCycle)
        defer { receiver.stop() }
        let finding = HardwareProbe.serialGPS(path: receiver.path, baud: 4800, listen: .milliseconds(700))
        #expect(finding.status == .ok, "\(finding)")
        #expect(finding.facts["fixes"] == "0")
        #expect(finding.found.contains { $0.contains("no position yet") })
    }

    @Test func garbageSuggestsTheBaudRate() throws {
        let receiver = try FakeReceiver(chunk: garbage)
        defer { receiver.stop() }
        let finding = HardwareProbe.serialGPS(
            path: receiver.path, baud: 9600, listen: .milliseconds(600), tryOtherBauds: false)
        #expect(finding.status == .missing)
        #expect(finding.problem == "bytes arrive but no NMEA: the baud rate is probably wrong (tried 9600)")
        #expect(finding.facts["sentences"] == "0")
        #expect(Int(finding.facts["bytes"] ?? "") ?? 0 > 0)
        #expect(finding.fix.contains { $0.contains("?baud=4800") })
    }

    @Test func garbageAtEveryRateIsSaidSo() throws {
        let receiver = try FakeReceiver(chunk: garbage)
        defer { receiver.stop() }
        let start = monotonicSeconds()
        let finding = HardwareProbe.serialGPS(path: receiver.path, baud: 9600, listen: .milliseconds(300))
        #expect(monotonicSeconds() - start < 5)
        #expect(finding.status == .missing)
        #expect(finding.problem?.contains("the baud rate is probably wrong") == true)
        #expect(finding.found.contains { $0.hasPrefix("no NMEA at 4800, 38400, 115200, 19200, 57600 baud either") })
        #expect(finding.facts["suggested_baud"] == nil)
    }

    /// A receiver at 115200 heard at 9600: the probe tries 4800, 38400, then 115200, and
    /// says so. (Not 38400: that is a pty's initial speed, what the writer may see before
    /// the probe has set the port up.)
    @Test func garbageFindsTheRightRate() throws {
        let receiver = try FakeReceiver(chunkAtSpeed: { i, speed in
            speed == speed_t(B115200) ? cycle(i) : garbage(i)
        })
        defer { receiver.stop() }
        let finding = HardwareProbe.serialGPS(path: receiver.path, baud: 9600, listen: .milliseconds(600))
        #expect(finding.status == .missing)
        #expect(finding.facts["suggested_baud"] == "115200")
        #expect(finding.problem == "the baud rate is wrong: NMEA arrives at 115200 baud, not 9600")
        #expect(finding.fix.first?.contains("serial://\(receiver.path)?baud=115200") == true)
    }

    @Test func binaryOnlyReceiver() throws {
        let receiver = try FakeReceiver(chunk: ubx)
        defer { receiver.stop() }
        let finding = HardwareProbe.serialGPS(
            path: receiver.path, baud: 9600, listen: .milliseconds(600), tryOtherBauds: false)
        #expect(finding.status == .missing)
        #expect(finding.problem == "the receiver talks a binary protocol only, no NMEA")
    }

    @Test func silence() throws {
        let receiver = try FakeReceiver(chunk: { _ in [] })
        defer { receiver.stop() }
        let finding = HardwareProbe.serialGPS(path: receiver.path, baud: 9600, listen: .milliseconds(400))
        #expect(finding.status == .missing)
        #expect(finding.problem?.hasPrefix("no data from \(receiver.path)") == true)
        #expect(finding.fix.contains { $0.contains("enable_uart=1") })
    }

    @Test func aMissingDeviceListsTheCandidates() throws {
        let dev = TemporaryDirectory()
        _ = try dev.file("ttyUSB0")
        let finding = HardwareProbe.serialGPS(
            path: dev.path + "/ttyACM7", baud: 9600, listen: .milliseconds(200), devRoot: dev.path)
        #expect(finding.status == .missing)
        #expect(finding.problem == "no serial device \(dev.path)/ttyACM7")
        #expect(finding.found.contains("serial devices present: \(dev.path)/ttyUSB0"))
    }

    @Test func aFileIsNotASerialDevice() throws {
        let dir = TemporaryDirectory()
        let file = try dir.file("run.nmea", "$GPGGA\r\n")
        let finding = HardwareProbe.serialGPS(path: file, baud: 9600, listen: .milliseconds(200), devRoot: dir.path)
        #expect(finding.status == .missing)
        #expect(finding.problem == "\(file) is not a serial device")
        #expect(finding.fix.contains { $0.contains("file://\(file)") })
    }

    @Test func anUnsupportedBaudRate() {
        let finding = HardwareProbe.serialGPS(path: "/dev/null", baud: 1234, listen: .milliseconds(100))
        #expect(finding.status == .missing)
        #expect(finding.problem?.contains("1234") == true)
    }

    /// Tests run as root here, so a real EACCES cannot be provoked; the mapping is checked directly.
    @Test func permissionDeniedSaysDialout() {
        let finding = HardwareProbe.serialOpenFailure(path: "/dev/ttyACM0", errno: EACCES)
        #expect(finding.status == .missing)
        #expect(finding.problem == "permission denied: this user may not open /dev/ttyACM0")
        #expect(finding.fix.first == "add the user to the dialout group: sudo usermod -aG dialout $USER")
        let busy = HardwareProbe.serialOpenFailure(path: "/dev/ttyACM0", errno: EBUSY)
        #expect(busy.problem?.contains("in use by another program") == true)
    }

    @Test func candidatesUnderADeviceFolder() throws {
        let dev = TemporaryDirectory()
        _ = try dev.file("ttyACM0")
        _ = try dev.file("ttyUSB1")
        _ = try dev.file("ttyUSB0")
        _ = try dev.file("ttyAMA0")
        _ = try dev.file("ttyS0")
        _ = try dev.file("tty1")
        try dev.link("serial/by-id/usb-u-blox_AG_-_www.u-blox.com_u-blox_7_-_GPS_GNSS_Receiver-if00", to: "../../ttyACM0")
        try dev.link("serial0", to: "ttyAMA0")
        let list = HardwareProbe.serialCandidates(devRoot: dev.path, explicit: "/nonexistent/gps9")
        let d = dev.path
        #expect(list.map(\.path) == [
            "\(d)/serial/by-id/usb-u-blox_AG_-_www.u-blox.com_u-blox_7_-_GPS_GNSS_Receiver-if00",
            "\(d)/ttyUSB0", "\(d)/ttyUSB1", "\(d)/serial0", "/nonexistent/gps9",
        ])
        #expect(list[0].target == "\(d)/ttyACM0")
        #expect(list[3].target == "\(d)/ttyAMA0")
        #expect(list[4].exists == false)
        #expect(list[4].description == "/nonexistent/gps9 (does not exist)")
        #expect(HardwareProbe.serialCandidates(devRoot: dev.path + "/none").isEmpty)
    }
}

// MARK: - sound, battery, clock, bounded runs

@Suite("Hardware probe: sound, battery, clock", .timeLimit(.minutes(1)))
struct HardwareProbeOtherTests {
    @Test func anALSADeviceThatDoesNotExist() {
        let finding = HardwareProbe.alsa(device: "pacer_no_such_pcm_\(UInt32.random(in: 0...UInt32.max))")
        #expect(finding.status == .missing)
        let code = Int32(finding.facts["alsa_error"] ?? "") ?? 0
        #expect(code < 0)
        let text = HardwareProbe.alsaErrorDescription(code)
        #expect(!text.isEmpty)
        #expect(finding.facts["alsa_strerror"] == text)
        #expect(finding.problem?.hasSuffix(": \(text)") == true)
        #expect(finding.found.contains { $0.hasPrefix("ALSA says: Unknown PCM pacer_no_such_pcm_") })
        #expect(finding.fix.contains { $0.contains("Hardware/alsa/asound.conf") })
        #expect(finding.fix.contains { $0.contains("speaker-test") })
    }

    @Test func soundCardsAreListed() throws {
        let dir = TemporaryDirectory()
        let cards = try dir.file("cards", """
             0 [Headphones     ]: bcm2835_headpho - bcm2835 Headphones
                                  bcm2835 Headphones
             1 [Device         ]: USB-Audio - USB Audio Device
                                  C-Media Electronics Inc. USB Audio Device at usb-3f980000.usb-1.3, full speed

            """)
        #expect(HardwareProbe.soundCards(cardsFile: cards) == [
            "0 [Headphones]: bcm2835 Headphones", "1 [Device]: USB Audio Device",
        ])
        let none = try dir.file("none", "--- no soundcards ---\n")
        #expect(HardwareProbe.soundCards(cardsFile: none) == [])
        #expect(HardwareProbe.soundCards(cardsFile: dir.path + "/missing") == nil)
        let finding = HardwareProbe.alsa(device: "pacer_no_such_pcm", cardsFile: cards)
        #expect(finding.found.contains("sound cards: 0 [Headphones]: bcm2835 Headphones; 1 [Device]: USB Audio Device"))
        #expect(finding.fix.contains { $0.contains("plughw:CARD=<name>") })
    }

    @Test func noBatteryGaugeIsAWarning() throws {
        let dir = TemporaryDirectory()
        _ = try dir.file("AC/type", "Mains\n")
        let finding = HardwareProbe.battery(root: dir.path)
        #expect(finding.status == .warning)
        #expect(finding.problem == "no battery gauge: the simulated battery's estimate will be used")
        #expect(finding.facts["gauges"] == "0")
    }

    @Test func aBatteryGaugeIsFound() throws {
        let dir = TemporaryDirectory()
        _ = try dir.file("BAT0/type", "Battery\n")
        _ = try dir.file("BAT0/capacity", "87\n")
        _ = try dir.file("BAT0/status", "Not charging\n")
        let finding = HardwareProbe.battery(root: dir.path)
        #expect(finding.status == .ok)
        #expect(finding.found == ["BAT0: 87 %, not charging (sysfs:\(dir.path)/BAT0)"])
        #expect(finding.facts["percent"] == "87")
    }

    @Test func anUnreadableGaugeIsAWarning() throws {
        let dir = TemporaryDirectory()
        _ = try dir.file("BAT0/type", "Battery\n")
        _ = try dir.file("BAT0/capacity", "lots\n")
        let finding = HardwareProbe.battery(root: dir.path)
        #expect(finding.status == .warning)
        #expect(finding.found == ["BAT0: present but unreadable (sysfs:\(dir.path)/BAT0)"])
    }

    @Test func theClockRuns() {
        let finding = HardwareProbe.clock()
        #expect(finding.status == .ok)
        #expect(finding.facts["system_time"]?.hasSuffix("Z") == true)
    }

    @Test func aProbeThatHangsIsAbandonedInTime() {
        let start = monotonicSeconds()
        let result: Int? = HardwareProbe.runBounded(.milliseconds(200)) {
            usleep(3_000_000)  // the stimulus: a probe that hangs past its bound
            return 1
        }
        #expect(result == nil)
        #expect(monotonicSeconds() - start < 1.5)
        #expect(HardwareProbe.runBounded(.seconds(5)) { 42 } == 42)
    }
}
