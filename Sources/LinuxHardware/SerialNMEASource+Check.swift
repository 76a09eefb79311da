#if canImport(Glibc)
import Glibc
#endif
import NMEA
import PacerCore

extension HardwareProbe {
    // MARK: serial GPS

    /// A serial device a GPS could be on.
    public struct SerialCandidate: Hashable, Sendable, CustomStringConvertible {
        /// The path as found (`/dev/serial/by-id/usb-u-blox_AG…`, `/dev/ttyACM0`).
        public var path: String
        /// Where a symbolic link leads (`/dev/ttyACM0`); nil for a device node.
        public var target: String?
        /// False for a device that was named explicitly but does not exist.
        public var exists: Bool

        public var description: String {
            var s = path
            if let target, target != path { s += " -> \(target)" }
            if !exists { s += " (does not exist)" }
            return s
        }
    }

    /// Where GPS receivers appear, relative to `/dev`: USB receivers by their USB identity,
    /// CDC-ACM (u-blox, MediaTek on USB), USB-serial bridges (PL2303, CP210x, FTDI, CH340),
    /// and the Raspberry Pi's UART on GPIO 14/15.
    public static let serialPatterns = ["serial/by-id/*", "ttyACM*", "ttyUSB*", "serial0", "ttyAMA0"]

    /// The serial devices present under `devRoot`, in the order of `serialPatterns`, then
    /// `explicit` (listed even when it does not exist). A device reached through a
    /// `/dev/serial/by-id` link is listed once, under the link's more telling name.
    public static func serialCandidates(devRoot: String = "/dev", explicit: String? = nil) -> [SerialCandidate] {
        var out: [SerialCandidate] = []
        var seen = Set<String>()
        for pattern in serialPatterns {
            for path in glob(SysfsBattery.join(devRoot, pattern)) {
                let target = resolve(path)
                let key = target ?? path
                guard !seen.contains(key), !seen.contains(path) else { continue }
                seen.insert(key)
                seen.insert(path)
                out.append(SerialCandidate(path: path, target: target == path ? nil : target, exists: true))
            }
        }
        if let explicit, !explicit.isEmpty {
            let target = resolve(explicit)
            let known = seen.contains(explicit) || target.map(seen.contains) == true
            if !known {
                out.append(SerialCandidate(
                    path: explicit, target: target == explicit ? nil : target,
                    exists: access(explicit, F_OK) == 0))
            }
        }
        return out
    }

    /// Opens `path` (raw 8N1 at `baud`), listens up to `listen` and reports what arrived,
    /// judged by the NMEA engine: sentences, refused lines, fixes. It stops early at the
    /// first fix. When bytes arrive but no NMEA does (the signature of a wrong baud rate)
    /// and `tryOtherBauds` is set, it listens briefly at the other common rates and says
    /// which one works. The port's settings are restored before it is closed.
    public static func serialGPS(
        path: String, baud: Int, listen: Duration = .seconds(5), tryOtherBauds: Bool = true,
        devRoot: String = "/dev"
    ) -> ProbeFinding {
        let probe = SerialProbe(path: path, baud: baud, listen: listen, tryOtherBauds: tryOtherBauds, devRoot: devRoot)
        let limit = listen + probe.scanBudget + .seconds(3)
        return runBounded(limit) { probe.run() }
            ?? ProbeFinding(
                status: .missing, found: ["\(path) did not answer within \(seconds(limit))"],
                problem: "the serial device \(path) hangs",
                fix: ["unplug and replug the receiver; check `dmesg | tail` for USB errors"])
    }

    /// The finding for a serial device that cannot be opened, by `errno`.
    public static func serialOpenFailure(path: String, errno code: Int32, devRoot: String = "/dev") -> ProbeFinding {
        SerialProbe.openFailure(path: path, code: code, devRoot: devRoot)
    }
}

// MARK: - serial

struct SerialProbe: Sendable {
    let path: String
    let baud: Int
    let listen: Duration
    let tryOtherBauds: Bool
    let devRoot: String

    static let commonBauds = [9600, 4800, 38400, 115200, 19200, 57600]

