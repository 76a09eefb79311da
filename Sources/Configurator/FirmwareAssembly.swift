import Coaching
import HAL
import LinuxHardware
import Logging
import PacerCore
import Runtime
import Simulation
import Storage
import Synchronization

/// Where the firmware keeps its activities.
public enum FirmwareStorage: Sendable {
    /// A store that works (`pacer run`, scenarios): activities a power cut left unfinished are
    /// closed as the firmware is assembled; the plan and its progress are read from it.
    case store(PacerStore)
    /// The device's store as `pacer device` meets it: it may not work at power-on (a full
    /// card), and the device stays up with the fault (`DeviceStorage`).
    case device(DeviceStorage)
}

/// The control inputs of a device run by a person (`pacer run`, `pacer device`): the control
/// socket (`pacer ctl`), signals, and, in a terminal, single keys. A scenario has none.
public struct ControlOptions: Sendable {
    public var socketPath: String?
    public var keys: Bool

    public init(socketPath: String? = nil, keys: Bool = false) {
        self.socketPath = socketPath
        self.keys = keys
    }
}

/// The firmware, assembled: the object itself, the device's parts (a scenario drives the
/// simulated ones), its inputs, its store, and the activities a power cut left unfinished.
public struct AssembledFirmware: Sendable {
    public let firmware: Firmware
    public let device: Device
    /// The store the firmware records into; nil while the data folder cannot be used
    /// (`pacer device` stays up with the fault).
    public let store: PacerStore?
    /// Activities left unfinished by a crash or a power cut, closed while assembling (each
    /// caller tells of them its own way; `pacer device`'s storage logs them).
    public let recovered: [Int64]
    /// The control socket, signals and keys; nil for a scenario.
    public let controls: DeviceControls?
    /// The button, when the settings give one (`buttons: evdev:…`, or `sim` for a script).
    public let buttons: (any ButtonSource)?

    public var clock: any RunnableClock { device.clock }
    public var settings: Settings { device.settings }

    /// Connects every input to the firmware's one entry point, powers it on and runs its
    /// clock until the device is off (or the clock is stopped); then stops the inputs.
    /// Throws when a workout at once cannot begin (storage refuses).
    public func run(logger: Logger) throws {
        for control in controls?.inputs ?? [] {
            control.start { [firmware] command, reply in firmware.handle(command, reply: reply) }
        }
        buttons?.start(ButtonSink(clock: clock, timing: settings.buttonTiming) { [firmware] event in
            switch event {
            case .pressed(let pattern, _): firmware.handle(.press(pattern))
            case .connected(let detail): logger.info("buttons: \(detail) open")
            case .gone(let reason): logger.warning("buttons: \(reason)")
            }
        })
        defer {
            buttons?.stop()
            for control in controls?.inputs ?? [] { control.stop() }
        }
        try firmware.powerOn()
        clock.run()
    }
}

