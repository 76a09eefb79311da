import ArgumentParser
import Charts
import Coaching
import Companion
import Configurator
import Foundation
import PacerCore
import Storage

/// Where the activity database lives: `--data-dir`, else the settings' `data_dir` (R27).
struct StoreOptions: ParsableArguments {
    @OptionGroup var settingsFile: SettingsOption

    @Option(name: .customLong("data-dir"), help: "Data folder holding pacer.sqlite (default: the settings' data_dir).")
    var dataDirectory: String?

    /// `--data-dir`, else the settings' `data_dir`.
    func directory() throws -> String {
        if let dataDirectory { return dataDirectory }
        return try settingsFile.settings().dataDirectory
    }

    /// The store, for reading unless `writing` (a writer takes the folder's lock: refused
    /// while a device records there).
    func open(writing: Bool = false) throws -> PacerStore {
        try Configurator.openActivityStore(directory: try directory(), access: writing ? .write : .read)
    }
}

/// `LAT,LON` in decimal degrees.
struct Position: ExpressibleByArgument {
    var point: GeoPoint

    init?(argument: String) {
        let parts = argument.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2,
              let lat = Double(parts[0].trimmingCharacters(in: .whitespaces)),
              let lon = Double(parts[1].trimmingCharacters(in: .whitespaces)),
              (-90...90).contains(lat), (-180...180).contains(lon)
        else { return nil }
        point = GeoPoint(latitude: lat, longitude: lon)
    }
}

/// What the runner chooses to put in an exported file (R18).
struct ExportOptions: ParsableArguments {
    @Option(name: .long, help: "The GPX file to write (- for standard output).")
    var gpx: String?

    @Option(name: .long, help: "The TCX file to write (- for standard output): laps, timer and the device's distance.")
    var tcx: String?

    @Flag(name: .long, help: "Leave the times out.")
    var noTimes = false

    @Flag(name: .long, help: "Leave the speeds out.")
    var noSpeeds = false

    @Flag(name: .long, help: "Leave the elevations out.")
    var noElevations = false

    @Flag(name: .long, help: "Leave the waypoints out.")
    var noWaypoints = false

    var options: GPXExportOptions {
        GPXExportOptions(times: !noTimes, speeds: !noSpeeds, elevations: !noElevations, waypoints: !noWaypoints)
    }
}

/// Writes a report to `path` through `OutputFile` (checked to the last byte; a file replaced
/// only once complete; a device, a FIFO or a link's target written, never the node replaced),
/// or to standard output for `-` (checked too).
func writeReport(_ text: String, to path: String) throws {
    if path == "-" {
        try StandardStream.output.write(Array(text.utf8))
        try StandardStream.output.finish()
        return
    }
    try OutputFile.write(path, text: text)
}

func printLines(_ lines: [String]) {
    var out: [UInt8] = []
    for line in lines {
        out.append(contentsOf: line.utf8)
        out.append(0x0A)
    }
    StandardStream.output.writeQuietly(out)
}