    /// How long each other rate is listened to when the configured one gives garbage.
    var scanSlice: Duration { min(listen, .milliseconds(1500)) }
    var scanBudget: Duration { tryOtherBauds ? scanSlice * (SerialProbe.commonBauds.count) : .zero }

    static func candidatesLine(devRoot: String, explicit: String?) -> String {
        let list = HardwareProbe.serialCandidates(devRoot: devRoot, explicit: nil)
        if list.isEmpty {
            let looked = HardwareProbe.serialPatterns.map { SysfsBattery.join(devRoot, $0) }.joined(separator: ", ")
            return "no serial devices present (looked for \(looked))"
        }
        return "serial devices present: \(list.map(\.description).joined(separator: ", "))"
    }

    static func openFailure(path: String, code: Int32, devRoot: String) -> ProbeFinding {
        let text = HardwareProbe.errnoText(code)
        var facts = ["errno": String(code)]
        switch code {
        case EACCES, EPERM:
            var found = ["cannot open \(path): \(text)"]
            var st = stat()
            if stat(path, &st) == 0 {
                let group = getgrgid(st.st_gid).map { String(cString: $0.pointee.gr_name) } ?? String(st.st_gid)
                found.append("\(path) belongs to group \(group), mode \(String(st.st_mode & 0o777, radix: 8))")
                facts["group"] = group
            }
            return ProbeFinding(
                status: .missing, found: found,
                problem: "permission denied: this user may not open \(path)",
                fix: [
                    "add the user to the dialout group: sudo usermod -aG dialout $USER",
                    "then log out and back in (or run: newgrp dialout) for the group to take effect",
                    "the udev rule 99-pacer-gps.rules (in /lib/udev/rules.d with the package) gives the receiver to group dialout, mode 0660",
                ],
                facts: facts)
        case ENOENT, ENOTDIR:
            return ProbeFinding(
                status: .missing,
                found: ["\(path) does not exist", candidatesLine(devRoot: devRoot, explicit: path)],
                problem: "no serial device \(path)",
                fix: [
                    "plug the receiver in; `dmesg | tail` shows the name it got (cdc_acm: ttyACM0; pl2303, cp210x, ftdi_sio, ch341: ttyUSB0)",
                    "give it a fixed name with the udev rule 99-pacer-gps.rules (/dev/gps0; the package installs it), or use its /dev/serial/by-id/ link",
                    "a receiver on the Pi's UART (GPIO 14/15) is /dev/serial0: enable_uart=1 in /boot/firmware/config.txt and the serial console off (Hardware/README.md)",
                ],
                facts: facts)
        case EBUSY:
            return ProbeFinding(
                status: .missing, found: ["cannot open \(path): \(text)"],
                problem: "\(path) is in use by another program (gpsd opens its devices exclusively)",
                fix: [
                    "see who has it: sudo fuser -v \(path)",
                    "if gpsd has it, use the GPS through gpsd (--gps gpsd://localhost:2947), or stop gpsd: sudo systemctl stop gpsd.socket gpsd",
                ],
                facts: facts)
        case ENXIO, ENODEV:
            return ProbeFinding(
                status: .missing, found: ["cannot open \(path): \(text)"],
                problem: "\(path) has no device behind it",
                fix: [
                    "a USB receiver that was unplugged leaves this; replug it",
                    "for /dev/serial0 or /dev/ttyAMA0: enable_uart=1 in /boot/firmware/config.txt, then reboot",
                ],
                facts: facts)
        default:
            return ProbeFinding(
                status: .missing, found: ["cannot open \(path): \(text)"],
                problem: "\(path) cannot be opened",
                fix: ["check `ls -l \(path)` and `dmesg | tail`"],
                facts: facts)
        }
    }

    /// What one listening period brought.
    struct Listening {
        var statistics = NMEAStatistics()
        var bytes = 0
        var lastFix: Fix?
        var readError: Int32?
        var elapsed: Duration = .zero

        /// Lines the engine recognised as NMEA (used, or well-formed but of a type it skips).
        var nmeaLines: Int { statistics.sentences + statistics.skipped }
    }

