#if canImport(Glibc)
import Glibc
#endif
import CALSA
import NMEA
import PacerCore
import Synchronization

/// What a hardware probe found: a verdict, the facts it saw, what is wrong and how to fix it.
/// Written for a person putting the device together (`pacer hw check` prints them).
public struct ProbeFinding: Hashable, Sendable {
    public enum Status: String, Hashable, Sendable, CaseIterable {
        /// The part is there and works.
        case ok
        /// The part works only partly, or is absent but the device manages without it.
        case warning
        /// The part is absent or does not work.
        case missing
    }

    public var status: Status
    /// What the probe saw, one fact per line.
    public var found: [String]
    /// What is wrong, in one sentence; nil when nothing is.
    public var problem: String?
    /// How to fix it: steps or commands, one per line, in the order to try them.
    public var fix: [String]
    /// Machine-readable facts (`gpsd_release`, `sentences`, `fixes`, `alsa_error`, …) for the
    /// `--json` report and for tests.
    public var facts: [String: String]

    public init(
        status: Status, found: [String] = [], problem: String? = nil, fix: [String] = [],
        facts: [String: String] = [:]
    ) {
        self.status = status
        self.found = found
        self.problem = problem
        self.fix = fix
        self.facts = facts
    }
}

/// Probes for each part of the device, for `pacer hw check`. They work on the system interfaces
/// (a TCP socket for gpsd, termios for a serial receiver, libasound for sound, sysfs for the
/// battery), not through the adapters' objects, so that a probe can say precisely what failed;
/// where an adapter has a helper for a step (`SerialPort`'s open and raw 8N1 set-up,
/// `ALSABuzzer.probe`), the probe uses it, so that it checks what the firmware will do.
///
/// Every probe is bounded in time: sockets and serial ports are polled against a deadline,
/// and each probe runs on a thread of its own that is abandoned (not waited for) if the
/// system call it is in does not return in time. None raises; a failure is a finding.
public enum HardwareProbe {
    // MARK: gpsd

    /// Connects to gpsd at `host:port`, reads the `VERSION` banner gpsd sends to every new
    /// client, then (when `listen` is positive) asks for reports with `?WATCH` and listens up
    /// to `listen` for the devices gpsd has and a position from them.
    public static func gpsd(
        host: String, port: Int, connectTimeout: Duration = .seconds(2), listen: Duration = .seconds(5)
    ) -> ProbeFinding {
        let limit = connectTimeout * 2 + listen + .seconds(2)
        let address = "\(host):\(port)"
        return runBounded(limit) { GPSDProbe(host: host, port: port, connectTimeout: connectTimeout, listen: listen).run() }
            ?? ProbeFinding(
                status: .missing, found: ["no answer from \(address) within \(seconds(limit))"],
                problem: "gpsd at \(address) did not answer in time",
                fix: GPSDProbe.startFixes(host: host, port: port))
    }

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

    // MARK: sound

    /// Opens the ALSA playback device `device` as the buzzer does (`ALSABuzzer.probe`:
    /// non-blocking, so a busy device answers at once, then set to 16-bit mono) and closes it
    /// again. On failure the problem carries `snd_strerror`'s text and what ALSA itself said;
    /// the fix lists what to check. `cardsFile` lists the sound cards.
    public static func alsa(
        device: String, timeout: Duration = .seconds(3), cardsFile: String = "/proc/asound/cards"
    ) -> ProbeFinding {
        runBounded(timeout) { ALSAProbe.run(device: device, cardsFile: cardsFile) }
            ?? ProbeFinding(
                status: .missing, found: ["snd_pcm_open(\"\(device)\") did not return within \(seconds(timeout))"],
                problem: "the ALSA device '\(device)' hangs when opened",
                fix: [
                    "a sound server (PulseAudio, PipeWire) behind 'default' may be stuck: try a hardware device, --buzzer alsa:plughw:CARD=<name>",
                    "list the cards: aplay -l",
                ])
    }

    /// The text libasound gives for an error code (`snd_strerror`).
    public static func alsaErrorDescription(_ code: Int32) -> String {
        LibASound.errorText(code)
    }