struct ActivitiesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activities", abstract: "List, show, report, export, share and import recorded activities.",
        subcommands: [List.self, Show.self, Report.self, Compare.self, Export.self, Share.self, Import.self], defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the recorded activities: date (UTC), name, state, distance, time, average speed, elevation.",
            discussion: """
                TIME is the runner's timer (pauses excluded); AVG is distance over that timer. \
                An activity in the recording state is being recorded, or was cut off by a power \
                cut and will be recovered when the device next starts.
                """)

        @OptionGroup var store: StoreOptions

        func run() throws {
            printLines(ActivityReport.list(try store.open().activities.activities(), zone: .system))
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show an activity: its statistics, its phases, its waypoints, its route on a map and its elevation profile.")

        @Argument(help: "The activity's id (see `pacer activities list`).")
        var id: Int64

        @Option(name: .long, help: "Map width in characters.")
        var width = 60

        @Option(name: .long, help: "Map height in characters.")
        var height = 20

        @OptionGroup var store: StoreOptions

        func validate() throws {
            guard (10...400).contains(width), (5...200).contains(height) else {
                throw ValidationError("the map must be 10 to 400 characters wide and 5 to 200 high")
            }
        }

        func run() throws {
            let opened = try store.open()
            let detail = try opened.activities.activity(id)
            printLines(ActivityReport.detail(detail, mapWidth: width, mapHeight: height, zone: .system,
                                             heartRateZones: try opened.heartRateZones(at: detail.summary.startedAt)))
        }
    }

    struct Report: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "report",
            abstract: "Write an activity's report: one self-contained HTML page with its map, speed and elevation charts.",
            discussion: """
                The page holds the summary figures; the route to scale (north up, a scale bar), \
                coloured by speed against the band of the phase being run, with the waypoints \
                and a mark at each kilometre; speed over the timer against each phase's band, \
                with the cues where they sounded; heart rate against the athlete's zones and the \
                time in each, when the points carry a heart rate (the zones of the profile in \
                force when the run started, else the current ones: `pacer profile set --max-hr`); \
                the elevation profile; and the phases, the per-kilometre splits, the waypoints and \
                the cues as tables. An imported activity \
                has no phases: its track and speed are drawn without bands. The page needs \
                nothing else (its charts are inline SVG, its style inline CSS, no script) and \
                fetches nothing; the same activity gives the same bytes.
                """)

        @Argument(help: "The activity's id (see `pacer activities list`).")
        var id: Int64

        @Option(name: .long, help: "The HTML file to write (- for standard output).")
        var out: String

        @OptionGroup var store: StoreOptions

        func run() throws {
            let html = ActivityReportPage.html(try store.open().activityReportInput(id))
            try writeReport(html, to: out)
            if out != "-" { print("Activity #\(id) report written to \(out)") }
        }
    }

    struct Compare: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "compare",
            abstract: "Two runs side by side: figures, cues, phases, splits, and with --page their speed, heart rate and gap.",
            discussion: """
                Each run is a stored activity (its id) or a GPX, TCX or FIT file: two runs of one \
                route, or of one workout. The gap is judged on distance run, each on its own timer \
                (the seconds the second took more or less than the first to reach each 100 m), so \
                two routes compare as well as one.
                """)

        @Argument(help: "The first run: an activity's id, or a GPX, TCX or FIT file.")
        var first: String

        @Argument(help: "The second run.")
        var second: String

        @Option(name: .long, help: "Also write the comparison as an HTML page.")
        var page: String?

        @OptionGroup var store: StoreOptions

        func run() throws {
            let sides = try [first, second].map(side)
            var comparison = RunComparisonInput(
                title: "\(sides[0].label) against \(sides[1].label)", a: sides[0], b: sides[1])
            comparison.notes = ["\(sides[0].label): \(sides[0].run.name); \(sides[1].label): \(sides[1].run.name)."]
            try ReplayCommand.show(comparison, page: page)
        }

        /// An activity of the store, or a file's run.
        func side(_ text: String) throws -> RunComparisonInput.Side {
            if let id = TrackReplayLoader.activityNumber(text) {
                let input = try store.open().activityReportInput(id)
                let date = input.startedAt.map { " (\(ActivityFormat.dateTime($0, zone: .system)))" } ?? ""
                return RunComparisonInput.Side(label: "#\(id)\(date)", run: input)
            }
            do {
                let timeline = try TrackReplayLoader.load(path: text)
                return RunComparisonInput.Side(label: (text as NSString).lastPathComponent, run: ReplayCommand.reportInput(timeline))
            } catch {
                throw CommandFailure(.noInput, "\(error)")
            }
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Export an activity as GPX 1.1 (its track, a segment per pause, waypoints, times, speeds), TCX or FIT (laps too).",
            discussion: """
                Choose what leaves the device in GPX with --no-times, --no-speeds, --no-elevations, \
                --no-waypoints. --tcx FILE writes TCX (a lap per phase, the timer, the device's distance; \
                no waypoints); --fit FILE a FIT activity file, which Strava, Garmin Connect and \
                intervals.icu read with a lap per phase, the pauses and the device's distance (it holds \
                everything: the --no-... flags are for GPX and TCX). Give --gpx, --tcx, --fit, or several.
                """)

        @Argument(help: "The activity's id.")
        var id: Int64

        @OptionGroup var export: ExportOptions

        @Option(name: .long, help: "The FIT activity file to write.")
        var fit: String?

        @OptionGroup var store: StoreOptions

        func validate() throws {
            guard export.gpx != nil || export.tcx != nil || fit != nil else {
                throw ValidationError("Give the file to write: --gpx FILE, --tcx FILE or --fit FILE (or several).")
            }
            guard export.gpx == nil || export.tcx == nil || (export.gpx != "-" && export.tcx != "-") else {
                throw ValidationError("--gpx and --tcx together write two files: give file names, not -")
            }
            if export.tcx != nil, export.noTimes { throw ValidationError("--tcx: \(LapFileError.needsTimes(share: false, format: .tcx))") }
            let named = [export.gpx, export.tcx, fit].compactMap { $0 }.filter { $0 != "-" }
            if let twice = named.first(where: { f in named.filter { $0 == f }.count > 1 }) {
                throw ValidationError("two of --gpx, --tcx and --fit name the same file, \(twice): give each its own.")
            }
        }

        func run() throws {
            let activities = try store.open()
            if let tcx = export.tcx {
                try ActivityFiles.exportTCX(activities, id, to: tcx, options: export.options, version: PacerVersion.number)
            }
            if let fit {
                let offset = Int64(TimeZone.current.secondsFromGMT())
                let size = try activities.fit.exportFIT(activity: id, to: fit, utcOffset: offset)
                if export.gpx != "-" && export.tcx != "-" { print("Activity #\(id) written to \(fit) (FIT, \(size) bytes)") }
            }
            guard let gpx = export.gpx else { return }
            if gpx == "-" {
                // Every write checked (`> file` on a full disk is an error, 74); a reader that
                // closes the pipe ends it quietly.
                var reading = true
                try activities.gpx.exportGPX(activity: id, options: export.options) { bytes in
                    if reading { reading = try StandardStream.output.write(bytes) }
                }
                try StandardStream.output.finish()
            } else {
                try activities.gpx.exportGPX(activity: id, to: gpx, options: export.options)
                print("Activity #\(id) written to \(gpx)")
            }
        }
    }

    struct Share: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "share",
            abstract: "Share an activity as GPX 1.1, TCX or FIT holding only what you choose, hidden round its start and end and your places.",
            discussion: """
                Only what --include names leaves the device:
                  track       the track points' positions
                  times       the time of every point and waypoint, and of the start
                  speeds      the track points' speeds
                  elevations  the elevations of the points and waypoints
                  waypoints   the waypoints you captured, with their names
                  name        the activity's name
                  heart       the track points' heart rates (health data: only when named)
                Without --include only the track is shared: positions, and no times, speeds, \
                elevations, waypoints, name or heart rates. Speeds and heart rates need the \
                track; times and elevations the track or the waypoints.

                Without times nothing in the file tells a time: no <time> anywhere, and a name \
                or waypoint name you chose that holds a date or time ("Run 2026-06-13 07:00", \
                "7:00", "June 13", "Tuesday") is refused rather than shared.

                --hide-within 300m leaves out every track point and waypoint within 300 m of \
                the track's first and last recorded points (m or km, up to 10 km). The places \
                in the settings' privacy_zones ({name, lat, lon, radius_m}) are always hidden \
                too. The track is cut where it enters a hidden place and goes on in a new \
                segment where it leaves: no line is drawn across the place.

                What is hidden is more than the place: a circle about twice as wide, moved off \
                it by this device's secret, the same for the same place every time, so that \
                the ends of the shared track do not point at the place, however many you share.

                --tcx FILE writes the share as TCX instead, with a lap per phase: it needs \
                times (TCX requires each point's time), has no place for waypoints, and \
                states no distance from the device, as the GPX share does not. --fit FILE \
                writes it as a FIT activity, with the same laps and the same limits.

                Exit status: 0 shared; 64 a usage error (an unknown item, a bad distance); 66 \
                no such activity (or no activities in the data folder); 73 the file cannot be \
                written; 65 a name that tells a time, or nothing left to share.
                """)

        @Argument(help: "The activity's id.")
        var id: Int64

        @Option(name: .long, help: ArgumentHelp("What to share, a comma list of: \(ShareItem.names) (default: track).",
                                                valueName: "items"))
        var include: String?

        @Option(name: .long, help: ArgumentHelp("The GPX file to write.", valueName: "file"))
        var out: String?

        @Option(name: .long, help: ArgumentHelp("The TCX file to write instead: laps too; needs times.", valueName: "file"))
        var tcx: String?

        @Option(name: .long, help: ArgumentHelp("The FIT file to write instead: laps too; needs times.", valueName: "file"))
        var fit: String?

        @Option(name: .customLong("hide-within"),
                help: ArgumentHelp("Hide everything within DISTANCE of the track's start and end: 300m, 0.5km.",
                                   valueName: "distance"))
        var hideWithin: String?

        @OptionGroup var store: StoreOptions

        func validate() throws {
            let given = [("--out", out), ("--tcx", tcx), ("--fit", fit)].filter { $0.1 != nil }
            guard given.count == 1 else { throw ValidationError("give one of --out FILE (GPX), --tcx FILE and --fit FILE") }
            guard given[0].1 != "-" else {
                throw ValidationError("\(given[0].0): a share is written to a file (what was shared is said on the terminal)")
            }
            let choice = try choice(zones: [])
            if format != .gpx { try ActivityFiles.checkLapShare(choice, format) }
        }

        /// The file's format, from the option that names it.
        var format: ShareFormat { tcx != nil ? .tcx : fit != nil ? .fit : .gpx }

        /// The runner's choice from the options (`ShareRequest`, as the companion's share
        /// makes it); a mistake in it is a usage error.
        func choice(zones: [PrivacyZone]) throws -> ShareChoice {
            do {
                return try ShareRequest.choice(include: include, hideWithin: hideWithin, zones: zones)
            } catch {
                throw ValidationError(error.description)
            }
        }

        func run() throws {
            // The settings' places are hidden whenever there are settings to read them from.
            let choice = try choice(zones: try store.settingsFile.settingsIfAny()?.privacyZones ?? [])
            // A missing activity or data folder is 66, a file that cannot be written 73, a
            // name that tells a time 65 (`ExitStatus`).
            let path = tcx ?? fit ?? out ?? ""
            let report = try store.open().gpx.share(activity: id, to: path, choice: choice, format: format,
                                                version: PacerVersion.number)
            printLines([report.summary(activity: id, path: path)])
        }
    }

    struct Import: ParsableCommand {
        enum Kind: String, ExpressibleByArgument, CaseIterable {
            case route, activity
        }

        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import a GPX or FIT file as a route to follow, or as a past activity.",
            discussion: """
                A file that is not GPX 1.1 or 1.0, or that is broken (a point without lat or lon, \
                a coordinate out of range, a bad time, a truncated file, entities declared in a \
                DTD), is refused with the line and the reason, and nothing is stored. As a route: \
                the file's <rte> points, or its track points when it has no route, and its \
                waypoints. As an activity: its track, which needs a time at every point, times \
                that advance. Files of any size are read as a stream.

                What no runner could have recorded is refused with the point's line and the \
                reason: a jump faster than 50 km/h (give or take 50 m of GPS error) that the \
                track does not come back from, times that go back or are all the same (an \
                activity's), elevations outside -500 to 9000 m. A few such points (1 in 100; none \
                in a file of under 10 points) are dropped as GPS glitches instead, and said. \
                An activity keeps each point's heart rate (Garmin's TrackPointExtension v1 or \
                v2 hr; a FIT record's heart_rate and the hrv messages' RR intervals); a route \
                keeps none, and no import keeps cadence: how many points had what was not \
                kept is said.

                A FIT file (.fit, or a file with FIT's header) is read the same way: its records \
                with a position and a time, a new segment after each timer stop; a damaged file \
                (a CRC, a message cut short) is refused with the byte offset and the reason.
                """)

        @Argument(help: "The GPX or FIT file.")
        var file: String

        @Option(name: .customLong("as"), help: "What the file becomes: route or activity.")
        var kind: Kind = .route

        @Option(name: .long, help: "The name to give it (default: the file's name for it, else the file name).")
        var name: String?

        @Flag(name: .long, help: """
            Import an activity the store has already (the same start, within 2 s, and distance)             again; without it such an import is refused (65), naming the activity.
            """)
        var again = false

        @OptionGroup var store: StoreOptions

        func run() throws {
            // A FIT file (a watch's, or `export --fit`'s) by its name or its signature.
            let result = try FileImport.importFile(file, as: kind == .route ? .route : .activity, name: name,
                                                   into: store.open(writing: true), again: again)
            let lines = ImportSummary.importLines(result)
            printLines(lines)
        }
    }
}

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "General statistics over all activities: total distance and time, highest speed ever, longest run.")

    @OptionGroup var store: StoreOptions

    func run() throws {
        let activities = try store.open()
        let recording = try activities.activities.activities().filter { $0.state == .recording }.count
        printLines(ActivityReport.overall(try activities.activities.overallStatistics(), recording: recording))
    }
}

