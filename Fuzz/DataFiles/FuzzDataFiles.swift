// libFuzzer target: every YAML data file's loader on arbitrary text (`scripts/fuzz.sh yaml`):
// plans, power profiles, the cue book, the phrase books, settings, scenarios, synthesis recipes and the
// hardware parts, the data folder's device.yaml and a sim: strap's heart-rate stream, each
// through its `load(file:text:…)`
// (or `parse`) entry point, as if the input were that file.
import Configurator
import Foundation
import ScenarioRunner
import Simulation
import Yams

/// The checkout this was built from: a scenario's plan and recording, a recipe's route and
/// a settings file's relative paths are looked up in it, so inputs made from the bundled
/// files get past those lookups to the numbers.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path
let scenarioDirectory = "\(root)/Scenarios/steady"
let plansDirectory = "\(root)/Hardware/plans"
let settingsFile = "\(root)/Hardware/config/fuzz.yaml"

/// Where recipes look for their routes: a folder beside a `routes` folder holding each
/// bundled route's name as a two-point route, so that a recipe's route is found, and read
/// quickly, and the fuzzer's time goes to the recipe rather than to the same GPX each time.
let recipeFolder: String = {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("pacer-fuzz-\(getpid())").path
    try? FileManager.default.createDirectory(atPath: "\(base)/recipes", withIntermediateDirectories: true)
    try? FileManager.default.createDirectory(atPath: "\(base)/routes", withIntermediateDirectories: true)
    let route = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="fuzz" xmlns="http://www.topografix.com/GPX/1/1"><rte>
        <rtept lat="52.0700" lon="4.3000"/><rtept lat="52.0710" lon="4.3010"/></rte></gpx>
        """
    let names = (try? FileManager.default.contentsOfDirectory(atPath: "\(root)/Scenarios/routes")) ?? []
    for name in names where name.hasSuffix(".gpx") {
        _ = FileManager.default.createFile(atPath: "\(base)/routes/\(name)", contents: Data(route.utf8))
    }
    return "\(base)/recipes"
}()

/// One input: a byte that picks the kind of file, then the file's bytes (read as `YAMLMapping.load(path:)`
/// reads a file: refused unless UTF-8). The loader of that
/// kind reads it, and must return a value or throw its `DataFileError`, whatever the text (a
/// trap, an overflow or a sanitizer report is the finding). One loader an input, not all of
/// them: YAML parsing is most of the time, and `scripts/fuzz.sh` gives each seed the byte of
/// its kind. A profile or a part must be named as its file is, so the text's own `name` is
/// given as the file's name, and the loader goes on past that check.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDataFiles(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    // The bytes as a file on disk is read: the UTF-8 check first (a stray byte is a
    // DataFileError naming its line and offset), then the loader.
    let text: String
    do {
        text = try YAMLMapping.text(of: Data(UnsafeBufferPointer(start: data + 1, count: size - 1)), file: "input.yaml")
    } catch {
        return 0
    }
    switch data[0] % 14 {
    case 0: _ = try? PlanLoader.load(file: "plan.yaml", text: text)
    case 1: _ = try? PowerProfileLoader.load(file: "\(ownName(text)).yaml", text: text)
    case 2: _ = try? CueBookLoader.load(file: "cues.yaml", text: text)
    case 3: _ = try? Settings.load(file: settingsFile, text: text, environment: ["HOME": "/nonexistent"])
    case 4: _ = try? ScenarioLoader.load(file: "\(scenarioDirectory)/scenario.yaml", text: text, plansDir: plansDirectory)
    case 5: _ = try? SynthRecipeLoader.load(file: "run.synth.yaml", text: text, folder: recipeFolder)
    case 6: _ = try? HardwareModelLoader.loadBoard(file: "\(ownName(text)).yaml", text: text)
    case 7: _ = try? HardwareModelLoader.loadGPS(file: "\(ownName(text)).yaml", text: text)
    case 8: _ = try? HardwareModelLoader.loadBuzzer(file: "\(ownName(text)).yaml", text: text)
    case 9: _ = try? HardwareModelLoader.loadBattery(file: "\(ownName(text)).yaml", text: text)
    case 10: _ = try? PhraseBookLoader.load(file: "en.yaml", text: text)
    case 11: _ = try? HardwareModelLoader.loadSpeaker(file: "\(ownName(text)).yaml", text: text)
    case 13: _ = try? HeartRateStream.parse(text, file: "hr.csv")
    default:  // 12
        // The data folder's device.yaml over the settings (the companion page's choices).
        if let overlay = try? DeviceOverlay.parse(file: "device.yaml", text: text), let base = overlayBase {
            _ = try? overlay.applied(to: base, file: "device.yaml")
        }
    }
    return 0
}

/// The settings a device.yaml is applied over: the fuzz settings, read once.
let overlayBase = try? Settings.load(path: settingsFile)

/// The text's top-level `name`, when it has one that can be a file's name.
func ownName(_ text: String) -> String {
    guard let node = try? Yams.compose(yaml: text), let name = node.mapping?["name"]?.string,
          !name.isEmpty, !name.contains("/") else { return "fuzz" }
    return name
}
