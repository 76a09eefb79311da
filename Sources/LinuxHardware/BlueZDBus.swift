#if canImport(Glibc)
import Glibc
#endif
import CSDBus
import PacerCore

// The little of D-Bus the BlueZ adapter needs, on libsystemd's sd-bus (opened at first use,
// `LibSystemd`): a connection to the system bus that one thread owns, method calls built and
// read with sd-bus's fixed-argument functions (its variadic ones cannot be called from
// Swift), and the signals of a match rule collected as values. Nothing here knows BlueZ.

/// A value read from a D-Bus message, whatever its signature. Variants and dictionaries stay
/// as they came (`variant`, arrays of `entry`); the accessors below look through them.
enum DBusValue: Hashable, Sendable {
    case byte(UInt8)
    case bool(Bool)
    case int(Int64)
    case unsigned(UInt64)
    case double(Double)
    /// A string, an object path or a signature.
    case string(String)
    /// An array of bytes (`ay`), read whole.
    case bytes([UInt8])
    case array([DBusValue])
    indirect case entry(DBusValue, DBusValue)
    case structure([DBusValue])
    indirect case variant(DBusValue)
    /// A Unix file descriptor's index (`h`); never used, read so that a message with one
    /// can still be read.
    case fd(Int32)

    /// The value inside any variants.
    var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    var string: String? {
        if case .string(let s) = unwrapped { return s }
        return nil
    }

    var bool: Bool? {
        if case .bool(let b) = unwrapped { return b }
        return nil
    }

    /// Any integer that fits an `Int`.
    var int: Int? {
        switch unwrapped {
        case .byte(let b): return Int(b)
        case .int(let i): return Int(exactly: i)
        case .unsigned(let u): return Int(exactly: u)
        default: return nil
        }
    }

    /// An `ay`, or an array of bytes read one by one.
    var bytes: [UInt8]? {
        switch unwrapped {
        case .bytes(let b): return b
        case .array(let items):
            var out: [UInt8] = []
            for item in items {
                guard case .byte(let b) = item else { return nil }
                out.append(b)
            }
            return out
        default: return nil
        }
    }

    var strings: [String]? {
        guard case .array(let items) = unwrapped else { return nil }
        var out: [String] = []
        for item in items {
            guard let s = item.string else { return nil }
            out.append(s)
        }
        return out
    }

    /// A dictionary with string keys (`a{sv}`, `a{sa{sv}}`, `a{oa{…}}`), its values as they
    /// came (a variant's content is read with the accessors, which look through it).
    var dictionary: [String: DBusValue]? {
        guard case .array(let items) = unwrapped else { return nil }
        var out: [String: DBusValue] = [:]
        for item in items {
            guard case .entry(let key, let value) = item, let k = key.string else { return nil }
            out[k] = value
        }
        return out
    }
}

/// An argument of a method call. Only the shapes BlueZ's methods take.
indirect enum DBusArgument: Sendable {
    case string(String)
    case objectPath(String)
    case bool(Bool)
    case stringArray([String])
    /// `a{sv}`: each value is written in a variant of its own signature.
    case dictionary([(String, DBusArgument)])
    case variant(DBusArgument)

    var signature: String {
        switch self {
        case .string: "s"
        case .objectPath: "o"
        case .bool: "b"
        case .stringArray: "as"
        case .dictionary: "a{sv}"
        case .variant: "v"
        }
    }
}

