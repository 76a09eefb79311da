import Foundation
import TestSupport
import Testing

/// The command line's conventions: sysexits statuses, the usage text only for
/// usage errors, `--version`, and each option only where it does something.
@Suite("The command line's conventions", .serialized)
struct CommandLineEndToEndTests {
    /// One failure of each kind, with the status and a part of the message.
    @Test func eachKindOfFailureHasItsSysexitsStatus() throws {
        let data = try makeTemporaryDirectory("exits")
        let broken = "\(data)/broken.yaml"
        try "name: Broken\nworkouts:\n  - name: x\n    phases:\n      - {name: a, minutes: -3, speed_kmh: [8, 10]}\n"
            .write(toFile: broken, atomically: true, encoding: .utf8)
        let settings = "\(data)/settings.yaml"
        try "gps: nowhere://x\n".write(toFile: settings, atomically: true, encoding: .utf8)
        _ = try Pacer.run(["routes", "import", "Scenarios/routes/canal-path.gpx", "--data-dir", data])
        let cases: [(arguments: [String], status: Int32, message: String)] = [
            (["activities", "list", "--bogus"], 64, "Unknown option '--bogus'"),
            (["plan", "show", broken], 65, "broken.yaml:5"),
            (["plan", "show", "\(data)/nothing.yaml"], 66, "no plan file"),
            (["activities", "show", "42", "--data-dir", data], 66, "there is no activity #42"),
            (["activities", "list", "--data-dir", "\(data)/nowhere"], 66, "no activities in"),
            (["run", "--plan", "demo", "--source", "file:\(data)/missing.nmea", "--fast", "--buzzer", "null",
              "--data-dir", data, "--socket", "\(data)/c.sock"], 66, "missing.nmea: No such file or directory"),
            (["ctl", "status", "--socket", "\(data)/none.sock"], 69, "no Pacer running"),
            (["routes", "export", "1", "--gpx", "\(data)/no/such/folder/route.gpx", "--data-dir", data], 73, "route.gpx"),
            (["run", "--plan", "demo", "--config", settings, "--fast", "--data-dir", data, "--socket", "\(data)/c.sock"],
             78, "settings.yaml:1"),
            (["run", "--plan", "demo", "--config", "\(data)/no-settings.yaml", "--fast"], 78, "no-settings.yaml"),
        ]
        for c in cases {
            let result = try Pacer.run(c.arguments)
            #expect(result.status == c.status, "\(c.arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains(c.message), "\(c.arguments): \(result.stderr)")
            // The usage text is for usage errors alone.
            #expect(result.stderr.contains("Usage:") == (c.status == 64), "\(c.arguments): \(result.stderr)")
        }
    }

    /// Issue 39, item 12: a GPX given as a source was "replayed" as nothing: exit 0, 75
    /// gps-lost cues, a "completed" run of 0.00 km, and the plan counted the workout done.
    /// Since issue 43 a run's GPX, TCX or FIT file is replayed; one that holds no run (a
    /// route without times, a damaged FIT, a TCX without trackpoints) is refused (65) naming
    /// the file and why, before a workout starts; nothing is stored.
    @Test func aTrackFileWithoutARunIsRefusedWithAWord() throws {
        let data = try makeTemporaryDirectory("track-source")
        let fit = "\(data)/run.fit"
        var bytes: [UInt8] = [14, 0x20, 0x54, 0x08, 0, 0, 0, 0] + Array(".FIT".utf8) + [0, 0, 0, 0]
        bytes += [UInt8](repeating: 0, count: 8)
        try Data(bytes).write(to: URL(fileURLWithPath: fit))
        let tcx = "\(data)/run.tcx"
        try "<?xml version=\"1.0\"?>\n<TrainingCenterDatabase xmlns=\"http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2\"/>\n"
            .write(toFile: tcx, atomically: true, encoding: .utf8)
        for (file, word) in [("Scenarios/routes/canal-path.gpx", "no timed track points: nothing to replay"),
                             (fit, "the file's CRC is wrong"), (tcx, "no timed track points: nothing to replay")] {
            let run = try Pacer.run(["run", "--plan", "demo", "--source", "file:\(file)", "--fast", "--buzzer", "null",
                                     "--data-dir", data, "--socket", "\(data)/c.sock"])
            #expect(run.status == 65, "\(file): \(run.status) \(run.stderr)")
            #expect(run.stderr.contains(file) && run.stderr.contains(word), "\(run.stderr)")
        }
        let list = try Pacer.run(["activities", "list", "--data-dir", data])
        #expect(!list.stdout.contains("completed"), "nothing stored: \(list.stdout)")
    }

