import ArgumentParser
import Coaching
import Companion
import Configurator
import Foundation
import PacerCore
import Storage

/// `pacer profile set` / `pacer profile show`: the athlete profile (R12, R15), kept in the
/// activity database with the history of its changes.
struct ProfileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile",
        abstract: "Set and show the athlete profile: weight, height, training days a week, races and best marks.",
        subcommands: [SetProfile.self, ShowProfile.self])

    /// Where the profile lives: the activity database in `--data-dir`, else in the settings'
    /// `data_dir` (R27), as for `pacer activities`.
    struct StoreLocation: ParsableArguments {
        @Option(name: .long, help: "Settings file (default: $PACER_CONFIG, /etc/pacer/pacer.yaml, or the simulated setup beside the binary).")
        var config: String?

        @Option(name: .customLong("data-dir"), help: "Data folder holding pacer.sqlite (default: the settings' data_dir).")
        var dataDirectory: String?

        /// The store, for reading unless `writing` (under the folder's lock).
        func open(writing: Bool = false) throws -> PacerStore {
            try Configurator.openActivityStore(directory: folder(), access: writing ? .write : .read)
        }

        /// The store for reading, nil when the folder holds no database yet (nothing stored:
        /// the caller says so in its own words). A folder that does not exist is an error
        /// naming it (66, as `pacer activities list` gives): a mistyped --data-dir is not
        /// "nothing stored yet"; nor is a folder this user may not read (77, issue 42: outside
        /// group pacer, the device's folder looked empty).
        func openIfPresent() throws -> PacerStore? {
            let folder = try folder()
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw CommandFailure(.noInput, "no data folder \(folder): it does not exist (is the data folder right? "
                    + "the device's is the settings' data_dir, /var/lib/pacer on the board)")
            }
            try Configurator.checkDataFolderAccess(folder, writing: false)
            guard FileManager.default.fileExists(atPath: "\(folder)/\(PacerDatabase.fileName)") else { return nil }
            return try Configurator.openActivityStore(directory: folder, access: .read)
        }

        /// The data folder: --data-dir, else the settings' data_dir.
        func folder() throws -> String {
            try Self.folder(config: config, dataDirectory: dataDirectory)
        }

        static func folder(config: String?, dataDirectory: String?) throws -> String {
            if let dataDirectory { return dataDirectory }
            do {
                return try Settings.load(path: config ?? Settings.defaultPath()).dataDirectory
            } catch {
                throw CommandFailure.config(error)
            }
        }
    }

    enum YesNo: String, ExpressibleByArgument, CaseIterable {
        case yes, no

        var value: Bool { self == .yes }
    }

    struct SetProfile: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Set the athlete profile, or change some of its fields.",
            discussion: """
                The first set needs --weight, --height and --frequency; later sets change only \
                the fields given. Allowed: weight 30 to 250 kg, height 120 to 230 cm, 1 to 7 \
                training days a week; a best race of 1 to 100 km, no faster than the world \
                record allows for its distance (the 1000 m record carried to the distance by \
                Riegel's formula) and no slower than 2 km/h; a best marathon of 2:00:00 to \
                8:00:00. Times are M:SS or H:MM:SS. A best race needs --raced yes (now or \
                before), a best marathon --marathon yes; --raced no clears the best race, \
                --marathon no the best marathon. A value out of range or malformed is refused \
                with the allowed range, and nothing is stored. Setting the values already \
                stored records nothing.

                The heart-rate figures make the five heart-rate zones (`pacer profile show` \
                prints them): --max-hr 120 to 230 bpm, --resting-hr 30 to 110, --threshold-hr \
                (lactate threshold) 100 to 220, --age 10 to 100 years; none clears one. With a \
                threshold the zones are Friel's % of it; else with a maximum and a resting rate \
                Karvonen's % of the reserve; else % of the maximum; with only an age the \
                maximum is estimated (Tanaka: 208 - 0.7 x age) and the zones say so. Figures \
                that disagree (a resting rate within 40 bpm of the maximum, a threshold not \
                below it or within 30 bpm of the resting rate) are refused with the reason.
                """)

        @Option(name: .long, help: ArgumentHelp("Weight in kilograms (30 to 250).", valueName: "kg"))
        var weight: String?

        @Option(name: .long, help: ArgumentHelp("Height in centimetres (120 to 230).", valueName: "cm"))
        var height: String?

        @Option(name: .long, help: ArgumentHelp("Training days a week (1 to 7).", valueName: "days"))
        var frequency: String?

        @Option(name: .long, help: ArgumentHelp("Whether the runner has run a race.", valueName: "yes|no"))
        var raced: YesNo?

        @Option(name: .long, help: ArgumentHelp("Whether the runner has run a marathon.", valueName: "yes|no"))
        var marathon: YesNo?

        @Option(name: .customLong("best-race"),
                help: ArgumentHelp("Best race, DISTANCE@TIME: 10km@48:30, 5000m@22:10, 21.1km@1:45:00.",
                                   valueName: "distance@time"))
        var bestRace: String?

        @Option(name: .customLong("best-marathon"), help: ArgumentHelp("Best marathon time (2:00:00 to 8:00:00).",
                                                                      valueName: "h:mm:ss"))
        var bestMarathon: String?

        @Option(name: .customLong("max-hr"), help: ArgumentHelp("Maximum heart rate (120 to 230 bpm; none clears it).",
                                                                valueName: "bpm"))
        var maxHeartRate: String?

        @Option(name: .customLong("resting-hr"), help: ArgumentHelp("Resting heart rate (30 to 110 bpm; none clears it).",
                                                                    valueName: "bpm"))
        var restingHeartRate: String?

        @Option(name: .customLong("threshold-hr"),
                help: ArgumentHelp("Lactate threshold heart rate (100 to 220 bpm; none clears it).", valueName: "bpm"))
        var thresholdHeartRate: String?

        @Option(name: .long, help: ArgumentHelp("Age in years (10 to 100; estimates a maximum heart rate when none is set).",
                                         valueName: "years"))
        var age: String?

        @Option(name: .long, help: ArgumentHelp("The time of the change, ISO 8601 (default: now, from the system clock).",
                                         valueName: "time"))
        var now: String?

        @OptionGroup var store: StoreLocation

        /// The checks that need no stored profile: each value's form and range.
        func validate() throws {
            _ = try ProfileCommand.time(now)
            _ = try parse()
        }

        func run() throws {
            let time = try ProfileCommand.time(now)
            let given = try parse()
            let activities = try store.open(writing: true)
            let current = try activities.athlete.athlete()
            let profile: AthleteProfile
            do {
                profile = try given.applied(to: current?.profile)
            } catch {
                // Refused for what is stored: said without the usage, with the usage error's status.
                StandardStream.error.writeQuietly("Error: \(error.message)\n")
                throw ExitCode.validationFailure
            }
            var lines: [String]
            if try activities.athlete.setAthlete(profile, at: time) {
                if let current {
                    let changed = profile.fields(differingFrom: current.profile).map(\.label)
                    lines = ["Athlete profile changed at \(ProfileReport.date(time)): \(changed.joined(separator: ", "))."]
                } else {
                    lines = ["Athlete profile set at \(ProfileReport.date(time))."]
                }
            } else {
                lines = ["Athlete profile unchanged: it already has these values."]
            }
            let history = try activities.athlete.athleteHistory()
            lines += ProfileReport.show(profile, since: AthleteStore.fieldsSince(history))
            printLines(lines)
        }

        /// The options as values, each checked against its allowed range; every problem is
        /// said at once (`AthleteProfileChanges.parse`, which the companion's page calls too).
        func parse() throws -> AthleteProfileChanges {
            do {
                return try AthleteProfileChanges.parse(
                    weight: weight, height: height, frequency: frequency, raced: raced?.value,
                    marathon: marathon?.value, bestRace: bestRace, bestMarathon: bestMarathon,
                    maxHeartRate: maxHeartRate, restingHeartRate: restingHeartRate,
                    thresholdHeartRate: thresholdHeartRate, age: age)
            } catch {
                throw ValidationError(error.message)
            }
        }
    }

    struct ShowProfile: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show the athlete profile: each value with when it last changed, BMI, best race pace and speed, heart-rate zones.",
            discussion: "With --history, every change too, oldest first. Exit status 1 when no profile is set.")

        @Flag(name: .long, help: "List every change, oldest first.")
        var history = false

        @Flag(name: .long, help: "Print JSON.")
        var json = false

        @OptionGroup var store: StoreLocation

        func run() throws {
            guard let activities = try store.openIfPresent(), let current = try activities.athlete.athlete() else {
                let message = "No athlete profile yet: set one with "
                    + "`pacer profile set --weight KG --height CM --frequency DAYS` "
                    + "(and --raced, --marathon, --best-race, --best-marathon).\n"
                StandardStream.error.writeQuietly(message)
                throw ExitCode.failure
            }
            let changes = try activities.athlete.athleteHistory()
            let since = AthleteStore.fieldsSince(changes)
            if json {
                let text = ProfileReport.json(current.profile, changedAt: current.since, since: since,
                                                  history: history ? changes : nil)
                StandardStream.output.writeQuietly(text + "\n")
                return
            }
            var lines = ["Athlete profile (last changed \(ProfileReport.date(current.since)))"]
            lines += ProfileReport.show(current.profile, since: since)
            if history {
                lines.append("")
                lines.append("History (\(changes.count) change\(changes.count == 1 ? "" : "s"), oldest first):")
                lines += ProfileReport.history(changes)
            }
            printLines(lines)
        }
    }

    /// `--now`, else the system clock (the CLI may read the wall clock; the runtime never does).
    static func time(_ text: String?) throws -> UTCTimestamp {
        guard let text else {
            return WallClock.now
        }
        guard let time = GPXReader.parseTime(Substring(text)) else {
            throw ValidationError("--now '\(text)' is not an ISO 8601 time, like 2026-05-02T08:00:00Z")
        }
        return time
    }
}

