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

/// The composition root: one call makes the device, its store and the runtime's parts.
@Suite("Assembly")
struct AssemblyTests {
    func settings(data: String) throws -> Settings {
        var settings = try Settings.load(path: "\(hardwareDirectory)/config/simulated.yaml")
        settings.hardwareDirectory = hardwareDirectory
        settings.dataDirectory = data
        return settings
    }

    @Test func theSimulatedDeviceIsAssembledWithItsSimulatedPartsByTheirOwnTypes() throws {
        let dir = try makeTemporaryDirectory()
        let assembled = try Configurator.assemble(settings: settings(data: dir), timing: .virtual)
        let sim = assembled.device.simulated
        let replay = try #require(sim.replay)
        let battery = try #require(sim.battery)
        #expect(sim.supply != nil, "a simulated battery and a build: the energy model drains it")
        // The runtime's parts are the device's own objects, not copies.
        #expect(assembled.parts.gps === replay)
        #expect(assembled.parts.battery === battery)
        #expect(assembled.parts.clock === assembled.clock)
        #expect(assembled.parts.log as? ActivityStore === assembled.store)
        #expect(assembled.parts.gpsHotStart == assembled.device.hardware?.gps.hotStart)
        #expect(assembled.parts.profile.name == "medium")
        #expect(assembled.recovered.isEmpty)
    }

    @Test func realPartsHaveNoSimulatedHandles() throws {
        let dir = try makeTemporaryDirectory()
        var settings = try settings(data: dir)
        settings.gps = try DeviceURI(parsing: "gpsd://localhost:1")
        settings.battery = try DeviceURI(parsing: "sysfs:/nonexistent/BAT0")
        settings.hardware = nil
        let device = try Configurator.assemble(settings: settings, timing: .virtual).device
        #expect(device.simulated.replay == nil && device.simulated.battery == nil && device.simulated.supply == nil)
        #expect(device.gpsHotStart == .seconds(1), "no build: a second")
    }

    /// An activity a power cut left open is closed when the next device is assembled, and
    /// the caller is told which.
    @Test func anUnfinishedActivityIsRecoveredAtAssembly() throws {
        let dir = try makeTemporaryDirectory()
        let open: Int64
        do {
            let store = try ActivityStore(directory: dir)
            open = try store.begin(ActivityStart(name: "cut", startedAt: nil, plan: nil, workout: nil, profile: "medium"))
            try store.commit()
        }
        let assembled = try Configurator.assemble(settings: settings(data: dir), timing: .virtual)
        #expect(assembled.recovered == [open])
        #expect(try assembled.store.activity(open).summary.state == .recovered)
    }
}
