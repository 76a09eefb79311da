import Foundation
import Logging
import PacerCore
import Storage
import TestSupport
import Testing
@testable import Configurator

/// The device's storage answers the controller's question at a start: which route the
/// runner chose (`pacer routes follow`, the companion page) for the next workout.
@Suite struct DeviceStorageRouteTests {
    @Test func theChosenRouteIsReadFromTheDataFolder() throws {
        let folder = TemporaryDirectory()
        var settings = try Settings.load(path: "\(hardwareDirectory)/config/simulated.yaml")
        settings.dataDirectory = folder.path + "/data"
        let storage = try DeviceStorage(settings: settings, logger: Logger(label: "test"))
        #expect(try storage.chosenRoute() == nil)
        let store = try storage.store()
        var gpx = "<?xml version=\"1.0\"?><gpx version=\"1.1\" creator=\"t\" xmlns=\"http://www.topografix.com/GPX/1/1\">"
            + "<rte><name>Canal</name>"
        for i in 0..<10 { gpx += "<rtept lat=\"\(48.0 + Double(i) * 20 / 111_195)\" lon=\"2.0\"/>" }
        gpx += "</rte></gpx>"
        try gpx.write(toFile: folder.path + "/canal.gpx", atomically: true, encoding: .utf8)
        let id = try store.gpx.importGPX(file: folder.path + "/canal.gpx", as: .route).id
        try store.routes.chooseRoute(id, at: UTCTimestamp(millisecondsSince1970: 1_000))
        let route = try #require(try storage.chosenRoute())
        #expect(route.name == "Canal")
        #expect(route.points.count == 10)
        // A route that does not exist is refused, and the choice stays.
        #expect(throws: StorageError.unknownRoute(5)) { try store.routes.chooseRoute(5, at: UTCTimestamp(millisecondsSince1970: 2_000)) }
        #expect(try store.routes.chosenRoute() == id)
        try store.routes.chooseRoute(nil, at: UTCTimestamp(millisecondsSince1970: 3_000))
        #expect(try storage.chosenRoute() == nil)
    }
}

/// The profile and announcements a runner changed since power-on (`device.yaml`, written by
/// the companion page and `pacer settings set`) are read again at each start; a `--profile`
/// on the command line still wins; a broken file leaves the workout as it was.
@Suite struct DeviceStorageWorkoutSettingsTests {
    @Test func device_yamlIsReadAgainAtEachStart() throws {
        let folder = TemporaryDirectory()
        var settings = try Settings.load(path: "\(hardwareDirectory)/config/simulated.yaml")
        settings.dataDirectory = folder.path + "/data"
        let storage = try DeviceStorage(settings: settings, logger: Logger(label: "test"))
        #expect(storage.workoutSettings() == nil, "no device.yaml: as at power-on")
        _ = try DeviceOverlay.set([("profile", "low"), ("speech.split_m", "500")], over: settings)
        let chosen = try #require(storage.workoutSettings())
        #expect(chosen.profile.name == "low")
        #expect(chosen.profiles == (try PowerProfileLoader.stepDownChain(from: chosen.profile, hardwareDir: hardwareDirectory)))
        #expect(chosen.speech.splitEvery == 500)

        var fixed = settings
        fixed.profileFromCommandLine = true
        let pinned = try DeviceStorage(settings: fixed, logger: Logger(label: "test"))
        #expect(pinned.workoutSettings()?.profile.name == settings.profile, "--profile wins")

        try "profile: [".write(toFile: DeviceOverlay.path(dataDirectory: settings.dataDirectory), atomically: true, encoding: .utf8)
        #expect(storage.workoutSettings() == nil, "a broken device.yaml changes nothing")
    }
}
