import NMEA
import PacerCore

/// Writing NMEA 0183 fields onto a byte buffer, formatted as a u-blox M8 prints them
/// (latitude `ddmm.mmmmm`, longitude `dddmm.mmmmm`, time `hhmmss.ss`), allocation-free.
extension Array where Element == UInt8 {
    /// Starts a sentence: `$`, the talker and the formatter. Returns where it starts, for
    /// `endSentence`.
    mutating func beginSentence(_ talker: Talker, _ formatter: StaticString) -> Int {
        let start = count
        append(UInt8(ascii: "$"))
        append(talker.first)
        append(talker.second)
        formatter.withUTF8Buffer { append(contentsOf: $0) }
        return start
    }

    /// Ends the sentence begun at `start`: `*`, the checksum (XOR of everything between `$`
    /// and `*`) in two uppercase hex digits, CR LF.
    mutating func endSentence(_ start: Int) {
        var sum: UInt8 = 0
        for i in (start + 1)..<count { sum ^= self[i] }
        append(UInt8(ascii: "*"))
        append(Self.hexDigit(sum >> 4))
        append(Self.hexDigit(sum & 0x0F))
        append(0x0D)
        append(0x0A)
    }

    mutating func comma() { append(UInt8(ascii: ",")) }

    mutating func comma(_ n: Int) {
        for _ in 0..<n { append(UInt8(ascii: ",")) }
    }

    mutating func appendASCII(_ text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }

    /// `ddmm.mmmmm,N` from a latitude in hundred-thousandths of a minute (negative south).
    mutating func appendLatitude(units: Int) {
        appendAngle(units: Swift.abs(units), degreeDigits: 2)
        comma()
        append(units < 0 ? UInt8(ascii: "S") : UInt8(ascii: "N"))
    }

    /// `dddmm.mmmmm,E` from a longitude in hundred-thousandths of a minute (negative west).
    mutating func appendLongitude(units: Int) {
        appendAngle(units: Swift.abs(units), degreeDigits: 3)
        comma()
        append(units < 0 ? UInt8(ascii: "W") : UInt8(ascii: "E"))
    }

    private mutating func appendAngle(units: Int, degreeDigits: Int) {
        appendDigits(units / NMEAAngle.unitsPerDegree, width: degreeDigits)
        let rest = units % NMEAAngle.unitsPerDegree
        appendDigits(rest / NMEAAngle.unitsPerMinute, width: 2)
        append(UInt8(ascii: "."))
        appendDigits(rest % NMEAAngle.unitsPerMinute, width: 5)
    }

    /// `hhmmss.ss` from hundredths of a second into the day.
    mutating func appendTimeOfDay(centiseconds c: Int) {
        appendDigits(c / 360_000, width: 2)
        appendDigits(c / 6000 % 60, width: 2)
        appendDigits(c / 100 % 60, width: 2)
        append(UInt8(ascii: "."))
        appendDigits(c % 100, width: 2)
    }

    /// RMC's `ddmmyy`.
    mutating func appendShortDate(_ date: CivilDate) {
        appendDigits(date.day, width: 2)
        appendDigits(date.month, width: 2)
        appendDigits(date.year % 100, width: 2)
    }

    private static func hexDigit(_ v: UInt8) -> UInt8 {
        v < 10 ? UInt8(ascii: "0") + v : UInt8(ascii: "A") + v - 10
    }
}

/// Angles as NMEA writes them: whole hundred-thousandths of a minute (about 1.9 cm of
/// latitude), the resolution of a u-blox M8's high-precision output.
enum NMEAAngle {
    static let unitsPerMinute = 100_000
    static let unitsPerDegree = 60 * unitsPerMinute

    /// The nearest representable angle, in units (sign kept).
    static func units(_ degrees: Double) -> Int {
        let u = Int((Swift.abs(degrees) * Double(unitsPerDegree)).rounded())
        return degrees < 0 ? -u : u
    }

    /// The angle a reader gets back from `units`.
    static func degrees(_ units: Int) -> Double {
        let u = Swift.abs(units)
        let d = Double(u / unitsPerDegree) + Double(u % unitsPerDegree) / Double(unitsPerMinute) / 60
        return units < 0 ? -d : d
    }
}
