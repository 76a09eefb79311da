import Foundation
import PacerCore
import Simulation
import Storage
import Yams

/// Reads recipes for `pacer nmea synth`: YAML files that say how to make a scenario
/// recording (`NMEASynthesisRecipe`). In short:
///
/// ```yaml
/// route: park-loop.gpx            # required: a GPX file (its first track, else its first
///                                 # route), relative to this file's folder
/// start: 2026-05-02T07:00:00Z     # the first epoch, UTC (default 2026-05-02T07:00:00Z)
/// rate_hz: 1                      # epochs per second, 1/60 to 20 (default 1)
/// seed: 42                        # any whole number 0 … 2^64−1 (default 1)
/// noise_m: 2.5                    # position error, metres per axis (default 2.5; 0: none)
/// speed_scale: 0.97               # the receiver's speeds read 3 % low (default 1: true)
/// constellations: [GP, GL, GA]    # GP GPS, GL GLONASS, GA Galileo, GB BeiDou (default GP GL GA)
/// sky_every_s: 1                  # GSA and GSV every so many seconds (default every epoch)
/// acquire_s: 30                   # searching before the script starts (default 0)
/// altitude_m: 10                  # when the route has no elevations (default 10)
/// sentences: [VTG]                # extra sentences: VTG, GLL, ZDA (default none)
/// speeds:                         # required, followed in order
///   - {for: "5:00", kmh: 9.5}     # a duration: seconds, "M:SS" or "H:MM:SS" (fractions allowed)
///   - {km: 1.5, kmh: 11}          # or a distance
///   - {for: "3:00", from_kmh: 9, to_kmh: 12}   # a speed changing evenly
///   - {for: 90, kmh: 0}           # standing still
/// outages:                        # optional; seconds from start, like durations
///   - {from: "4:00", to: "4:40", mode: invalid}   # invalid (talking, no fix) or silent
/// ```
///
/// Anything that cannot be synthesized is refused with the file, the line, the key and the
/// reason, as the other data files are: `run.yaml:7: speeds[1].kmh: must not be negative,
/// got -3 km/h`. A route file that is not GPX is refused with the GPX file's own line and
/// reason.
public enum SynthRecipeLoader {
    static let keys: Set<String> = [
        "route", "start", "rate_hz", "seed", "noise_m", "speed_scale", "constellations", "sky_every_s", "acquire_s",
        "altitude_m", "sentences", "speeds", "outages",
    ]

    /// Reads the recipe at `path` and the route it names.
    public static func load(path: String) throws(DataFileError) -> NMEASynthesisRecipe {
        try recipe(from: YAMLMapping.load(path: path), folder: folder(of: path))
    }

    /// Parses `text`, the contents of `file` (named in errors); routes are found in `folder`.
    public static func load(file: String, text: String, folder: String) throws(DataFileError) -> NMEASynthesisRecipe {
        try recipe(from: YAMLMapping.load(file: file, text: text), folder: folder)
    }

    /// Reads a route for synthesis from a GPX file: its first track with points (segments
    /// joined), else its first route. Elevations are used when every point has one.
    public static func route(gpxPath: String) throws(DataFileError) -> NMEASynthesisRecipe.Route {
        let document: GPXDocument
        do {
            document = try GPXReader.read(path: gpxPath)
        } catch {
            throw DataFileError(file: error.file, line: error.line, reason: error.reason)
        }
        return try route(from: document, file: gpxPath)
    }

    /// The route of a GPX document; `file` names it in errors.
    public static func route(from document: GPXDocument, file: String) throws(DataFileError) -> NMEASynthesisRecipe.Route {
        var points: [ImportedPoint] = []
        var name: String?
        if let track = document.tracks.first(where: { $0.segments.contains { !$0.isEmpty } }) {
            points = track.segments.flatMap { $0 }
            name = track.name
        } else if let route = document.routes.first(where: { !$0.points.isEmpty }) {
            points = route.points
            name = route.name
        } else {
            throw DataFileError(file: file, line: document.line, reason: "has no track or route points to follow")
        }
        let altitudes = points.compactMap(\.altitude)
        let route = NMEASynthesisRecipe.Route(
            points: points.map(\.position), altitudes: altitudes.count == points.count ? altitudes : nil,
            name: name ?? document.name ?? (file as NSString).lastPathComponent)
        if let problem = NMEASynthesisRecipe.problem(route: route) {
            throw DataFileError(file: file, line: points.first?.line ?? document.line, reason: "the route \(problem)")
        }
        return route
    }

    // MARK: - Values as written in recipes and on the command line

