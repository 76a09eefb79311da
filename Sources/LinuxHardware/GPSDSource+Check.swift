import CGPS
#if canImport(Glibc)
import Glibc
#endif

extension HardwareProbe {
    // MARK: gpsd

    /// Connects to gpsd at `host:port` through libgps, as `GPSDSource` does, reads the
    /// `VERSION` banner gpsd sends to every new client, then (when `listen` is positive) asks
    /// for reports (`gps_stream`, `WATCH_ENABLE | WATCH_JSON`) and listens up to `listen` for
    /// the devices gpsd has and a position from them. `connectTimeout` bounds the wait for the
    /// banner and, with `listen`, the whole check (libgps's connect has no timeout of its own).
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
}

/// The gpsd check: libgps asks gpsd who it is and what it has, and the probe reads the
/// connection itself (`GPSDLineBuffer`, each line handed to `gps_unpack`), as the gpsd source
/// does, so that every wait is bounded by a deadline.
struct GPSDProbe {
    let host: String
    let port: Int
    let connectTimeout: Duration
    let listen: Duration

    var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    static func startFixes(host: String, port: Int) -> [String] {
        var fix: [String] = []
        if access("/usr/sbin/gpsd", X_OK) != 0 {
            fix.append("install gpsd: sudo apt install gpsd gpsd-tools")
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
        if let problem = LibGPS.problem {
            return ProbeFinding(
                status: .missing, found: ["libgps: \(problem)"], problem: "gpsd's client library cannot be opened",
                fix: [LibGPS.install])
        }
        // libgps writes with `write`: a gpsd gone between two writes must not kill the process.
        GPSDSource.blockSIGPIPE()
        let data = UnsafeMutablePointer<gps_data_t>.allocate(capacity: 1)
        data.initialize(to: gps_data_t())
        defer {
            data.deinitialize(count: 1)
            data.deallocate()
        }
        if LibGPS.functions.open(host, String(port), data) != 0 {
            return openFailure(errno)
        }
        defer { _ = LibGPS.functions.close(data) }
        GPSDSource.setNonBlocking(pacer_gps_fd(data))
        var reader = Reader(fd: pacer_gps_fd(data))
        defer { reader.lines.deallocate() }

        let bannerWait = max(connectTimeout, .seconds(1))
        guard let banner = reader.nextLine(deadline: HardwareProbe.monotonicNanoseconds() + bannerWait.nanoseconds) else {
            let why = reader.closed ? "closed the connection" : "sent nothing within \(HardwareProbe.seconds(bannerWait))"
            return ProbeFinding(
                status: .missing,
                found: ["something listens at \(address) but \(why)"],
                problem: "no gpsd greeting from \(address): is it gpsd?",
                fix: [
                    "gpsd greets every client with a VERSION report; check what listens there: sudo ss -ltnp | grep \(port)",
                    "restart gpsd: sudo systemctl restart gpsd",
                ])
        }
        var text = String(cString: banner)
        if text.hasSuffix("\r") { text.removeLast() }
        guard unpack(banner, data) & VERSION_SET != 0 else {
            return ProbeFinding(
                status: .missing,
                found: ["\(address) answered: \(text.count > 80 ? String(text.prefix(80)) + "…" : text)"],
                problem: "what listens at \(address) is not gpsd (no VERSION report)",
                fix: ["point the GPS setting at gpsd (gpsd://localhost:2947), or free the port for it"])
        }
        let version = data.pointee.version
        let release = Self.text(version.release).nonEmpty ?? "?"
        let proto = "\(version.proto_major).\(version.proto_minor)"
        let facts = ["gpsd_release": release, "gpsd_protocol": proto]
        let found = ["gpsd \(release) (protocol \(proto)) at \(address)"]
        guard listen > .zero else {
            return ProbeFinding(status: .ok, found: found, facts: facts)
        }
        return watch(data, &reader, found: found, facts: facts)
    }

    /// Asks for reports: gpsd answers with DEVICES (the receivers it has), WATCH, then a TPV
    /// per receiver cycle. Listens until a position or the end of `listen`.
    private func watch(_ data: UnsafeMutablePointer<gps_data_t>, _ reader: inout Reader,
                       found: [String], facts: [String: String]) -> ProbeFinding {
        var found = found, facts = facts
        _ = LibGPS.functions.stream(data, WATCH_ENABLE | WATCH_JSON)
        let deadline = HardwareProbe.monotonicNanoseconds() + listen.nanoseconds
        var devices: [String] = []
        var sawDevicesReport = false
        var reports = 0
        var bestMode: Int32 = 0
        var position: String?
        var errors: [String] = []
        while let line = reader.nextLine(deadline: deadline) {
            let set = unpack(line, data)
            let d = data.pointee
            if set & DEVICELIST_SET != 0 {
                sawDevicesReport = true
                withUnsafeBytes(of: d.devices.list) { raw in
                    let list = raw.bindMemory(to: devconfig_t.self)
                    for device in list.prefix(Int(max(0, d.devices.ndevices))) { note(device, in: &devices) }
                }
            } else if set & DEVICE_SET != 0 {
                note(d.dev, in: &devices)
            } else if set & ERROR_SET != 0 {
                errors.append(Self.text(d.error))
            } else if GPSDSource.hasClass(line, "TPV") {
                reports += 1
                let mode = d.fix.mode
                if mode >= MODE_2D, mode >= bestMode {
                    bestMode = mode
                    if set & LATLON_SET != 0, d.fix.latitude.isFinite, d.fix.longitude.isFinite {
                        position = "\(HardwareProbe.coordinate(d.fix.latitude)), \(HardwareProbe.coordinate(d.fix.longitude))"
                    }
                }
            }
            if bestMode >= MODE_2D { break }
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
                    "let udev tell gpsd of it: USBAUTO=\"true\" in /etc/default/gpsd (example: /usr/share/doc/pacer/examples/gpsd.default), then unplug and plug it, or: sudo udevadm trigger --subsystem-match=tty --action=add",
                    "or hand it to the running gpsd: sudo gpsdctl add /dev/gps0",
                    "a receiver on the Pi's UART: DEVICES=\"/dev/serial0\" (enable_uart=1, serial console off; see Hardware/README.md)",
                ],
                facts: facts)
        }
        found.append("receiver: \(devices.joined(separator: "; "))")
        facts["tpv_reports"] = String(reports)
        if bestMode >= MODE_2D {
            let fix = bestMode >= MODE_3D ? "3D" : "2D"
            facts["fix"] = fix
            found.append("position \(fix) fix\(position.map { " at \($0)" } ?? "")")
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

    /// What `gps_open` failing says: it leaves a netlib code (negative) in errno, not the
    /// system's reason, so "refused" and "no answer" read alike.
    private func openFailure(_ code: Int32) -> ProbeFinding {
        if code == NL_NOHOST || code == NL_NOSERVICE {
            return ProbeFinding(
                status: .missing, found: ["cannot resolve '\(host)'"],
                problem: "gpsd host '\(host)' is unknown",
                fix: ["check the host in the GPS setting (gpsd://localhost:2947 for gpsd on this board)"],
                facts: ["gps_open": String(code)])
        }
        let why = code == NL_NOCONNECT ? "nothing accepts a connection there"
            : LibGPS.functions.errstr(code).map { String(cString: $0) } ?? "error \(code)"
        return ProbeFinding(
            status: .missing, found: ["cannot connect to \(address): \(why)"],
            problem: "gpsd not reachable at \(address)",
            fix: GPSDProbe.startFixes(host: host, port: port),
            facts: ["gps_open": String(code)])
    }

    /// `line` into `data` (what was in it before cleared); the flags of what it set.
    private func unpack(_ line: UnsafeMutablePointer<CChar>, _ data: UnsafeMutablePointer<gps_data_t>) -> UInt64 {
        data.pointee.set = 0
        guard LibGPS.functions.unpack(line, data) >= 0 else { return 0 }
        return UInt64(data.pointee.set)
    }

    /// Adds a device, as `/dev/ttyACM0 (u-blox, 9600 baud)`, or replaces what was known about
    /// the same path (gpsd sends a DEVICE report when it has identified the receiver's driver).
    private func note(_ device: devconfig_t, in devices: inout [String]) {
        let path = Self.text(device.path)
        guard !path.isEmpty else { return }
        var details: [String] = []
        if let driver = Self.text(device.driver).nonEmpty { details.append(driver) }
        if device.baudrate > 0 { details.append("\(device.baudrate) baud") }
        let entry = details.isEmpty ? path : "\(path) (\(details.joined(separator: ", ")))"
        if let i = devices.firstIndex(where: { $0 == path || $0.hasPrefix(path + " ") }) {
            devices[i] = entry
        } else {
            devices.append(entry)
        }
    }

    /// A C `char[N]` field (a tuple in Swift) up to its NUL.
    static func text<T>(_ field: T) -> String {
        withUnsafeBytes(of: field) { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// Lines from the non-blocking socket, each wait bounded by a deadline.
    struct Reader {
        let fd: Int32
        var lines = GPSDLineBuffer()
        private(set) var closed = false

        init(fd: Int32) {
            self.fd = fd
        }

        /// The next line (NUL-terminated, valid until the next call), or nil at the deadline or
        /// when gpsd closed the connection.
        mutating func nextLine(deadline: Int64) -> UnsafeMutablePointer<CChar>? {
            while true {
                if let line = lines.nextLine() { return line }
                if closed { return nil }
                let left = deadline - HardwareProbe.monotonicNanoseconds()
                if left <= 0 { return nil }
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let rc = poll(&p, 1, Int32(left / 1_000_000 + 1))
                if rc < 0 && errno != EINTR { return nil }
                guard rc > 0 else { continue }
                switch lines.receive(from: fd) {
                case .received, .again: continue
                case .closed, .failed: closed = true
                }
            }
        }
    }
}

extension String {
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}
