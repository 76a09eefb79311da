import Foundation
import HAL
import LinuxHardware
import TestSupport
import Testing

/// A fake `/sys/class/power_supply` in a unique temporary folder: real files and folders.
private final class FakePowerSupplies {
    private let folder = TemporaryDirectory("sysfs")
    var root: String { folder.path }

    /// A supply folder with the given attribute files (written with a trailing newline, as
    /// the kernel does).
    @discardableResult
    func supply(_ name: String, _ attributes: [String: String]) throws -> String {
        let dir = root + "/" + name
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (file, value) in attributes {
            try (value + "\n").write(toFile: dir + "/" + file, atomically: false, encoding: .utf8)
        }
        return dir
    }
}

@Suite("Sysfs battery gauge", .timeLimit(.minutes(1)))
struct SysfsBatteryTests {
    @Test func readsCapacityAndStatus() throws {
        let sys = FakePowerSupplies()
        try sys.supply("BAT0", ["type": "Battery", "capacity": "87", "status": "Discharging"])
        let gauge = SysfsBattery(root: sys.root, supply: "BAT0")
        #expect(gauge.read() == BatteryReading(percent: 87, charging: false))
        #expect(gauge.readStatus() == .discharging)
        #expect(gauge.name == "sysfs:\(sys.root)/BAT0")
        #expect(gauge.supply == "BAT0")
    }

    @Test(arguments: [
        ("Charging", true), ("Discharging", false), ("Full", false), ("Not charging", false), ("Unknown", false),
    ])
    func everyKernelStatusWord(word: String, charging: Bool) throws {
        let sys = FakePowerSupplies()
        try sys.supply("BAT1", ["type": "Battery", "capacity": "40", "status": word])
        let gauge = SysfsBattery(path: sys.root + "/BAT1/")  // a trailing slash is dropped
        #expect(gauge.read() == BatteryReading(percent: 40, charging: charging))
        #expect(gauge.readStatus()?.rawValue == word)
        #expect(gauge.name == "sysfs:\(sys.root)/BAT1")
    }

    @Test(arguments: ["abc", "-5", "101", "150", "87%", "4.5", "", "  "])
    func garbageCapacityGivesNoReading(value: String) throws {
        let sys = FakePowerSupplies()
        try sys.supply("BAT0", ["type": "Battery", "capacity": value, "status": "Discharging"])
        #expect(SysfsBattery(root: sys.root, supply: "BAT0").read() == nil)
    }

    @Test func garbageStatusGivesNoReading() throws {
        let sys = FakePowerSupplies()
        try sys.supply("BAT0", ["type": "Battery", "capacity": "50", "status": "Exploding"])
        let gauge = SysfsBattery(root: sys.root, supply: "BAT0")
        #expect(gauge.read() == nil)
        #expect(gauge.readStatus() == nil)
    }

    @Test func missingStatusMeansNotCharging() throws {
        let sys = FakePowerSupplies()
        try sys.supply("BAT0", ["type": "Battery", "capacity": "0"])
        #expect(SysfsBattery(root: sys.root, supply: "BAT0").read() == BatteryReading(percent: 0, charging: false))
    }

    @Test func missingOrUnreadableFilesGiveNoReading() throws {
        let sys = FakePowerSupplies()
        #expect(SysfsBattery(root: sys.root, supply: "nothing-here").read() == nil)
        try sys.supply("BAT0", ["type": "Battery", "status": "Charging"])
        #expect(SysfsBattery(root: sys.root, supply: "BAT0").read() == nil)  // no capacity at all
        // A capacity that cannot be read (here a folder: read fails with EISDIR, as a gauge
        // that answers EIO would).
        try FileManager.default.createDirectory(atPath: sys.root + "/BAT0/capacity", withIntermediateDirectories: true)
        #expect(SysfsBattery(root: sys.root, supply: "BAT0").read() == nil)
    }

    @Test func binaryGarbageDoesNotCrash() throws {
        let sys = FakePowerSupplies()
        let dir = try sys.supply("BAT0", ["type": "Battery", "status": "Full"])
        try Data([0xFF, 0xFE, 0x00, 0x80, 0x0A]).write(to: URL(fileURLWithPath: dir + "/capacity"))
        #expect(SysfsBattery(path: dir).read() == nil)
        try Data(repeating: 0x39, count: 100_000).write(to: URL(fileURLWithPath: dir + "/capacity"))
        #expect(SysfsBattery(path: dir).read() == nil)
    }

    @Test func chargeOrEnergyWhenThereIsNoCapacity() throws {
        let sys = FakePowerSupplies()
        try sys.supply("charge", ["type": "Battery", "status": "Charging", "charge_now": "1500000", "charge_full": "2000000"])
        try sys.supply("energy", ["type": "Battery", "status": "Discharging", "energy_now": "5550000", "energy_full": "7400000"])
        try sys.supply("over", ["type": "Battery", "charge_now": "2100000", "charge_full": "2000000"])
        try sys.supply("zero", ["type": "Battery", "charge_now": "100", "charge_full": "0"])
        #expect(SysfsBattery(root: sys.root, supply: "charge").read() == BatteryReading(percent: 75, charging: true))
        #expect(SysfsBattery(root: sys.root, supply: "energy").read() == BatteryReading(percent: 75, charging: false))
        #expect(SysfsBattery(root: sys.root, supply: "over").read()?.percent == 100)
        #expect(SysfsBattery(root: sys.root, supply: "zero").read() == nil)
    }

    @Test func discoverFindsTheBatteriesThatPowerTheMachine() throws {
        let sys = FakePowerSupplies()
        try sys.supply("BAT1", ["type": "Battery", "capacity": "60", "status": "Full"])
        try sys.supply("BAT0", ["type": "Battery", "capacity": "87", "status": "Discharging", "scope": "System"])
        try sys.supply("AC", ["type": "Mains", "online": "1"])
        try sys.supply("usb", ["type": "USB"])
        try sys.supply("hidpp_battery_0", ["type": "Battery", "scope": "Device", "capacity": "20"])
        try sys.supply("BAT9", ["type": "Battery", "present": "0"])
        try sys.supply("notype", ["capacity": "50"])
        let found = SysfsBattery.discover(root: sys.root)
        #expect(found.map(\.supply) == ["BAT0", "BAT1"])
        #expect(found.map(\.name) == ["sysfs:\(sys.root)/BAT0", "sysfs:\(sys.root)/BAT1"])
        #expect(found.first?.read() == BatteryReading(percent: 87, charging: false))
    }

    @Test func discoverOnAMissingOrEmptyRootFindsNothing() throws {
        let sys = FakePowerSupplies()
        #expect(SysfsBattery.discover(root: sys.root).isEmpty)
        #expect(SysfsBattery.discover(root: sys.root + "/does-not-exist").isEmpty)
    }

    @Test func discoverFollowsSymbolicLinksAsTheKernelPublishesThem() throws {
        // /sys/class/power_supply/BAT0 is a link into /sys/devices/…
        let sys = FakePowerSupplies()
        let real = try sys.supply("devices/platform/max17048/power_supply/max17048-0",
                                  ["type": "Battery", "capacity": "55", "status": "Discharging"])
        let classDir = sys.root + "/class"
        try FileManager.default.createDirectory(atPath: classDir, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: classDir + "/max17048-0", withDestinationPath: real)
        let found = SysfsBattery.discover(root: classDir)
        #expect(found.map(\.supply) == ["max17048-0"])
        #expect(found.first?.read()?.percent == 55)
    }
}