/// A D-Bus failure: an error the other side replied with (`name` is its D-Bus name,
/// `org.bluez.Error.Failed`), or one of the connection's own (`errno` set, no name).
struct DBusError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The error's D-Bus name, for an error reply.
    var name: String?
    var message: String
    /// The system's error number, for a failure on this side (the socket, the library).
    var errno: Int32?
    /// The wait was cut short: the thread was asked to stop.
    var interrupted = false

    static func local(_ code: Int32, _ what: String) -> DBusError {
        DBusError(name: nil, message: "\(what): \(String(cString: strerror(code)))", errno: code)
    }

    static let stopped = DBusError(name: nil, message: "stopped", errno: nil, interrupted: true)

    /// The connection itself is gone (the bus daemon stopped or closed it): a new one is needed.
    var connectionLost: Bool {
        guard let errno else { return false }
        return [ECONNRESET, ENOTCONN, EPIPE, ESHUTDOWN, ECONNREFUSED, ENOENT].contains(errno)
    }

    /// The name has no owner on the bus: the service (bluetoothd) is not running.
    var serviceUnknown: Bool {
        name == "org.freedesktop.DBus.Error.ServiceUnknown" || name == "org.freedesktop.DBus.Error.NameHasNoOwner"
    }

    var description: String {
        name.map { "\($0): \(message)" } ?? message
    }
}

/// A signal the connection's match rules let through.
struct DBusSignal: Hashable, Sendable {
    var path: String
    var interface: String
    var member: String
    var arguments: [DBusValue]
}

/// The system bus's address for messages: `explicit`, else `DBUS_SYSTEM_BUS_ADDRESS` (which
/// sd-bus honours too), else the standard socket.
func systemBusAddress(_ explicit: String?) -> String {
    if let explicit { return explicit }
    if let env = getenv("DBUS_SYSTEM_BUS_ADDRESS"), let text = String(validatingCString: env), !text.isEmpty { return text }
    return "unix:path=/run/dbus/system_bus_socket"
}

/// Where signals wait between the match callback (inside `sd_bus_process`) and the thread
/// that reads them; both on the connection's one thread.
private final class DBusSignalInbox {
    var signals: [DBusSignal] = []
}

/// The reply an asynchronous call's callback received.
private final class DBusPendingReply {
    var reply: OpaquePointer?
}

/// A connection to a bus. **One thread**: sd-bus connections are not thread-safe, so the
/// thread that opens one is the only one that uses it, and frees it (not `Sendable`).
///
/// Waits (`pump`, an interruptible `call`) poll the connection's socket beside a wake-up
/// descriptor, with sd-bus's own timeout (a call's reply deadline) or the caller's deadline,
/// on `CLOCK_MONOTONIC`; nothing sleeps or spins.
final class DBusConnection {
    private let lib: LibSystemd
    private var bus: OpaquePointer?
    private var slots: [OpaquePointer] = []
    private let inbox = DBusSignalInbox()
    /// The address, for messages.
    let address: String

    /// Connects to the system bus at `address` (nil: `DBUS_SYSTEM_BUS_ADDRESS` or the
    /// standard socket) as a bus client (the `Hello` is sent).
    init(systemBus address: String?) throws(DBusError) {
        switch LibSystemd.loaded {
        case .success(let lib): self.lib = lib
        case .failure(let problem): throw DBusError(name: nil, message: problem.description, errno: nil)
        }
        self.address = systemBusAddress(address)
        var bus: OpaquePointer?
        if let address {
            var r = lib.new(&bus)
            guard r >= 0, let opened = bus else { throw .local(-r, "cannot make a bus connection") }
            r = address.withCString { lib.setAddress(opened, $0) }
            if r >= 0 { r = lib.setBusClient(opened, 1) }
            if r >= 0 { r = lib.start(opened) }
            guard r >= 0 else {
                _ = lib.flushCloseUnref(opened)
                throw .local(-r, "cannot connect to the system bus at \(address)")
            }
        } else {
            let r = lib.openSystem(&bus)
            guard r >= 0, bus != nil else { throw .local(-r, "cannot connect to the system bus at \(self.address)") }
        }
        self.bus = bus
    }

    deinit {
        for slot in slots { _ = lib.slotUnref(slot) }
        if let bus { _ = lib.flushCloseUnref(bus) }
    }

    /// Collects the signals `rule` matches (`type='signal',sender='org.bluez'`) for `signals`.
    func addMatch(_ rule: String) throws(DBusError) {
        var slot: OpaquePointer?
        let context = Unmanaged.passUnretained(inbox).toOpaque()
        let r = rule.withCString { text in
            lib.addMatch(bus, &slot, text, { message, userdata, _ in
                guard let message, let userdata else { return 0 }
                let inbox = Unmanaged<DBusSignalInbox>.fromOpaque(userdata).takeUnretainedValue()
                if let signal = DBusConnection.signal(from: message) { inbox.signals.append(signal) }
                return 0
            }, context)
        }
        guard r >= 0, let slot else { throw .local(-r, "cannot add the match \(rule)") }
        slots.append(slot)
    }

