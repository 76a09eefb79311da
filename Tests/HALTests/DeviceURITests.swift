import HAL
import Testing

@Suite("Device URIs")
struct DeviceURITests {
    @Test(arguments: [
        ("gpsd://localhost:2947", "gpsd", "localhost:2947", "", [:]),
        ("gpsd://", "gpsd", "", "", [:]),
        ("serial:///dev/ttyACM0?baud=9600", "serial", "", "/dev/ttyACM0", ["baud": "9600"]),
        ("file:///tmp/run.nmea?pace=fast&speed=10", "file", "", "/tmp/run.nmea", ["pace": "fast", "speed": "10"]),
        ("file:Hardware/recordings/x.nmea", "file", "", "Hardware/recordings/x.nmea", [:]),
        ("alsa:default", "alsa", "", "default", [:]),
        ("alsa:hw:1,0", "alsa", "", "hw:1,0", [:]),
        ("wav:/tmp/cues.wav", "wav", "", "/tmp/cues.wav", [:]),
        ("null", "null", "", "", [:]),
        ("sim?capacity=1200&level=80", "sim", "", "", ["capacity": "1200", "level": "80"]),
        ("SYSFS:/sys/class/power_supply/BAT0", "sysfs", "", "/sys/class/power_supply/BAT0", [:]),
    ] as [(String, String, String, String, [String: String])])
    func parses(text: String, scheme: String, authority: String, path: String, query: [String: String]) throws {
        let uri = try DeviceURI(parsing: text)
        #expect(uri.scheme == scheme)
        #expect(uri.authority == authority)
        #expect(uri.path == path)
        #expect(uri.query == query)
        #expect(uri.description == text)
    }

    @Test(arguments: ["", ":nothing", "file:x?pace", "file:x?=3", "se rial:x"])
    func refuses(text: String) {
        #expect(throws: DeviceURIError.self) { try DeviceURI(parsing: text) }
    }

    @Test func hostAndPortWithDefaults() throws {
        #expect(try DeviceURI(parsing: "gpsd://").hostAndPort(defaultHost: "localhost", defaultPort: 2947) == ("localhost", 2947))
        #expect(try DeviceURI(parsing: "gpsd://pi.local").hostAndPort(defaultHost: "localhost", defaultPort: 2947) == ("pi.local", 2947))
        #expect(try DeviceURI(parsing: "gpsd://:3000").hostAndPort(defaultHost: "localhost", defaultPort: 2947) == ("localhost", 3000))
        let error = #expect(throws: DeviceURIError.self) {
            try DeviceURI(parsing: "gpsd://host:0").hostAndPort(defaultHost: "localhost", defaultPort: 2947)
        }
        #expect(error?.reason.contains("1 to 65535") == true)
    }

    @Test func integerQueryItems() throws {
        let uri = try DeviceURI(parsing: "serial:///dev/ttyUSB0?baud=38400&x=y")
        #expect(try uri.integer("baud", default: 9600) == 38400)
        #expect(try uri.integer("missing", default: 9600) == 9600)
        #expect(throws: DeviceURIError.self) { try uri.integer("x", default: 0) }
    }
}
