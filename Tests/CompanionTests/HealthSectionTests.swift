import Companion
import Configurator
import Foundation
import Storage
import TestSupport
import Testing

@Suite struct HealthSectionTests {
    let folder = TemporaryDirectory()

    /// A sysfs-shaped power supply folder with one battery.
    func powerSupply(capacity: String = "77", voltage: String = "3912000", status: String = "Charging") throws -> String {
        let root = folder.path + "/power_supply"
        let bat = root + "/BAT0"
        try FileManager.default.createDirectory(atPath: bat, withIntermediateDirectories: true)
        for (file, value) in [("type", "Battery"), ("capacity", capacity), ("voltage_now", voltage), ("status", status)] {
            try (value + "\n").write(toFile: bat + "/" + file, atomically: true, encoding: .utf8)
        }
        return root
    }

    @Test func batteryStorageAndStateAreRead() async throws {
        let dir = folder.path + "/data"
        let store = try PacerStore(directory: dir)
        _ = try recordWorkout(into: store)
        _ = try recordWorkout(into: store, offset: 600)
        let section = HealthSection(device: StoreDevice(store), dataDirectory: dir, batterySetting: "sysfs",
                                    powerSupplyRoot: try powerSupply(), checkConfiguration: { HardwareCheck.Configuration() })
        let body = pageBody(try await call(section, .get, "/health-report"))
        #expect(body.contains("<section id=\"battery\" class=\"ok\">"))
        #expect(body.contains("<dd>77 %</dd>") && body.contains("<dd>3.91 V</dd>") && body.contains("<dd>charging</dd>"))
        #expect(body.contains("BAT0"))
        #expect(body.contains("<section id=\"storage\" class=\"ok\">"))
        #expect(body.contains("<dt>Activities</dt><dd>2</dd>"))
        #expect(body.contains("<dt>Free space</dt>") && body.contains("<dt>Database</dt>"))
        #expect(body.contains("<dt>line</dt><dd>ready: GPS fix, 7 satellites</dd>"))
        #expect(body.contains("id=\"run-hw-check\""))
        let health = section.storageHealth()
        #expect((health.databaseBytes ?? 0) > 0 && (health.freeBytes ?? 0) > 0 && health.fault == nil)
    }

    @Test func aFolderThatCannotBeUsedAndAGaugeThatCannotBeReadAreFaults() async throws {
        let section = HealthSection(device: StoreDevice(nil, fault: "the card is read-only"), dataDirectory: folder.path,
                                    batterySetting: "sysfs", powerSupplyRoot: try powerSupply(capacity: "full of it"),
                                    checkConfiguration: { HardwareCheck.Configuration() })
        let body = pageBody(try await call(section, .get, "/health-report"))
        #expect(body.contains("<section id=\"storage\" class=\"fault\">"))
        #expect(body.contains("the card is read-only"))
        #expect(body.contains("<section id=\"battery\" class=\"fault\">"))
        #expect(body.contains("cannot be read as a battery gauge"))
        let sim = HealthSection(device: StoreDevice(nil), dataDirectory: folder.path, batterySetting: "sim?level=80",
                                checkConfiguration: { HardwareCheck.Configuration() })
        #expect(pageBody(try await call(sim, .get, "/health-report")).contains("simulated: the level is the energy model"))
    }

    /// The check is `pacer hw check`'s: the same parts from the same options, the same text.
    @Test func theHardwareCheckIsWhatTheCommandSays() async throws {
        let options = ["--gps", "none", "--buzzer", "null", "--battery", "sim", "--listen", "0.5"]
        let section = HealthSection(device: StoreDevice(nil), dataDirectory: folder.path, batterySetting: "sim") {
            try HardwareCheck.configuration(settingsPath: nil, gps: "none", buzzer: "null", battery: "sim",
                                            listen: .milliseconds(500))
        }
        let body = pageBody(try await call(section, .get, "/health-report/hw-check"))
        let cli = try Pacer.run(["hw", "check"] + options)
        #expect(cli.status == 0, "\(cli.output)")
        #expect(body.contains("<table id=\"hw-parts\" class=\"stack\">"))
        // The same report but for what changes from one run to the next (how long speech
        // took to render, the system time).
        func steady(_ text: String) -> [String] {
            text.split(separator: "\n").map(String.init).filter { !$0.contains("rendered") && !$0.contains("system time") }
        }
        let pre = try #require(body.range(of: "<pre id=\"hw-check\">")).upperBound
        let shown = String(body[pre...].prefix(while: { $0 != "<" }))
        #expect(steady(shown) == steady(CompanionHTML.escape(cli.stdout)))
        #expect(steady(shown).contains { $0.hasPrefix("GPS      ok        none   (required)") })
        #expect(body.contains("id=\"hw-verdict\""))
        let broken = HealthSection(device: StoreDevice(nil), dataDirectory: folder.path, batterySetting: "sim") {
            try HardwareCheck.configuration(settingsPath: folder.path + "/missing.yaml")
        }
        let refused = try await call(broken, .get, "/health-report/hw-check")
        guard case .refused(400, let message) = refused else { Issue.record("\(refused)"); return }
        #expect(message.contains("missing.yaml"))
    }
}

@Suite struct RecordsSectionsTests {
    /// The three sections from the settings: their menu entries and every route, no path twice.
    @Test func theSectionsFromTheSettingsAnswerTheirPaths() throws {
        var settings = try Settings.load(path: "\(hardwareDirectory)/config/simulated.yaml")
        let folder = TemporaryDirectory()
        settings.dataDirectory = folder.path
        let sections = RecordsSections.make(device: StoreDevice(nil), settings: settings, settingsPath: nil, version: "0",
                                            now: { start0 })
        #expect(sections.compactMap(\.menu?.path) == ["/activities", "/routes", "/health-report"])
        let keys = sections.flatMap(\.routes).map { "\($0.method.rawValue) \($0.pattern)" }
        #expect(Set(keys).count == keys.count)
        #expect(keys.contains("GET /activities/:id/fit") && keys.contains("POST /routes/follow")
                && keys.contains("POST /routes/import") && keys.contains("GET /health-report/hw-check"))
        #expect(!keys.contains("GET /health"), "/health is the server's own check")
    }
}
