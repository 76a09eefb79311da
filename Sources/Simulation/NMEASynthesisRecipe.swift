import NMEA
import PacerCore

/// Everything `NMEASynthesizer` needs to make a recording: where the runner goes, how fast,
/// when, and what kind of receiver reports it. Plain values, no files: the configurator reads
/// a recipe file (and the route's GPX) into one of these.
///
/// Time line: the recording starts at `start` with `acquireSeconds` of a receiver searching
/// (time and date known, no position) while the runner waits at the route's start; then the
/// speed script runs, stretch after stretch, and the recording ends with it. Outage windows
/// are in seconds from `start`, so they may cover part of the acquisition too.
public struct NMEASynthesisRecipe: Hashable, Sendable {
    /// The path the runner follows.
    public var route: Route
    /// The first epoch's time. Receivers print hundredths of a second; milliseconds below
    /// that are rounded to the nearest hundredth.
    public var start: UTCTimestamp
    /// Epochs per second: 1, 5, 10; 0.5 for one every two seconds.
    public var rateHz: Double
    /// The speed script, followed in order.
    public var stretches: [Stretch]
    /// Same seed, same recipe: the same bytes, on any machine.
    public var seed: UInt64
    /// Standard deviation of the position error along each horizontal axis, metres (0: the
    /// exact positions, rounded as NMEA writes them).
    public var noiseMetres: Double
    /// What the receiver's Doppler speeds read against the truth: 0.97 is a receiver whose
    /// speeds read 3 % low (positions and courses unaffected; 1: none).
    public var speedScale: Double = 1
    /// The satellite systems the receiver tracks, in the order their sentences are written.
    public var constellations: [Constellation]
    /// GSA and GSV every this many seconds; nil for every epoch.
    public var skyEverySeconds: Double?
    /// Searching time before the script starts.
    public var acquireSeconds: Double
    /// Altitude above mean sea level when the route has no elevations.
    public var altitudeMetres: Double
    /// Windows without a fix.
    public var outages: [Outage]
    /// Sentences beyond GGA, GSA, GSV and RMC.
    public var extraSentences: Set<ExtraSentence>
    /// Lines for the `#` header after the synthesizer's own (the recipe file, the route's).
    public var comments: [String]

    public init(
        route: Route, start: UTCTimestamp = NMEASynthesisRecipe.defaultStart, rateHz: Double = 1,
        stretches: [Stretch], seed: UInt64 = 1, noiseMetres: Double = NMEASynthesisRecipe.defaultNoiseMetres,
        constellations: [Constellation] = NMEASynthesisRecipe.defaultConstellations, skyEverySeconds: Double? = nil,
        acquireSeconds: Double = 0, altitudeMetres: Double = NMEASynthesisRecipe.defaultAltitudeMetres,
        outages: [Outage] = [], extraSentences: Set<ExtraSentence> = [], comments: [String] = []
    ) {
        self.route = route
        self.start = start
        self.rateHz = rateHz
        self.stretches = stretches
        self.seed = seed
        self.noiseMetres = noiseMetres
        self.constellations = constellations
        self.skyEverySeconds = skyEverySeconds
        self.acquireSeconds = acquireSeconds
        self.altitudeMetres = altitudeMetres
        self.outages = outages
        self.extraSentences = extraSentences
        self.comments = comments
    }

    // MARK: - Parts

    /// A polyline with optional elevations, as read from a GPX track or route.
    public struct Route: Hashable, Sendable {
        public var points: [GeoPoint]
        /// One per point (metres above mean sea level), or nil when the route has none.
        public var altitudes: [Double]?
        /// For the recording's header.
        public var name: String?

        public init(points: [GeoPoint], altitudes: [Double]? = nil, name: String? = nil) {
            self.points = points
            self.altitudes = altitudes
            self.name = name
        }
    }

    /// One stretch of the speed script: a duration or a distance, at a constant speed or a
    /// speed that changes evenly with time from `fromKmh` to `toKmh`.
    public struct Stretch: Hashable, Sendable {
        public enum Length: Hashable, Sendable {
            case seconds(Double)
            case metres(Double)
        }

        public var length: Length
        public var fromKmh: Double
        public var toKmh: Double