    func run() -> ProbeFinding {
        guard let speed = SerialPort.speed(forBaud: baud) else {
            let list = SerialProbe.commonBauds.sorted().map(String.init).joined(separator: ", ")
            return ProbeFinding(
                status: .missing, found: ["baud rate \(baud) requested"],
                problem: "\(baud) is not a baud rate the serial GPS supports",
                fix: ["use one of the rates receivers speak: \(list) (u-blox and MediaTek modules default to 9600)"])
        }
        let fd = SerialPort.openDescriptor(path: path)
        guard fd >= 0 else { return SerialProbe.openFailure(path: path, code: errno, devRoot: devRoot) }
        defer { close(fd) }
        var original = termios()
        guard tcgetattr(fd, &original) == 0 else {
            let code = errno
            return ProbeFinding(
                status: .missing,
                found: ["\(path) opened, but it is not a terminal: \(HardwareProbe.errnoText(code))"],
                problem: "\(path) is not a serial device",
                fix: [
                    "name the receiver's tty: " + SerialProbe.candidatesLine(devRoot: devRoot, explicit: nil),
                    "to replay a recording instead: --gps file://\(path.hasPrefix("/") ? "" : "/")\(path)",
                ],
                facts: ["errno": String(code)])
        }
        defer { _ = tcsetattr(fd, TCSANOW, &original) }

        if let error = SerialPort.configure(fd: fd, path: path, speed: speed) {
            return ProbeFinding(
                status: .missing, found: ["\(path) opened; setting raw 8N1 at \(baud) baud failed: \(error.reason)"],
                problem: "\(path) refuses the serial settings",
                fix: ["try another rate: --gps 'serial://\(path)?baud=4800', or check `stty -F \(path)`"])
        }
        let heard = collect(fd, for: listen, stopAfterNMEALines: nil)
        var facts: [String: String] = [
            "baud": String(baud), "bytes": String(heard.bytes),
            "sentences": String(heard.statistics.sentences), "fixes": String(heard.statistics.fixes),
            "rejected": String(heard.statistics.rejected),
        ]
        let s = heard.statistics
        let took = HardwareProbe.seconds(heard.elapsed)
        var found = ["\(path) opened (raw 8N1, \(baud) baud); \(heard.bytes) bytes in \(took)"]
        if let code = heard.readError {
            found.append("read error: \(HardwareProbe.errnoText(code))")
        }

        if heard.nmeaLines > 0 {
            found.append("NMEA: \(s.sentences) sentences used, \(s.skipped) skipped, \(s.rejected) refused (\(s.badChecksum) bad checksum, \(s.malformed) malformed)")
            if let fix = heard.lastFix {
                var line = "position \(fix.mode == .threeD ? "3D" : "2D") fix at \(HardwareProbe.coordinate(fix.position.latitude)), \(HardwareProbe.coordinate(fix.position.longitude))"
                if let n = fix.satellitesUsed { line += ", \(n) satellites" }
                line += ", \(fix.time.iso8601)"
                found.append(line)
            } else {
                found.append("no position yet (normal indoors; a cold start needs a few minutes under open sky)")
            }
            if s.rejected > heard.nmeaLines {
                return ProbeFinding(
                    status: .warning, found: found,
                    problem: "more sentences arrive damaged than intact: line noise or a marginal baud rate",
                    fix: [
                        "keep the receiver's wires short and away from the buzzer's; check the ground connection",
                        "try the receiver's other rates: --gps 'serial://\(path)?baud=4800' (or 38400)",
                    ],
                    facts: facts)
            }
            return ProbeFinding(status: .ok, found: found, facts: facts)
        }

        if heard.bytes == 0 {
            return ProbeFinding(
                status: .missing, found: found,
                problem: "no data from \(path) in \(took)",
                fix: [
                    "check the receiver's power and wiring: GPS TX to the Pi's RX (GPIO 15, pin 10), GPS RX to TX (GPIO 14, pin 8), GND to GND",
                    "on the Pi's UART: enable_uart=1 in /boot/firmware/config.txt and no serial console on it (remove console=serial0,115200 from cmdline.txt)",
                    "is another program reading it (gpsd)? sudo fuser -v \(path)",
                    "watch it by hand: stty -F \(path) \(baud) raw && cat \(path)",
                ],
                facts: facts)
        }

        // Bytes, but no NMEA.
        if s.binaryPackets > 0 && s.garbageBytes < heard.bytes / 4 {
            found.append("\(s.binaryPackets) binary packets (u-blox UBX or SiRF), no NMEA")
            return ProbeFinding(
                status: .missing, found: found,
                problem: "the receiver talks a binary protocol only, no NMEA",
                fix: [
                    "switch NMEA output on: for u-blox, ubxtool -e NMEA (in the gpsd package) or u-center; for SiRF, gpsctl -n \(path)",
                    "or use the receiver through gpsd, which speaks the binary protocols: --gps gpsd://localhost:2947",
                ],
                facts: facts)
        }
        found.append("\(heard.bytes) bytes but no NMEA sentence (\(s.garbageBytes) stray bytes, \(s.rejected) damaged lines)")
        var fix: [String] = []
        var problem = "bytes arrive but no NMEA: the baud rate is probably wrong (tried \(baud))"
        if tryOtherBauds {
            let others = SerialProbe.commonBauds.filter { $0 != baud }
            var working: Int?
            for rate in others {
                guard let sp = SerialPort.speed(forBaud: rate), SerialPort.configure(fd: fd, path: path, speed: sp) == nil
                else { continue }
                let attempt = collect(fd, for: scanSlice, stopAfterNMEALines: 2)
                if attempt.nmeaLines >= 2 {
                    working = rate
                    break
                }
            }
            if let working {
                facts["suggested_baud"] = String(working)
                problem = "the baud rate is wrong: NMEA arrives at \(working) baud, not \(baud)"
                fix.append("set the rate in the GPS setting: gps: serial://\(path)?baud=\(working) (on the command line: --gps 'serial://\(path)?baud=\(working)')")
            } else {
                found.append("no NMEA at \(others.map(String.init).joined(separator: ", ")) baud either (\(HardwareProbe.seconds(scanSlice)) each)")
                fix.append("check the receiver's rate in its datasheet (u-blox and MediaTek modules: 9600; older SiRF: 4800) and set it with ?baud=")
            }
        } else {
            fix.append("try the other common rates: ?baud=4800, 9600, 38400, 115200")
        }
        fix.append("if no rate works: check the wiring (TX to RX, a shared ground) and that the receiver speaks 3.3 V logic")
        return ProbeFinding(status: .missing, found: found, problem: problem, fix: fix, facts: facts)
    }

