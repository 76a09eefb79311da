import Foundation
import HAL
import LinuxHardware
import PacerCore
import TestSupport
import Testing

/// The BlueZ heart-rate source against a real dbus-daemon with BlueZ's objects served by
/// python-dbusmock (BlueZTestSupport.swift): only the radio is mocked. Serialized: each test
/// runs its own bus and mock, and the strap notifies at 1 Hz, as a real one does.
@Suite("BlueZ heart-rate source", .serialized, .timeLimit(.minutes(2)))
struct BlueZHeartRateSourceTests {
    /// Three measurements as a strap sends them: 8-bit values with contact, RR intervals, one
    /// 16-bit value with energy.
    static let measurements: [HeartRateMeasurement] = [
        HeartRateMeasurement(bpm: 142, contact: .detected, rrIntervals: [0.421875]),
        HeartRateMeasurement(bpm: 143, contact: .detected, rrIntervals: [0.419921875, 0.41796875]),
        HeartRateMeasurement(bpm: 300, contact: .detected, energyExpended: 512),
    ]

    @Test("finds a strap by its Heart Rate service, connects, reads its battery and its measurements at 1 Hz")
    func discoversByServiceAndReads() async throws {
        try await BlueZTest.withBus { bus in
            let rig = try await BlueZRig(bus: bus)
            defer { rig.stop() }
            #expect(rig.source.name == "bluez")
            rig.source.start(rig.sink)
            // Discovery first: the strap appears after it began, as one put on would.
            let searching = await eventually { rig.log.statuses.first?.status == .searching }
            #expect(searching, "\(rig.log.statuses)")
            try bus.addStrap(battery: 87)
            try bus.stream(Self.measurements.map(\.bytes))

            let read = await eventually(within: .seconds(15)) { rig.log.measurements.count >= 4 }
            try #require(read, "measurements: \(rig.log.measurements); statuses \(rig.log.statuses); \(rig.source.diagnostics)")
            let got = rig.log.measurements
            #expect(Array(got.prefix(3)) == Self.measurements)
            #expect(got[3] == Self.measurements[0])
            #expect(got[1].rrIntervals == [0.419921875, 0.41796875])
            #expect(got[2].bpm == 300 && got[2].energyExpended == 512)
            // One a second, as the strap sent them (the sink's clock stamps them).
            let times = rig.log.measurementTimes
            for (a, b) in zip(times, times.dropFirst()) {
                let gap = Double(b.nanoseconds - a.nanoseconds) / 1e9
                #expect(gap > 0.7 && gap < 1.3, "a gap of \(gap) s between measurements")
            }
            #expect(rig.log.batteries == [87])
            let statuses = rig.log.statuses.map(\.status)
            #expect(statuses == [.searching, .connected, .reading], "\(rig.log.statuses)")
            let connected = try #require(rig.log.statuses.first { $0.status == .connected })
            #expect(connected.detail?.contains(BlueZTest.strapAddress) == true)

            let adapterCalls = try bus.adapterCalls()
            #expect(adapterCalls.contains("SetDiscoveryFilter"))
            let start = try #require(adapterCalls.firstIndex(of: "StartDiscovery"))
            #expect(adapterCalls[start...].contains("StopDiscovery"), "discovery must stop before connecting: \(adapterCalls)")
            let calls = try bus.calls()
            #expect(calls.first?.hasPrefix("Connect ") == true, "\(calls)")
            #expect(calls.contains { $0.hasPrefix("ReadValue ") && $0.hasSuffix("/char0011") }, "\(calls)")
            #expect(calls.contains { $0.hasPrefix("StartNotify ") && $0.hasSuffix("/char000d") }, "\(calls)")

            let diagnostics = rig.source.diagnostics
            #expect(diagnostics.connections == 1)
            #expect(diagnostics.isConnected)
            #expect(diagnostics.adapter == "/org/bluez/hci0")
            #expect(diagnostics.strap == BlueZTest.strapAddress)

            // Stopping unsubscribes and disconnects, at once.
            let (_, took) = elapsed { rig.source.stop() }
            #expect(took < .seconds(3))
            let after = try bus.calls()
            #expect(after.suffix(2).map { String($0.prefix { $0 != " " }) } == ["StopNotify", "Disconnect"], "\(after)")
            #expect(!rig.source.diagnostics.isConnected)
            let count = rig.log.count
            #expect(await holdsThroughout(.milliseconds(1500)) { rig.log.count == count }, "events after stop()")
        }
    }

