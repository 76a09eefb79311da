import ArgumentParser
import Configurator
import Foundation
import LinuxHardware
import Storage

/// `pacer hr scan | pair ADDRESS | unpair`: finds Bluetooth LE heart-rate straps through BlueZ
/// and chooses the one the device reads (`heart_rate:` in the data folder's device.yaml, over
/// the settings file, as `pacer settings set` writes it).
struct HeartRateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hr", abstract: "Find a Bluetooth heart-rate strap and pair the device with it.",
        subcommands: [Scan.self, Pair.self, Unpair.self])

    /// When the choice holds: the device builds its strap's source when it starts.
    static let takesEffect = "The device connects to it from its next start (sudo systemctl restart pacer)."

    struct Scan: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "scan",
            abstract: "List the heart-rate straps in range: address, name, signal and battery.",
            discussion: """
                Runs BlueZ's discovery for --seconds with a filter for the Heart Rate service \
                (0x180D) and lists the straps it knows, nearest first. The adapter is switched on \
                for the scan if it was off, and off again after. A strap sleeps off the chest: wet \
                its electrodes and put it on first. Exit status: 0 with a strap seen; 69 when none \
                was, or when there is no system bus, no BlueZ (bluetoothd) or no adapter.
                """)

        @Option(name: .long, help: "How long to look, seconds.")
        var seconds: Double = 10

        @Option(name: .long, help: "The Bluetooth adapter (default: the first, usually hci0).")
        var adapter: String?

        func validate() throws {
            try AllowedRange.scanSeconds.check(seconds, option: "--seconds")
        }

        func run() throws {
            let found: (adapter: BlueZAdapterInfo, straps: [FoundStrap])
            do {
                found = try BlueZ.scan(for: AllowedRange.scanSeconds.duration(seconds), adapter: adapter)
            } catch {
                throw CommandFailure(.unavailable, error.description)
            }
            let straps = found.straps.filter(\.heartRate)
            guard !straps.isEmpty else {
                throw CommandFailure(
                    .unavailable,
                    "no heart-rate strap seen in \(HeartRateCommand.seconds(seconds)) on \(found.adapter.name): "
                        + "wet the strap's electrodes and put it on, then scan again")
            }
            let rows = [["ADDRESS", "NAME", "SIGNAL", "BATTERY"]] + straps.map { strap in
                [strap.address, strap.name + (strap.connected ? " (connected)" : ""),
                 strap.rssi.map { "\($0) dBm" } ?? "-", strap.battery.map { "\($0) %" } ?? "-"]
            }
            let widths = (0..<4).map { column in rows.map { $0[column].count }.max() ?? 0 }
            for row in rows {
                let cells = row.enumerated().map { i, cell in
                    i == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[i] - cell.count)
                }
                print(cells.joined(separator: "  "))
            }
            print("\nPair the device with one: pacer hr pair ADDRESS")
        }
    }

    struct Pair: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pair",
            abstract: "Make the strap at ADDRESS the device's heart-rate strap.",
            discussion: """
                Looks for the strap first (for --seconds, as `pacer hr scan` does) and refuses \
                one that is not in range (exit 69), unless --offline is given or no bus or \
                BlueZ can be reached (then it says so and stores it unseen). Stores \
                heart_rate: bluez:ADDRESS in the data folder's device.yaml, read after the \
                settings file and over it, as `pacer settings set` does. No Bluetooth pairing \
                (bonding) is done: heart-rate straps do not ask for it. A wrong ADDRESS exits \
                with 64.
                """)

        @Argument(help: ArgumentHelp("The strap's address, as `pacer hr scan` lists it.", valueName: "address"))
        var address: String

        @Option(name: .long, help: "How long to look for the strap, seconds.")
        var seconds: Double = 10

        @Option(name: .long, help: "The Bluetooth adapter (default: the first, usually hci0).")
        var adapter: String?

        @Flag(name: .long, help: "Store the strap without looking for it.")
        var offline = false

        @OptionGroup var settingsFile: SettingsOption

        @Option(name: .customLong("data-dir"), help: "Data folder holding device.yaml (default: the settings' data_dir).")
        var dataDirectory: String?

        func validate() throws {
            guard BlueZ.normalizedAddress(address) != nil else {
                throw ValidationError(BlueZError.invalidAddress(address).description)
            }
            try AllowedRange.scanSeconds.check(seconds, option: "--seconds")
        }

        func run() throws {
            let settings = try SettingsCommand.load(settingsFile, dataDirectory: dataDirectory)
            let strap = BlueZ.normalizedAddress(address) ?? address
            if !offline {
                do {
                    let found = try BlueZ.scan(for: AllowedRange.scanSeconds.duration(seconds), adapter: adapter, address: strap)
                    guard let seen = found.straps.first(where: { $0.address == strap }) else {
                        throw CommandFailure(
                            .unavailable,
                            "no strap at \(strap) seen in \(HeartRateCommand.seconds(seconds)) on \(found.adapter.name): wet its "
                                + "electrodes and put it on, then pair again (or store it unseen: --offline)")
                    }
                    print("found \(seen.name) (\(strap))\(seen.rssi.map { " at \($0) dBm" } ?? "")")
                } catch let error as BlueZError {
                    switch error {
                    case .noBus, .noBlueZ, .library:
                        StandardStream.error.writeQuietly("warning: cannot look for the strap (\(error)); storing it unseen\n")
                    default:
                        throw CommandFailure(.unavailable, error.description)
                    }
                }
            }
            try HeartRateCommand.store("bluez:" + strap, over: settings)
        }
    }

    struct Unpair: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unpair",
            abstract: "Make the device read no heart-rate strap (heart_rate: none in device.yaml).")

        @OptionGroup var settingsFile: SettingsOption

        @Option(name: .customLong("data-dir"), help: "Data folder holding device.yaml (default: the settings' data_dir).")
        var dataDirectory: String?

        func run() throws {
            let settings = try SettingsCommand.load(settingsFile, dataDirectory: dataDirectory)
            try HeartRateCommand.store("none", over: settings)
        }
    }

    /// `heart_rate: value` into device.yaml, as `pacer settings set heart_rate value` would.
    static func store(_ value: String, over settings: Settings) throws {
        do {
            let result = try DeviceOverlay.set([("heart_rate", value)], over: settings)
            let path = DeviceOverlay.path(dataDirectory: result.dataDirectory)
            print("heart_rate is now \(value) (\(path)). \(value == "none" ? "The device looks for no strap from its next start." : takesEffect)")
        } catch {
            throw CommandFailure(.config, error.description)
        }
    }

    static func seconds(_ s: Double) -> String {
        s == s.rounded() ? "\(Int(s)) s" : "\(s) s"
    }
}

extension AllowedRange {
    /// How long `pacer hr scan` and `pair` look for straps.
    static let scanSeconds = AllowedRange(above: 0, atMost: 600, unit: "s")
}