/// What `pacer profile show` prints.
enum ProfileReport {
    /// `2026-05-02 08:00 UTC`.
    static func date(_ time: UTCTimestamp) -> String {
        ActivityFormat.dateTimeZoned(time, zone: .system)
    }

    static func value(_ field: AthleteProfile.Field, of profile: AthleteProfile) -> String {
        field.shown(of: profile)
    }


    /// `4:51 min/km, 12.4 km/h`.
    static func pace(_ metresPerSecond: Double) -> String {
        "\(Pace.minutesPerKilometre(metresPerSecond)) min/km, \(ActivityFormat.kilometresPerHour(metresPerSecond)) km/h"
    }

    /// The profile, a field a line with when it last changed, then the derived figures.
    static func show(_ profile: AthleteProfile, since: [AthleteProfile.Field: UTCTimestamp]) -> [String] {
        func row(_ label: String, _ value: String, _ since: UTCTimestamp? = nil) -> String {
            let text = "  " + label.padding(toLength: 18, withPad: " ", startingAt: 0) + value
            guard let since else { return text }
            return text.padding(toLength: max(text.count + 2, 42), withPad: " ", startingAt: 0)
                + "since \(ActivityFormat.dateTime(since, zone: .system))"
        }
        var lines = AthleteProfile.Field.allCases.map { row($0.label, value($0, of: profile), since[$0]) }
        lines.append(row("BMI", "\(ActivityFormat.fixed(profile.bodyMassIndex, places: 1)) kg/m2"))
        if let race = profile.bestRace {
            lines.append(row("best race pace", pace(race.speed)))
        }
        if let time = profile.bestMarathon {
            lines.append(row("marathon pace", pace(Goal.marathonDistance / time.inSeconds)))
        }
        lines += zones(profile.heartRate)
        return lines
    }

