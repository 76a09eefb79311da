extension Fix {
    /// Appends the fix as one JSON object (no newline), in the field order and units gpsd uses
    /// for TPV reports: `{"time":"…Z","lat":…,"lon":…,"alt":…,"speed":…,"track":…,"mode":3}`.
    /// Optional members are left out when unknown. Allocation-free when `out` has capacity.
    public func appendJSON(to out: inout [UInt8]) {
        out.append(contentsOf: #"{"time":""#.utf8)
        time.appendISO8601(to: &out)
        out.append(contentsOf: #"","lat":"#.utf8)
        out.appendDecimal(position.latitude, places: 9)
        out.append(contentsOf: #","lon":"#.utf8)
        out.appendDecimal(position.longitude, places: 9)
        if let altitude {
            out.append(contentsOf: #","alt":"#.utf8)
            out.appendDecimal(altitude, places: 4)
        }
        if let speed {
            out.append(contentsOf: #","speed":"#.utf8)
            out.appendDecimal(speed, places: 3)
        }
        if let course {
            out.append(contentsOf: #","track":"#.utf8)
            out.appendDecimal(course, places: 4)
        }
        out.append(contentsOf: #","mode":"#.utf8)
        out.appendDigits(mode.rawValue, width: 1)
        out.append(UInt8(ascii: "}"))
    }
}