    /// The sound cards the kernel has (`/proc/asound/cards`): `0 [Headphones]: bcm2835 Headphones`.
    public static func soundCards(cardsFile: String = "/proc/asound/cards") -> [String]? {
        guard let text = SysfsBattery.readValue(cardsFile) else {
            return access(cardsFile, F_OK) == 0 ? [] : nil
        }
        var cards: [String] = []
        for line in text.split(separator: "\n") {
            let trimmed = line.drop(while: { $0 == " " })
            guard let first = trimmed.first, first.isNumber,
                  let open = trimmed.firstIndex(of: "["), let close = trimmed.firstIndex(of: "]"), open < close
            else { continue }
            let number = trimmed[..<open].trimmed(" ")
            let id = trimmed[trimmed.index(after: open)..<close].trimmed(" ")
            var name = ""
            if let dash = trimmed.firstRange(ofText: " - ") {
                name = trimmed[dash.upperBound...].trimmed(" ")
            }
            cards.append(name.isEmpty ? "\(number) [\(id)]" : "\(number) [\(id)]: \(name)")
        }
        return cards
    }

    // MARK: battery

    /// Looks for a battery gauge under `root` (`SysfsBattery.discover`). None is a warning,
    /// not a failure: a desktop has none, and a board on a power bank neither.
    public static func battery(root: String = SysfsBattery.defaultRoot) -> ProbeFinding {
        let gauges = SysfsBattery.discover(root: root)
        guard !gauges.isEmpty else {
            return ProbeFinding(
                status: .warning,
                found: ["no supply of type Battery in \(root)"],
                problem: "no battery gauge: the simulated battery's estimate will be used",
                fix: [
                    "nothing to do on a desktop or with a USB power bank (it has no gauge to read)",
                    "with a LiPo fuel gauge (MAX17048, BQ27441, …): enable its kernel driver so that it appears in \(root), then run this check again",
                ],
                facts: ["gauges": "0"])
        }
        var found: [String] = []
        var unreadable: [String] = []
        for gauge in gauges {
            if let reading = gauge.read() {
                let status = gauge.readStatus()?.rawValue.lowercased() ?? (reading.charging ? "charging" : "discharging")
                found.append("\(gauge.supply): \(formatPercent(reading.percent)) %, \(status) (\(gauge.name))")
            } else {
                found.append("\(gauge.supply): present but unreadable (\(gauge.name))")
                unreadable.append(gauge.supply)
            }
        }
        var facts = ["gauges": String(gauges.count), "gauge": gauges[0].name]
        if let p = gauges[0].read()?.percent { facts["percent"] = formatPercent(p) }
        if unreadable.count == gauges.count {
            return ProbeFinding(
                status: .warning, found: found,
                problem: "the battery gauge cannot be read: the simulated battery's estimate will be used",
                fix: [
                    "cat \(gauges[0].path)/capacity \(gauges[0].path)/status should print a number and a word",
                    "check the gauge's driver and wiring: dmesg | grep -i -E 'battery|fuel|max170|bq27'",
                ],
                facts: facts)
        }
        return ProbeFinding(status: .ok, found: found, facts: facts)
    }

    // MARK: clock

    /// The monotonic clock the firmware times everything with, and the system time.
    /// Informational: the device takes the time of day for its tracks from the GPS.
    public static func clock() -> ProbeFinding {
        let a = monotonicNanoseconds()
        let b = monotonicNanoseconds()
        var real = timespec()
        clock_gettime(CLOCK_REALTIME, &real)
        let millis = Int64(real.tv_sec) * 1000 + Int64(real.tv_nsec) / 1_000_000
        let now = UTCTimestamp(millisecondsSince1970: millis)
        var found = ["monotonic clock (CLOCK_MONOTONIC) runs"]
        var synced: String
        if access("/run/systemd/timesync/synchronized", F_OK) == 0 {
            synced = "synchronized by systemd-timesyncd"
        } else {
            synced = "not known to be synchronized (track times come from the GPS, so this is fine)"
        }
        found.append("system time \(now.iso8601), \(synced)")
        guard b >= a else {
            return ProbeFinding(
                status: .missing, found: found, problem: "the monotonic clock went backwards",
                fix: ["report this with the output of `uname -a`"])
        }
        return ProbeFinding(status: .ok, found: found, facts: ["system_time": now.iso8601])
    }

    // MARK: shared helpers

    static func monotonicNanoseconds() -> Int64 {
        MonotonicCondition.now.nanoseconds
    }

    static func seconds(_ d: Duration) -> String {
        let s = d.inSeconds
        return s == s.rounded() ? "\(Int(s)) s" : "\((s * 10).rounded() / 10) s"
    }