    /// The signals collected since the last call, oldest first.
    func takeSignals() -> [DBusSignal] {
        defer { inbox.signals.removeAll() }
        return inbox.signals
    }

    var hasSignals: Bool { !inbox.signals.isEmpty }

    /// Calls `member` and returns the reply's values. With `wake`, the call is asynchronous
    /// and the wait ends early, throwing `DBusError.stopped`, when `wake` becomes readable;
    /// without, it blocks (sd_bus_call) for at most `timeout`. Signals that arrive meanwhile
    /// are kept for `takeSignals`.
    func call(
        _ destination: String, _ path: String, _ interface: String, _ member: String, _ arguments: [DBusArgument] = [],
        timeout: Duration, wake: Int32? = nil
    ) throws(DBusError) -> [DBusValue] {
        var message: OpaquePointer?
        var r = lib.newMethodCall(bus, &message, destination, path, interface, member)
        guard r >= 0, let message else { throw .local(-r, "cannot make the call \(interface).\(member)") }
        defer { _ = lib.messageUnref(message) }
        for argument in arguments {
            r = append(argument, to: message)
            guard r >= 0 else { throw .local(-r, "cannot write the arguments of \(interface).\(member)") }
        }
        let usec = UInt64(max(1, timeout.nanoseconds / 1000))
        guard let wake else {
            var error = sd_bus_error()
            var reply: OpaquePointer?
            r = lib.call(bus, message, usec, &error, &reply)
            defer {
                lib.errorFree(&error)
                if let reply { _ = lib.messageUnref(reply) }
            }
            if r < 0 {
                if let name = error.name {
                    throw DBusError(name: String(cString: name), message: error.message.map { String(cString: $0) } ?? "", errno: nil)
                }
                throw .local(-r, "\(interface).\(member) on \(path) failed")
            }
            guard let reply else { return [] }
            return try Self.values(of: reply)
        }
        let pending = DBusPendingReply()
        var slot: OpaquePointer?
        r = lib.callAsync(bus, &slot, message, { reply, userdata, _ in
            guard let reply, let userdata else { return 0 }
            let pending = Unmanaged<DBusPendingReply>.fromOpaque(userdata).takeUnretainedValue()
            pending.reply = LibSystemd.functions.messageRef(reply)
            return 1
        }, Unmanaged.passUnretained(pending).toOpaque(), usec)
        guard r >= 0 else { throw .local(-r, "cannot send \(interface).\(member) to \(path)") }
        // Freeing the slot cancels a call still waiting; after a reply it only frees it.
        defer { if let slot { _ = lib.slotUnref(slot) } }
        return try withExtendedLifetime(pending) { () throws(DBusError) -> [DBusValue] in
            while pending.reply == nil {
                if try pump(until: nil, wake: wake) == .woken { throw .stopped }
            }
            guard let reply = pending.reply else { return [] }
            defer { _ = lib.messageUnref(reply) }
            if let error = lib.getError(reply), let name = error.pointee.name {
                throw DBusError(
                    name: String(cString: name), message: error.pointee.message.map { String(cString: $0) } ?? "", errno: nil)
            }
            return try Self.values(of: reply)
        }
    }

    enum PumpEnd: Equatable {
        /// Something was read or sent: look at the state again.
        case progressed
        /// The deadline passed.
        case timedOut
        /// `wake` became readable.
        case woken
    }