    @Test("connects to the strap set by its address, which does not advertise the service, and not to another")
    func connectsByAddress() async throws {
        try await BlueZTest.withBus { bus in
            try bus.addStrap(BlueZTest.otherAddress, name: "Other strap")
            try bus.stream([BlueZTest.bytes(99)], from: BlueZTest.otherAddress)
            let rig = try await BlueZRig(bus: bus, address: BlueZTest.strapAddress.lowercased())
            defer { rig.stop() }
            #expect(rig.source.name == "bluez:\(BlueZTest.strapAddress)")
            rig.source.start(rig.sink)
            #expect(await eventually { rig.log.statuses.first?.status == .searching })
            try bus.addStrap(advertise: false)
            try bus.stream([BlueZTest.bytes(121, rr: [0.5])])
            let read = await eventually(within: .seconds(15)) { rig.log.measurements.count >= 2 }
            try #require(read, "statuses \(rig.log.statuses); \(rig.source.diagnostics)")
            #expect(rig.log.measurements.allSatisfy { $0.bpm == 121 && $0.rrIntervals == [0.5] })
            let calls = try bus.calls()
            #expect(!calls.contains { $0.contains("dev_F0_13_C3_00_A2_5B") }, "connected to the other strap: \(calls)")
        }
    }

    @Test("a strap that drops, or that BlueZ forgets, is reported lost, reconnected, and read again")
    func reconnectsAfterDropAndRemoval() async throws {
        try await BlueZTest.withBus { bus in
            try bus.addStrap()
            try bus.stream([BlueZTest.bytes(130)])
            let rig = try await BlueZRig(bus: bus, address: BlueZTest.strapAddress)
            defer { rig.stop() }
            rig.source.start(rig.sink)
            try #require(await eventually(within: .seconds(15)) { rig.log.measurements.count >= 2 }, "\(rig.log.statuses)")

            // Out of range: Connected turns false.
            try bus.mock("Drop", "s", [BlueZTest.strapAddress])
            let lost = await eventually { rig.log.statuses.last?.status == .lost }
            try #require(lost, "\(rig.log.statuses)")
            // (A reconnect that fails says its own reason after: a lost with a new detail.)
            // Waited for, not read once: under load this read has been seen to miss a lost
            // that the failure's own message, read a moment later, then showed.
            #expect(await eventually { rig.log.statuses.contains { $0.status == .lost && $0.detail?.contains("disconnected") == true } },
                    "\(rig.log.statuses)")
            let before = rig.log.measurements.count
            let resumed = await eventually(within: .seconds(15)) { rig.log.measurements.count >= before + 2 }
            try #require(resumed, "\(rig.log.statuses); \(rig.source.diagnostics)")
            #expect(rig.log.statuses.suffix(3).map(\.status) == [.lost, .connected, .reading], "\(rig.log.statuses)")
            #expect(rig.source.diagnostics.connections == 2)

            // Gone from BlueZ altogether, then back: discovery finds it again.
            try bus.mock("Remove", "s", [BlueZTest.strapAddress])
            #expect(await eventually { rig.log.statuses.last?.status == .lost })
            #expect(rig.log.statuses.contains { $0.status == .lost && $0.detail?.contains("went away") == true },
                    "\(rig.log.statuses)")
            try await Task.sleep(for: .milliseconds(1500))
            try bus.addStrap()
            try bus.stream([BlueZTest.bytes(131)])
            let back = await eventually(within: .seconds(20)) { rig.log.measurements.last?.bpm == 131 }
            try #require(back, "\(rig.log.statuses); \(rig.source.diagnostics)")
            #expect(rig.source.diagnostics.connections == 3)
            let discoveries = try bus.adapterCalls().filter { $0 == "StartDiscovery" }.count
            #expect(discoveries >= 1)
        }
    }

    @Test("a strap that never connects stays searching, with the D-Bus error's name and message, and is tried again")
    func neverConnects() async throws {
        try await BlueZTest.withBus { bus in
            try bus.addStrap()
            try bus.mock("FailConnect", "sss", [BlueZTest.strapAddress, "org.bluez.Error.Failed", "le-connection-abort-by-local"])
            let rig = try await BlueZRig(bus: bus, address: BlueZTest.strapAddress)
            defer { rig.stop() }
            rig.source.start(rig.sink)
            // Tried at once, then after 1 s and 2 s more.
            let tried = await eventually(within: .seconds(10)) { rig.source.diagnostics.connectAttempts >= 3 }
            #expect(tried, "\(rig.source.diagnostics)")
            #expect(rig.sink.status == .searching)
            #expect(!rig.log.statuses.contains { $0.status == .connected || $0.status == .lost }, "\(rig.log.statuses)")
            let failure = try #require(rig.source.diagnostics.lastFailure)
            #expect(failure.contains("org.bluez.Error.Failed: le-connection-abort-by-local"), "\(failure)")
            #expect(failure.contains(BlueZTest.strapAddress))
            // Said once at warning level, its repeats at debug.
            let warnings = rig.logs.entries.filter { $0.level == .warning && $0.message.contains("org.bluez.Error.Failed") }
            #expect(warnings.count == 1, "\(rig.logs.messages)")

            // The strap relents: the next try connects.
            try bus.mock("FailConnect", "sss", [BlueZTest.strapAddress, "", ""])
            try bus.stream([BlueZTest.bytes(88)])
            let read = await eventually(within: .seconds(15)) { !rig.log.measurements.isEmpty }
            #expect(read, "\(rig.log.statuses); \(rig.source.diagnostics)")
        }
    }

    @Test("malformed and truncated notifications are dropped and logged, and the strap goes on being read")
    func malformedNotifications() async throws {
        try await BlueZTest.withBus { bus in
            try bus.addStrap()
            let good = BlueZTest.bytes(150, rr: [0.4])
            // Empty; a 16-bit value cut short; an energy field cut short; an RR interval cut short.
            try bus.stream([good, [], [0x01, 0x96], [0x08, 150, 0x01], [0x10, 150, 0x9a, 0x01, 0x9a], good], interval: 250)
            let rig = try await BlueZRig(bus: bus, address: BlueZTest.strapAddress)
            defer { rig.stop() }
            rig.source.start(rig.sink)
            let enough = await eventually(within: .seconds(15)) { rig.source.diagnostics.malformed >= 8 }
            try #require(enough, "\(rig.source.diagnostics); \(rig.log.statuses)")
            #expect(rig.log.measurements.count >= 3)
            #expect(rig.log.measurements.allSatisfy { $0.bpm == 150 && $0.rrIntervals == [0.400390625] })
            #expect(rig.sink.status == .reading)
            #expect(rig.source.diagnostics.isConnected)
            // One line per ten seconds, naming what was wrong.
            let dropped = rig.logs.messages.filter { $0.contains("dropped a notification") }
            #expect(dropped.count == 1, "\(dropped)")
            #expect(dropped.first?.contains("empty heart rate measurement") == true, "\(dropped)")
        }
    }

    @Test("powers the adapter on while a strap is wanted, and off again after")
    func powersTheAdapter() async throws {
        try await BlueZTest.withBus { bus in
            try bus.mock("SetPowered", "sb", ["hci0", false])
            try bus.addStrap()
            try bus.stream([BlueZTest.bytes(100)])
            let rig = try await BlueZRig(bus: bus, address: BlueZTest.strapAddress)
            rig.source.start(rig.sink)
            let read = await eventually(within: .seconds(15)) { !rig.log.measurements.isEmpty }
            try #require(read, "\(rig.log.statuses); \(rig.source.diagnostics)")
            #expect(try bus.adapterPowered())
            rig.stop()
            #expect(try !bus.adapterPowered())
        }
    }

    @Test("no BlueZ on the bus, and no bus at all: searching, saying which")
    func noBlueZ() async throws {
        try await BlueZTest.withBus(mock: false) { bus in
            let rig = try await BlueZRig(bus: bus)
            defer { rig.stop() }
            rig.source.start(rig.sink)
            let said = await eventually { rig.log.statuses.first?.status == .searching }
            try #require(said)
            let detail = try #require(rig.log.statuses.first?.detail)
            #expect(detail.contains("BlueZ (bluetoothd) is not running"), "\(detail)")
            #expect(detail.contains(bus.address), "\(detail)")
            #expect(throws: BlueZError.self) { try BlueZ.scan(for: .milliseconds(100), busAddress: bus.address) }
        }
        let nowhere = "unix:path=/nonexistent/pacer-test/system_bus_socket"
        do {
            _ = try BlueZ.scan(for: .milliseconds(100), busAddress: nowhere)
            Issue.record("a scan without a bus returned")
        } catch {
            guard case .noBus(let address, _) = error else {
                Issue.record("not .noBus: \(error)")
                return
            }
            #expect(address == nowhere)
            #expect(error.description.contains("/nonexistent/pacer-test/system_bus_socket"))
            #expect(error.description.contains("bluetoothd"))
        }
    }

    @Test("an address that is not one is refused")
    func invalidAddress() {
        #expect(throws: BlueZError.invalidAddress("C4:7C:8D:6A:3E")) { try BlueZHeartRateSource(address: "C4:7C:8D:6A:3E") }
        #expect(BlueZ.normalizedAddress("c4-7c-8d-6a-3e-11") == "C4:7C:8D:6A:3E:11")
        #expect(BlueZ.normalizedAddress("C4:7C:8D:6A:3E:1G") == nil)
    }
}

