import Foundation
import TestSupport
import Testing

/// `pacer hr scan | pair | unpair` and the hardware check's heart-rate line, run as a person
/// would, against the test's bus and BlueZ mock (BlueZTestSupport.swift), the bus given to
/// `pacer` by DBUS_SYSTEM_BUS_ADDRESS as it would be on the board.
@Suite("pacer hr", .serialized, .timeLimit(.minutes(2)))
struct BlueZCommandTests {
    /// A settings file of simulated parts whose data folder is `folder`'s.
    private func settings(_ folder: TemporaryDirectory, heartRate: String? = nil) throws -> String {
        let path = folder.path + "/pacer.yaml"
        let text = """
            gps: none
            buzzer: "null"
            battery: sim
            profile: low
            data_dir: \(folder.path)/data
            hardware_dir: \(hardwareDirectory)
            """ + (heartRate.map { "\nheart_rate: \($0)" } ?? "") + "\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("scan lists the straps in range; pair stores the one seen, refuses one that is not; unpair forgets it")
    func scanPairUnpair() async throws {
        try await BlueZTest.withBus { bus in
            try bus.addStrap()
            let env = ["DBUS_SYSTEM_BUS_ADDRESS": bus.address]
            let scan = try await offThePool { try Pacer.run(["hr", "scan", "--seconds", "0.5"], environment: env) }
            #expect(scan.status == 0, "\(scan.output)")
            let lines = scan.stdout.split(separator: "\n")
            #expect(lines.first?.hasPrefix("ADDRESS") == true, "\(scan.stdout)")
            #expect(lines.contains { $0.hasPrefix("\(BlueZTest.strapAddress)  Polar H10 6A3E11  -58 dBm  -") }, "\(scan.stdout)")

            let folder = TemporaryDirectory()
            let config = try settings(folder)
            let data = folder.path + "/data"
            let unseen = try await offThePool {
                try Pacer.run(["hr", "pair", BlueZTest.otherAddress, "--seconds", "0.5", "--config", config], environment: env)
            }
            #expect(unseen.status == 69, "\(unseen.output)")
            #expect(unseen.stderr.contains("no strap at \(BlueZTest.otherAddress) seen"), "\(unseen.stderr)")
            #expect(!FileManager.default.fileExists(atPath: data + "/device.yaml"))

            let pair = try await offThePool {
                try Pacer.run(["hr", "pair", BlueZTest.strapAddress.lowercased(), "--seconds", "0.5", "--config", config],
                              environment: env)
            }
            #expect(pair.status == 0, "\(pair.output)")
            #expect(pair.stdout.contains("found Polar H10 6A3E11 (\(BlueZTest.strapAddress))"), "\(pair.stdout)")
            let overlay = try String(contentsOfFile: data + "/device.yaml", encoding: .utf8)
            #expect(overlay.contains("heart_rate: 'bluez:\(BlueZTest.strapAddress)'"), "\(overlay)")

            // The check reads the pairing through the settings, and finds the strap.
            let check = try await offThePool {
                try Pacer.run(["hw", "check", "--config", config, "--listen", "0.5", "--json"], environment: env)
            }
            let object = try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [String: Any]
            let parts = object?["parts"] as? [[String: Any]] ?? []
            let heart = try #require(parts.first { $0["part"] as? String == "heart rate" }, "\(check.output)")
            #expect(heart["configured"] as? String == "bluez:\(BlueZTest.strapAddress)")
            #expect(heart["status"] as? String == "ok", "\(heart)")
            #expect((heart["found"] as? [String])?.contains { $0.hasPrefix("paired strap seen: Polar H10 6A3E11") } == true, "\(heart)")

            let unpair = try await offThePool { try Pacer.run(["hr", "unpair", "--config", config], environment: env) }
            #expect(unpair.status == 0, "\(unpair.output)")
            #expect(try String(contentsOfFile: data + "/device.yaml", encoding: .utf8).contains("heart_rate: 'none'"))
            let none = try await offThePool { try Pacer.run(["hw", "check", "--config", config, "--listen", "0", "--json"]) }
            #expect(none.stdout.contains(#""part":"heart rate","configured":"none","required":false,"status":"ok""#), "\(none.stdout)")
        }
    }

    @Test("no bus: scan exits 69 naming the bus and bluetoothd; pair stores the strap unseen, saying so; a wrong address is a usage error")
    func noBus() async throws {
        let nowhere = "unix:path=/nonexistent/pacer-hr/system_bus_socket"
        let env = ["DBUS_SYSTEM_BUS_ADDRESS": nowhere]
        let scan = try await offThePool { try Pacer.run(["hr", "scan", "--seconds", "0.2"], environment: env) }
        #expect(scan.status == 69)
        #expect(scan.stderr.contains("/nonexistent/pacer-hr/system_bus_socket"), "\(scan.stderr)")
        #expect(scan.stderr.contains("BlueZ (bluetoothd)"), "\(scan.stderr)")

        let folder = TemporaryDirectory()
        let config = try settings(folder)
        let pair = try await offThePool { try Pacer.run(["hr", "pair", BlueZTest.strapAddress, "--config", config], environment: env) }
        #expect(pair.status == 0, "\(pair.output)")
        #expect(pair.stderr.contains("warning: cannot look for the strap"), "\(pair.stderr)")
        #expect(try String(contentsOfFile: folder.path + "/data/device.yaml", encoding: .utf8)
            .contains("heart_rate: 'bluez:\(BlueZTest.strapAddress)'"))

        let wrong = try await offThePool { try Pacer.run(["hr", "pair", "C4:7C:8D", "--config", config], environment: env) }
        #expect(wrong.status == 64)
        #expect(wrong.stderr.contains("'C4:7C:8D' is not a Bluetooth address"), "\(wrong.stderr)")
        let set = try await offThePool { try Pacer.run(["settings", "set", "heart_rate", "bluez:nope", "--config", config]) }
        #expect(set.status == 78)
        #expect(set.stderr.contains("'nope' is not a Bluetooth address"), "\(set.stderr)")
    }
}