    /// A second writer on a busy data folder is told to try again later (75).
    @Test func aBusyDataFolderIsTemporary() throws {
        let data = try makeTemporaryDirectory("busy")
        let device = try Pacer.start([
            "run", "--plan", "demo", "--source", "file:Hardware/recordings/track-loop.nmea", "--buzzer", "null",
            "--data-dir", data, "--socket", "\(data)/c.sock", "--today", "2026-05-02",
        ])
        defer {
            device.process.terminate()
            _ = device.standardOutputData()
            device.process.waitUntilExit()
        }
        // Once it answers on its socket it holds the folder.
        let answering = eventuallyBlocking(within: .seconds(10), every: .milliseconds(100)) {
            (try? Pacer.run(["ctl", "status", "--socket", "\(data)/c.sock"]))?.status == 0
        }
        try #require(answering, "the device never answered")
        let result = try Pacer.run(["routes", "import", "Scenarios/routes/canal-path.gpx", "--data-dir", data])
        #expect(result.status == 75)
        #expect(result.stderr.contains("is in use by another Pacer"))
        #expect(!result.stderr.contains("Usage:"))
    }

    @Test func versionAndHelpShowOnlyWhatApplies() throws {
        let version = try Pacer.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("pacer 0."), "\(version.stdout)")
        // `--version` alone and with another `--version`: the parser's one answer.
        let parsers = try Pacer.run(["--version", "--version"])
        #expect(parsers.status == 0)
        #expect(version.stdout == parsers.stdout && version.stderr == parsers.stderr)
        let long = try Pacer.run(["version"])
        #expect(long.stdout.hasPrefix(version.stdout.trimmingCharacters(in: .newlines)))
        // Reading the store needs no buzzer nor power profile; watching the GPS neither.
        for command in [["activities", "list"], ["activities", "show"], ["routes", "list"], ["routes", "import"],
                        ["stats"], ["gps", "watch"]] {
            let help = try Pacer.run(command + ["--help"])
            #expect(help.status == 0)
            #expect(!help.stdout.contains("--buzzer") && !help.stdout.contains("--profile "), "\(command)")
            #expect(help.stdout.contains("--config"), "\(command)")
        }
        // Building the device, they apply.
        for command in [["run"], ["device"], ["beep"]] {
            let help = try Pacer.run(command + ["--help"])
            #expect(help.stdout.contains("--buzzer") && help.stdout.contains("--profile"), "\(command)")
        }
    }

    /// `pacer beep` on a sound output that cannot play (issue 42: a board without a sound
    /// card heard a warning and exit 1): one error naming the output, ALSA's reason and where
    /// to look, and 69. An ALSA device name that no configuration has stands in for the card.
    @Test func beepOnAnOutputThatCannotPlaySaysWhyWith69() throws {
        let beep = try Pacer.run(["beep", "speed-up", "--buzzer", "alsa:pacer-no-such-card"])
        #expect(beep.status == 69, "\(beep.stderr)")
        #expect(beep.stderr.contains("Error: pacer beep: cannot play on alsa:pacer-no-such-card: cannot open ALSA device 'pacer-no-such-card' ("),
                "\(beep.stderr)")
        #expect(beep.stderr.contains("Unknown PCM pacer-no-such-card"), "\(beep.stderr)")
        #expect(beep.stderr.contains("`aplay -l` lists the sound cards"), "\(beep.stderr)")
        // The error alone: not the device's warning that its cues will be silent as well.
        #expect(!beep.stderr.contains("cues will be silent"), "\(beep.stderr)")
        #expect(beep.stdout.isEmpty, "\(beep.stdout)")
    }

    /// `pacer say`: words into a WAV file; why speech is unavailable, with 69; a speaker that
    /// cannot be configured, with 78.
    @Test func sayCommand() throws {
        let dir = try makeTemporaryDirectory()
        let said = try Pacer.run(["say", "--speaker", "wav:\(dir)/say.wav", "split", "1"])
        #expect(said.status == 0)
        #expect(said.stdout.hasPrefix("said \"split 1\" ("))
        let size = (try FileManager.default.attributesOfItem(atPath: dir + "/say.wav")[.size] as? Int) ?? 0
        #expect(size > 44 + 20_000)
        let noVoice = try Pacer.run(["say", "--speaker", "wav:\(dir)/x.wav?voice=xx-nonesuch", "hello"])
        #expect(noVoice.status == 69)
        #expect(noVoice.stderr.contains("has no voice 'xx-nonesuch'"))
        // espeak-ng without its data (ESPEAK_DATA_PATH at an empty folder): why, and 69.
        try FileManager.default.createDirectory(atPath: dir + "/empty/espeak-ng-data", withIntermediateDirectories: true)
        let noData = try Pacer.run(
            ["say", "--speaker", "wav:\(dir)/y.wav", "hello"], environment: ["ESPEAK_DATA_PATH": dir + "/empty"])
        #expect(noData.status == 69)
        #expect(noData.stderr.contains("no espeak-ng data at \(dir)/empty/espeak-ng-data (install espeak-ng-data)"))
        let unknown = try Pacer.run(["say", "--speaker", "festival:x", "hello"])
        #expect(unknown.status == 78)
        #expect(unknown.stderr.contains("unknown speaker 'festival:x'"))
        // Issue 38, case 4: 1 MB of text was rendered whole, to 4.4 GB and a SIGABRT. More
        // than one announcement says is refused before anything is rendered.
        let page = String(repeating: "word ", count: 20_000)
        let long = try Pacer.run(["say", "--speaker", "wav:\(dir)/long.wav"] + Array(repeating: page, count: 10))
        #expect(long.status == 64, "\(long.stderr)")
        #expect(long.stderr.contains("characters is more than one announcement says (at most 400)"), "\(long.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/long.wav"))
    }

    /// libgps, libasound, libespeak-ng and libxml2 are opened by what uses them, not loaded by
    /// every command at start-up with the libraries they need: the dynamic
    /// loader's own account (LD_DEBUG=libs) of what `pacer --version` and a decode load, and of
    /// what `pacer say`, `pacer version` and a GPX import do.
    @Test func theOpenedLibrariesLoadOnlyWhenUsed() throws {
        let dir = try makeTemporaryDirectory("dlopen")
        try "".write(toFile: dir + "/empty.nmea", atomically: true, encoding: .utf8)
        try """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="48.1" lon="11.5"><time>2024-05-01T07:30:00Z</time></trkpt>
            <trkpt lat="48.1001" lon="11.5001"><time>2024-05-01T07:30:01Z</time></trkpt>
            </trkseg></trk></gpx>
            """.write(toFile: dir + "/run.gpx", atomically: true, encoding: .utf8)
        func loaded(_ arguments: [String]) throws -> String {
            let result = try Pacer.run(arguments, environment: ["LD_DEBUG": "libs"])
            #expect(result.status == 0, "\(arguments): \(result.stderr.suffix(500))")
            return result.stderr
        }
        for arguments in [["--version"], ["nmea", "decode", "--json", dir + "/empty.nmea"]] {
            let libraries = try loaded(arguments)
            #expect(libraries.contains("find library=libc.so.6"), "LD_DEBUG gave no account: \(libraries.prefix(300))")
            for library in ["libgps.so", "libespeak-ng.so", "libpulse", "libasound.so", "libxml2.so", "libicuuc.so"] {
                #expect(!libraries.contains(library), "\(arguments) loaded \(library)")
            }
        }
        let spoken = try loaded(["say", "--speaker", "wav:\(dir)/say.wav", "one"])
        #expect(spoken.contains("find library=libespeak-ng.so.1"), "pacer say never opened libespeak-ng")
        // `pacer version` says which libasound the board has: it opens it.
        let version = try loaded(["version"])
        #expect(version.contains("find library=libasound.so.2"), "pacer version never opened libasound")
        let imported = try loaded(["activities", "import", dir + "/run.gpx", "--as", "activity", "--data-dir", dir + "/data"])
        #expect(imported.contains("find library=libxml2.so"), "a GPX import never opened libxml2")
    }

}