    static func formatPercent(_ p: Double) -> String {
        p == p.rounded() ? String(Int(p)) : String((p * 10).rounded() / 10)
    }

    static func errnoText(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// Paths matching a shell pattern, sorted; none when nothing matches.
    static func glob(_ pattern: String) -> [String] {
        var g = glob_t()
        defer { globfree(&g) }
        guard Glibc.glob(pattern, 0, nil, &g) == 0 else { return [] }
        var paths: [String] = []
        for i in 0..<Int(g.gl_pathc) {
            if let p = g.gl_pathv[i] { paths.append(String(cString: p)) }
        }
        return paths.sorted()
    }

    /// The canonical path of `path` (links resolved), or nil when it does not resolve.
    static func resolve(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }

    /// Runs `body` on a thread of its own and waits up to `limit` for it. Returns nil when
    /// the time is up; the thread is then left to finish (or hang) on its own. A dedicated
    /// thread, not a dispatch or Swift concurrency pool: a probe stuck in a system call must
    /// not starve anyone else.
    static func runBounded<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () -> T) -> T? {
        let job = BoundedJob(body)
        guard job.ready else { return body() }
        let retained = Unmanaged.passRetained(job as any BoundedRunnable as AnyObject)
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { argument in
            let object = Unmanaged<AnyObject>.fromOpaque(argument!).takeRetainedValue()
            (object as! any BoundedRunnable).runJob()
            return nil
        }, retained.toOpaque())
        guard rc == 0 else {
            retained.release()
            return body()
        }
        pthread_detach(thread)
        return job.wait(limit)
    }
}

private protocol BoundedRunnable: AnyObject {
    func runJob()
}

/// A probe running on its own thread; the thread writes a byte to a pipe when it is done,
/// and the caller polls the pipe with a timeout.
private final class BoundedJob<T: Sendable>: BoundedRunnable, Sendable {
    private let body: @Sendable () -> T
    private let result = Mutex<T?>(nil)
    private let readFD: Int32
    private let writeFD: Int32

    init(_ body: @escaping @Sendable () -> T) {
        self.body = body
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        }
        readFD = fds[0]
        writeFD = fds[1]
    }

    /// False when no pipe could be made (out of file descriptors): run the body inline then.
    var ready: Bool { readFD >= 0 && writeFD >= 0 }

    deinit {
        if readFD >= 0 { close(readFD) }
        if writeFD >= 0 { close(writeFD) }
    }

    func runJob() {
        let value = body()
        result.withLock { $0 = value }
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)
    }

    func wait(_ limit: Duration) -> T? {
        let deadline = HardwareProbe.monotonicNanoseconds() + limit.nanoseconds
        var p = pollfd(fd: readFD, events: Int16(POLLIN), revents: 0)
        while true {
            let left = deadline - HardwareProbe.monotonicNanoseconds()
            if left <= 0 { return nil }
            let rc = poll(&p, 1, Int32(min(left / 1_000_000 + 1, Int64(Int32.max))))
            if rc > 0 { return result.withLock { $0 } }
            if rc < 0 && errno != EINTR { return nil }
        }
    }
}

extension Substring {
    fileprivate func trimmed(_ set: Character) -> String {
        String(drop(while: { $0 == set }).reversed().drop(while: { $0 == set }).reversed())
    }
}

// MARK: - gpsd

/// A gpsd client just big enough to ask gpsd who it is and what it has.
struct GPSDProbe {
    let host: String
    let port: Int
    let connectTimeout: Duration
    let listen: Duration

    var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    static func startFixes(host: String, port: Int) -> [String] {
        var fix: [String] = []
        if access("/usr/sbin/gpsd", X_OK) != 0 {
            fix.append("install gpsd: sudo apt install gpsd gpsd-clients")
        }
        fix.append("start gpsd: sudo systemctl start gpsd (at every boot: sudo systemctl enable gpsd)")
        fix.append("if it does not stay up, see why: systemctl status gpsd; journalctl -u gpsd")
        fix.append("check DEVICES and GPSD_OPTIONS in /etc/default/gpsd (example: /usr/share/doc/pacer/examples/gpsd.default; in the source, Hardware/gpsd/gpsd.default)")
        let local = ["localhost", "127.0.0.1", "::1"].contains(host)
        if !local {
            fix.append("gpsd listens only on the loopback unless started with -G (add it to GPSD_OPTIONS) and the port \(port) is open")
        } else if port != 2947 {
            fix.append("gpsd listens on port 2947 unless told otherwise (-S); is \(port) right?")
        }
        return fix
    }

