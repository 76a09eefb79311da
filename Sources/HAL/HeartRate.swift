import PacerCore
import Synchronization

/// One Heart Rate Measurement, the value of the Bluetooth SIG's GATT characteristic 0x2A37
/// (Heart Rate Service 1.0, §3.1; the characteristic's fields in the GATT Specification
/// Supplement, "Heart Rate Measurement"), as a chest strap notifies it about once a second.
///
/// The bytes: a flags byte; the heart rate as a UINT8 (flags bit 0 clear) or a little-endian
/// UINT16 (bit 0 set); the energy expended since the last reset, a UINT16 in kilojoules
/// (bit 3); then RR intervals to the end, each a UINT16 in 1/1024 s (bit 4). Bits 1 and 2
/// carry the sensor contact: bit 2 says the strap can tell, bit 1 that the skin is touched.
public struct HeartRateMeasurement: Hashable, Sendable {
    /// Whether the strap touches the skin, as the measurement says.
    public enum Contact: String, Hashable, Sendable {
        /// The strap cannot tell (flags bit 2 clear).
        case unsupported
        /// The strap can tell and feels no skin: its heart rate is not the runner's.
        case notDetected = "not-detected"
        case detected
    }

    /// Beats per minute.
    public var bpm: Int
    public var contact: Contact
    /// Kilojoules since the strap's count was last reset, when sent.
    public var energyExpended: Int?
    /// The intervals between beats since the last measurement, seconds (sent in 1/1024 s).
    public var rrIntervals: [Double]

    public init(bpm: Int, contact: Contact = .unsupported, energyExpended: Int? = nil, rrIntervals: [Double] = []) {
        self.bpm = bpm
        self.contact = contact
        self.energyExpended = energyExpended
        self.rrIntervals = rrIntervals
    }

    /// The runner's heart rate, when the measurement has one: a value above zero, from a strap
    /// that touches the skin or cannot tell. A strap off the chest sends zero, or says so.
    public var heartRate: Int? {
        bpm > 0 && contact != .notDetected ? bpm : nil
    }

    /// Reads a measurement's bytes. Throws, naming the field, when they end inside one; the
    /// reserved bits (5 to 7) are ignored, as the specification asks of a reader.
    public init(bytes: some Collection<UInt8>) throws(HeartRateMeasurementError) {
        let b = Array(bytes)
        guard let flags = b.first else { throw .empty }
        var i = 1
        func uint16(_ field: HeartRateMeasurementError.Field) throws(HeartRateMeasurementError) -> Int {
            guard i + 1 < b.count else { throw .truncated(field, length: b.count) }
            defer { i += 2 }
            return Int(b[i]) | Int(b[i + 1]) << 8
        }
        if flags & 0x01 != 0 {
            bpm = try uint16(.heartRate)
        } else {
            guard i < b.count else { throw .truncated(.heartRate, length: b.count) }
            bpm = Int(b[i])
            i += 1
        }
        switch flags & 0x06 {
        case 0x06: contact = .detected
        case 0x04: contact = .notDetected
        default: contact = .unsupported
        }
        energyExpended = flags & 0x08 != 0 ? try uint16(.energyExpended) : nil
        var rr: [Double] = []
        if flags & 0x10 != 0 {
            // One or more; a strap that has seen no beat since the last measurement sends the
            // flag with none, which many do: accepted as none.
            while i < b.count { rr.append(Double(try uint16(.rrInterval)) / 1024) }
        } else if i < b.count {
            // Bytes after the last field: some straps pad. Ignored, as reserved fields are.
        }
        rrIntervals = rr
    }

    /// The measurement's bytes as a strap would send them: the value as a UINT8 when it fits,
    /// the RR intervals rounded to 1/1024 s. What the simulator and the tests' straps send.
    public var bytes: [UInt8] {
        var flags: UInt8 = bpm > 255 ? 0x01 : 0
        switch contact {
        case .unsupported: break
        case .notDetected: flags |= 0x04
        case .detected: flags |= 0x06
        }
        if energyExpended != nil { flags |= 0x08 }
        if !rrIntervals.isEmpty { flags |= 0x10 }
        var out = [flags]
        func put16(_ v: Int) {
            let c = UInt16(clamping: v)
            out.append(UInt8(c & 0xFF))
            out.append(UInt8(c >> 8))
        }
        if bpm > 255 { put16(bpm) } else { out.append(UInt8(clamping: max(bpm, 0))) }
        if let energyExpended { put16(energyExpended) }
        for r in rrIntervals { put16(Int((r * 1024).rounded())) }
        return out
    }
}