    /// The heart-rate zones the figures make: the method's title (and that the maximum is
    /// estimated from age, when it is), a line a zone, and where the method comes from; a
    /// line saying how to get them when there are no figures.
    static func zones(_ figures: HeartRateFigures) -> [String] {
        guard let zones = figures.zones else {
            return ["", "Heart-rate zones: none (set --max-hr, --threshold-hr, --resting-hr or --age)"]
        }
        var lines = ["", "Heart-rate zones, \(zones.method.title)\(zones.isEstimate ? " (estimated from age)" : ""):"]
        if zones.isEstimate, let maximum = zones.maximum {
            lines.append("  maximum \(maximum) bpm estimated from age \(figures.age ?? 0) (Tanaka: 208 - 0.7 x age; "
                + "one person's may be 10 bpm either side)")
        }
        lines += zones.lines.map { "  " + $0 }
        lines.append("  Method: \(zones.method.citation)")
        return lines
    }

    /// A line per change: the whole profile first, then what each change changed.
    static func history(_ changes: [(AthleteProfile, UTCTimestamp)]) -> [String] {
        var lines: [String] = []
        var previous: AthleteProfile?
        for (profile, time) in changes {
            let what: [String]
            if let previous {
                what = profile.fields(differingFrom: previous).map {
                    "\($0.label) \(value($0, of: previous)) -> \(value($0, of: profile))"
                }
            } else {
                what = AthleteProfile.Field.allCases.map { "\($0.label) \(value($0, of: profile))" }
            }
            lines.append("  \(ActivityFormat.dateTime(time, zone: .system))  \(what.joined(separator: ", "))")
            previous = profile
        }
        return lines
    }