        public init(_ length: Length, fromKmh: Double, toKmh: Double) {
            self.length = length
            self.fromKmh = fromKmh
            self.toKmh = toKmh
        }

        /// A constant speed; 0 stands still.
        public init(_ length: Length, kmh: Double) {
            self.init(length, fromKmh: kmh, toKmh: kmh)
        }

        public var isRamp: Bool { fromKmh != toKmh }

        /// Seconds the stretch takes. A distance covered at a speed changing evenly with time
        /// takes distance ÷ the mean of the two speeds.
        public var duration: Double {
            switch length {
            case .seconds(let s): s
            case .metres(let m): m / ((fromKmh + toKmh) / 2 / 3.6)
            }
        }

        /// Metres covered.
        public var distance: Double {
            switch length {
            case .seconds(let s): s * (fromKmh + toKmh) / 2 / 3.6
            case .metres(let m): m
            }
        }
    }

    /// A window, in seconds from the recording's start, in which the receiver has no fix.
    public struct Outage: Hashable, Sendable {
        public enum Mode: String, Hashable, Sendable, CaseIterable {
            /// Nothing at all is written (unplugged, powered down, a dead serial line).
            case silent
            /// The receiver talks but has no fix (a tunnel): RMC `V`, GGA quality 0, no
            /// position.
            case invalid
        }

        /// Inclusive.
        public var from: Double
        /// Exclusive.
        public var to: Double
        public var mode: Mode

        public init(from: Double, to: Double, mode: Mode) {
            self.from = from
            self.to = to
            self.mode = mode
        }

        public func contains(_ t: Double) -> Bool { t >= from && t < to }
    }

    /// A satellite system, named by its NMEA talker.
    public enum Constellation: String, Hashable, Sendable, CaseIterable {
        case gps = "GP"
        case glonass = "GL"
        case galileo = "GA"
        case beidou = "GB"

        public var talker: Talker {
            switch self {
            case .gps: .gps
            case .glonass: .glonass
            case .galileo: .galileo
            case .beidou: .beidou
            }
        }

        /// NMEA 4.1 GNSS system id, the last field of GSA.
        public var systemID: Int {
            switch self {
            case .gps: 1
            case .glonass: 2
            case .galileo: 3
            case .beidou: 4
            }
        }
    }

    /// Sentences a recipe may add to each epoch.
    public enum ExtraSentence: String, Hashable, Sendable, CaseIterable {
        case vtg = "VTG"
        case gll = "GLL"
        case zda = "ZDA"
    }

    // MARK: - Defaults and limits

    public static let defaultStart = UTCTimestamp(millisecondsSince1970: 1_777_705_200_000)  // 2026-05-02T07:00:00Z
    public static let defaultNoiseMetres = 2.5
    public static let defaultAltitudeMetres = 10.0
    public static let defaultConstellations: [Constellation] = [.gps, .glonass, .galileo]
    /// u-blox M8 receivers go to 18 Hz with GPS alone; faster recordings are not realistic.
    public static let maximumRateHz = 20.0
    /// Slowest rate: one epoch a minute.
    public static let minimumRateHz = 1.0 / 60
    /// Faster than a car in town: a typo, not a runner.
    public static let maximumSpeedKmh = 100.0
    /// Two days of recording.
    public static let maximumDurationSeconds = 48 * 3600.0
    /// Errors within a metre or two of a hundred: beyond that it is not a fix.
    public static let maximumNoiseMetres = 100.0
    /// Sky reports at least once an hour.
    public static let maximumSkyEverySeconds = 3600.0
    /// A search before the script of at most an hour (a cold start takes about half a minute;
    /// a receiver that has not found itself in an hour has failed).
    public static let maximumAcquireSeconds = 3600.0
    /// Route ends this close make a closed loop, followed in laps; others are followed out
    /// and back.
    public static let closedRouteMetres = 30.0

    /// Why a rate is refused, or nil.
    public static func problem(rateHz hz: Double) -> String? {
        guard hz.isFinite, hz >= minimumRateHz, hz <= maximumRateHz else {
            return "must be between one a minute (\(show(minimumRateHz))) and \(show(maximumRateHz)) Hz, got \(show(hz))"
        }
        return nil
    }