extension Configurator {
    /// The composition root: the one place the firmware is assembled. The device described by
    /// `settings` (`makeDevice`; `tolerant`: a missing part is a fault told at power-on, not a
    /// failure), the runtime's parts over `storage`, the button and the controls, and the
    /// `Firmware` over them, starting as `start` says. `onEvent` hears everything the device
    /// does, on its loop; the clock stops when the device switches off.
    public static func firmware(
        settings: Settings, storage: FirmwareStorage, start: Firmware.Start = .waiting, timing: Timing = .realTime,
        alsoBuzzers: [DeviceURI] = [], tolerant: Bool = false, route: FollowedRoute? = nil, ghost: Ghost? = nil, knownFaults: [String] = [],
        controls options: ControlOptions? = nil,
        today: @escaping @Sendable (UTCTimestamp?) -> CivilDate,
        logger: Logger = Logger(label: "pacer"),
        onEvent: @escaping @Sendable (DeviceEvent) -> Void = { _ in }
    ) throws(ConfigurationError) -> AssembledFirmware {
        let device = try makeDevice(
            settings: settings, timing: timing, alsoBuzzers: alsoBuzzers, tolerant: tolerant, logger: logger)
        let log: any ActivityLog
        let agenda: any WorkoutAgenda
        let store: PacerStore?
        var recovered: [Int64] = []
        switch storage {
        case .store(let opened):
            do {
                recovered = try opened.activities.recoverUnfinished()
            } catch {
                throw ConfigurationError("recovering unfinished activities: \(error)", cause: error)
            }
            (log, agenda, store) = (opened.activities, PlanAgenda(plans: opened.plans, memory: PlanAgenda.Memory()), opened)
        case .device(let deviceStorage):
            (log, agenda, store) = (deviceStorage, deviceStorage, deviceStorage.openStore)
        }
        recoverRadio(device, logger: logger)
        // What a write killed part way left (a power cut during a plan upload, a settings change).
        for folder in [settings.dataDirectory, settings.dataDirectory + "/plans",
                       PlanActions.activatedFolder(dataFolder: settings.dataDirectory)] {
            for name in OutputFile.removeLeftovers(in: folder) {
                logger.notice("removed \(folder)/\(name), left by a write that did not finish")
            }
        }
        var faults = device.faults + knownFaults
        if let reason = device.buzzer.unavailableReason, tolerant { faults.append("sound: \(reason)") }
        let buttons: (any ButtonSource)?
        if let uri = settings.buttons {
            if uri.scheme == "sim" {
                buttons = device.simulated.buttons
            } else {
                buttons = try makeButtonSource(uri, clock: device.clock, logger: logger)
            }
        } else {
            buttons = nil
        }
        let clock = device.clock
        let watchers = WatchFeed()
        var parts = runtimeParts(device, log: log, logger: logger)
        // The athlete's zones: a scenario's figures, else the stored profile's (read at power-on:
        // `pacer profile set` takes effect at the next).
        if parts.zones == nil, device.heartRate != nil {
            parts.zones = (try? store?.athlete.athlete())??.profile.heartRate.zones
        }
        let firmware = Firmware(
            parts: parts, agenda: agenda,
            settings: .init(actions: settings.buttonActions, knownFaults: faults, route: route, ghost: ghost),
            start: start, today: today, logger: logger,
            onEvent: { event in
                onEvent(event)
                watchers.publish { event.jsonLine(time: WallClock.now) }
            },
            onOff: { clock.stop() })
        let controls = try options.map { options throws(ConfigurationError) in
            try makeControls(socketPath: options.socketPath, keys: options.keys, isPaused: { firmware.isPaused }, logger: logger)
        }
        if let controls {
            // `pacer ctl watch`: the state at connection, then every event as a JSON line.
            controls.watch.setWatchGreeting { firmware.statusJSONLine(time: WallClock.now) }
            watchers.connect(controls.watch)
        }
        return AssembledFirmware(
            firmware: firmware, device: device, store: store, recovered: recovered, controls: controls, buttons: buttons)
    }

    /// What the runtime runs on, from the device's parts and the activity log.
    static func runtimeParts(_ device: Device, log: any ActivityLog, logger: Logger) -> DeviceRuntime.Parts {
        var parts = DeviceRuntime.Parts(
            clock: device.clock, gps: device.gps, buzzer: device.buzzer, battery: device.battery,
            profile: device.profile, cues: device.cues, log: log, power: device.power,
            profiles: device.profiles, gpsHotStart: device.gpsHotStart,
            receiverTime: ReceiverTime(system: device.systemTime, clock: device.clock, logger: logger))
        parts.speaker = device.speaker
        parts.radio = device.radio.map { MarkedRadio($0, marker: radioMarker(device.settings)) }
        parts.speech = device.settings.speech
        parts.phrases = device.phrases
        parts.heartRate = device.heartRate
        parts.zones = device.settings.heartRateFigures?.zones
        return parts
    }
}

/// Where the firmware's events go for `pacer ctl watch`: the control socket, once the
/// controls exist (the firmware, which reports the events, is made before them). A line is
/// made only when someone watches.
final class WatchFeed: Sendable {
    private let publisher = Mutex<(any EventPublisher)?>(nil)

    func connect(_ publisher: any EventPublisher) {
        self.publisher.withLock { $0 = publisher }
    }

    func publish(_ line: () -> String) {
        guard let publisher = publisher.withLock({ $0 }), publisher.watcherCount > 0 else { return }
        publisher.publish(line())
    }
}
