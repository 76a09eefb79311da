import Configurator
import HAL
import LinuxHardware
import NMEA
import PacerCore
import Simulation
import Synchronization
import TestSupport
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

    /// The system clock the receiver's time is checked against: the
    /// board's for a receiver, none for a replayed recording, unless the settings say.
    @Test func theSystemClockIsTheBoardsForAReceiverAndNoneForARecording() throws {
        func system(_ uri: String?, gps: String) throws -> (any SystemTime)? {
            try Configurator.makeSystemTime(uri.map { try DeviceURI(parsing: $0) }, gps: DeviceURI(parsing: gps), clock: clock)
        }
        #expect(try system(nil, gps: "gpsd://") is RealtimeSystemTime)
        #expect(try system(nil, gps: "serial:///dev/ttyACM0") is RealtimeSystemTime)
        #expect(try system(nil, gps: "file:run.nmea") == nil)
        #expect(try system(nil, gps: "none") == nil)
        #expect(try system("none", gps: "gpsd://") == nil)
        #expect(try system("system", gps: "file:run.nmea") is RealtimeSystemTime)
        let set = try #require(try system("sim?at=2026-05-02T07:00:00Z&synchronized=yes", gps: "file:run.nmea"))
        #expect(set.read() == SystemTimeReading(time: UTCTimestamp(millisecondsSince1970: 1_777_705_200_000), quality: .synchronized))
        clock.advance(to: Instant.zero + .seconds(90))
        #expect(set.read().time.iso8601 == "2026-05-02T07:01:30.000Z", "it moves with the device's clock")
        #expect(try system("sim", gps: "file:run.nmea")?.read().quality == .unset)
        // The machine running the tests has a clock set after 2026-01-01.
        #expect(RealtimeSystemTime().read().quality != .unset)
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
        ("serial:///dev/ttyACM0?baud=9600&receiver=sirf",
         "'serial:///dev/ttyACM0?baud=9600&receiver=sirf': receiver=sirf is not one of ubx, pmtk, none"),
        ("serial:///dev/ttyACM0?receiver=UBX", "receiver=UBX is not one of ubx, pmtk, none"),
    ])
    func badGPSSourcesAreRefusedClearly(text: String, expected: String) {
        let error = #expect(throws: ConfigurationError.self) { try gps(text) }
        #expect(error?.description.contains(expected) == true, "\(String(describing: error))")
    }

    /// `receiver=` picks the command set a serial receiver's power modes are set with.
    @Test(arguments: [
        ("serial:///dev/ttyACM0?baud=9600&receiver=ubx", ReceiverCommandSet.ubx),
        ("serial:///dev/ttyACM0?receiver=pmtk&baud=9600", .pmtk),
        ("serial:///dev/ttyACM0?baud=9600&receiver=none", .none),
        ("serial:///dev/ttyACM0?baud=9600", .none),
    ])
    func serialReceiverCommandsComeFromTheURI(text: String, commands: ReceiverCommandSet) throws {
        let source = try #require(try gps(text) as? SerialNMEASource)
        #expect(source.receiver == commands)
        #expect(source.baud == 9600)
        #expect(source.powerSavePeriod == .seconds(10))
    }

    /// A device built from settings sets the receiver's power-save period to the profile's
    /// position interval.
    @Test func theProfilesPositionIntervalIsThePowerSavePeriod() throws {
        var settings = try Settings.load(path: "\(hardwareDirectory)/config/simulated.yaml")
        settings.hardwareDirectory = hardwareDirectory
        settings.gps = try DeviceURI(parsing: "serial:///dev/pacer-no-such-tty?baud=9600&receiver=ubx")
        for profile in ["high", "medium", "low"] {
            settings.profile = profile
            let device = try Configurator.makeDevice(settings: settings, timing: .virtual)
            let source = try #require(device.gps as? SerialNMEASource)
            #expect(source.receiver == .ubx)
            #expect(source.powerSavePeriod == device.profile.positionInterval)
            #expect(source.commandBytes(for: .powerSave)
                == ReceiverCommands.encode(.powerSave(updatePeriod: device.profile.positionInterval), for: .ubx))
        }
    }

    static let trackLoop = "\(hardwareDirectory)/recordings/track-loop.nmea"

    /// Faults given in the URI reach the replay: the bundled ten-minute 1 Hz recording, started
    /// 5 s in, silent 10–20 s, without a fix 30–40 s, unplugged 50–60.5 s.
    @Test func replayFaultsComeFromTheURI() throws {
        let query = "outage=10-20&invalid=30-40&unplug=50-60.5&skip=5"
        let source = try #require(try gps("file:\(Self.trackLoop)?\(query)") as? NMEAFileSource)
        #expect(source.name == "file://\(Self.trackLoop)?\(query)")
        #expect(source.faults.skip == .seconds(5))
        #expect(source.faults.unplugs == [.init(from: .seconds(50), to: .milliseconds(60_500))])

        let statuses = Mutex<[String]>([])
        let sink = GPSEventSink(clock: clock) { event in
            if case .status(let status, _) = event {
                statuses.withLock { $0.append("\(status.rawValue)@\(clock.now.nanoseconds / 1_000_000)") }
            }
        }
        source.start(sink)
        clock.run()
        // Offset t is released at t − 5 s.
        #expect(statuses.withLock { $0 } == [
            "connected@0", "fix@0",
            "fix-lost@9000",  // offset 9 heard last, silent 5 s later
            "fix@15000",
            "fix-lost@25000", "fix@35000",
            "disconnected@45000", "connected@55500", "fix@56000",
            "disconnected@594000",  // the end of the recording, offset 599
        ])
        #expect(source.skipped == 5)
        #expect(source.withheld == 10 + 11)  // 10–19, 50–60
    }

    @Test(arguments: [
        ("outage=20-10", "outage=20-10: window 20-10 does not end after it starts"),
        ("invalid=-1-5", "invalid=-1-5: '-1-5' has a negative time"),
        ("unplug=5-x", "unplug=5-x: 'x' is not a number of seconds (like 12 or 12.5)"),
        ("unplug=10-20,15-25", "unplug=10-20,15-25: windows 10-20 and 15-25 overlap"),
        ("outage=30", "outage=30: '30' is not a window FROM-TO in seconds (like 60-90.5)"),
        ("skip=-2", "skip=-2: '-2' is negative"),
        ("skip=ten", "skip=ten: 'ten' is not a number of seconds (like 12 or 12.5)"),
        ("pace=fast&outgae=10-20", "unknown query item 'outgae' (known: pace, speed, outage, invalid, unplug, skip)"),
    ])
    func malformedReplayFaultsAreRefusedNamingTheURIAndKey(query: String, expected: String) {
        let text = "file:\(Self.trackLoop)?\(query)"
        let error = #expect(throws: ConfigurationError.self) { try gps(text) }
        #expect(error?.description == "'\(text)': \(expected)")
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