    func run() -> ProbeFinding {
        let fd: Int32
        switch openConnection() {
        case .failure(let finding): return finding
        case .success(let socket): fd = socket
        }
        defer { close(fd) }
        var reader = LineReader(fd: fd)
        let bannerDeadline = HardwareProbe.monotonicNanoseconds() + max(connectTimeout, .seconds(1)).nanoseconds
        guard let banner = reader.nextLine(deadline: bannerDeadline) else {
            let why = reader.closed ? "closed the connection" : "sent nothing within \(HardwareProbe.seconds(max(connectTimeout, .seconds(1))))"
            return ProbeFinding(
                status: .missing,
                found: ["something listens at \(address) but \(why)"],
                problem: "no gpsd greeting from \(address): is it gpsd?",
                fix: [
                    "gpsd greets every client with a VERSION report; check what listens there: sudo ss -ltnp | grep \(port)",
                    "restart gpsd: sudo systemctl restart gpsd",
                ])
        }
        guard GPSDJSON.string("class", in: banner) == "VERSION" else {
            return ProbeFinding(
                status: .missing,
                found: ["\(address) answered: \(GPSDJSON.excerpt(banner))"],
                problem: "what listens at \(address) is not gpsd (no VERSION report)",
                fix: ["point the GPS setting at gpsd (gpsd://localhost:2947), or free the port for it"])
        }
        let release = GPSDJSON.string("release", in: banner) ?? "?"
        var facts = ["gpsd_release": release]
        var version = "gpsd \(release)"
        if let major = GPSDJSON.number("proto_major", in: banner), let minor = GPSDJSON.number("proto_minor", in: banner) {
            let proto = "\(Int(major)).\(Int(minor))"
            facts["gpsd_protocol"] = proto
            version += " (protocol \(proto))"
        }
        var found = ["\(version) at \(address)"]
        guard listen > .zero else {
            return ProbeFinding(status: .ok, found: found, facts: facts)
        }

        // Ask for reports: gpsd answers with DEVICES (the receivers it has), WATCH, then a
        // TPV per receiver cycle.
        let watch = Array("?WATCH={\"enable\":true,\"json\":true};\n".utf8)
        _ = watch.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        let deadline = HardwareProbe.monotonicNanoseconds() + listen.nanoseconds
        var devices: [String] = []
        var sawDevicesReport = false
        var reports = 0
        var bestMode = 0
        var position: String?
        var errors: [String] = []
        while let line = reader.nextLine(deadline: deadline) {
            switch GPSDJSON.string("class", in: line) {
            case "DEVICES":
                sawDevicesReport = true
                for device in GPSDJSON.devices(in: line) { note(device, in: &devices) }
            case "DEVICE":
                for device in GPSDJSON.devices(in: line) { note(device, in: &devices) }
            case "TPV":
                reports += 1
                let mode = Int(GPSDJSON.number("mode", in: line) ?? 0)
                if mode >= 2, mode >= bestMode {
                    bestMode = mode
                    if let lat = GPSDJSON.number("lat", in: line), let lon = GPSDJSON.number("lon", in: line) {
                        position = "\(GPSDJSON.coordinate(lat)), \(GPSDJSON.coordinate(lon))"
                    }
                }
            case "ERROR":
                errors.append(GPSDJSON.string("message", in: line) ?? GPSDJSON.excerpt(line))
            default:
                break
            }
            if bestMode >= 2 { break }
        }
        facts["gpsd_devices"] = devices.map { $0.split(separator: " ").first.map(String.init) ?? $0 }.joined(separator: ",")
        for e in errors { found.append("gpsd error: \(e)") }
        if devices.isEmpty {
            found.append(sawDevicesReport ? "gpsd has no GPS receiver" : "gpsd listed no devices within \(HardwareProbe.seconds(listen))")
            let candidates = HardwareProbe.serialCandidates()
            found.append(candidates.isEmpty
                ? "no serial devices present (\(HardwareProbe.serialPatterns.map { "/dev/" + $0 }.joined(separator: ", ")))"
                : "serial devices present: \(candidates.map(\.description).joined(separator: ", "))")
            return ProbeFinding(
                status: .missing, found: found,
                problem: "gpsd runs but has no GPS receiver",
                fix: [
                    "plug the receiver in; it should appear as /dev/ttyACM0 or /dev/ttyUSB0 (dmesg | tail)",
                    "name it /dev/gps0 with the udev rule 99-pacer-gps.rules (the package installs it in /lib/udev/rules.d; in the source, Hardware/udev)",
                    "set DEVICES=\"/dev/gps0\" in /etc/default/gpsd (example: /usr/share/doc/pacer/examples/gpsd.default), then: sudo systemctl restart gpsd",
                    "or hand it to the running gpsd: sudo gpsdctl add /dev/ttyACM0",
                    "a receiver on the Pi's UART: DEVICES=\"/dev/serial0\" (enable_uart=1, serial console off; see Hardware/README.md)",
                ],
                facts: facts)
        }
        found.append("receiver: \(devices.joined(separator: "; "))")
        facts["tpv_reports"] = String(reports)
        if bestMode >= 2 {
            facts["fix"] = bestMode == 3 ? "3D" : "2D"
            found.append("position \(bestMode == 3 ? "3D" : "2D") fix\(position.map { " at \($0)" } ?? "")")
            return ProbeFinding(status: .ok, found: found, facts: facts)
        }
        if reports > 0 {
            found.append("\(reports) reports in \(HardwareProbe.seconds(listen)), no position yet (normal indoors; a cold start needs a few minutes under open sky)")
            return ProbeFinding(status: .ok, found: found, facts: facts)
        }
        found.append("no report from the receiver in \(HardwareProbe.seconds(listen))")
        return ProbeFinding(
            status: .warning, found: found,
            problem: "gpsd has the receiver but heard nothing from it",
            fix: [
                "watch what gpsd gets: gpsmon, or cgps -s",
                "a receiver at an unusual baud rate can take gpsd a few seconds to find; run the check again with --listen 15",
                "check the cable and the receiver's power (its LED blinks once a second when it has a fix on most modules)",
            ],
            facts: facts)
    }

