import Configurator
import Foundation
import Glibc
import TestSupport
import Testing

// Fixtures are private to this file; temporary folders, free ports and the fake gpsd come
// from TestSupport.

/// A configuration whose probes look only inside `dir` (no real /dev, /sys or sound cards).
private func configuration(
    _ dir: TemporaryDirectory, gps: String, buzzer: String = "null", battery: String = "sim",
    listen: Duration = .milliseconds(500)
) -> HardwareCheck.Configuration {
    HardwareCheck.Configuration(
        gps: gps, buzzer: buzzer, battery: battery, listen: listen, tryOtherBauds: false,
        powerSupplyRoot: dir.path + "/power_supply", deviceRoot: dir.path + "/dev",
        soundCardsFile: dir.path + "/asound-cards", connectTimeout: .seconds(1), soundTimeout: .seconds(3))
}

@Suite("Hardware check", .timeLimit(.minutes(1)))
struct HardwareCheckTests {
    @Test func simulatedPartsPass() throws {
        let dir = TemporaryDirectory()
        let recording = try dir.file("run.nmea", "$GPGGA,070000.00,5204.2316,N,00418.0978,E,1,08,0.9,2.0,M,47.0,M,,*5C\r\n")
        let report = HardwareCheck.run(configuration(dir, gps: "file://\(recording)"))
        #expect(report.passed)
        #expect(report.exitStatus == 0)
        #expect(report.parts.map(\.name) == ["GPS", "sound", "speech", "battery", "button", "clock"])
        #expect(report.parts.map(\.status) == [.ok, .ok, .ok, .ok, .ok, .ok])
        #expect(report.part("button")?.required == false)
        #expect(report.part("GPS")?.found.first?.hasPrefix("replays the recording \(recording)") == true)
        #expect(report.part("sound")?.found == ["no buzzer: the device runs silent (cues are logged only)"])
        #expect(report.text().hasSuffix("Result: ready: every required part works.\n"))
    }

    @Test func gpsdNotRunningFailsTheCheck() throws {
        let dir = TemporaryDirectory()
        let port = try freeLoopbackPort()
        let report = HardwareCheck.run(configuration(dir, gps: "gpsd://127.0.0.1:\(port)"))
        #expect(!report.passed)
        #expect(report.exitStatus == 69)
        let gps = try #require(report.part("GPS"))
        #expect(gps.status == .missing)
        #expect(gps.required)
        #expect(gps.problem == "gpsd not reachable at 127.0.0.1:\(port)")
        #expect(gps.fix.contains { $0.contains("sudo systemctl start gpsd") })
        let text = report.text()
        #expect(text.contains("GPS      MISSING   gpsd://127.0.0.1:\(port)   (required)\n"))
        #expect(text.contains("         problem   gpsd not reachable at 127.0.0.1:\(port)\n"))
        #expect(text.contains("         fix       "))
        #expect(text.hasSuffix("Result: not ready: 1 required part missing (GPS).\n"))
    }

    @Test func gpsdWithAFixPasses() throws {
        let dir = TemporaryDirectory()
        let server = try FakeGPSD(
            banner: #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#,
            onWatch: [
                #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/gps0","driver":"u-blox","bps":9600}]}"#,
                #"{"class":"TPV","device":"/dev/gps0","mode":3,"lat":52.070527,"lon":4.301629}"#,
            ])
        let report = HardwareCheck.run(configuration(dir, gps: "gpsd://127.0.0.1:\(server.port)", listen: .seconds(3)))
        let gps = try #require(report.part("GPS"))
        #expect(gps.status == .ok, "\(gps)")
        #expect(gps.facts["gpsd_release"] == "3.22")
        #expect(gps.facts["fix"] == "3D")
        #expect(report.passed)
    }

    @Test func aMissingSoundDeviceFailsWithALSAsReason() throws {
        let dir = TemporaryDirectory()
        let recording = try dir.file("run.nmea")
        let report = HardwareCheck.run(configuration(dir, gps: "file://\(recording)", buzzer: "alsa:pacer_no_such_pcm"))
        let sound = try #require(report.part("sound"))
        #expect(sound.status == .missing)
        #expect(sound.problem?.hasPrefix("cannot open ALSA playback device 'pacer_no_such_pcm': ") == true)
        #expect(sound.problem?.hasSuffix(sound.facts["alsa_strerror"] ?? "?") == true)
        #expect(sound.found.contains("no sound cards (\(dir.path)/asound-cards is missing: no ALSA driver is loaded)"))
        #expect(!report.passed)
        #expect(report.missingRequired.map(\.name) == ["sound"])
    }

