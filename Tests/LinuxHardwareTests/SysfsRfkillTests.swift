import Foundation
import Glibc
import HAL
import LinuxHardware
import TestSupport
import Testing

/// A fake `/sys/class/rfkill` in a unique temporary folder: one folder per switch with its
/// attribute files, as the kernel publishes them.
private final class FakeRfkill {
    private let folder = TemporaryDirectory("rfkill")
    var root: String { folder.path }

    @discardableResult
    func rfkill(_ name: String, type: String, driver: String = "phy0", soft: String = "0", hard: String = "0") throws -> String {
        let dir = root + "/" + name
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let state = hard == "1" ? "2" : soft == "1" ? "0" : "1"
        for (file, value) in ["type": type, "name": driver, "soft": soft, "hard": hard, "state": state] {
            try (value + "\n").write(toFile: dir + "/" + file, atomically: false, encoding: .utf8)
        }
        return dir
    }

    func read(_ name: String, _ file: String) throws -> String {
        try String(contentsOfFile: "\(root)/\(name)/\(file)", encoding: .utf8)
    }
}

@Suite("Sysfs rfkill radio", .timeLimit(.minutes(1)))
struct SysfsRfkillTests {
    @Test func findsTheWlanSwitchAmongSeveral() throws {
        let sys = FakeRfkill()
        try sys.rfkill("rfkill0", type: "bluetooth", driver: "hci0")
        try sys.rfkill("rfkill10", type: "wlan", driver: "phy1")
        try sys.rfkill("rfkill2", type: "wlan", driver: "phy0")
        try sys.rfkill("rfkill3", type: "wwan")
        let found = SysfsRfkill.discover(root: sys.root)
        #expect(found.map(\.path) == ["\(sys.root)/rfkill2", "\(sys.root)/rfkill10"])
        let first = try SysfsRfkill.first(root: sys.root)
        #expect(first.path == "\(sys.root)/rfkill2")
        #expect(first.name == "sysfs:\(sys.root)/rfkill2")
        #expect(first.driverName == "phy0")
        #expect(first.read() == RadioState(softBlocked: false, hardBlocked: false))
        #expect(first.unavailableReason == nil)
    }

    @Test func blockAndUnblockWriteTheSoftAttribute() throws {
        let sys = FakeRfkill()
        try sys.rfkill("rfkill0", type: "wlan")
        let radio = SysfsRfkill(path: sys.root + "/rfkill0/")  // a trailing slash is dropped
        try radio.block()
        #expect(try sys.read("rfkill0", "soft") == "1\n")
        #expect(radio.read()?.isBlocked == true)
        try radio.unblock()
        #expect(try sys.read("rfkill0", "soft") == "0\n")
        #expect(radio.read() == RadioState(softBlocked: false, hardBlocked: false))
    }

    @Test func aHardBlockedRadioCannotBeUnblocked() throws {
        let sys = FakeRfkill()
        try sys.rfkill("rfkill1", type: "wlan", soft: "1", hard: "1")
        let radio = SysfsRfkill(path: sys.root + "/rfkill1")
        #expect(radio.read() == RadioState(softBlocked: true, hardBlocked: true))
        let error = #expect(throws: RadioError.self) { try radio.unblock() }
        #expect(error?.description.contains("\(sys.root)/rfkill1/hard") == true, "\(String(describing: error))")
        #expect(error?.description.contains("hard-blocked") == true)
        // Pacer's own (soft) block is lifted all the same.
        #expect(try sys.read("rfkill1", "soft") == "0\n")
    }

    @Test func aMissingFolderOrSwitchIsAClearError() throws {
        let sys = FakeRfkill()
        let missing = #expect(throws: RadioError.self) { try SysfsRfkill.first(root: sys.root + "/nowhere") }
        #expect(missing?.description.contains("\(sys.root)/nowhere") == true)
        #expect(missing?.description.contains("No such file") == true, "\(String(describing: missing))")
        try sys.rfkill("rfkill0", type: "bluetooth")
        let noWlan = #expect(throws: RadioError.self) { try SysfsRfkill.first(root: sys.root) }
        #expect(noWlan?.description.contains("no rfkill switch of type wlan") == true)
        let gone = SysfsRfkill(path: sys.root + "/rfkill9")
        #expect(gone.read() == nil)
        #expect(gone.unavailableReason?.contains("\(sys.root)/rfkill9/soft") == true)
        let write = #expect(throws: RadioError.self) { try gone.block() }
        #expect(write?.description.contains("\(sys.root)/rfkill9/soft") == true)
    }

    @Test func garbageInTheSwitchIsReported() throws {
        let sys = FakeRfkill()
        try sys.rfkill("rfkill0", type: "wlan", soft: "maybe")
        let radio = SysfsRfkill(path: sys.root + "/rfkill0")
        #expect(radio.read() == nil)
        #expect(radio.unavailableReason?.contains("soft: expected 0 or 1, got 'maybe'") == true)
    }

    @Test(.enabled(if: getuid() != 0, "root may write any file"))
    func permissionDeniedNamesTheFileAndTheFix() throws {
        let sys = FakeRfkill()
        let dir = try sys.rfkill("rfkill0", type: "wlan")
        chmod(dir + "/soft", 0o444)
        let radio = SysfsRfkill(path: dir)
        let error = #expect(throws: RadioError.self) { try radio.block() }
        #expect(error?.description.contains("\(dir)/soft: Permission denied") == true, "\(String(describing: error))")
        #expect(error?.description.contains("70-pacer-rfkill.rules") == true)
    }
}
