import Configurator
import Foundation
import HAL
import PacerCore
import Storage
import Synchronization
import TestSupport
@testable import Companion

/// A device of the tests' own around a real store in a temporary folder: its state is a
/// switch the test turns (a workout running or not).
final class SwitchableStoreDevice: CompanionDevice {
    let activities: PacerStore
    let running = Mutex(false)

    init(directory: String) throws {
        activities = try PacerStore(directory: directory, access: .write)
    }

    func snapshot() -> DeviceSnapshot {
        running.withLock { $0 } ? DeviceSnapshot(state: .running, line: "running") : DeviceSnapshot(state: .ready, line: "ready")
    }
    func send(_ command: ControlCommand) async -> String { "ok" }
    func store() throws -> PacerStore { activities }
    /// How many times the page told the device its plan changed.
    let plansChanged = Mutex(0)
    func planChanged() { plansChanged.withLock { $0 += 1 } }
}

/// A data folder with a store, the repository's Hardware as hardware_dir (its bundled plans,
/// profiles and phrase books), and the three sections on them, at a fixed time.
struct PagesFixture {
    let folder = TemporaryDirectory("pages2")
    let device: SwitchableStoreDevice
    let settings: @Sendable () throws -> Settings
    /// 2026-06-01 08:00 UTC.
    static let now = UTCTimestamp(millisecondsSince1970: 1_780_300_800_000)

    var data: String { folder.path + "/data" }

    init() throws {
        let data = folder.path + "/data"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        device = try SwitchableStoreDevice(directory: data)
        settings = { try Settings.load(path: hardwareDirectory + "/config/simulated.yaml",
                                       overrides: Settings.Overrides(dataDirectory: data)) }
    }

    var plans: PlansSection { PlansSection(device: device, settings: settings, now: { Self.now }) }
    var athlete: AthleteSection { AthleteSection(device: device, now: { Self.now }) }
    var deviceSettings: DeviceSettingsSection { DeviceSettingsSection(device: device, settings: settings) }
}

/// The route of `section` that `method` and `path` match, called as the server would call it
/// (captures from `:name` parts); a path no route takes fails the test.
func callRoute(_ section: some CompanionSection, _ method: PageRequest.Method, _ path: String,
          form: [String: String] = [:], uploads: [String: Upload] = [:]) async throws -> PageResponse {
    let parts = path.split(separator: "/").map(String.init)
    for route in section.routes where route.method == method {
        let pattern = route.pattern.split(separator: "/").map(String.init)
        guard pattern.count == parts.count else { continue }
        var captures: [String: String] = [:]
        var matches = true
        for (p, s) in zip(pattern, parts) {
            if p.hasPrefix(":") {
                captures[String(p.dropFirst())] = s.removingPercentEncoding ?? s
            } else if p != s {
                matches = false
                break
            }
        }
        if matches {
            return try await route.handler(PageRequest(method: method, path: path, parameters: captures, form: form,
                                                       uploads: uploads, csrfToken: "token-123"))
        }
    }
    throw PageTestError.noRoute("\(method.rawValue) \(path)")
}

enum PageTestError: Error { case noRoute(String), unexpected(String) }

extension PageResponse {
    /// The page's body, or "" for another answer.
    var body: String {
        if case .page(_, let body) = self { return body }
        return ""
    }

    var refusal: (status: Int, message: String)? {
        if case .refused(let status, let message) = self { return (status, message) }
        return nil
    }

    var redirect: (to: String, notice: String?)? {
        if case .redirect(let to, let notice) = self { return (to, notice) }
        return nil
    }
}