    @Test func noBatteryGaugeIsOnlyAWarning() throws {
        let dir = TemporaryDirectory()
        let recording = try dir.file("run.nmea")
        try dir.file("power_supply/AC/type", "Mains\n")
        let report = HardwareCheck.run(configuration(dir, gps: "file://\(recording)", battery: "sysfs"))
        let battery = try #require(report.part("battery"))
        #expect(battery.status == .warning)
        #expect(!battery.required)
        #expect(battery.problem == "no battery gauge: the simulated battery's estimate will be used")
        #expect(report.passed)
        #expect(report.text().hasSuffix("Result: ready: every required part works (warnings: battery).\n"))
    }

    @Test func aBatteryGaugeIsRead() throws {
        let dir = TemporaryDirectory()
        let recording = try dir.file("run.nmea")
        try dir.file("power_supply/BAT0/type", "Battery\n")
        try dir.file("power_supply/BAT0/capacity", "64\n")
        try dir.file("power_supply/BAT0/status", "Charging\n")
        let found = HardwareCheck.run(configuration(dir, gps: "file://\(recording)", battery: "sysfs")).part("battery")
        #expect(found?.status == .ok)
        #expect(found?.found == ["BAT0: 64 %, charging (sysfs:\(dir.path)/power_supply/BAT0)"])
        let named = HardwareCheck.run(configuration(
            dir, gps: "file://\(recording)", battery: "sysfs:\(dir.path)/power_supply/BAT0")).part("battery")
        #expect(named?.status == .ok)
        let wrong = HardwareCheck.run(configuration(
            dir, gps: "file://\(recording)", battery: "sysfs:\(dir.path)/power_supply/BAT7")).part("battery")
        #expect(wrong?.status == .warning)
    }

    @Test func aMissingSerialDeviceFails() throws {
        let dir = TemporaryDirectory()
        try dir.file("dev/ttyUSB0")
        let report = HardwareCheck.run(configuration(dir, gps: "serial://\(dir.path)/dev/ttyACM0?baud=9600"))
        let gps = try #require(report.part("GPS"))
        #expect(gps.status == .missing)
        #expect(gps.problem == "no serial device \(dir.path)/dev/ttyACM0")
        #expect(gps.found.contains("serial devices present: \(dir.path)/dev/ttyUSB0"))
        #expect(!report.passed)
    }

    @Test func aSerialGPSOnAPseudoTerminal() throws {
        let pty = try PseudoTerminal(raw: true)
        defer { pty.close() }
        let path = pty.path
        let m = pty.master
        let line = Array(nmeaLine("GPGGA,070000.00,5204.2316,N,00418.0978,E,1,08,0.9,2.0,M,47.0,M,,").utf8)
        let finished = DispatchSemaphore(value: 0)
        let done = Thread {
            for _ in 0..<8 {
                _ = line.withUnsafeBytes { write(m, $0.baseAddress, $0.count) }
                usleep(100_000)  // the stimulus: a sentence every 0.1 s, as a receiver writes
            }
            finished.signal()
        }
        done.start()
        let dir = TemporaryDirectory()
        let report = HardwareCheck.run(configuration(dir, gps: "serial://\(path)?baud=9600", listen: .milliseconds(600)))
        let gps = try #require(report.part("GPS"))
        #expect(gps.status == .ok, "\(gps)")
        #expect(Int(gps.facts["sentences"] ?? "") ?? 0 >= 1)
        // The writer is done before the pty closes.
        #expect(finished.wait(timeout: .now() + 10) == .success)
    }

    @Test(arguments: [
        ("", "GPS", "the GPS setting '' is empty"),
        ("bluetooth://00:11", "GPS", "unknown GPS source 'bluetooth:'"),
        ("gpsd://localhost:http", "GPS", "the setting 'gpsd://localhost:http' has port 'http', not a number from 1 to 65535"),
        ("serial:///dev/ttyACM0?baud=fast", "GPS", "the setting 'serial:///dev/ttyACM0?baud=fast' has baud=fast, not a whole number"),
        ("serial://", "GPS", "the GPS setting names no serial device"),
        ("file:///no/such/recording.nmea", "GPS", "the recording to replay is missing"),
    ])
    func badGPSSettingsAreMissingParts(gps: String, part: String, problem: String) throws {
        let dir = TemporaryDirectory()
        let report = HardwareCheck.run(configuration(dir, gps: gps))
        let found = try #require(report.part(part))
        #expect(found.status == .missing)
        #expect(found.problem == problem)
        #expect(!found.fix.isEmpty)
        #expect(report.exitStatus == 69)
    }