    /// Why a speed in km/h is refused, or nil.
    public static func problem(kmh: Double) -> String? {
        guard kmh.isFinite, kmh >= 0, kmh <= maximumSpeedKmh else {
            return "must be from 0 to \(show(maximumSpeedKmh)) km/h (faster than this simulates: a typo?), got \(show(kmh)) km/h"
        }
        return nil
    }

    /// Why a stretch is refused, or nil (its speeds checked with `problem(kmh:)` first).
    public static func problem(stretch: Stretch) -> String? {
        switch stretch.length {
        case .seconds(let s):
            guard s.isFinite, s > 0 else { return "a stretch must last more than 0 seconds, got \(show(s))" }
        case .metres(let m):
            guard m.isFinite, m > 0 else { return "a stretch must cover more than 0 km, got \(show(m / 1000))" }
            guard stretch.fromKmh + stretch.toKmh > 0 else {
                return "a stretch of \(show(m / 1000)) km at 0 km/h never ends: give it a speed, or a duration to stand still"
            }
        }
        return nil
    }

    public static func problem(noiseMetres m: Double) -> String? {
        guard m.isFinite, m >= 0, m <= maximumNoiseMetres else {
            return "must be from 0 to \(show(maximumNoiseMetres)) m, got \(show(m))"
        }
        return nil
    }

    public static func problem(speedScale k: Double) -> String? {
        guard k.isFinite, k >= 0.5, k <= 1.5 else { return "must be from 0.5 to 1.5, got \(show(k))" }
        return nil
    }

    public static func problem(skyEverySeconds s: Double) -> String? {
        guard s.isFinite, s > 0, s <= maximumSkyEverySeconds else {
            return "must be above 0 and at most \(show(maximumSkyEverySeconds)) s, got \(show(s))"
        }
        return nil
    }

    public static func problem(acquireSeconds s: Double) -> String? {
        guard s.isFinite, s >= 0, s <= maximumAcquireSeconds else {
            return "must be from 0 to \(show(maximumAcquireSeconds)) s, got \(show(s))"
        }
        return nil
    }

    public static func problem(altitudeMetres m: Double) -> String? {
        guard m.isFinite, m >= -500, m <= 9000 else { return "must be between -500 and 9000 m, got \(show(m))" }
        return nil
    }

    public static func problem(constellations list: [Constellation]) -> String? {
        guard !list.isEmpty else { return "needs at least one constellation" }
        guard Set(list).count == list.count else { return "names a constellation twice" }
        return nil
    }

    /// Why an outage is refused in a recording of `duration` seconds, or nil.
    public static func problem(outage o: Outage, duration: Double) -> String? {
        guard o.from.isFinite, o.to.isFinite, o.from >= 0 else {
            return "from must be at or after the start (0), got \(showTime(o.from))"
        }
        guard o.from < o.to else { return "from \(showTime(o.from)) must be before to \(showTime(o.to))" }
        guard o.to <= duration else {
            return "ends at \(showTime(o.to)), after the recording (\(showTime(duration)) long)"
        }
        return nil
    }

    /// Why a route is refused, or nil.
    public static func problem(route: Route) -> String? {
        guard route.points.count >= 2 else {
            return "has \(route.points.count) point\(route.points.count == 1 ? "" : "s"); a route needs at least 2"
        }
        for p in route.points {
            guard p.latitude.isFinite, p.longitude.isFinite, abs(p.latitude) <= 90, abs(p.longitude) <= 180 else {
                return "has a point outside the globe (\(p.latitude), \(p.longitude))"
            }
        }
        if let altitudes = route.altitudes {
            guard altitudes.count == route.points.count else {
                return "has \(altitudes.count) altitudes for \(route.points.count) points"
            }
            guard altitudes.allSatisfy(\.isFinite) else { return "has an altitude that is not a number" }
        }
        guard RoutePath(route)?.length ?? 0 > 0 else { return "has no length: all its points are the same" }
        return nil
    }

    /// Seconds of the whole recording: the acquisition and every stretch.
    public var duration: Double {
        acquireSeconds + stretches.reduce(0) { $0 + $1.duration }
    }