    // MARK: - JSON

    /// A best mark: `{"distance_m", "pace_min_per_km", "speed_kmh", "time", "time_s"}`.
    static func json(mark distance: Double, time: Duration) -> JSONValue {
        let speed = distance / time.inSeconds
        return .object([
            ("distance_m", .number(distance, places: 3)),
            ("pace_min_per_km", .text(Pace.minutesPerKilometre(speed))),
            ("speed_kmh", .number(Pace.kilometresPerHour(speed), places: 2)),
            ("time", .text(AthleteProfile.clock(time))),
            ("time_s", .number(time.inSeconds, places: 3)),
        ])
    }

    /// The profile's values; an absent mark is written as null, not left out.
    static func json(_ p: AthleteProfile) -> JSONValue {
        .object([
            ("best_marathon", p.bestMarathon.map { json(mark: Goal.marathonDistance, time: $0) } ?? .null),
            ("best_race", p.bestRace.map { json(mark: $0.distance, time: $0.time) } ?? .null),
            ("bmi", .number(p.bodyMassIndex, places: 1)),
            ("heart_rate", json(p.heartRate)),
            ("height_cm", .number(p.height, places: 3)),
            ("marathon", .bool(p.hasRunMarathon)),
            ("raced", .bool(p.hasRaced)),
            ("weekly_frequency", .int(p.weeklyFrequency)),
            ("weight_kg", .number(p.weight, places: 3)),
        ])
    }

    /// The heart-rate figures (null when not set) and the zones they make (null without):
    /// `{"age", "max_hr", "resting_hr", "threshold_hr", "zones": {"citation", "estimated",
    /// "maximum_bpm", "method", "title", "zones": [{"from_bpm", "name", "to_bpm", "zone"}]}}`.
    static func json(_ h: HeartRateFigures) -> JSONValue {
        func figure(_ value: Int?) -> JSONValue { value.map { .int($0) } ?? .null }
        var zones = JSONValue.null
        if let z = h.zones {
            zones = .object([
                ("citation", .text(z.method.citation)),
                ("estimated", .bool(z.isEstimate)),
                ("maximum_bpm", figure(z.maximum)),
                ("method", .text(z.method.rawValue)),
                ("title", .text(z.method.title)),
                ("zones", .array((1...5).map { n in
                    let r = z.range(zone: n)
                    return .object([("from_bpm", .int(r.lowerBound)), ("name", .text(HeartRateZones.names[n - 1])),
                                    ("to_bpm", .int(r.upperBound)), ("zone", .int(n))])
                })),
            ])
        }
        return .object([
            ("age", figure(h.age)), ("max_hr", figure(h.maximum)), ("resting_hr", figure(h.resting)),
            ("threshold_hr", figure(h.threshold)), ("zones", zones),
        ])
    }

    /// `pacer profile show --json`: `{"changed_at", "history" (with --history: each change,
    /// oldest first, with the fields it changed), "profile", "since" (when each field last
    /// changed, by field name)}`. Keys in alphabetical order, at every level, as they were
    /// when Foundation's encoder wrote this (`.sortedKeys`).
    static func json(_ profile: AthleteProfile, changedAt: UTCTimestamp, since: [AthleteProfile.Field: UTCTimestamp],
                     history: [(AthleteProfile, UTCTimestamp)]?) -> String {
        var show: JSONObject = [("changed_at", .text(changedAt.iso8601))]
        if let history {
            var previous: AthleteProfile?
            show.add("history", .array(history.map { profile, time in
                let changed = previous.map { profile.fields(differingFrom: $0) } ?? AthleteProfile.Field.allCases
                previous = profile
                return .object([
                    ("changed", .array(changed.map { .text($0.rawValue) })),
                    ("changed_at", .text(time.iso8601)),
                    ("profile", json(profile)),
                ])
            }))
        }
        show.add("profile", json(profile))
        show.add("since", .object(JSONObject(since.map { ($0.key.rawValue, JSONValue.text($0.value.iso8601)) }
            .sorted { $0.0 < $1.0 })))
        return JSONValue.object(show).indented
    }
}