    /// Adds a device, or replaces what was known about the same path (gpsd sends a DEVICE
    /// report when it has identified the receiver's driver).
    private func note(_ device: String, in devices: inout [String]) {
        let path = device.split(separator: " ").first.map(String.init) ?? device
        if let i = devices.firstIndex(where: { $0 == path || $0.hasPrefix(path + " ") }) {
            devices[i] = device
        } else {
            devices.append(device)
        }
    }

    private enum Connection {
        case success(Int32)
        case failure(ProbeFinding)
    }

    private func openConnection() -> Connection {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            let why = rc == EAI_SYSTEM ? HardwareProbe.errnoText(errno) : String(cString: gai_strerror(rc))
            return .failure(ProbeFinding(
                status: .missing, found: ["cannot resolve '\(host)': \(why)"],
                problem: "gpsd host '\(host)' is unknown",
                fix: ["check the host in the GPS setting (gpsd://localhost:2947 for gpsd on this board)"]))
        }
        defer { freeaddrinfo(list) }
        var lastError: Int32 = ETIMEDOUT
        var node: UnsafeMutablePointer<addrinfo>? = first
        let deadline = HardwareProbe.monotonicNanoseconds() + connectTimeout.nanoseconds
        while let a = node {
            node = a.pointee.ai_next
            let fd = socket(a.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else {
                lastError = errno
                continue
            }
            if Glibc.connect(fd, a.pointee.ai_addr, a.pointee.ai_addrlen) == 0 { return .success(fd) }
            var code = errno
            if code == EINPROGRESS {
                code = waitConnected(fd, deadline: deadline)
                if code == 0 { return .success(fd) }
            }
            close(fd)
            lastError = code
        }
        let what = lastError == ETIMEDOUT
            ? "no answer from \(address) within \(HardwareProbe.seconds(connectTimeout))"
            : "cannot connect to \(address): \(HardwareProbe.errnoText(lastError))"
        return .failure(ProbeFinding(
            status: .missing, found: [what],
            problem: "gpsd not reachable at \(address)",
            fix: GPSDProbe.startFixes(host: host, port: port),
            facts: ["errno": String(lastError)]))
    }