/// Why a Heart Rate Measurement's bytes could not be read.
public enum HeartRateMeasurementError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The measurement's fields, as the specification names them.
    public enum Field: String, Hashable, Sendable {
        case heartRate = "Heart Rate Measurement Value"
        case energyExpended = "Energy Expended"
        case rrInterval = "RR-Interval"
    }

    case empty
    case truncated(Field, length: Int)

    public var description: String {
        switch self {
        case .empty: "an empty heart rate measurement (no flags byte)"
        case .truncated(let field, let length): "a heart rate measurement of \(length) bytes ends inside its \(field.rawValue) field"
        }
    }
}

/// Where a heart-rate strap stands. Reported to the runtime as it changes.
public enum HeartRateStatus: String, Hashable, Sendable {
    /// No strap set, or the radio is off: nothing looked for.
    case off
    /// Looking for the strap (discovery, or connecting to the one set).
    case searching
    /// Connected and subscribed; no measurement yet.
    case connected
    /// Measurements arrive.
    case reading
    /// The strap was connected and went away (out of range, its battery, taken off); the
    /// source is reconnecting.
    case lost
}

/// What a heart-rate source tells the runtime.
public enum HeartRateEvent: Hashable, Sendable {
    case status(HeartRateStatus, detail: String?)
    /// A measurement, as the strap sent it.
    case measurement(HeartRateMeasurement)
    /// The strap's battery, per cent (Battery Level, 0x2A19).
    case battery(Int)
}

/// A source of heart rate beside the GPS: a Bluetooth strap through BlueZ, a recorded stream
/// in the simulator, or none. As a `GPSSource`, it does the raw part (discover, connect,
/// subscribe, reconnect) and reports through its sink, which hands events to the clock's loop.
public protocol HeartRateSource: AnyObject, Sendable {
    /// The source's setting, for logs and errors (`bluez:C4:7C:8D:6A:3E:11`, `sim:hr.csv`).
    var name: String { get }
    /// Starts looking for the strap; events go to `sink`. A source is started once.
    func start(_ sink: HeartRateEventSink)
    /// Stops, disconnects the strap and lets the radio rest.
    func stop()
}

/// The shared half of every heart-rate source: stamps each event with the clock's time and
/// runs the handler on the clock's loop, in the order the events were reported; keeps the
/// latest status and measurement for other threads (the page, `pacer hw check`).
public final class HeartRateEventSink: Sendable {
    private struct State {
        var status = HeartRateStatus.off
        var detail: String?
        var latest: HeartRateMeasurement?
        var battery: Int?
    }

    private let clock: any PacerClock
    private let handler: @Sendable (HeartRateEvent, Instant) -> Void
    private let state = Mutex(State())

    public init(clock: any PacerClock, handler: @escaping @Sendable (HeartRateEvent, Instant) -> Void) {
        self.clock = clock
        self.handler = handler
    }

    /// Reports an event from any thread. A measurement while the status is not `.reading`
    /// reports that status first.
    public func report(_ event: HeartRateEvent) {
        if case .measurement = event, status != .reading { report(.status(.reading, detail: nil)) }
        let changed = state.withLock { s -> Bool in
            switch event {
            case .status(let status, let detail):
                defer {
                    s.status = status
                    s.detail = detail
                }
                if status != .reading { s.latest = nil }
                // The same status with a new reason is news (a strap that never connects says
                // why, and why it changed); the same again is not.
                return s.status != status || s.detail != detail
            case .measurement(let m):
                s.latest = m
                return true
            case .battery(let level):
                defer { s.battery = level }
                return s.battery != level
            }
        }
        guard changed else { return }
        clock.execute { [clock, handler] in handler(event, clock.now) }
    }

    public var status: HeartRateStatus { state.withLock { $0.status } }
    /// The last measurement since the strap was last connected.
    public var latest: HeartRateMeasurement? { state.withLock { $0.latest } }
    /// The strap's battery, per cent, when it said.
    public var battery: Int? { state.withLock { $0.battery } }
}

/// No heart-rate source (`heart_rate: none`): nothing is looked for, the radio stays as it is.
public final class NullHeartRateSource: HeartRateSource {
    public init() {}
    public var name: String { "none" }
    public func start(_ sink: HeartRateEventSink) {}
    public func stop() {}
}