    /// Processes what the connection has (signals into the inbox, replies to their calls);
    /// when there was nothing, waits for the socket, `wake` or `deadline` (monotonic
    /// nanoseconds; nil: none but sd-bus's own), then processes again. Throws when the
    /// connection fails.
    func pump(until deadline: Int64?, wake: Int32?) throws(DBusError) -> PumpEnd {
        if try processAll() { return .progressed }
        let now = HardwareProbe.monotonicNanoseconds()
        var timeout: Int64 = -1
        if let deadline {
            if deadline <= now { return .timedOut }
            timeout = deadline - now
        }
        var busDeadline: UInt64 = 0
        if lib.getTimeout(bus, &busDeadline) > 0, busDeadline != UInt64.max {
            let left = (busDeadline > UInt64(Int64.max / 1000) ? Int64.max : Int64(busDeadline) * 1000) - now
            timeout = timeout < 0 ? max(0, left) : min(timeout, max(0, left))
        }
        let events = lib.getEvents(bus)
        guard events >= 0 else { throw .local(-events, "the bus connection failed") }
        var fds = [pollfd(fd: lib.getFD(bus), events: Int16(truncatingIfNeeded: events), revents: 0)]
        if let wake { fds.append(pollfd(fd: wake, events: Int16(POLLIN), revents: 0)) }
        // Milliseconds, rounded up so that a deadline is not polled for again just before it.
        let milliseconds = timeout < 0 ? Int32(-1) : Int32(clamping: (timeout + 999_999) / 1_000_000)
        let ready = poll(&fds, nfds_t(fds.count), milliseconds)
        if ready < 0 && errno != EINTR { throw .local(errno, "poll on the bus connection failed") }
        if fds.count > 1, fds[1].revents != 0 { return .woken }
        if try processAll() { return .progressed }
        if let deadline, HardwareProbe.monotonicNanoseconds() >= deadline { return .timedOut }
        return .progressed
    }

    /// `sd_bus_process` until it has nothing left; whether it did anything.
    private func processAll() throws(DBusError) -> Bool {
        var any = false
        while true {
            let r = lib.process(bus, nil)
            if r < 0 { throw .local(-r, "the bus connection failed") }
            if r == 0 { return any }
            any = true
        }
    }

    // MARK: writing

    private func append(_ argument: DBusArgument, to m: OpaquePointer) -> Int32 {
        func basic(_ type: Character, _ value: UnsafeRawPointer) -> Int32 {
            lib.appendBasic(m, CChar(type.asciiValue!), value)
        }
        func container(_ type: Character, _ contents: String, _ body: () -> Int32) -> Int32 {
            var r = contents.withCString { lib.openContainer(m, CChar(type.asciiValue!), $0) }
            guard r >= 0 else { return r }
            r = body()
            guard r >= 0 else { return r }
            return lib.closeContainer(m)
        }
        switch argument {
        case .string(let s):
            return s.withCString { basic("s", $0) }
        case .objectPath(let s):
            return s.withCString { basic("o", $0) }
        case .bool(let b):
            var value: Int32 = b ? 1 : 0
            return basic("b", &value)
        case .stringArray(let items):
            return container("a", "s") {
                for item in items {
                    let r = item.withCString { basic("s", $0) }
                    if r < 0 { return r }
                }
                return 0
            }
        case .dictionary(let entries):
            return container("a", "{sv}") {
                for (key, value) in entries {
                    let r = container("e", "sv") {
                        let r = key.withCString { basic("s", $0) }
                        return r < 0 ? r : append(.variant(value), to: m)
                    }
                    if r < 0 { return r }
                }
                return 0
            }
        case .variant(let inner):
            return container("v", inner.signature) { append(inner, to: m) }
        }
    }

    // MARK: reading

    /// A signal's path, interface, member and arguments; nil when it cannot be read.
    private static func signal(from m: OpaquePointer) -> DBusSignal? {
        let lib = LibSystemd.functions
        guard let path = lib.getPath(m), let interface = lib.getInterface(m), let member = lib.getMember(m),
              let arguments = try? values(of: m)
        else { return nil }
        return DBusSignal(
            path: String(cString: path), interface: String(cString: interface), member: String(cString: member),
            arguments: arguments)
    }

    /// Every value of a message, from its start.
    static func values(of m: OpaquePointer) throws(DBusError) -> [DBusValue] {
        var out: [DBusValue] = []
        while let value = try next(m, depth: 0) { out.append(value) }
        return out
    }