struct RoutesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "routes", abstract: "Import, list, show, report and export routes to follow, and choose the next workout's.",
        subcommands: [List.self, Show.self, Report.self, Import.self, Export.self, Follow.self], defaultSubcommand: List.self)

    struct Follow: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "follow",
            abstract: "Choose the route the next workout of `pacer device` follows (none: no route).",
            discussion: """
                The choice is stored in the data folder and read when a workout starts, as the \
                companion page's choice is; `pacer device --route`, when given, still wins. A \
                route that does not exist or has fewer than two points is refused.
                """)

        @Argument(help: "The route's id (pacer routes list), or none.")
        var route: String

        @OptionGroup var store: StoreOptions

        func validate() throws {
            do { _ = try RouteFollowChoice.parse(route) } catch { throw ValidationError(error.description) }
        }

        func run() throws {
            let line = try RouteFollowChoice.choose(route, in: store.open(writing: true).routes, at: WallClock.now)
            printLines([line])
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the imported routes: name, distance, time, elevation gain and loss, lowest and highest point.",
            discussion: "With --from LAT,LON, also the distance from there to each route's start.")

        @Option(name: .long, help: "Your position as LAT,LON, for the distance to each route's start.")
        var from: Position?

        @OptionGroup var store: StoreOptions

        func run() throws {
            printLines(ActivityReport.routes(try store.open().routes.routes(), from: from?.point))
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show a route: its numbers, its waypoints, its line on a map and its elevation profile.")

        @Argument(help: "The route's id (see `pacer routes list`).")
        var id: Int64

        @Option(name: .long, help: "Your position as LAT,LON, for the distance to the route's start.")
        var from: Position?

        @OptionGroup var store: StoreOptions

        func run() throws {
            printLines(ActivityReport.route(try store.open().routes.route(id), from: from?.point))
        }
    }

    struct Report: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "report",
            abstract: "Write a route's report: one self-contained HTML page with its map and elevation profile.",
            discussion: """
                The page holds the route's numbers (distance, time when the file gave times, \
                elevation gain and loss, lowest and highest point, start and end); its line to \
                scale (north up, a scale bar) with the start, the end, the named waypoints and a \
                mark at each kilometre; its elevation profile; and its waypoints as a table. \
                Self-contained (inline SVG and CSS, no script), fetches nothing.
                """)

        @Argument(help: "The route's id (see `pacer routes list`).")
        var id: Int64

        @Option(name: .long, help: "The HTML file to write (- for standard output).")
        var out: String

        @OptionGroup var store: StoreOptions

        func run() throws {
            try writeReport(RouteReportPage.html(try store.open().routes.route(id).reportInput), to: out)
            if out != "-" { print("Route #\(id) report written to \(out)") }
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "export", abstract: "Export a route as GPX 1.1 (<wpt>s and one <rte>).")

        @Argument(help: "The route's id.")
        var id: Int64

        @OptionGroup var export: ExportOptions

        @OptionGroup var store: StoreOptions

        func validate() throws {
            guard export.tcx == nil else { throw ValidationError("--tcx: a route is exported as GPX (--gpx FILE)") }
            guard export.gpx != nil else { throw ValidationError("give --gpx FILE") }
        }

        func run() throws {
            let routes = try store.open()
            let gpx = export.gpx ?? "-"
            guard gpx != "-" else {
                // As for an activity: every write checked, a reader that closes the pipe ends it quietly.
                var reading = true
                try routes.gpx.exportGPX(route: id, options: export.options) { bytes in
                    if reading { reading = try StandardStream.output.write(bytes) }
                }
                try StandardStream.output.finish()
                return
            }
            try routes.gpx.exportGPX(route: id, to: gpx, options: export.options)
            print("Route #\(id) written to \(gpx)")
        }
    }
}