/// The one-shot scan and the check, against the same bus and mock.
@Suite("BlueZ scan and check", .serialized, .timeLimit(.minutes(2)))
struct BlueZScanTests {
    @Test("a scan lists the straps in range, nearest first, and leaves the adapter as it was")
    func scanListsStraps() async throws {
        try await BlueZTest.withBus { bus in
            try bus.mock("SetPowered", "sb", ["hci0", false])
            try bus.addStrap()
            try bus.addStrap(BlueZTest.otherAddress, name: "Far strap")
            try bus.mock("AddDevice", "sss", ["hci0", "11:22:33:44:55:66", "A phone"])
            let (adapter, straps) = try BlueZ.scan(for: .milliseconds(500), busAddress: bus.address)
            #expect(adapter.name == "hci0")
            #expect(!adapter.powered)
            #expect(straps.map(\.address).sorted() == [BlueZTest.strapAddress, BlueZTest.otherAddress].sorted())
            let strap = try #require(straps.first { $0.address == BlueZTest.strapAddress })
            #expect(strap.name == "Polar H10 6A3E11")
            #expect(strap.rssi == -58)
            #expect(strap.heartRate)
            #expect(!strap.connected)
            #expect(try bus.adapterCalls().contains("StartDiscovery"))
            #expect(try !bus.adapterPowered())
        }
    }

    @Test("the check finds the adapter and the paired strap, or says it is not in range")
    func check() async throws {
        try await BlueZTest.withBus { bus in
            try bus.addStrap()
            let seen = HardwareProbe.heartRateStrap(address: BlueZTest.strapAddress, busAddress: bus.address, listen: .milliseconds(300))
            #expect(seen.status == .ok, "\(seen)")
            #expect(seen.found.first?.hasPrefix("adapter hci0") == true, "\(seen.found)")
            #expect(seen.found.contains { $0.contains("paired strap seen: Polar H10 6A3E11 (\(BlueZTest.strapAddress))") }, "\(seen.found)")
            let missing = HardwareProbe.heartRateStrap(address: BlueZTest.otherAddress, busAddress: bus.address, listen: .milliseconds(300))
            #expect(missing.status == .warning)
            #expect(missing.problem?.contains("not in range") == true, "\(missing)")
        }
        let none = HardwareProbe.heartRateStrap(address: nil, busAddress: "unix:path=/nonexistent/bus", listen: .milliseconds(100))
        #expect(none.status == .warning)
        #expect(none.problem?.contains("/nonexistent/bus") == true, "\(none)")
    }
}
