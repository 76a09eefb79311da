// What receivers send, built for the tests: NMEA 0183 checksums, whole sentences and the
// fixed-width numbers they are made of, and the binary packets (UBX, SiRF) that come between
// them. Plain strings and bytes: no dependency on the NMEA engine under test.

/// The two uppercase hex digits of an NMEA checksum: XOR of every byte of `body` (the text
/// between the start character and `*`).
public func checksum(_ body: String) -> String {
    checksum(bytes: Array(body.utf8))
}

/// The checksum of a body given as bytes (for bodies that are not valid UTF-8).
public func checksum(bytes body: [UInt8]) -> String {
    var sum: UInt8 = 0
    for byte in body { sum ^= byte }
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(sum >> 4)], digits[Int(sum & 0x0F)]])
}

/// A whole sentence with a correct checksum: `nmea("GPGGA,…")` is `$GPGGA,…*hh`.
public func nmea(_ body: String, start: Character = "$") -> String {
    "\(start)\(body)*\(checksum(body))"
}

/// A sentence as a receiver sends it: `$body*hh` and CR LF.
public func nmeaLine(_ body: String) -> String {
    nmea(body) + "\r\n"
}

/// `value` in decimal with leading zeros to `width` digits.
public func padded(_ value: Int, _ width: Int) -> String {
    let digits = String(value)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
}

/// `hhmmss.cc`, an NMEA time of day, for a time in hundredths of a second since midnight
/// (wrapping at midnight).
public func nmeaTime(centiseconds: Int) -> String {
    let c = centiseconds % (86_400 * 100)
    let s = c / 100
    return padded(s / 3600, 2) + padded(s / 60 % 60, 2) + padded(s % 60, 2) + "." + padded(c % 100, 2)
}

/// `hhmmss.00` for a whole second of the day.
public func nmeaTime(secondOfDay: Int) -> String {
    nmeaTime(centiseconds: secondOfDay * 100)
}

// MARK: - Binary packets (what receivers send besides NMEA)

/// A u-blox UBX packet: B5 62, class, id, little-endian length, payload, Fletcher checksum.
public func ubxPacket(class messageClass: UInt8, id: UInt8, payload: [UInt8]) -> [UInt8] {
    let length = UInt16(payload.count)
    let body = [messageClass, id, UInt8(length & 0xFF), UInt8(length >> 8)] + payload
    var a: UInt8 = 0, b: UInt8 = 0
    for byte in body {
        a = a &+ byte
        b = b &+ a
    }
    return [0xB5, 0x62] + body + [a, b]
}

/// A SiRF binary packet: A0 A2, big-endian 15-bit length, payload, 15-bit checksum, B0 B3.
public func sirfPacket(payload: [UInt8]) -> [UInt8] {
    let length = UInt16(payload.count)
    var sum: UInt16 = 0
    for byte in payload { sum = (sum &+ UInt16(byte)) & 0x7FFF }
    return [0xA0, 0xA2, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        + [UInt8(sum >> 8), UInt8(sum & 0xFF), 0xB0, 0xB3]
}

/// Bytes written the way receiver manuals write packets: `"B5 62 06 …"`.
public func hexBytes(_ text: String) -> [UInt8] {
    text.split(separator: " ").map { UInt8($0, radix: 16)! }
}
