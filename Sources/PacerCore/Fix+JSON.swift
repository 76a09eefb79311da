extension Fix {
    /// Appends the fix as one JSON object (no newline), in the field order and units gpsd uses
    /// for TPV reports: `{"time":"…Z","lat":…,"lon":…,"alt":…,"speed":…,"track":…,"mode":3}`
    /// (`pacer nmea decode --json`, `pacer gps --json`). Optional members are left out when
    /// unknown. Written with the JSON writer (`JSONObject`), as all of Pacer's JSON is.
    public func appendJSON(to out: inout [UInt8]) {
        var object: JSONObject = [
            ("time", .text(time.iso8601)), ("lat", .number(position.latitude, places: 9)),
            ("lon", .number(position.longitude, places: 9)),
        ]
        if let altitude { object.add("alt", .number(altitude, places: 4)) }
        if let speed { object.add("speed", .number(speed, places: 3)) }
        if let course { object.add("track", .number(course, places: 4)) }
        object.add("mode", .int(mode.rawValue))
        object.write(to: &out)
    }
}