    /// Metres of the speed script.
    public var distance: Double {
        stretches.reduce(0) { $0 + $1.distance }
    }

    /// The first problem with the recipe, naming its key (as a recipe file spells it).
    public func validate() throws(NMEASynthesisError) {
        func check(_ key: String, _ problem: String?) throws(NMEASynthesisError) {
            if let problem { throw NMEASynthesisError(key: key, reason: problem) }
        }
        try check("route", Self.problem(route: route))
        try check("rate_hz", Self.problem(rateHz: rateHz))
        guard !stretches.isEmpty else { throw NMEASynthesisError(key: "speeds", reason: "needs at least one stretch") }
        for (i, s) in stretches.enumerated() {
            try check("speeds[\(i)]", Self.problem(kmh: s.fromKmh) ?? Self.problem(kmh: s.toKmh) ?? Self.problem(stretch: s))
        }
        try check("noise_m", Self.problem(noiseMetres: noiseMetres))
        try check("speed_scale", Self.problem(speedScale: speedScale))
        try check("constellations", Self.problem(constellations: constellations))
        if let s = skyEverySeconds { try check("sky_every_s", Self.problem(skyEverySeconds: s)) }
        try check("acquire_s", Self.problem(acquireSeconds: acquireSeconds))
        try check("altitude_m", Self.problem(altitudeMetres: altitudeMetres))
        guard duration <= Self.maximumDurationSeconds else {
            throw NMEASynthesisError(
                key: "speeds", reason: "the recording would last \(Self.showTime(duration)), over the \(Self.showTime(Self.maximumDurationSeconds)) this makes")
        }
        let sorted = outages.enumerated().sorted { $0.element.from < $1.element.from }
        for (n, (i, o)) in sorted.enumerated() {
            try check("outages[\(i)]", Self.problem(outage: o, duration: duration))
            if n > 0, sorted[n - 1].element.to > o.from {
                throw NMEASynthesisError(
                    key: "outages[\(i)]", reason: "overlaps outages[\(sorted[n - 1].offset)]: one outage at a time")
            }
        }
    }

    // MARK: - Showing values

    /// A number as a person writes it: 12, 9.5, 0.001.
    /// Values too large for six decimals (`--rate 1e20`) as Swift writes them, `1e+20`.
    public static func show(_ v: Double) -> String {
        guard v.isFinite else { return "\(v)" }
        var bytes: [UInt8] = []
        if v == v.rounded(), abs(v) < 1e15 {
            bytes.appendDigits(Int(v), width: 1)
        } else if abs(v) < 1e9 {
            bytes.appendDecimal(v, places: 6)
        } else {
            return "\(v)"
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Seconds as H:MM:SS or M:SS, with hundredths when there are any: 4:00, 1:02:03.5.
    /// Beyond a million hours, seconds as `show` writes them (`1e+20 s`): no conversion traps.
    public static func showTime(_ seconds: Double) -> String {
        guard seconds.isFinite, abs(seconds) < 3.6e9 else { return "\(show(seconds)) s" }
        let centis = Int((abs(seconds) * 100).rounded())
        var bytes: [UInt8] = seconds < 0 && centis > 0 ? [UInt8(ascii: "-")] : []
        let whole = centis / 100
        if whole >= 3600 {
            bytes.appendDigits(whole / 3600, width: 1)
            bytes.append(UInt8(ascii: ":"))
            bytes.appendDigits(whole / 60 % 60, width: 2)
        } else {
            bytes.appendDigits(whole / 60, width: 1)
        }
        bytes.append(UInt8(ascii: ":"))
        bytes.appendDigits(whole % 60, width: 2)
        if centis % 100 != 0 {
            bytes.append(UInt8(ascii: "."))
            let c = centis % 100
            if c % 10 == 0 { bytes.appendDigits(c / 10, width: 1) } else { bytes.appendDigits(c, width: 2) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A recipe that cannot be synthesized: the recipe key at fault and why.
public struct NMEASynthesisError: Error, Hashable, Sendable, CustomStringConvertible {
    public var key: String
    public var reason: String

    public init(key: String, reason: String) {
        self.key = key
        self.reason = reason
    }

    public var description: String { "\(key): \(reason)" }
}