    /// Seconds from `90`, `12.5`, `4:40` (M:SS) or `1:02:03.5` (H:MM:SS); nil otherwise.
    public static func seconds(_ text: String) -> Double? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var total = 0.0
        for (i, part) in parts.enumerated() {
            let last = i == parts.count - 1
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && ($0.isNumber || last && $0 == ".") }),
                  let v = Double(part), v.isFinite
            else { return nil }
            // Minutes and seconds after the first part are below 60 and written with two digits.
            if i > 0 {
                guard v < 60, part.prefix(while: { $0 != "." }).count == 2 else { return nil }
            }
            total = total * 60 + v
        }
        return total
    }

    /// A stretch as `--stretch` writes it: `DURATION@KMH` (`10:00@9.5`, `90@0`), `DISTkm@KMH`
    /// (`2.5km@12`), or a ramp `DURATION@KMH-KMH` (`3:00@9-12`). Nil when not that shape.
    public static func stretch(_ text: String) -> NMEASynthesisRecipe.Stretch? {
        let halves = text.split(separator: "@", omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let length: NMEASynthesisRecipe.Stretch.Length
        if halves[0].hasSuffix("km") {
            guard let km = number(halves[0].dropLast(2)) else { return nil }
            length = .metres(km * 1000)
        } else {
            guard let s = seconds(String(halves[0])) else { return nil }
            length = .seconds(s)
        }
        let speeds = halves[1].split(separator: "-", omittingEmptySubsequences: false)
        guard (1...2).contains(speeds.count), let from = number(speeds[0]) else { return nil }
        guard speeds.count == 2 else { return NMEASynthesisRecipe.Stretch(length, kmh: from) }
        guard let to = number(speeds[1]) else { return nil }
        return NMEASynthesisRecipe.Stretch(length, fromKmh: from, toKmh: to)
    }

    /// An outage as `--outage` writes it: `FROM-TO` or `FROM-TO:MODE` (`4:00-4:40:silent`);
    /// the mode is `invalid` unless given. Nil when not that shape.
    public static func outage(_ text: String) -> NMEASynthesisRecipe.Outage? {
        var body = Substring(text)
        var mode = NMEASynthesisRecipe.Outage.Mode.invalid
        for m in NMEASynthesisRecipe.Outage.Mode.allCases where body.hasSuffix(":" + m.rawValue) {
            mode = m
            body = body.dropLast(m.rawValue.count + 1)
        }
        let ends = body.split(separator: "-", omittingEmptySubsequences: false)
        guard ends.count == 2, let from = seconds(String(ends[0])), let to = seconds(String(ends[1])) else { return nil }
        return NMEASynthesisRecipe.Outage(from: from, to: to, mode: mode)
    }

    /// Constellations as `--constellations` writes them: `GP,GL,GA`. Nil when one is unknown.
    public static func constellations(_ text: String) -> [NMEASynthesisRecipe.Constellation]? {
        var list: [NMEASynthesisRecipe.Constellation] = []
        for name in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let c = NMEASynthesisRecipe.Constellation(rawValue: name.trimmingCharacters(in: .whitespaces).uppercased())
            else { return nil }
            list.append(c)
        }
        return list
    }

    /// `2026-05-02T07:00:00Z` (fractions of a second and `+hh:mm` offsets allowed).
    public static func start(_ text: String) -> UTCTimestamp? {
        GPXReader.parseTime(Substring(text))
    }

    static var constellationNames: String {
        NMEASynthesisRecipe.Constellation.allCases.map(\.rawValue).joined(separator: ", ")
    }

    // MARK: - Reading

    static func folder(of path: String) -> String {
        let dir = (path as NSString).deletingLastPathComponent
        return dir.isEmpty ? "." : dir
    }

    static func recipe(from top: YAMLMapping, folder: String) throws(DataFileError) -> NMEASynthesisRecipe {
        var map = top
        try map.refuseUnknownKeys(keys)

        let routeText = try map.string("route")
        let routePath = routeText.hasPrefix("/") ? routeText : "\(folder)/\(routeText)"
        let route: NMEASynthesisRecipe.Route
        do {
            route = try self.route(gpxPath: routePath)
        } catch {
            var e = error
            e.reason += " (the route of \(map.file)\(map.error("route", "").line.map { ":\($0)" } ?? ""))"
            throw e
        }

        var recipe = NMEASynthesisRecipe(route: route, stretches: [])
        if let text = try map.optionalString("start") {
            guard let start = start(text) else {
                throw map.error("start", "expected a UTC date and time like 2026-05-02T07:00:00Z, got '\(text)'")
            }
            recipe.start = start
        }
        if let hz = try map.optionalNumber("rate_hz") {
            try check(map, "rate_hz", NMEASynthesisRecipe.problem(rateHz: hz))
            recipe.rateHz = hz
        }
        if let node = map.optionalNode("seed") {
            guard let text = node.scalar?.string, let seed = UInt64(text) else {
                throw map.error("seed", "expected a whole number from 0 to \(UInt64.max), got '\(node.scalar?.string ?? YAMLMapping.kind(node))'")
            }
            recipe.seed = seed
        }
        if let m = try map.optionalNumber("noise_m") {
            try check(map, "noise_m", NMEASynthesisRecipe.problem(noiseMetres: m))
            recipe.noiseMetres = m
        }
        if let k = try map.optionalNumber("speed_scale") {
            try check(map, "speed_scale", NMEASynthesisRecipe.problem(speedScale: k))
            recipe.speedScale = k
        }
        if map.has("constellations") {
            recipe.constellations = try words("constellations", in: &map, example: "[GP, GL, GA]") { (name: String) in
                NMEASynthesisRecipe.Constellation(rawValue: name)
            } unknown: { name in "unknown constellation '\(name)' (constellations: \(constellationNames))" }
            try check(map, "constellations", NMEASynthesisRecipe.problem(constellations: recipe.constellations))
        }
        if let s = try map.optionalNumber("sky_every_s") {
            try check(map, "sky_every_s", NMEASynthesisRecipe.problem(skyEverySeconds: s))
            recipe.skyEverySeconds = s
        }
        if let s = try optionalSeconds("acquire_s", in: &map) {
            try check(map, "acquire_s", NMEASynthesisRecipe.problem(acquireSeconds: s))
            recipe.acquireSeconds = s
        }
        if let m = try map.optionalNumber("altitude_m") {
            try check(map, "altitude_m", NMEASynthesisRecipe.problem(altitudeMetres: m))
            recipe.altitudeMetres = m
        }
        if map.has("sentences") {
            let names = NMEASynthesisRecipe.ExtraSentence.allCases.map(\.rawValue).joined(separator: ", ")
            recipe.extraSentences = Set(try words("sentences", in: &map, example: "[VTG, ZDA]") { (name: String) in
                NMEASynthesisRecipe.ExtraSentence(rawValue: name)
            } unknown: { name in "'\(name)' is not a sentence this adds (GGA, GSA, GSV and RMC are always written; extras: \(names))" })
        }

        let example = "- {for: \"5:00\", kmh: 9.5}"
        for item in try map.list("speeds", of: "stretch", example: example) {
            recipe.stretches.append(try stretch(item.node, path: item.path, file: map.file))
        }
        let duration = recipe.duration
        guard duration <= NMEASynthesisRecipe.maximumDurationSeconds else {
            throw map.error("speeds", "the recording would last \(showTime(duration)), over the \(showTime(NMEASynthesisRecipe.maximumDurationSeconds)) this makes")
        }

        if let node = map.optionalNode("outages") {
            guard case .sequence(let items) = node else {
                throw map.error("outages", "expected a list of outages like `- {from: \"4:00\", to: \"4:40\", mode: invalid}`, got a \(YAMLMapping.kind(node))")
            }
            var previous: (outage: NMEASynthesisRecipe.Outage, path: String)?
            for (i, node) in items.enumerated() {
                let path = "outages[\(i)]"
                let o = try outage(node, path: path, file: map.file, duration: duration)
                if let previous, o.from < previous.outage.to {
                    throw DataFileError(
                        file: map.file, line: node.line, key: path,
                        reason: "starts at \(showTime(o.from)), before \(previous.path) ends (\(showTime(previous.outage.to))): list outages in order, one at a time")
                }
                previous = (o, path)
                recipe.outages.append(o)
            }
        }
        try map.finish()

        recipe.comments = ["recipe \((map.file as NSString).lastPathComponent), route \((routePath as NSString).lastPathComponent)"]
        do {
            try recipe.validate()
        } catch {
            // Every rule was checked above with its line; this is a safety net.
            throw DataFileError(file: map.file, line: map.line, key: error.key, reason: error.reason)
        }
        return recipe
    }

    static func stretch(_ node: Node, path: String, file: String) throws(DataFileError) -> NMEASynthesisRecipe.Stretch {
        var map = try YAMLMapping(file: file, node: node, path: path)
        try map.refuseUnknownKeys(["for", "km", "kmh", "from_kmh", "to_kmh"])
        let length: NMEASynthesisRecipe.Stretch.Length
        switch (map.has("for"), map.has("km")) {
        case (true, true):
            throw map.error("km", "give either for (a duration) or km (a distance), not both")
        case (false, false):
            throw map.error(nil, "missing key '\(path).for' (a duration) or '\(path).km' (a distance)")
        case (true, false):
            length = .seconds(try optionalSeconds("for", in: &map)!)
        case (false, true):
            length = .metres(try map.number("km") * 1000)
        }
        let from: Double, to: Double
        switch (map.has("kmh"), map.has("from_kmh") || map.has("to_kmh")) {
        case (true, true):
            throw map.error("kmh", "give either kmh (a steady speed) or from_kmh and to_kmh (a changing one), not both")
        case (false, false):
            throw map.error(nil, "missing key '\(path).kmh' (or '\(path).from_kmh' and '\(path).to_kmh')")
        case (true, false):
            from = try speed("kmh", in: &map)
            to = from
        case (false, true):
            from = try speed("from_kmh", in: &map)
            to = try speed("to_kmh", in: &map)
        }
        let stretch = NMEASynthesisRecipe.Stretch(length, fromKmh: from, toKmh: to)
        let lengthKey: String
        if case .metres = length { lengthKey = "km" } else { lengthKey = "for" }
        try check(map, lengthKey, NMEASynthesisRecipe.problem(stretch: stretch))
        try map.finish()
        return stretch
    }

    static func outage(_ node: Node, path: String, file: String, duration: Double) throws(DataFileError) -> NMEASynthesisRecipe.Outage {
        var map = try YAMLMapping(file: file, node: node, path: path)
        try map.refuseUnknownKeys(["from", "to", "mode"])
        guard let from = try optionalSeconds("from", in: &map) else { throw map.error(nil, "missing key '\(path).from'") }
        guard let to = try optionalSeconds("to", in: &map) else { throw map.error(nil, "missing key '\(path).to'") }
        var mode = NMEASynthesisRecipe.Outage.Mode.invalid
        if map.has("mode") { mode = try map.choice("mode", NMEASynthesisRecipe.Outage.Mode.self) }
        let outage = NMEASynthesisRecipe.Outage(from: from, to: to, mode: mode)
        if let problem = NMEASynthesisRecipe.problem(outage: outage, duration: duration) {
            let key = outage.from < 0 || outage.from >= outage.to ? "from" : "to"
            throw map.error(key, problem)
        }
        try map.finish()
        return outage
    }

    /// A speed in km/h that passes `NMEASynthesisRecipe.problem(kmh:)`.
    static func speed(_ key: String, in map: inout YAMLMapping) throws(DataFileError) -> Double {
        let v = try map.number(key)
        try check(map, key, NMEASynthesisRecipe.problem(kmh: v))
        return v
    }

    /// A duration under `key`: a number of seconds or an "M:SS" / "H:MM:SS" text.
    static func optionalSeconds(_ key: String, in map: inout YAMLMapping) throws(DataFileError) -> Double? {
        guard let node = map.optionalNode(key) else { return nil }
        let text = node.scalar?.string ?? ""
        guard node.scalar != nil, let s = seconds(text) ?? (text.hasPrefix("-") ? Double(text) : nil) else {
            throw map.error(key, "expected seconds or a time like \"4:30\" or \"1:02:00\", got '\(node.scalar?.string ?? YAMLMapping.kind(node))'")
        }
        return s
    }

    /// A list of words under `key`, each turned into a value by `make`.
    static func words<T>(
        _ key: String, in map: inout YAMLMapping, example: String, make: (String) -> T?,
        unknown: (String) -> String
    ) throws(DataFileError) -> [T] {
        let node = map.optionalNode(key)
        guard case .sequence(let items)? = node else {
            throw map.error(key, "expected a list like \(example), got a \(node.map(YAMLMapping.kind) ?? "nothing")")
        }
        var values: [T] = []
        for item in items {
            let name = item.scalar?.string ?? YAMLMapping.kind(item)
            guard let v = make(name) else { throw map.error(key, line: item.line, unknown(name)) }
            values.append(v)
        }
        return values
    }

    static func check(_ map: YAMLMapping, _ key: String, _ problem: String?) throws(DataFileError) {
        if let problem { throw map.error(key, problem) }
    }

    static func number(_ text: Substring) -> Double? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let v = Double(text) else { return nil }
        return v
    }

    static func showTime(_ seconds: Double) -> String {
        NMEASynthesisRecipe.showTime(seconds)
    }
}