    /// The values the settings files in Hardware/config use.
    @Test func settingsFileValues() throws {
        let dir = TemporaryDirectory()
        try dir.file("Hardware/recordings/run.nmea", "")
        let recording = dir.path + "/Hardware/recordings/run.nmea"
        // The opaque form (file:PATH?pace=…), as the settings files write it.
        let report = HardwareCheck.run(configuration(
            dir, gps: "file:\(recording)?pace=clock", buzzer: "null", battery: "sim?capacity=1200&level=100"))
        #expect(report.part("GPS")?.status == .ok)
        #expect(report.part("battery")?.found == [
            "simulated battery (1200 mAh, starting at 100 %): the level is the energy model's estimate, no gauge is read",
        ])
        let none = HardwareCheck.run(configuration(dir, gps: "none"))
        #expect(none.part("GPS")?.status == .ok)
        #expect(none.passed)
    }

    @Test func buzzerSettings() throws {
        let dir = TemporaryDirectory()
        let recording = try dir.file("run.nmea")
        let wav = HardwareCheck.run(configuration(dir, gps: "file://\(recording)", buzzer: "wav:\(dir.path)/cues.wav"))
        #expect(wav.part("sound")?.status == .ok)
        let nowhere = HardwareCheck.run(configuration(dir, gps: "file://\(recording)", buzzer: "wav:/no/such/folder/cues.wav"))
        #expect(nowhere.part("sound")?.status == .missing)
        let unknown = HardwareCheck.run(configuration(dir, gps: "file://\(recording)", buzzer: "pwm:18"))
        #expect(unknown.part("sound")?.problem == "unknown buzzer 'pwm:'")
        #expect(unknown.exitStatus == 69)
    }

    /// Speech is never required: espeak-ng's version and voice and a rendering when it works,
    /// a warning that says why when it cannot speak; the check still passes.
    @Test func speechIsReportedAndNeverRequired() throws {
        let dir = TemporaryDirectory()
        let recording = try dir.file("run.nmea", "$GPGGA,070000.00,5204.2316,N,00418.0978,E,1,08,0.9,2.0,M,47.0,M,,*5C\r\n")
        let works = HardwareCheck.run(configuration(dir, gps: "file://\(recording)")).part("speech")
        #expect(works?.status == .ok)
        #expect(works?.required == false)
        #expect(works?.found.first?.hasPrefix("espeak-ng 1.") == true)
        #expect(works?.found.contains { $0.hasPrefix("rendered \"split 1, 5 minutes 41 seconds\" in ") } == true)
        var noVoice = configuration(dir, gps: "file://\(recording)")
        noVoice.speaker = "espeak:default?voice=xx-nonesuch"
        let report = HardwareCheck.run(noVoice)
        #expect(report.passed)
        #expect(report.part("speech")?.status == .warning)
        #expect(report.part("speech")?.problem?.contains("has no voice 'xx-nonesuch'") == true)
        #expect(report.part("speech")?.problem?.hasSuffix("the device beeps only") == true)
        var none = configuration(dir, gps: "file://\(recording)")
        none.speaker = "null"
        #expect(HardwareCheck.run(none).part("speech")?.found == ["no speaker: the device beeps only"])
    }

    @Test func jsonRendering() throws {
        let dir = TemporaryDirectory()
        let port = try freeLoopbackPort()
        let report = HardwareCheck.run(configuration(dir, gps: "gpsd://127.0.0.1:\(port)", battery: "sysfs"))
        let data = Data(report.json().utf8)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["ok"] as? Bool == false)
        let parts = try #require(object["parts"] as? [[String: Any]])
        #expect(parts.map { $0["part"] as? String } == ["GPS", "sound", "speech", "battery", "button", "clock"])
        #expect(parts.map { $0["status"] as? String } == ["missing", "ok", "ok", "warning", "ok", "ok"])
        #expect(parts[0]["required"] as? Bool == true)
        #expect(parts[0]["configured"] as? String == "gpsd://127.0.0.1:\(port)")
        #expect(parts[0]["problem"] as? String == "gpsd not reachable at 127.0.0.1:\(port)")
        #expect((parts[0]["fix"] as? [String])?.isEmpty == false)
        #expect((parts[0]["facts"] as? [String: String])?["gps_open"] == "-6", "libgps's NL_NOCONNECT")
        #expect(parts[1]["problem"] is NSNull)
        #expect(!report.json().contains("\n"))
    }

    @Test func jsonEscapesText() throws {
        let report = HardwareReport(parts: [
            .init(name: "GPS", configured: "file:///a \"b\"\\c", required: true, status: .ok,
                  found: ["tab\there", "bell\u{7}"], problem: nil, fix: []),
        ])
        let object = try JSONSerialization.jsonObject(with: Data(report.json().utf8)) as? [String: Any]
        let part = (object?["parts"] as? [[String: Any]])?.first
        #expect(part?["configured"] as? String == "file:///a \"b\"\\c")
        #expect(part?["found"] as? [String] == ["tab\there", "bell\u{7}"])
    }

    @Test func textBlocksAreAligned() {
        let report = HardwareReport(parts: [
            .init(name: "GPS", configured: "gpsd://localhost:2947", required: true, status: .missing,
                  found: ["a", "b"], problem: "p", fix: ["x", "y"]),
            .init(name: "battery", configured: "sysfs", required: false, status: .warning,
                  found: [], problem: "no gauge", fix: []),
        ])
        #expect(report.text() == """
            Pacer hardware check

            GPS      MISSING   gpsd://localhost:2947   (required)
                     found     a
                               b
                     problem   p
                     fix       x
                               y

            battery  warning   sysfs
                     problem   no gauge

            Result: not ready: 1 required part missing (GPS).

            """)
    }

    /// The Wi-Fi radio: no block unless one is configured; its rfkill switch read,
    /// a missing one, a hard block and a switch this user may not write only warnings.
    @Test func theWiFiRadioIsCheckedWhenOneIsConfigured() throws {
        let dir = TemporaryDirectory()
        let recording = try dir.file("run.nmea", "$GPGGA,070000.00,5204.2316,N,00418.0978,E,1,08,0.9,2.0,M,47.0,M,,*5C\r\n")
        var c = configuration(dir, gps: "file://\(recording)")
        c.rfkillRoot = dir.path + "/rfkill"
        #expect(HardwareCheck.run(c).part("Wi-Fi radio") == nil)
        c.radio = "none"
        #expect(HardwareCheck.run(c).part("Wi-Fi radio") == nil)
        c.radio = "sysfs"
        let missing = try #require(HardwareCheck.run(c).part("Wi-Fi radio"))
        #expect(missing.status == .warning && missing.required == false)
        #expect(missing.problem?.contains("\(dir.path)/rfkill") == true, "\(missing)")
        #expect(HardwareCheck.run(c).passed)
        func rfkill(_ name: String, type: String, soft: String = "0", hard: String = "0") throws {
            try FileManager.default.createDirectory(atPath: "\(dir.path)/rfkill/\(name)", withIntermediateDirectories: true)
            for (file, value) in ["type": type, "name": "phy0", "soft": soft, "hard": hard] {
                try (value + "\n").write(toFile: "\(dir.path)/rfkill/\(name)/\(file)", atomically: false, encoding: .utf8)
            }
        }
        try rfkill("rfkill0", type: "bluetooth")
        try rfkill("rfkill1", type: "wlan")
        let found = try #require(HardwareCheck.run(c).part("Wi-Fi radio"))
        #expect(found.status == .ok, "\(found)")
        #expect(found.found == ["phy0 (sysfs:\(dir.path)/rfkill/rfkill1): on"])
        #expect(HardwareCheck.run(c).parts.map(\.name).suffix(2) == ["Wi-Fi radio", "clock"])
        try rfkill("rfkill1", type: "wlan", soft: "1", hard: "1")
        let hard = try #require(HardwareCheck.run(c).part("Wi-Fi radio"))
        #expect(hard.status == .warning && hard.problem?.contains("blocked by hardware") == true, "\(hard)")
        c.radio = "sim"
        #expect(HardwareCheck.run(c).part("Wi-Fi radio")?.status == .ok)
        c.radio = "bluetooth"
        #expect(HardwareCheck.run(c).part("Wi-Fi radio")?.problem?.contains("unknown radio setting") == true)
    }
}