    /// 0 once connected, else the error (ETIMEDOUT at the deadline).
    private func waitConnected(_ fd: Int32, deadline: Int64) -> Int32 {
        var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        while true {
            let left = deadline - HardwareProbe.monotonicNanoseconds()
            if left <= 0 { return ETIMEDOUT }
            let rc = poll(&p, 1, Int32(left / 1_000_000 + 1))
            if rc < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if rc == 0 { continue }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { return errno }
            return error
        }
    }
}

/// Lines from a non-blocking socket, each read bounded by a deadline.
struct LineReader {
    let fd: Int32
    private var buffer: [UInt8] = []
    private(set) var closed = false

    init(fd: Int32) {
        self.fd = fd
    }

    /// The next line (without its newline), or nil at the deadline or when the peer closed.
    mutating func nextLine(deadline: Int64) -> String? {
        while true {
            if let nl = buffer.firstIndex(of: 0x0A) {
                var line = buffer[..<nl]
                if line.last == 0x0D { line = line.dropLast() }
                let text = String(decoding: line, as: UTF8.self)
                buffer.removeSubrange(...nl)
                return text
            }
            if closed { return nil }
            if buffer.count > 65536 { buffer.removeAll() }  // no newline in 64 KiB: not line-based
            let left = deadline - HardwareProbe.monotonicNanoseconds()
            if left <= 0 { return nil }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let rc = poll(&p, 1, Int32(left / 1_000_000 + 1))
            if rc < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if rc == 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                buffer.append(contentsOf: chunk[0..<n])
            } else if n == 0 || (errno != EAGAIN && errno != EINTR) {
                closed = true
            }
        }
    }
}

/// Reading the few fields the probe needs from gpsd's flat JSON reports, without a JSON
/// library (gpsd writes compact JSON: `{"class":"VERSION","release":"3.22",…}`).
enum GPSDJSON {
    /// The position of the value after `"key":`, or nil.
    private static func valueStart(_ key: String, in line: String, from start: String.Index? = nil) -> String.Index? {
        let needle = "\"\(key)\""
        var search = start ?? line.startIndex
        while let r = line.firstRange(ofText: needle, within: search..<line.endIndex) {
            var i = r.upperBound
            while i < line.endIndex, line[i] == " " { i = line.index(after: i) }
            if i < line.endIndex, line[i] == ":" {
                i = line.index(after: i)
                while i < line.endIndex, line[i] == " " { i = line.index(after: i) }
                return i
            }
            search = r.upperBound
        }
        return nil
    }

    static func string(_ key: String, in line: String) -> String? {
        guard let start = valueStart(key, in: line), start < line.endIndex, line[start] == "\"" else { return nil }
        var out = ""
        var i = line.index(after: start)
        while i < line.endIndex {
            let c = line[i]
            if c == "\"" { return out }
            if c == "\\" {
                i = line.index(after: i)
                guard i < line.endIndex else { return nil }
                switch line[i] {
                case "n": out.append("\n")
                case "t": out.append("\t")
                default: out.append(line[i])
                }
            } else {
                out.append(c)
            }
            i = line.index(after: i)
        }
        return nil
    }

    static func number(_ key: String, in line: String) -> Double? {
        guard let start = valueStart(key, in: line) else { return nil }
        let text = line[start...].prefix(while: { $0.isNumber || "+-.eE".contains($0) })
        return Double(text)
    }

    /// The devices of a DEVICES (or DEVICE) report: `/dev/ttyACM0 (u-blox, 9600 baud)`.
    static func devices(in line: String) -> [String] {
        var out: [String] = []
        let parts = line.pieces(separatedBy: "\"class\":\"DEVICE\"")
        for part in parts.dropFirst().map(String.init) {
            guard let path = string("path", in: part) else { continue }
            var details: [String] = []
            if let driver = string("driver", in: part) { details.append(driver) }
            if let bps = number("bps", in: part) { details.append("\(Int(bps)) baud") }
            out.append(details.isEmpty ? path : "\(path) (\(details.joined(separator: ", ")))")
        }
        return out
    }

    static func coordinate(_ value: Double) -> String {
        String((value * 100_000).rounded() / 100_000)
    }

    static func excerpt(_ line: String) -> String {
        line.count > 80 ? String(line.prefix(80)) + "…" : line
    }
}

extension String {
    /// Splits on a separator string (Foundation's `components(separatedBy:)` for a module
    /// that does not import Foundation).
    fileprivate func pieces(separatedBy separator: String) -> [Substring] {
        var parts: [Substring] = []
        var rest = self[...]
        while let r = rest.firstRange(ofText: separator) {
            parts.append(rest[..<r.lowerBound])
            rest = rest[r.upperBound...]
        }
        parts.append(rest)
        return parts
    }
}

