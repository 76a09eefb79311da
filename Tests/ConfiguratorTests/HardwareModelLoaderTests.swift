import Configurator
import Foundation
import HAL
import TestSupport
import Testing

@Suite("Hardware model files")
struct HardwareModelLoaderTests {
    // MARK: - The bundled builds and parts

    @Test func everyBundledBuildLoads() throws {
        let builds = try HardwareModelLoader.available(hardwareDir: hardwareDirectory)
        #expect(Set(["zero-m8n", "zero-mt3339", "imx6ull-m8n"]).isSubset(of: builds), "\(builds)")
        for build in builds {
            let model = try HardwareModelLoader.load(build: build, hardwareDir: hardwareDirectory)
            #expect(model.name == build)
            #expect(!model.summary.isEmpty)
        }
    }

    /// Every part file loads on its own, including any no build uses yet.
    @Test func everyBundledPartLoads() throws {
        for kind in HardwareModelLoader.PartKind.allCases {
            let names = HardwareModelLoader.parts(kind, hardwareDir: hardwareDirectory)
            #expect(!names.isEmpty, "no \(kind.folder)")
            for name in names {
                let path = HardwareModelLoader.path(of: kind, named: name, hardwareDir: hardwareDirectory)
                switch kind {
                case .board: #expect(try HardwareModelLoader.loadBoard(path: path).name == name)
                case .gps: #expect(try HardwareModelLoader.loadGPS(path: path).name == name)
                case .buzzer: #expect(try HardwareModelLoader.loadBuzzer(path: path).name == name)
                case .battery: #expect(try HardwareModelLoader.loadBattery(path: path).name == name)
                case .speaker: #expect(try HardwareModelLoader.loadSpeaker(path: path).name == name)
                }
            }
        }
    }

    /// The figures are in the order physics puts them: a receiver draws most searching, less
    /// tracking, less in power-save, least in backup; a board more busy than idle, less
    /// suspended than idle; a converter loses something.
    @Test func bundledFiguresAreSane() throws {
        for build in try HardwareModelLoader.available(hardwareDir: hardwareDirectory) {
            let m = try HardwareModelLoader.load(build: build, hardwareDir: hardwareDirectory)
            let gps = m.gps.milliamps
            #expect(Set(gps.keys) == Set(GPSPowerState.allCases), "\(build)")
            #expect(gps[.off] == 0)
            #expect(gps[.acquiring]! >= gps[.tracking]!, "\(build)")
            #expect(gps[.tracking]! > gps[.powerSave]!, "\(build)")
            #expect(gps[.powerSave]! > gps[.backup]!, "\(build)")
            #expect(gps[.backup]! > 0, "\(build): even backup draws something")
            #expect(m.gps.hotStart > .zero && m.gps.hotStart < .seconds(30), "\(build)")
            #expect(m.gps.supplyVolts > 0 && m.gps.supplyVolts <= 5.5)
            #expect(m.gps.commands != .none, "\(build): the firmware must be able to command the receiver")

            #expect(m.board.busyMilliamps > m.board.idleMilliamps, "\(build)")
            #expect(m.board.busyPerWakeup > .zero && m.board.busyPerWakeup < .milliseconds(100), "\(build)")
            if let suspend = m.board.suspendMilliamps {
                #expect(suspend < m.board.idleMilliamps, "\(build)")
                #expect(m.board.resume != nil && m.board.resume! > .zero && m.board.resume! < .seconds(2), "\(build)")
            } else {
                #expect(m.board.resume == nil, "\(build)")
            }

            #expect(m.buzzer.soundingMilliamps > 0)
            #expect(m.battery.capacityMilliampHours > 0)
            #expect(m.battery.converterEfficiency > 0.5 && m.battery.converterEfficiency <= 1)
            #expect(m.battery.volts >= 3 && m.battery.volts <= 4.2, "\(build): a single Li-ion cell")
        }
    }