    /// The next value in the current container, or nil at its end.
    private static func next(_ m: OpaquePointer, depth: Int) throws(DBusError) -> DBusValue? {
        let lib = LibSystemd.functions
        // D-Bus allows 32 levels of arrays and 32 of structures; more is a broken message.
        guard depth <= 64 else { throw DBusError(name: nil, message: "a message nested too deep", errno: nil) }
        var type: CChar = 0
        var contentsPointer: UnsafePointer<CChar>?
        var r = lib.peekType(m, &type, &contentsPointer)
        if r < 0 { throw .local(-r, "cannot read a message") }
        if r == 0 { return nil }
        let contents = contentsPointer.map { String(cString: $0) } ?? ""
        let code = UInt8(bitPattern: type)
        func fail(_ r: Int32) -> DBusError { .local(-r, "cannot read a value of type \(Character(Unicode.Scalar(code)))") }
        func container(_ body: () throws(DBusError) -> DBusValue) throws(DBusError) -> DBusValue {
            r = contents.withCString { lib.enterContainer(m, type, $0) }
            guard r >= 0 else { throw fail(r) }
            let value = try body()
            r = lib.exitContainer(m)
            guard r >= 0 else { throw fail(r) }
            return value
        }
        func items() throws(DBusError) -> [DBusValue] {
            var out: [DBusValue] = []
            while let item = try next(m, depth: depth + 1) { out.append(item) }
            return out
        }
        switch code {
        case UInt8(ascii: "a"):
            if contents == "y" {
                var pointer: UnsafeRawPointer?
                var size = 0
                r = lib.readArray(m, CChar(UInt8(ascii: "y")), &pointer, &size)
                guard r >= 0 else { throw fail(r) }
                guard let pointer, size > 0 else { return .bytes([]) }
                return .bytes(Array(UnsafeRawBufferPointer(start: pointer, count: size)))
            }
            return try container { () throws(DBusError) in .array(try items()) }
        case UInt8(ascii: "v"):
            return try container { () throws(DBusError) in
                guard let inner = try next(m, depth: depth + 1) else { throw DBusError(name: nil, message: "an empty variant", errno: nil) }
                return .variant(inner)
            }
        case UInt8(ascii: "e"):
            return try container { () throws(DBusError) in
                let pair = try items()
                guard pair.count == 2 else { throw DBusError(name: nil, message: "a dictionary entry of \(pair.count) values", errno: nil) }
                return .entry(pair[0], pair[1])
            }
        case UInt8(ascii: "r"):
            return try container { () throws(DBusError) in .structure(try items()) }
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
            var text: UnsafePointer<CChar>?
            r = lib.readBasic(m, type, &text)
            guard r >= 0 else { throw fail(r) }
            return .string(text.map { String(cString: $0) } ?? "")
        default:
            var storage: UInt64 = 0
            r = lib.readBasic(m, type, &storage)
            guard r >= 0 else { throw fail(r) }
            return withUnsafeBytes(of: storage) { raw -> DBusValue in
                switch code {
                case UInt8(ascii: "y"): .byte(raw.load(as: UInt8.self))
                case UInt8(ascii: "b"): .bool(raw.load(as: Int32.self) != 0)
                case UInt8(ascii: "n"): .int(Int64(raw.load(as: Int16.self)))
                case UInt8(ascii: "q"): .unsigned(UInt64(raw.load(as: UInt16.self)))
                case UInt8(ascii: "i"): .int(Int64(raw.load(as: Int32.self)))
                case UInt8(ascii: "u"): .unsigned(UInt64(raw.load(as: UInt32.self)))
                case UInt8(ascii: "x"): .int(raw.load(as: Int64.self))
                case UInt8(ascii: "t"): .unsigned(raw.load(as: UInt64.self))
                case UInt8(ascii: "d"): .double(raw.load(as: Double.self))
                case UInt8(ascii: "h"): .fd(raw.load(as: Int32.self))
                default: .unsigned(storage)
                }
            }
        }
    }
}