extension StringProtocol {
    /// The range of the first occurrence of `needle`, searching `range` (or everything).
    fileprivate func firstRange(ofText needle: String, within range: Range<Index>? = nil) -> Range<Index>? {
        let n = Array(needle.utf8)
        guard !n.isEmpty else { return nil }
        var i = range?.lowerBound ?? startIndex
        let end = range?.upperBound ?? endIndex
        while i < end {
            if self[i...].utf8.starts(with: n) {
                let upper = utf8.index(i, offsetBy: n.count)
                if upper <= end { return i..<upper }
                return nil
            }
            i = index(after: i)
        }
        return nil
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
                var line = "position \(fix.mode == .threeD ? "3D" : "2D") fix at \(GPSDJSON.coordinate(fix.position.latitude)), \(GPSDJSON.coordinate(fix.position.longitude))"
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
                    "switch NMEA output on: for u-blox, ubxtool -e NMEA (gpsd-clients) or u-center; for SiRF, gpsctl -n \(path)",
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

// MARK: - ALSA

enum ALSAProbe {
    static func run(device: String, cardsFile: String) -> ProbeFinding {
        // Opened as the buzzer opens it; ALSA's own messages are kept (it reports the reason
        // for "No such file or directory" only as a message: `Unknown PCM nosuchcard`).
        let (opened, said) = ALSABuzzer.probeInDetail(device: device)

        let cards = HardwareProbe.soundCards(cardsFile: cardsFile)
        var found: [String] = []
        switch cards {
        case nil: found.append("no sound cards (\(cardsFile) is missing: no ALSA driver is loaded)")
        case let list? where list.isEmpty: found.append("no sound cards (\(cardsFile) lists none)")
        case let list?: found.append("sound cards: \(list.joined(separator: "; "))")
        }
        let error: ALSAError
        switch opened {
        case .success(let kind):
            found.insert("ALSA playback device '\(device)' opens\(kind.isEmpty ? "" : " (\(kind))")", at: 0)
            return ProbeFinding(status: .ok, found: found, facts: ["alsa_device": device, "pcm_type": kind])
        case .failure(let failure) where failure.operation == .load:
            return ProbeFinding(
                status: .missing, found: found, problem: "\(failure)", fix: [LibASound.install],
                facts: ["alsa_device": device, "alsa_error": String(failure.code)])
        case .failure(let failure):
            error = failure
        }
        let rc = error.code
        let text = HardwareProbe.alsaErrorDescription(rc)
        for message in said.prefix(3) { found.append("ALSA says: \(message)") }
        var fix: [String] = []
        let noCards = cards?.isEmpty ?? true
        switch -rc {
        case EBUSY:
            fix.append("another program plays on the device: use a mixing device (alsa:default with dmix, see /usr/share/doc/pacer/examples/asound.conf or Hardware/alsa/asound.conf), or stop the other program (sudo fuser -v /dev/snd/*)")
        case EACCES, EPERM:
            fix.append("add the user to the audio group: sudo usermod -aG audio $USER (then log in again)")
        default:
            if noCards {
                fix.append("no sound card: on a Raspberry Pi, dtparam=audio=on in /boot/firmware/config.txt (and for PWM audio on GPIO 18/19, dtoverlay=audremap,pins_18_19), then reboot")
                fix.append("or plug in a USB sound card; sudo apt install alsa-utils, then aplay -l must list it")
            } else {
                fix.append("aplay -l lists the cards; name one: --buzzer alsa:plughw:CARD=<name>,DEV=0")
            }
            fix.append("make it the default with /etc/asound.conf (example: /usr/share/doc/pacer/examples/asound.conf; in the source, Hardware/alsa/asound.conf)")
        }
        fix.append("test it: speaker-test -D \(device) -c 1 -t sine -f 1000 -l 1")
        return ProbeFinding(
            status: .missing, found: found,
            problem: error.operation == .configure
                ? "ALSA playback device '\(device)' opens but cannot be set to 16-bit mono: \(text)"
                : "cannot open ALSA playback device '\(device)': \(text)",
            fix: fix,
            facts: ["alsa_device": device, "alsa_error": String(rc), "alsa_strerror": text])
    }
}
