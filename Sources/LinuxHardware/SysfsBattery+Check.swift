#if canImport(Glibc)
import Glibc
#endif

extension HardwareProbe {
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
}
