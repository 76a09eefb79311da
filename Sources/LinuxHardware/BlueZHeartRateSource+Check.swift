extension HardwareProbe {
    // MARK: heart-rate strap (BlueZ)

    /// The heart-rate strap as `BlueZHeartRateSource` finds it: the system bus, BlueZ on it,
    /// the adapter, then the strap: the one at `address` known to BlueZ or seen in a scan of
    /// `listen`, or, without an address, any strap a scan sees. Never `missing`: the device
    /// coaches without heart rate, so what is wrong is a warning.
    ///
    /// Like every probe, it runs on a thread of its own, abandoned if a call hangs.
    public static func heartRateStrap(
        address: String?, adapter: String? = nil, busAddress: String? = nil, listen: Duration = .seconds(5)
    ) -> ProbeFinding {
        let limit = listen + .seconds(12)
        return runBounded(limit) { strapProbe(address: address, adapter: adapter, busAddress: busAddress, listen: listen) }
            ?? ProbeFinding(status: .warning, found: ["no answer from BlueZ within \(seconds(limit))"],
                            problem: "BlueZ (bluetoothd) does not answer", fix: ["sudo systemctl restart bluetooth"])
    }

    static func strapProbe(address: String?, adapter: String?, busAddress: String?, listen: Duration) -> ProbeFinding {
        let wanted: String?
        if let address {
            guard let normalized = BlueZ.normalizedAddress(address) else {
                return ProbeFinding(status: .warning, problem: BlueZError.invalidAddress(address).description,
                                    fix: ["pair the strap again: pacer hr scan, then pacer hr pair ADDRESS"])
            }
            wanted = normalized
        } else {
            wanted = nil
        }
        let info: BlueZAdapterInfo
        do {
            info = try BlueZ.adapterInfo(adapter: adapter, busAddress: busAddress)
        } catch {
            return ProbeFinding(status: .warning, found: [], problem: "\(error): no heart rate", fix: fixes(for: error))
        }
        var found = ["adapter \(info.name)\(info.address.map { " (\($0))" } ?? ""), \(info.powered ? "powered on" : "powered off (switched on while a strap is wanted)")"]
        var facts = ["adapter": info.name]
        let straps: [FoundStrap]
        do {
            straps = try BlueZ.scan(for: listen, adapter: adapter, address: wanted, busAddress: busAddress).straps
        } catch {
            found.append("the scan failed: \(error)")
            return ProbeFinding(status: .warning, found: found, problem: "cannot look for the strap", fix: fixes(for: error), facts: facts)
        }
        facts["straps_seen"] = String(straps.filter(\.heartRate).count)
        func describe(_ s: FoundStrap) -> String {
            var details: [String] = []
            if let rssi = s.rssi { details.append("\(rssi) dBm") }
            if let battery = s.battery { details.append("battery \(battery) %") }
            if s.connected { details.append("connected") }
            return "\(s.name) (\(s.address))" + (details.isEmpty ? "" : ", " + details.joined(separator: ", "))
        }
        let wake = "wet the strap's electrodes and put it on (most straps sleep off the chest), then run the check again"
        guard let wanted else {
            guard !straps.isEmpty else {
                return ProbeFinding(status: .warning, found: found + ["no strap seen in \(seconds(listen))"],
                                    problem: "no heart-rate strap in range", fix: [wake], facts: facts)
            }
            found.append(contentsOf: straps.map { "strap seen: " + describe($0) })
            return ProbeFinding(status: .ok, found: found, fix: [], facts: facts)
        }
        facts["strap"] = wanted
        if let strap = straps.first(where: { $0.address == wanted }) {
            found.append("paired strap seen: " + describe(strap))
            facts["seen"] = "yes"
            return ProbeFinding(status: .ok, found: found, facts: facts)
        }
        facts["seen"] = "no"
        found.append("paired strap \(wanted) not seen in \(seconds(listen))")
        let others = straps.filter(\.heartRate)
        if !others.isEmpty { found.append("other straps seen: " + others.map(describe).joined(separator: "; ")) }
        return ProbeFinding(
            status: .warning, found: found, problem: "the paired strap \(wanted) is not in range",
            fix: [wake] + (others.isEmpty ? [] : ["or pair one of those seen: pacer hr pair ADDRESS"]), facts: facts)
    }

    /// What to do about a BlueZ that cannot be used.
    static func fixes(for error: BlueZError) -> [String] {
        switch error {
        case .invalidAddress:
            return ["pair the strap again: pacer hr scan, then pacer hr pair ADDRESS"]
        case .library:
            return [LibSystemd.install]
        case .noBus:
            return ["start D-Bus and BlueZ: sudo systemctl start dbus bluetooth", "install BlueZ if it is not: sudo apt install bluez"]
        case .noBlueZ:
            return ["install BlueZ: sudo apt install bluez", "start it: sudo systemctl start bluetooth (at every boot: sudo systemctl enable bluetooth)"]
        case .noAdapter:
            return ["plug in a Bluetooth LE adapter, or enable the board's (Raspberry Pi: no dtoverlay=disable-bt in /boot/firmware/config.txt)",
                    "unblock it: sudo rfkill unblock bluetooth", "see what BlueZ has: bluetoothctl list"]
        case .failed:
            return ["see what BlueZ says: journalctl -u bluetooth", "restart it: sudo systemctl restart bluetooth"]
        }
    }
}