    /// Feeds what arrives to a fresh NMEA decoder until `duration` has passed, the first fix,
    /// or (when given) that many NMEA lines.
    private func collect(_ fd: Int32, for duration: Duration, stopAfterNMEALines: Int?) -> Listening {
        var decoder = NMEADecoder()
        var result = Listening()
        let start = HardwareProbe.monotonicNanoseconds()
        let deadline = start + duration.nanoseconds
        var chunk = [UInt8](repeating: 0, count: 1024)
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        loop: while true {
            let left = deadline - HardwareProbe.monotonicNanoseconds()
            if left <= 0 { break }
            let rc = poll(&p, 1, Int32(left / 1_000_000 + 1))
            if rc < 0 {
                if errno == EINTR { continue }
                result.readError = errno
                break
            }
            if rc == 0 { continue }
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                result.readError = errno  // EIO: the device went away (or a pty's other end closed)
                break
            }
            if n == 0 {
                if p.revents & Int16(POLLHUP) != 0 { break }
                continue
            }
            result.bytes += n
            var fix: Fix?
            chunk.withUnsafeBufferPointer { buffer in
                decoder.feed(UnsafeBufferPointer(rebasing: buffer[0..<n]), onEpoch: { epoch in
                    if case .fix(let f) = epoch { fix = f }
                })
            }
            if let fix { result.lastFix = fix }
            let st = decoder.statistics
            if st.fixes > 0 { break loop }
            if let limit = stopAfterNMEALines, st.sentences + st.skipped >= limit { break loop }
        }
        result.statistics = decoder.statistics
        result.elapsed = .nanoseconds(HardwareProbe.monotonicNanoseconds() - start)
        return result
    }
}
