import Configurator
import Foundation
import Storage

/// The companion's health page, at `/health-report` (`/health` is the server's
/// check without a login): the battery as its gauge reads it, the data folder (free space,
/// the database's size, the activities, a fault when it cannot be used), the device's state
/// and its GPS as the device says them, and, when asked, what `pacer hw check` says (the
/// same configuration, `HardwareCheck.configuration`, and the same probes).
public struct HealthSection: CompanionSection {
    let device: any CompanionDevice
    let dataDirectory: String
    let batterySetting: String
    let powerSupplyRoot: String
    let checkConfiguration: @Sendable () throws -> HardwareCheck.Configuration

    /// `checkConfiguration`: what the hardware check probes, as `pacer hw check` builds it
    /// from the device's settings file.
    public init(device: any CompanionDevice, dataDirectory: String, batterySetting: String,
                powerSupplyRoot: String = "/sys/class/power_supply",
                checkConfiguration: @escaping @Sendable () throws -> HardwareCheck.Configuration) {
        self.device = device
        self.dataDirectory = dataDirectory
        self.batterySetting = batterySetting
        self.powerSupplyRoot = powerSupplyRoot
        self.checkConfiguration = checkConfiguration
    }

    public var menu: (label: String, path: String)? { ("Health", "/health-report") }

    public var routes: [PageRoute] {
        [
            PageRoute(.get, "/health-report", allowedDuringWorkout: true) { _ in await SectionSupport.answer { report() } },
            PageRoute(.get, "/health-report/hw-check") { _ in await SectionSupport.answer { try await hardwareCheck() } },
        ]
    }

    /// What the data folder holds and whether it can be used.
    public struct StorageHealth: Hashable, Sendable {
        public var directory: String
        public var freeBytes: Int64?
        public var databaseBytes: Int64?
        public var activities: Int?
        public var routes: Int?
        /// Why the folder cannot be used; nil when it can.
        public var fault: String?
    }

    public func storageHealth() -> StorageHealth {
        var health = StorageHealth(directory: dataDirectory)
        let files = FileManager.default
        if let attributes = try? files.attributesOfFileSystem(forPath: dataDirectory),
           let free = attributes[.systemFreeSize] as? NSNumber {
            health.freeBytes = free.int64Value
        }
        do {
            let store = try device.store()
            var size: Int64 = 0
            for suffix in ["", "-wal"] {
                if let bytes = (try? files.attributesOfItem(atPath: store.database.path + suffix))?[.size] as? NSNumber {
                    size += bytes.int64Value
                }
            }
            health.databaseBytes = size
            let counts = try store.database.rowCounts()
            health.activities = counts["activities"]
            health.routes = counts["routes"]
            if access(dataDirectory, W_OK) != 0 {
                health.fault = "\(dataDirectory) is not writable by this user: nothing new can be stored"
            }
        } catch {
            health.fault = "\(error)"
        }
        return health
    }

    static func size(_ bytes: Int64) -> String {
        if bytes >= 1 << 30 { return String(format: "%.1f GB", Double(bytes) / Double(1 << 30)) }
        if bytes >= 1 << 20 { return String(format: "%.1f MB", Double(bytes) / Double(1 << 20)) }
        return String(format: "%.0f kB", Double(bytes) / 1024)
    }

    /// The device's state: its word and line, and while a workout runs its plan, workout,
    /// profile and GPS.
    func stateFields() -> [(String, String)] {
        let snapshot = device.snapshot()
        var fields = [("state", snapshot.stateText), ("line", snapshot.line)]
        if snapshot.workoutRunning, let running = snapshot.running {
            fields += [("plan", running.plan), ("workout", running.workout), ("profile", running.profile),
                       ("gps", running.positioning ? running.gps.rawValue : "off")]
        }
        return fields
    }

    func report() -> PageResponse {
        let battery = BatteryHealth.read(setting: batterySetting, powerSupplyRoot: powerSupplyRoot)
        var batteryFigures: [(String, String)] = [("Setting", battery.configured)]
        if battery.simulated {
            batteryFigures.append(("Gauge", "simulated: the level is the energy model's estimate, no gauge is read"))
        }
        if let gauge = battery.gauge { batteryFigures.append(("Gauge", gauge)) }
        if let percent = battery.percent { batteryFigures.append(("Level", String(format: "%.0f %%", percent))) }
        if let voltage = battery.voltage { batteryFigures.append(("Voltage", String(format: "%.2f V", voltage))) }
        if let status = battery.status { batteryFigures.append(("Charging", status)) }
        var body = "<section id=\"battery\" class=\"\(battery.problem == nil ? "ok" : "fault")\"><h2>Battery</h2>"
        body += SectionSupport.figures(id: "battery-figures", batteryFigures)
        if let problem = battery.problem { body += "<p class=\"fault\">\(SectionSupport.esc(problem))</p>" }
        body += "</section>"

        let storage = storageHealth()
        var storageFigures: [(String, String)] = [("Data folder", storage.directory)]
        if let free = storage.freeBytes { storageFigures.append(("Free space", Self.size(free))) }
        if let size = storage.databaseBytes { storageFigures.append(("Database", Self.size(size))) }
        if let n = storage.activities { storageFigures.append(("Activities", "\(n)")) }
        if let n = storage.routes { storageFigures.append(("Routes", "\(n)")) }
        body += "<section id=\"storage\" class=\"\(storage.fault == nil ? "ok" : "fault")\"><h2>Storage</h2>"
        body += SectionSupport.figures(id: "storage-figures", storageFigures)
        if let fault = storage.fault { body += "<p class=\"fault\">\(SectionSupport.esc(fault))</p>" }
        body += "</section>"

        body += "<section id=\"device-state\"><h2>Device and GPS</h2>"
        body += SectionSupport.figures(id: "state-figures", stateFields()) + "</section>"
        body += "<section id=\"hw\"><h2>Hardware check</h2><p>Probes the GPS, the sound output, the battery gauge, "
            + "the button and the radio as <code>pacer hw check</code> does (a few seconds). "
            + "<a id=\"run-hw-check\" href=\"/health-report/hw-check\">Run the hardware check</a></p></section>"
        return .page(title: "Health", body: body)
    }

    /// `pacer hw check`'s report, run on a thread of its own (its probes wait for answers).
    public func hardwareCheck() async throws -> PageResponse {
        let configuration = try checkConfiguration()
        let report = await withCheckedContinuation { (done: CheckedContinuation<HardwareReport, Never>) in
            Thread.detachNewThread { done.resume(returning: HardwareCheck.run(configuration)) }
        }
        var body = "<p id=\"hw-verdict\" class=\"\(report.passed ? "ok" : "fault")\">"
            + (report.passed ? "Every required part is there." : "A required part is missing: "
                + SectionSupport.esc(report.missingRequired.map(\.name).joined(separator: ", ")) + ".")
            + "</p>"
        body += SectionSupport.table(
            id: "hw-parts", header: ["Part", "Status", "Found", "Problem", "Fix"],
            rows: report.parts.map { part in
                [SectionSupport.esc(part.name), "<span class=\"status-\(part.status.rawValue)\">\(part.status.rawValue)</span>",
                 SectionSupport.esc(part.found.joined(separator: "; ")), SectionSupport.esc(part.problem ?? ""),
                 SectionSupport.esc(part.fix.joined(separator: "; "))]
            }, rowClass: "hw-part")
        body += "<pre id=\"hw-check\">\(SectionSupport.esc(report.text()))</pre>"
        return .page(title: "Hardware check", body: body)
    }
}
