import Configurator
import HAL
import LinuxHardware
import Simulation
import Synchronization
import Testing

@Suite("Configurator factory")
struct ConfiguratorFactoryTests {
    let clock = VirtualClock()

    func gps(_ text: String) throws -> (any GPSSource)? {
        try Configurator.makeGPSSource(DeviceURI(parsing: text), clock: clock)
    }

    @Test func eachGPSSchemePicksItsAdapter() throws {
        #expect(try gps("gpsd://") is GPSDSource)
        #expect(try gps("gpsd://pi.local:3000")?.name == "gpsd://pi.local:3000")
        #expect(try gps("serial:///dev/ttyACM0?baud=38400") is SerialNMEASource)
        #expect(try gps("file:\(hardwareDirectory)/recordings/track-loop.nmea?pace=fast") is NMEAFileSource)
        #expect(try gps("none") == nil)
    }

    @Test(arguments: [
        ("bluetooth://gps", "unknown GPS source"),
        ("serial://", "names no device"),
        ("serial:///dev/ttyACM0?baud=12345", "12345"),
        ("serial:///dev/ttyACM0?baud=fast", "not a whole number"),
        ("file:/nonexistent/run.nmea", "/nonexistent/run.nmea"),
        ("file:x.nmea?pace=slow", "pace=slow"),
        ("file:x.nmea?speed=-2", "speed=-2"),
        ("gpsd://host:70000", "1 to 65535"),
    ])
    func badGPSSourcesAreRefusedClearly(text: String, expected: String) {
        let error = #expect(throws: ConfigurationError.self) { try gps(text) }
        #expect(error?.description.contains(expected) == true, "\(String(describing: error))")
    }

    @Test func aPacedTimingBuildsAPacedVirtualClock() throws {
        let clock = try #require(Configurator.makeClock(.paced(speed: 20)) as? VirtualClock)
        #expect(clock.speed == 20)
        #expect((Configurator.makeClock(.virtual) as? VirtualClock)?.speed == nil)

        var settings = try Settings.load(path: "\(hardwareDirectory)/config/simulated.yaml")
        settings.hardwareDirectory = hardwareDirectory
        settings.gps = try DeviceURI(parsing: "none")
        let device = try Configurator.makeDevice(settings: settings, timing: .paced(speed: 4))
        #expect((device.clock as? VirtualClock)?.speed == 4)
        for speed in [0, -1, Double.infinity, .nan] {
            let error = #expect(throws: ConfigurationError.self) {
                try Configurator.makeDevice(settings: settings, timing: .paced(speed: speed))
            }
            #expect(error?.description.contains("positive number") == true)
        }
    }

    @Test func eachBuzzerSchemePicksItsAdapter() throws {
        let dir = try makeTemporaryDirectory()
        #expect(try Configurator.makeBuzzer(DeviceURI(parsing: "null")) is NullBuzzer)
        #expect(try Configurator.makeBuzzer(DeviceURI(parsing: "wav:\(dir)/cues.wav")) is WAVBuzzer)
        let alsa = try Configurator.makeBuzzer(DeviceURI(parsing: "alsa:pacer_no_such_device"))
        #expect(alsa is ALSABuzzer)
        #expect(alsa.unavailableReason != nil, "a device that cannot open is silent, with a reason")
        let error = #expect(throws: ConfigurationError.self) { try Configurator.makeBuzzer(DeviceURI(parsing: "midi:1")) }
        #expect(error?.description.contains("unknown buzzer") == true)
        #expect(throws: ConfigurationError.self) { try Configurator.makeBuzzer(DeviceURI(parsing: "wav:/nonexistent/dir/x.wav")) }
    }

    @Test func batteries() throws {
        let sim = try Configurator.makeBattery(DeviceURI(parsing: "sim?capacity=2000&level=40"))
        #expect(sim.read()?.percent == 40)
        let error = #expect(throws: ConfigurationError.self) { try Configurator.makeBattery(DeviceURI(parsing: "sim?level=140")) }
        #expect(error?.description.contains("level") == true)
        #expect(throws: ConfigurationError.self) { try Configurator.makeBattery(DeviceURI(parsing: "solar")) }
    }

    /// The simulated setup builds a whole device whose GPS replays on the virtual clock.
    @Test func theSimulatedSetupRunsOnTheVirtualClock() throws {
        var settings = try Settings.load(path: "\(hardwareDirectory)/config/simulated.yaml")
        settings.gps = try DeviceURI(parsing: "file:\(hardwareDirectory)/recordings/track-loop.nmea")
        settings.hardwareDirectory = hardwareDirectory
        let device = try Configurator.makeDevice(settings: settings, timing: .virtual)
        #expect(device.profile.name == settings.profile)
        #expect(!device.cues.tones(for: .speedUp, style: .beeps).isEmpty)
        #expect(device.buzzer is NullBuzzer)
        let fixes = Mutex(0)
        let sink = GPSEventSink(clock: device.clock, samplingInterval: device.profile.positionInterval) { event in
            if case .fix = event { fixes.withLock { $0 += 1 } }
        }
        try #require(device.gps).start(sink)
        device.clock.run()
        // Ten minutes at 1 Hz, sampled at the profile's interval.
        let expected = Int((600 / device.profile.positionInterval.inSeconds).rounded(.up))
        #expect(fixes.withLock { $0 } == expected)
    }

    @Test func anUnknownProfileIsRefusedNamingTheKnownOnes() throws {
        var settings = try Settings.load(path: "\(hardwareDirectory)/config/simulated.yaml")
        settings.hardwareDirectory = hardwareDirectory
        settings.profile = "ludicrous"
        let error = #expect(throws: ConfigurationError.self) { try Configurator.makeDevice(settings: settings, timing: .virtual) }
        #expect(error?.description.contains("no profile 'ludicrous'") == true)
        #expect(error?.description.contains("low, medium") == true)
    }
}
