import PacerCore

/// Why a radio could not be switched: the file or device that refused, and the reason.
public struct RadioError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// A radio's switch as the kernel reports it (rfkill): `soft` is the one software sets,
/// `hard` a switch or a firmware line software cannot change.
public struct RadioState: Hashable, Sendable {
    /// Blocked by software (`rfkill block`, or Pacer during a workout).
    public var softBlocked: Bool
    /// Blocked by hardware: no write unblocks it.
    public var hardBlocked: Bool

    public init(softBlocked: Bool, hardBlocked: Bool) {
        self.softBlocked = softBlocked
        self.hardBlocked = hardBlocked
    }

    /// Off, by either switch.
    public var isBlocked: Bool { softBlocked || hardBlocked }
}

/// The board's wireless (Wi-Fi) radio, which the device switches off during a workout on a
/// profile that asks it (`wifi_off_during_workout`) and on again after it: the
/// board's rfkill switch, a simulated one, or none.
public protocol WirelessRadio: AnyObject, Sendable {
    /// The radio's setting (`sysfs:/sys/class/rfkill/rfkill0`, `sim`, `none`).
    var name: String { get }
    /// The switch now; nil when it cannot be read (`unavailableReason` says why).
    func read() -> RadioState?
    /// Switches the radio off (a soft block).
    func block() throws(RadioError)
    /// Switches it on again (lifts the soft block; a hard block stays, and is reported).
    func unblock() throws(RadioError)
    /// Why the radio cannot be switched (no rfkill switch found, its file unreadable), or nil
    /// while it can.
    var unavailableReason: String? { get }
}

/// No radio to switch (`radio: none`): the desktop, the simulator, a board without Wi-Fi.
/// The device runs as if the profile did not ask: nothing is switched, nothing reported.
public final class NullRadio: WirelessRadio {
    public init() {}
    public var name: String { "none" }
    public func read() -> RadioState? { nil }
    public func block() throws(RadioError) {}
    public func unblock() throws(RadioError) {}
    public var unavailableReason: String? { nil }
}
