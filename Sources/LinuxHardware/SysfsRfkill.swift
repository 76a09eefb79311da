#if canImport(Glibc)
import Glibc
#endif
import HAL

/// The board's Wi-Fi radio switch, through the kernel's rfkill class
/// (`/sys/class/rfkill/rfkillN/`, Documentation/ABI/stable/sysfs-class-rfkill), as the
/// `rfkill` tool does it.
///
/// Each switch is a directory with small text files:
///
/// - `type`: what it switches: `wlan`, `bluetooth`, `wwan`, … (the one wanted is `wlan`);
/// - `name`: the driver's name for it (`phy0` for the Zero 2 W's CYW43438);
/// - `soft`: `1` blocked by software, `0` not; writing `1` blocks, `0` unblocks;
/// - `hard`: `1` blocked by hardware (a switch, a firmware line): read only, and while it
///   is `1` the radio stays off whatever `soft` says;
/// - `state` (deprecated, read only here): `0` soft-blocked, `1` unblocked, `2` hard-blocked.
///
/// Writing `soft` needs write access to the file (root, or the udev rule
/// `Hardware/udev/70-pacer-rfkill.rules`, which gives the `pacer` group write access to wlan
/// switches) and, checked by the kernel on every write, `CAP_NET_ADMIN` (the unit grants the
/// service that one capability). Every error names the file and the reason (`Permission
/// denied`, `Operation not permitted`, `No such file or directory`) and what to do.
public final class SysfsRfkill: WirelessRadio {
    /// Where the kernel publishes rfkill switches.
    public static let defaultRoot = "/sys/class/rfkill"

    /// The switch's directory (`/sys/class/rfkill/rfkill0`).
    public let path: String

    /// `sysfs:<path>`, as the radio setting names it.
    public var name: String { "sysfs:\(path)" }

    /// The switch whose directory is `path`.
    public init(path: String) {
        var p = path
        while p.count > 1, p.hasSuffix("/") { p.removeLast() }
        self.path = p
    }

    /// The wlan switches under `root`, sorted by their number (`rfkill2` before `rfkill10`).
    public static func discover(root: String = SysfsRfkill.defaultRoot) -> [SysfsRfkill] {
        let names = Sysfs.entries(of: root)
        func number(_ name: String) -> Int { Int(name.drop(while: { !$0.isNumber })) ?? Int.max }
        return names.sorted { (number($0), $0) < (number($1), $1) }
            .filter { (try? readValue(join(join(root, $0), "type"))) == "wlan" }
            .map { SysfsRfkill(path: join(root, $0)) }
    }

    /// The first wlan switch under `root`; an error naming the folder when there is none.
    public static func first(root: String = SysfsRfkill.defaultRoot) throws(RadioError) -> SysfsRfkill {
        var isDirectory = stat()
        guard stat(root, &isDirectory) == 0 else {
            throw RadioError("\(root): \(String(cString: strerror(errno))) (no rfkill in this kernel? use radio: none)")
        }
        guard let found = discover(root: root).first else {
            throw RadioError("\(root): no rfkill switch of type wlan (a board without Wi-Fi, or its driver not loaded: use radio: none)")
        }
        return found
    }

    /// The driver's name for the switch (`phy0`); nil when unreadable.
    public var driverName: String? { try? Self.readValue(file("name")) }

    public func read() -> RadioState? { try? state() }

    /// The switch now, or why it cannot be read.
    public func state() throws(RadioError) -> RadioState {
        let soft = try Self.readValue(file("soft"))
        let hard = try Self.readValue(file("hard"))
        guard let s = Self.flag(soft) else { throw RadioError("\(file("soft")): expected 0 or 1, got '\(soft)'") }
        guard let h = Self.flag(hard) else { throw RadioError("\(file("hard")): expected 0 or 1, got '\(hard)'") }
        return RadioState(softBlocked: s, hardBlocked: h)
    }

    public func block() throws(RadioError) {
        try Self.write("1", to: file("soft"))
    }

    /// Lifts the soft block; a radio still hard-blocked afterwards is an error (it stays off).
    public func unblock() throws(RadioError) {
        try Self.write("0", to: file("soft"))
        if try state().hardBlocked {
            throw RadioError("\(file("hard")): hard-blocked (a switch or the firmware): the radio stays off")
        }
    }

    public var unavailableReason: String? {
        do {
            _ = try state()
            return nil
        } catch {
            return error.description
        }
    }

    private func file(_ name: String) -> String { Self.join(path, name) }

    static func flag(_ text: String) -> Bool? { ["0": false, "1": true][text] }

    static func join(_ directory: String, _ name: String) -> String { Sysfs.join(directory, name) }

    /// A small attribute's contents without surrounding whitespace, or an error naming the
    /// file and the reason.
    static func readValue(_ path: String) throws(RadioError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw RadioError("\(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 64)
        var n: Int
        repeat {
            n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        } while n < 0 && errno == EINTR
        guard n >= 0 else { throw RadioError("\(path): \(String(cString: strerror(errno)))") }
        let text = String(decoding: bytes[0..<n], as: UTF8.self)
        return String(text.filter { !$0.isWhitespace && $0 != "\0" })
    }

    /// Writes `value` to an attribute, as `echo VALUE > PATH` does; an error names the file
    /// and the reason (permission denied: see the udev rule in Hardware/udev).
    static func write(_ value: String, to path: String) throws(RadioError) {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            var reason = String(cString: strerror(code))
            if code == EACCES || code == EPERM {
                reason += " (the pacer user needs write access: install the udev rule 70-pacer-rfkill.rules, or run as root)"
            }
            throw RadioError("\(path): \(reason)")
        }
        defer { close(fd) }
        let bytes = Array((value + "\n").utf8)
        var n: Int
        repeat {
            n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        } while n < 0 && errno == EINTR
        guard n == bytes.count else {
            guard n < 0 else { throw RadioError("\(path): short write") }
            let code = errno
            var reason = String(cString: strerror(code))
            if code == EPERM {
                reason += " (the kernel wants CAP_NET_ADMIN to switch a radio: AmbientCapabilities=CAP_NET_ADMIN in pacer.service, or run as root)"
            }
            throw RadioError("\(path): \(reason)")
        }
    }
}
