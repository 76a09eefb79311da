import Coaching
import Configurator
import Foundation
import HAL
import PacerCore
import Runtime
import Simulation
import Storage
import TestSupport
import Testing

/// The composition root: one call makes the device, its store, the runtime's parts and the
/// firmware over them.
@Suite("Assembly")
struct AssemblyTests {
    func assemble(_ settings: Settings, start: Firmware.Start = .waiting) throws -> AssembledFirmware {
        try Configurator.firmware(
            settings: settings, storage: .store(try Configurator.makeActivityStore(settings)), start: start,
            timing: .virtual, today: { _ in CivilDate(year: 2026, month: 5, day: 2)! })
    }

    func settings(data: String) throws -> Settings {
        var settings = try Settings.load(path: "\(hardwareDirectory)/config/simulated.yaml")
        settings.hardwareDirectory = hardwareDirectory
        settings.dataDirectory = data
        return settings
    }

    @Test func theSimulatedDeviceIsAssembledWithItsSimulatedPartsByTheirOwnTypes() throws {
        let dir = try makeTemporaryDirectory()
        let assembled = try assemble(settings(data: dir))
        let parts = assembled.firmware.parts
        let sim = assembled.device.simulated
        let replay = try #require(sim.replay)
        let battery = try #require(sim.battery)
        #expect(sim.supply != nil, "a simulated battery and a build: the energy model drains it")
        // The runtime's parts are the device's own objects, not copies.
        #expect(parts.gps as? NMEAFileSource === replay)
        #expect(parts.battery === battery)
        #expect(parts.clock === assembled.clock)
        #expect(parts.log as? ActivityLogStore === assembled.store?.activities)
        #expect(parts.gpsHotStart == assembled.device.hardware?.gps.hotStart)
        #expect(parts.profile.name == "medium")
        #expect(assembled.recovered.isEmpty)
        #expect(assembled.controls == nil && assembled.buttons == nil, "no controls asked for, no button set")
        // A workout at once: its runtime opens the receiver itself.
        let plan = TrainingPlan(name: "p", workouts: [Workout(name: "w", phases: [
            Phase(name: "a", duration: .seconds(60), minimumSpeed: 2, maximumSpeed: 3),
        ])])
        let atOnce = try assemble(settings(data: try makeTemporaryDirectory()), start: .workout(plan: plan, index: 0, key: nil))
        #expect(atOnce.firmware.parts.gps === atOnce.device.simulated.replay)
    }

    @Test func realPartsHaveNoSimulatedHandles() throws {
        let dir = try makeTemporaryDirectory()
        var settings = try settings(data: dir)
        settings.gps = try DeviceURI(parsing: "gpsd://localhost:1")
        settings.battery = try DeviceURI(parsing: "sysfs:/nonexistent/BAT0")
        settings.hardware = nil
        let device = try assemble(settings).device
        #expect(device.simulated.replay == nil && device.simulated.battery == nil && device.simulated.supply == nil)
        #expect(device.gpsHotStart == .seconds(1), "no build: a second")
    }

    /// An activity a power cut left open is closed when the next device is assembled, and
    /// the caller is told which.
    @Test func anUnfinishedActivityIsRecoveredAtAssembly() throws {
        let dir = try makeTemporaryDirectory()
        let open: Int64
        do {
            let store = try PacerStore(directory: dir)
            open = try store.activities.begin(ActivityStart(name: "cut", startedAt: nil, plan: nil, workout: nil, profile: "medium"))
            try store.activities.commit()
        }
        let assembled = try assemble(settings(data: dir))
        #expect(assembled.recovered == [open])
        #expect(try assembled.store?.activities.activity(open).summary.state == .recovered)
    }

    /// The radio: none by default; a simulated one by its own type; a switch-off noted so
    /// that the power-on after a power cut switches it on again, and only then.
    @Test func theRadioIsSwitchedOnAgainAfterAPowerCutThatLeftItOff() throws {
        let dir = try makeTemporaryDirectory()
        #expect(try assemble(settings(data: dir)).firmware.parts.radio == nil)
        var s = try settings(data: dir)
        s.radio = try DeviceURI(parsing: "sim?blocked=yes")
        // Blocked by someone else: left off.
        let other = try assemble(s)
        let otherRadio = try #require(other.device.simulated.radio)
        #expect(otherRadio.read()?.softBlocked == true)
        #expect(otherRadio.changes.isEmpty)
        // Blocked by a workout the power cut ended: the marker is there, the radio on again.
        let marker = Configurator.radioMarker(s)
        #expect(marker == dir + "/radio-off-by-pacer")
        try other.firmware.parts.radio?.block()
        #expect(FileManager.default.fileExists(atPath: marker))
        let next = try assemble(s)
        let radio = try #require(next.device.simulated.radio)
        #expect(radio.read()?.softBlocked == false)
        #expect(radio.changes.map(\.blocked) == [false])
        #expect(!FileManager.default.fileExists(atPath: marker))
        // The runtime's radio notes its switch-off, and its switch-on clears it.
        try next.firmware.parts.radio?.block()
        #expect(FileManager.default.fileExists(atPath: marker))
        try next.firmware.parts.radio?.unblock()
        #expect(!FileManager.default.fileExists(atPath: marker))
        // A hard-blocked radio: Pacer's block lifted all the same, so the note goes.
        s.radio = try DeviceURI(parsing: "sim?hard=yes")
        let hard = try assemble(s)
        try hard.firmware.parts.radio?.block()
        #expect(throws: RadioError.self) { try hard.firmware.parts.radio?.unblock() }
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    @Test func radioSettingsPickTheirAdapter() throws {
        let clock = VirtualClock()
        func radio(_ text: String) throws(ConfigurationError) -> (any WirelessRadio)? {
            try Configurator.makeRadio(try? DeviceURI(parsing: text), clock: clock)
        }
        #expect(try radio("none") == nil)
        #expect(try radio("sim") is SimulatedRadio)
        #expect(try radio("sim?hard=yes")?.read()?.hardBlocked == true)
        #expect(try radio("sysfs:/sys/class/rfkill/rfkill0")?.name == "sysfs:/sys/class/rfkill/rfkill0")
        let option = #expect(throws: ConfigurationError.self) { try radio("sim?loud=yes") }
        #expect(option?.description.contains("unknown option 'loud'") == true)
        let value = #expect(throws: ConfigurationError.self) { try radio("sim?blocked=maybe") }
        #expect(value?.description.contains("blocked must be yes or no") == true)
        let kind = #expect(throws: ConfigurationError.self) { try radio("bluetooth") }
        #expect(kind?.description.contains("unknown radio 'bluetooth'") == true)
        // A board without Wi-Fi (no rfkill folder, or no wlan switch in it): no radio, no
        // failure; `pacer run` and the device go on as with `radio: none`.
        let empty = try makeTemporaryDirectory()
        let uri = try DeviceURI(parsing: "sysfs")
        #expect(try Configurator.makeRadio(uri, clock: clock, rfkillRoot: empty + "/rfkill") == nil)
        #expect(try Configurator.makeRadio(uri, clock: clock, rfkillRoot: empty) == nil)
    }
}