    /// The bundled speakers: a speaking current above the standby one, the rendering a small
    /// share of a core (measured, scaled to the Zero 2 W: far below real time).
    @Test func bundledSpeakersAreSane() throws {
        let names = HardwareModelLoader.parts(.speaker, hardwareDir: hardwareDirectory)
        #expect(Set(["max98357a", "usb-cm108"]).isSubset(of: names), "\(names)")
        for name in names {
            let s = try HardwareModelLoader.loadSpeaker(named: name, hardwareDir: hardwareDirectory)
            #expect(s.speakingMilliamps > s.standbyMilliamps, "\(name)")
            #expect(s.supplyVolts > 0 && s.supplyVolts <= 5.5, "\(name)")
            #expect(s.renderCPUShare > 0 && s.renderCPUShare < 0.2, "\(name)")
        }
    }

    /// The bundled builds have a piezo on GPIO 18, where I2S needs its bit clock: none claims
    /// a speaker.
    @Test func theBundledPiezoBuildsHaveNoSpeaker() throws {
        for build in try HardwareModelLoader.available(hardwareDir: hardwareDirectory) {
            let m = try HardwareModelLoader.load(build: build, hardwareDir: hardwareDirectory)
            if m.buzzer.name == "piezo" { #expect(m.speaker == nil, "\(build)") }
        }
    }

    /// The Zero 2 W idles between wakeups; the i.MX 6ULL module suspends to RAM.
    @Test func onlyTheSuspendingBoardSuspends() throws {
        let zero = try HardwareModelLoader.load(build: "zero-m8n", hardwareDir: hardwareDirectory)
        #expect(zero.board.suspendMilliamps == nil)
        #expect(zero.gps.commands == .ubx)
        let mt = try HardwareModelLoader.load(build: "zero-mt3339", hardwareDir: hardwareDirectory)
        #expect(mt.gps.commands == .pmtk)
        #expect(mt.board == zero.board)
        let imx = try HardwareModelLoader.load(build: "imx6ull-m8n", hardwareDir: hardwareDirectory)
        let suspend = try #require(imx.board.suspendMilliamps)
        #expect(suspend * 10 < imx.board.idleMilliamps, "suspending must save most of the idle current")
    }

    /// The Zero 2 W's Wi-Fi radio is part of its idle current; the i.MX module has none.
    @Test func onlyTheZeroHasAWiFiRadio() throws {
        let zero = try HardwareModelLoader.load(build: "zero-m8n", hardwareDir: hardwareDirectory)
        #expect(zero.board.wifiIdleMilliamps == 12)
        #expect(zero.board.wifiIdleMilliamps < zero.board.idleMilliamps)
        let imx = try HardwareModelLoader.load(build: "imx6ull-m8n", hardwareDir: hardwareDirectory)
        #expect(imx.board.wifiIdleMilliamps == 0)
        // A board file without the key: no radio.
        let dir = try Self.hardware("builds/x.yaml", replace: "board: b", with: "board: b")
        #expect(try HardwareModelLoader.load(build: "x", hardwareDir: dir).board.wifiIdleMilliamps == 0)
    }

    /// The Zero 2 W's CYW43438 is charged for the strap on top of its idle; the i.MX module
    /// has no Bluetooth, and a board file without the keys charges nothing.
    @Test func onlyTheZeroHasABluetoothRadio() throws {
        let zero = try HardwareModelLoader.load(build: "zero-m8n", hardwareDir: hardwareDirectory)
        #expect(zero.board.bluetoothScanningMilliamps == 9.5)
        #expect(zero.board.bluetoothConnectedMilliamps == 4)
        #expect(zero.board.bluetoothMilliamps(.off) == 0)
        let imx = try HardwareModelLoader.load(build: "imx6ull-m8n", hardwareDir: hardwareDirectory)
        #expect(imx.board.bluetoothScanningMilliamps == 0 && imx.board.bluetoothConnectedMilliamps == 0)
        let plain = try HardwareModelLoader.load(build: "x", hardwareDir: try Self.hardware()).board
        #expect(plain.bluetoothScanningMilliamps == 0 && plain.bluetoothConnectedMilliamps == 0)
        let dir = try Self.hardware(
            "parts/boards/b.yaml", replace: "busy_per_wakeup_ms: 2",
            with: "busy_per_wakeup_ms: 2\nbluetooth_scanning_ma: 9.5\nbluetooth_connected_ma: 0.4")
        let board = try HardwareModelLoader.load(build: "x", hardwareDir: dir).board
        #expect(board.bluetoothMilliamps(.scanning) == 9.5)
        #expect(board.bluetoothMilliamps(.connected) == 0.4)
    }

    /// A Bluetooth figure below zero or past a USB port's 500 mA is refused at its own line.
    @Test(arguments: [("-1", "must be from 0 to 500 mA, got -1"), ("600", "must be from 0 to 500 mA, got 600"),
                      ("1e9", "must be from 0 to 500 mA, got 1e9"), (".nan", "expected a number")])
    func aBluetoothFigureOutOfRangeIsRefusedAtItsLine(value: String, reason: String) throws {
        let dir = try Self.hardware(
            "parts/boards/b.yaml", replace: "busy_per_wakeup_ms: 2",
            with: "busy_per_wakeup_ms: 2\nbluetooth_scanning_ma: 9.5\nbluetooth_connected_ma: \(value)")
        let error = #expect(throws: DataFileError.self) { try HardwareModelLoader.load(build: "x", hardwareDir: dir) }
        #expect(error?.file == "\(dir)/parts/boards/b.yaml")
        #expect(error?.line == 8)
        #expect(error?.key == "bluetooth_connected_ma")
        #expect(error?.reason.contains(reason) == true, "\(String(describing: error))")
    }

    // MARK: - A hardware folder written by the test

    static let files: [String: String] = [
        "builds/x.yaml": """
            name: x
            summary: A test build.
            board: b
            gps: g
            buzzer: z
            battery: c
            """,
        "parts/boards/b.yaml": """
            name: b
            summary: A board that idles.
            supply_v: 5
            idle_ma: 100
            busy_ma: 300
            busy_per_wakeup_ms: 2
            """,
        "parts/boards/s.yaml": """
            name: s
            summary: A board that suspends.
            supply_v: 3.3
            idle_ma: 80
            busy_ma: 90
            busy_per_wakeup_ms: 4
            suspend_ma: 5
            resume_ms: 250
            """,
        "parts/gps/g.yaml": """
            name: g
            summary: A receiver.
            supply_v: 3.3
            commands: ubx
            hot_start_s: 1.5
            current_ma:
              acquiring: 30
              tracking: 25
              power-save: 8
              backup: 0.03
            """,
        "parts/buzzers/z.yaml": """
            name: z
            summary: A buzzer.
            supply_v: 5
            sounding_ma: 4
            """,
        "parts/speakers/k.yaml": """
            name: k
            summary: A speaker.
            supply_v: 5
            speaking_ma: 150
            standby_ma: 2.4
            render_cpu_share: 0.02
            """,
        "parts/batteries/c.yaml": """
            name: c
            summary: A cell.
            capacity_mah: 2000
            volts: 3.7
            converter_efficiency: 0.9
            """,
    ]

    /// A hardware folder with the files above, `file` changed by replacing `replace` with
    /// `replacement`. The build uses board `s` when `s` is the file changed, `b` otherwise,
    /// and names speaker `k` when `k` is the file changed (no speaker otherwise).
    static func hardware(_ file: String? = nil, replace: String = "", with replacement: String = "",
                         function: String = #function) throws -> String {
        let dir = try makeTemporaryDirectory(function)
        for (name, text) in files {
            var text = text + "\n"
            if name == "builds/x.yaml", file == "parts/boards/s.yaml" {
                text = text.replacingOccurrences(of: "board: b", with: "board: s")
            }
            if name == "builds/x.yaml", file == "parts/speakers/k.yaml" { text += "speaker: k\n" }
            if name == file {
                #expect(text.contains(replace), "the fixture \(name) has no '\(replace)'")
                text = text.replacingOccurrences(of: replace, with: replacement)
            }
            _ = try write(text, to: name, in: dir)
        }
        return dir
    }

    @Test func aValidBuildLoadsExactly() throws {
        let dir = try Self.hardware()
        let model = try HardwareModelLoader.load(build: "x", hardwareDir: dir)
        #expect(model == HardwareModel(
            name: "x", summary: "A test build.",
            board: .init(name: "b", supplyVolts: 5, idleMilliamps: 100, busyMilliamps: 300, busyPerWakeup: .milliseconds(2)),
            gps: .init(
                name: "g", supplyVolts: 3.3,
                milliamps: [.acquiring: 30, .tracking: 25, .powerSave: 8, .backup: 0.03, .off: 0],
                hotStart: .milliseconds(1500), commands: .ubx),
            buzzer: .init(name: "z", supplyVolts: 5, soundingMilliamps: 4),
            battery: .init(name: "c", capacityMilliampHours: 2000, volts: 3.7, converterEfficiency: 0.9)))
        #expect(try HardwareModelLoader.available(hardwareDir: dir) == ["x"])
        #expect(HardwareModelLoader.parts(.board, hardwareDir: dir) == ["b", "s"])
    }

    @Test func aBuildMayNameASpeaker() throws {
        let dir = try Self.hardware("builds/x.yaml", replace: "battery: c", with: "battery: c\nspeaker: k")
        let model = try HardwareModelLoader.load(build: "x", hardwareDir: dir)
        #expect(model.speaker == .init(
            name: "k", supplyVolts: 5, speakingMilliamps: 150, standbyMilliamps: 2.4, renderCPUShare: 0.02))
        #expect(try HardwareModelLoader.load(build: "x", hardwareDir: try Self.hardware()).speaker == nil)
        #expect(try HardwareModelLoader.loadSpeaker(named: "k", hardwareDir: dir) == model.speaker)
        #expect(HardwareModelLoader.parts(.speaker, hardwareDir: dir) == ["k"])
    }

    /// A speaker no file describes: named with the file looked for and the speakers there are,
    /// from a build and on its own (`--speaker`).
    @Test func aMissingSpeakerIsNamedWithTheFileLookedFor() throws {
        let dir = try Self.hardware("builds/x.yaml", replace: "battery: c", with: "battery: c\nspeaker: max98357a")
        let error = #expect(throws: DataFileError.self) { try HardwareModelLoader.load(build: "x", hardwareDir: dir) }
        #expect(error?.file == "\(dir)/builds/x.yaml")
        #expect(error?.line == 7)
        #expect(error?.key == "speaker")
        #expect(error?.reason.contains("no speaker 'max98357a'") == true, "\(String(describing: error))")
        #expect(error?.reason.contains("(speakers: k)") == true, "\(String(describing: error))")
        let named = #expect(throws: DataFileError.self) { try HardwareModelLoader.loadSpeaker(named: "cm108", hardwareDir: dir) }
        #expect(named?.file == "\(dir)/parts/speakers/cm108.yaml")
        #expect(named?.reason == "no speaker 'cm108' (speakers: k)")
    }

    @Test func aSuspendingBoardLoadsItsSuspendFigures() throws {
        let dir = try Self.hardware("builds/x.yaml", replace: "board: b", with: "board: s")
        let board = try HardwareModelLoader.load(build: "x", hardwareDir: dir).board
        #expect(board == .init(
            name: "s", supplyVolts: 3.3, idleMilliamps: 80, busyMilliamps: 90, busyPerWakeup: .milliseconds(4),
            suspendMilliamps: 5, resume: .milliseconds(250)))
    }

    /// Each broken file is refused with that file, the line, the key and the reason.
    @Test(arguments: [
        // The build.
        ("builds/x.yaml", "name: x", "name: y", "name", "must match"),
        ("builds/x.yaml", "battery: c", "battery: c\nsolar: yes", "solar", "unknown key"),
        ("builds/x.yaml", "battery: c\n", "", nil, "missing key 'battery'"),
        // A board.
        ("parts/boards/b.yaml", "name: b", "name: board", "name", "is 'board' but the file is b.yaml"),
        ("parts/boards/b.yaml", "summary: A board that idles.\n", "", nil, "missing key 'summary'"),
        ("parts/boards/b.yaml", "supply_v: 5", "supply_v: 0", "supply_v", "must be above 0 and at most 24 V, got 0"),
        ("parts/boards/b.yaml", "idle_ma: 100", "idle_ma: -1", "idle_ma", "must be from 0 to 5000 mA, got -1"),
        ("parts/boards/b.yaml", "idle_ma: 100", "idle_ma: lots", "idle_ma", "expected a number, got 'lots'"),
        ("parts/boards/b.yaml", "idle_ma: 100", "idle_ma: .inf", "idle_ma", "expected a number"),
        ("parts/boards/b.yaml", "busy_ma: 300", "busy_ma: 50", "busy_ma", "must not be below idle_ma (100 mA), got 50"),
        ("parts/boards/b.yaml", "busy_per_wakeup_ms: 2", "busy_per_wakeup_ms: 0", "busy_per_wakeup_ms", "must be above 0 and at most 60000 ms, got 0"),
        ("parts/boards/b.yaml", "busy_per_wakeup_ms: 2", "busy_per_wakeup_ms: 2\nsuspend_ma: 5", "suspend_ma", "needs resume_ms"),
        ("parts/boards/b.yaml", "busy_per_wakeup_ms: 2", "busy_per_wakeup_ms: 2\nresume_ms: 90", "resume_ms", "without suspend_ma"),
        ("parts/boards/b.yaml", "busy_per_wakeup_ms: 2", "busy_per_wakeup_ms: 2\nsleep_ma: 1", "sleep_ma", "unknown key"),
        ("parts/boards/b.yaml", "busy_per_wakeup_ms: 2", "busy_per_wakeup_ms: 2\nwifi_idle_ma: 150", "wifi_idle_ma",
         "is the Wi-Fi radio's part of idle_ma (100 mA): it cannot be more, got 150"),
        ("parts/boards/b.yaml", "busy_per_wakeup_ms: 2", "busy_per_wakeup_ms: 2\nwifi_idle_ma: some", "wifi_idle_ma", "expected a number"),
        ("parts/boards/s.yaml", "resume_ms: 250", "resume_ms: 250\nwifi_idle_ma: 78", "wifi_idle_ma", "less suspend_ma, 5 mA"),
        ("parts/boards/b.yaml", "busy_per_wakeup_ms: 2", "busy_per_wakeup_ms: 2\nbluetooth_scanning_ma: -3\nbluetooth_connected_ma: 1",
         "bluetooth_scanning_ma", "must be from 0 to 500 mA, got -3"),
        ("parts/boards/b.yaml", "busy_per_wakeup_ms: 2", "busy_per_wakeup_ms: 2\nbluetooth_scanning_ma: 9000\nbluetooth_connected_ma: 1",
         "bluetooth_scanning_ma", "must be from 0 to 500 mA, got 9000"),
        ("parts/boards/b.yaml", "busy_per_wakeup_ms: 2", "busy_per_wakeup_ms: 2\nbluetooth_scanning_ma: 9.5", "bluetooth_scanning_ma",
         "needs bluetooth_connected_ma"),
        ("parts/boards/b.yaml", "busy_per_wakeup_ms: 2", "busy_per_wakeup_ms: 2\nbluetooth_connected_ma: 4", "bluetooth_connected_ma",
         "needs bluetooth_scanning_ma"),
        ("parts/boards/b.yaml", "busy_per_wakeup_ms: 2", "busy_per_wakeup_ms: 2\nbluetooth_scanning_ma: some\nbluetooth_connected_ma: 4",
         "bluetooth_scanning_ma", "expected a number"),
        ("parts/boards/s.yaml", "suspend_ma: 5", "suspend_ma: 80", "suspend_ma", "must be below idle_ma (80 mA), got 80"),
        ("parts/boards/s.yaml", "suspend_ma: 5", "suspend_ma: -5", "suspend_ma", "must be from 0 to 5000 mA"),
        ("parts/boards/s.yaml", "resume_ms: 250", "resume_ms: 0", "resume_ms", "must be above 0 and at most 60000 ms"),
        // A GPS module.
        ("parts/gps/g.yaml", "commands: ubx", "commands: nmea", "commands", "'nmea' is not one of ubx, pmtk, none"),
        ("parts/gps/g.yaml", "hot_start_s: 1.5", "hot_start_s: -1", "hot_start_s", "must be above 0 and at most 600 s, got -1"),
        ("parts/gps/g.yaml", "backup: 0.03", "backup: 12", "current_ma.backup", "must be below power-save (8 mA), got 12"),
        ("parts/gps/g.yaml", "power-save: 8", "power-save: 40", "current_ma.power-save", "must not be above tracking (25 mA)"),
        ("parts/gps/g.yaml", "tracking: 25", "tracking: -25", "current_ma.tracking", "must be from 0 to 5000 mA"),
        ("parts/gps/g.yaml", "  backup: 0.03\n", "", nil, "missing key 'current_ma.backup'"),
        ("parts/gps/g.yaml", "  backup: 0.03", "  backup: 0.03\n  standby: 1", "current_ma.standby", "unknown key"),
        ("parts/gps/g.yaml", "supply_v: 3.3", "supply_v: -3.3", "supply_v", "must be above 0 and at most 24 V, got -3.3"),
        // The buzzer and the battery.
        ("parts/buzzers/z.yaml", "sounding_ma: 4", "sounding_ma: -4", "sounding_ma", "must be from 0 to 5000 mA"),
        ("parts/buzzers/z.yaml", "sounding_ma: 4", "sounding_ma: loud", "sounding_ma", "expected a number"),
        // The speaker.
        ("parts/speakers/k.yaml", "name: k", "name: amp", "name", "is 'amp' but the file is k.yaml"),
        ("parts/speakers/k.yaml", "speaking_ma: 150", "speaking_ma: -1", "speaking_ma", "must be from 0 to 5000 mA, got -1"),
        ("parts/speakers/k.yaml", "standby_ma: 2.4", "standby_ma: 200", "standby_ma", "must not be above speaking_ma (150 mA), got 200"),
        ("parts/speakers/k.yaml", "standby_ma: 2.4\n", "", nil, "missing key 'standby_ma'"),
        ("parts/speakers/k.yaml", "render_cpu_share: 0.02", "render_cpu_share: 1.5", "render_cpu_share", "must be from 0 to 1, got 1.5"),
        ("parts/speakers/k.yaml", "render_cpu_share: 0.02", "render_cpu_share: half", "render_cpu_share", "expected a number"),
        ("parts/speakers/k.yaml", "supply_v: 5", "supply_v: 0", "supply_v", "must be above 0 and at most 24 V, got 0"),
        ("parts/speakers/k.yaml", "render_cpu_share: 0.02", "render_cpu_share: 0.02\nvolume: 11", "volume", "unknown key"),
        ("parts/batteries/c.yaml", "capacity_mah: 2000", "capacity_mah: 0", "capacity_mah", "must be above 0 and at most 100000 mAh"),
        ("parts/batteries/c.yaml", "volts: 3.7", "volts: 0", "volts", "must be above 0 and at most 24 V"),
        ("parts/batteries/c.yaml", "converter_efficiency: 0.9", "converter_efficiency: 1.2", "converter_efficiency",
         "must be above 0 and at most 1, got 1.2"),
        ("parts/batteries/c.yaml", "converter_efficiency: 0.9", "converter_efficiency: 0", "converter_efficiency",
         "must be above 0 and at most 1"),
    ] as [(String, String, String, String?, String)])
    func brokenFilesAreRefused(file: String, replace: String, with replacement: String, key: String?, reason: String) throws {
        let dir = try Self.hardware(file, replace: replace, with: replacement)
        let error = #expect(throws: DataFileError.self) { try HardwareModelLoader.load(build: "x", hardwareDir: dir) }
        #expect(error?.file == "\(dir)/\(file)", "\(String(describing: error))")
        #expect(error?.line != nil, "\(String(describing: error))")
        #expect(error?.key == key, "\(String(describing: error))")
        #expect(error?.reason.contains(reason) == true, "\(String(describing: error))")
    }

    /// A build naming a part that is not there says which file it looked for, and which
    /// parts there are.
    @Test func aMissingPartIsNamedWithTheFileLookedFor() throws {
        let dir = try Self.hardware("builds/x.yaml", replace: "gps: g", with: "gps: neo-m9n")
        let error = #expect(throws: DataFileError.self) { try HardwareModelLoader.load(build: "x", hardwareDir: dir) }
        #expect(error?.file == "\(dir)/builds/x.yaml")
        #expect(error?.line == 4)
        #expect(error?.key == "gps")
        #expect(error?.reason.contains("no gps 'neo-m9n'") == true, "\(String(describing: error))")
        #expect(error?.reason.contains("\(dir)/parts/gps/neo-m9n.yaml does not exist") == true)
        #expect(error?.reason.contains("(gps: g)") == true, "\(String(describing: error))")

        let boards = try Self.hardware("builds/x.yaml", replace: "board: b", with: "board: pi5")
        let boardError = #expect(throws: DataFileError.self) { try HardwareModelLoader.load(build: "x", hardwareDir: boards) }
        #expect(boardError?.reason.contains("(boards: b, s)") == true, "\(String(describing: boardError))")
    }

    @Test func aMissingBuildListsTheBuilds() throws {
        let error = #expect(throws: DataFileError.self) {
            try HardwareModelLoader.load(build: "zero-m9n", hardwareDir: hardwareDirectory)
        }
        #expect(error?.file == "\(hardwareDirectory)/builds/zero-m9n.yaml")
        #expect(error?.reason.contains("no build 'zero-m9n'") == true)
        #expect(error?.reason.contains("zero-m8n") == true && error?.reason.contains("imx6ull-m8n") == true)
        let empty = try makeTemporaryDirectory()
        #expect(throws: DataFileError.self) { try HardwareModelLoader.available(hardwareDir: empty) }
    }

    @Test func notYAMLAndEmptyPartsAreRefused() throws {
        let broken = try Self.hardware("parts/buzzers/z.yaml", replace: "sounding_ma: 4", with: "sounding_ma: [4")
        let error = #expect(throws: DataFileError.self) { try HardwareModelLoader.load(build: "x", hardwareDir: broken) }
        #expect(error?.file == "\(broken)/parts/buzzers/z.yaml")
        #expect(error?.reason.hasPrefix("not valid YAML") == true)
        #expect(error?.line != nil)

        let dir = try Self.hardware()
        _ = try write("", to: "parts/batteries/c.yaml", in: dir)
        let empty = #expect(throws: DataFileError.self) { try HardwareModelLoader.load(build: "x", hardwareDir: dir) }
        #expect(empty?.file == "\(dir)/parts/batteries/c.yaml")
        #expect(empty?.reason == "is empty")
    }
}
