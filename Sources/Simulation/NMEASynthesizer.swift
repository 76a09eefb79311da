import NMEA
import PacerCore

/// What the synthesizer did at one epoch: what it wrote, and the truth behind it. Tests
/// compare a decoder's output with `position`, and the script with `truePosition`.
public struct SynthesizedEpoch: Hashable, Sendable {
    public enum Status: Hashable, Sendable {
        /// A valid position was written.
        case fix
        /// Sentences were written without a position (searching, an `invalid` outage).
        case noFix
        /// Nothing was written (a `silent` outage).
        case silent
    }

    /// 0 for the first epoch.
    public var index: Int
    /// The epoch's time as written (to the hundredth of a second).
    public var time: UTCTimestamp
    /// Seconds since the recording's start.
    public var elapsed: Double
    public var status: Status
    /// The position written (after noise, at NMEA's resolution); nil without a fix.
    public var position: GeoPoint?
    /// Metres above mean sea level as written; nil without a fix.
    public var altitude: Double?
    /// Speed over ground as written, metres per second; nil without a fix.
    public var speed: Double?
    /// Course over ground as written, degrees true; nil without a fix.
    public var course: Double?
    /// Where the runner really is.
    public var truePosition: GeoPoint
    public var trueAltitude: Double
    /// Metres per second, from the speed script.
    public var trueSpeed: Double
    /// Degrees true: the direction of the route where the runner is.
    public var trueCourse: Double
    /// Metres along the route since the script began.
    public var distance: Double
    /// As GGA and GSA report them (0 without a fix).
    public var satellitesUsed: Int
    public var satellitesInView: Int
}

/// What a whole synthesis made.
public struct NMEASynthesisSummary: Hashable, Sendable {
    public var epochs = 0
    public var fixes = 0
    public var noFixes = 0
    public var silent = 0
    public var bytes = 0
    /// Seconds from the first epoch to the last.
    public var duration = 0.0
    /// Metres of the speed script.
    public var distance = 0.0

    public init() {}
}

/// Writes a realistic NMEA recording from a route and a speed script: what a multi-GNSS
/// receiver on a runner's arm would have sent (scenario recordings for the simulator, replayed
/// on the virtual clock).
///
/// Each epoch is one receiver cycle, in the order SiRF and MediaTek receivers send it:
/// GGA, then GSA (one per constellation, NMEA 4.1 system ids) and GSV (per constellation)
/// every `skyEverySeconds`, then RMC, then the extra sentences (VTG, GLL, ZDA) if asked. GGA
/// comes first because common readers rely on it: gpsbabel and others date the last GGA with
/// the next RMC, so an RMC-first cycle (as u-blox sends it) comes out with every position one
/// epoch late there. Fields are formatted as a u-blox M8 prints them in NMEA 4.1 mode; with
/// more than one constellation, RMC, GGA, GSA, VTG, GLL and ZDA use the combined talker `GN`.
///
/// The runner: the speed script moves them along the route (laps on a closed route, out and
/// back on an open one); the position error is a Gauss–Markov process (see `PositionNoise`),
/// smooth enough that speeds computed from successive positions stay believable; RMC's speed
/// and course are the true ones with a little noise of their own, as a receiver's Doppler
/// velocity is. Without a fix (acquisition, `invalid` outages) the receiver still talks:
/// time and date, RMC `V`, GGA quality 0, no position; in `silent` outages it says nothing.
///
/// Everything random comes from `SeededRandom` streams of the recipe's seed, one per concern,
/// and every number is computed with exact IEEE arithmetic (`PortableMath`) and written with
/// integer formatting: the same recipe gives the same bytes on any machine. The output is
/// produced epoch by epoch into a caller's buffer (`next(appendingTo:)`, or `write` in
/// chunks), so a four-hour recording needs no more memory than a minute.
public struct NMEASynthesizer {
    public let recipe: NMEASynthesisRecipe
    /// Epochs from the start to the end of the script, one every 1/rate seconds, both ends
    /// included.
    public let epochCount: Int
    /// Seconds from the first epoch to the end of the script.
    public let duration: Double
    /// Whether the recording starts with a `#` header naming the generator and the recipe
    /// (the project's NMEA engine and gpsbabel both pass over such lines).
    public var writesHeader: Bool

    private var path: RoutePath
    private let script: [ScriptStretch]
    private var stretch = 0
    private var writer: NMEAEpochWriter
    private var noise: PositionNoise
    /// Speed and course noise.
    private var motionRandom: SeededRandom
    private let outages: [NMEASynthesisRecipe.Outage]
    private let startCentiseconds: Int64
    private let skyEveryCentiseconds: Int64?
    private let altitudeFromRoute: Bool
    private var index = 0
    private var lastSkyStep: Int64 = -1
    private var lastCourse: Double
    private var reportedCourse: Double
    private var headerDone = false

    /// The standard deviation of RMC's speed error, metres per second (a u-blox M8 says
    /// 0.05 m/s for its Doppler speed).
    static let speedNoise = 0.05
    /// Geoid height above the WGS84 ellipsoid written in GGA: constant, as over a small area.
    static let geoidSeparation = NMEAEpochWriter.geoidSeparation
    /// Vertical error relative to horizontal: GNSS altitude is about 1.6 times worse.
    static let verticalNoiseFactor = 1.6

    /// Checks the recipe (see `NMEASynthesisRecipe.validate`) and prepares the route, the
    /// script, the sky and the noise.
    public init(_ recipe: NMEASynthesisRecipe, writesHeader: Bool = true) throws(NMEASynthesisError) {
        try recipe.validate()
        guard let path = RoutePath(recipe.route) else {
            throw NMEASynthesisError(key: "route", reason: "has no length: all its points are the same")
        }
        self.recipe = recipe
        self.writesHeader = writesHeader
        self.path = path
        var script: [ScriptStretch] = []
        var t = recipe.acquireSeconds
        var d = 0.0
        for s in recipe.stretches {
            let duration = s.duration
            script.append(ScriptStretch(start: t, duration: duration, startDistance: d,
                                        fromSpeed: s.fromKmh / 3.6, toSpeed: s.toKmh / 3.6))
            t += duration
            d += s.distance
        }
        self.script = script
        duration = t
        epochCount = Int((t * recipe.rateHz + 1e-6).rounded(.down)) + 1
        writer = NMEAEpochWriter(constellations: recipe.constellations, seed: recipe.seed,
                                 extraSentences: recipe.extraSentences)
        noise = PositionNoise(sigma: recipe.noiseMetres, interval: 1 / recipe.rateHz, seed: recipe.seed)
        motionRandom = SeededRandom(seed: recipe.seed, stream: 2)
        outages = recipe.outages.sorted { $0.from < $1.from }
        startCentiseconds = (recipe.start.millisecondsSince1970 + 5).floorDivided(by: 10)
        skyEveryCentiseconds = recipe.skyEverySeconds.map { max(1, Int64(($0 * 100).rounded())) }
        altitudeFromRoute = recipe.route.altitudes != nil
        lastCourse = self.path.locate(distance: 0).course
        reportedCourse = lastCourse
    }

    /// Appends the next epoch's sentences (and, first, the header) to `out`, and tells what
    /// was written; nil after the last epoch.
    public mutating func next(appendingTo out: inout [UInt8]) -> SynthesizedEpoch? {
        if !headerDone {
            headerDone = true
            if writesHeader { appendHeader(to: &out) }
        }
        guard index < epochCount else { return nil }
        defer { index += 1 }

        let elapsedCentis = Int64((Double(index) * 100 / recipe.rateHz).rounded())
        let t = Double(elapsedCentis) / 100
        let centis = startCentiseconds + elapsedCentis
        let time = UTCTimestamp(millisecondsSince1970: centis * 10)

        // The truth.
        let (distance, speed) = scriptPosition(at: t)
        let location = path.locate(distance: distance)
        if speed > 0 { lastCourse = location.course }
        let trueAltitude = location.altitude ?? recipe.altitudeMetres

        // Every random draw happens every epoch, whatever is written, so that an outage or
        // a sky setting does not change the positions after it.
        let error = noise.step()
        let speedError = motionRandom.gaussian()
        let courseError = motionRandom.gaussian()

        var status = SynthesizedEpoch.Status.fix
        if t < recipe.acquireSeconds { status = .noFix }
        for o in outages where o.contains(t) {
            status = o.mode == .silent ? .silent : .noFix
        }

        var epoch = SynthesizedEpoch(
            index: index, time: time, elapsed: t, status: status, position: nil, altitude: nil, speed: nil,
            course: nil, truePosition: location.position, trueAltitude: trueAltitude, trueSpeed: speed,
            trueCourse: lastCourse, distance: distance, satellitesUsed: 0, satellitesInView: 0)
        guard status != .silent else { return epoch }

        let tracking = status == .fix
        let skyStep = skyEveryCentiseconds.map { elapsedCentis / $0 } ?? elapsedCentis
        let writesSky = skyStep != lastSkyStep
        if writesSky || tracking != writer.sky.tracking || index == 0 {
            writer.sky.update(at: t, tracking: tracking)
        }
        lastSkyStep = skyStep
        epoch.satellitesInView = writer.sky.inViewTotal

        var fix: WrittenFix?
        if tracking {
            let written = writtenFix(location.position, trueAltitude, error, speed, speedError, courseError)
            fix = written
            epoch.position = written.position
            epoch.altitude = written.altitude
            epoch.speed = written.speed
            epoch.course = written.course
            epoch.satellitesUsed = writer.sky.usedTotal
        }
        writer.write(&out, centis: centis, fix: fix, writesSky: writesSky)
        return epoch
    }

    /// Writes the whole recording (what is left of it) through `sink`, in chunks of about
    /// `chunkSize` bytes from one reused buffer, and reports each epoch to `onEpoch`.
    @discardableResult
    public mutating func write<E: Error>(
        chunkSize: Int = 64 * 1024, to sink: ([UInt8]) throws(E) -> Void,
        onEpoch: ((SynthesizedEpoch) -> Void)? = nil
    ) throws(E) -> NMEASynthesisSummary {
        var summary = try NMEAChunkedWriting.write(
            chunkSize: chunkSize, to: sink, next: { next(appendingTo: &$0) }, onEpoch: onEpoch)
        summary.distance = recipe.distance
        return summary
    }

    /// The whole recording in memory, for tests and short recordings.
    public mutating func recording(onEpoch: ((SynthesizedEpoch) -> Void)? = nil) -> [UInt8] {
        var bytes: [UInt8] = []
        write(to: { bytes += $0 }, onEpoch: onEpoch)
        return bytes
    }

    // MARK: - The script

    private struct ScriptStretch {
        /// Seconds from the recording's start.
        var start: Double
        var duration: Double
        var startDistance: Double
        var fromSpeed: Double
        var toSpeed: Double
    }

    /// Metres covered and speed (m/s) `t` seconds after the recording's start (the script
    /// starts after the acquisition): exact for a speed that changes evenly with time (no
    /// summing of steps, so no drift over four hours).
    private mutating func scriptPosition(at t: Double) -> (distance: Double, speed: Double) {
        guard t >= recipe.acquireSeconds else { return (0, 0) }
        while stretch < script.count - 1, t >= script[stretch + 1].start { stretch += 1 }
        let s = script[stretch]
        let tau = min(max(0, t - s.start), s.duration)
        let acceleration = (s.toSpeed - s.fromSpeed) / s.duration
        return (s.startDistance + s.fromSpeed * tau + acceleration * tau * tau / 2, s.fromSpeed + acceleration * tau)
    }

    // MARK: - What the receiver says

    private mutating func writtenFix(
        _ truth: GeoPoint, _ altitude: Double, _ error: PositionNoise.Error,
        _ speed: Double, _ speedError: Double, _ courseError: Double
    ) -> WrittenFix {
        let position = LocalPlane(origin: truth, leastCosine: 0.01).point(east: error.east, north: error.north)
        // A receiver standing still reports a few centimetres a second, never less than 0,
        // and holds its last course rather than spinning with the noise.
        var reportedSpeed = speed * recipe.speedScale + Self.speedNoise * speedError
        if speed == 0 { reportedSpeed = abs(Self.speedNoise / 2 * speedError) }
        reportedSpeed = max(0, reportedSpeed)
        if speed > 0 {
            let spread = 0.4 + 1.2 / max(speed, 0.5)
            reportedCourse = lastCourse + spread * courseError
        }
        return WrittenFix(position: position, altitude: altitude + error.up, speed: reportedSpeed, course: reportedCourse)
    }

    // MARK: - Header

    /// `#` lines naming the generator and the recipe, so that a recording says how it was
    /// made. Each line is kept short and printable.
    private func appendHeader(to out: inout [UInt8]) {
        let r = recipe
        func line(_ text: String) { NMEAChunkedWriting.comment(text, to: &out) }
        let show = NMEASynthesisRecipe.show, showTime = NMEASynthesisRecipe.showTime
        line("Pacer NMEA synthesizer (pacer nmea synth): a simulated receiver, not a real recording")
        line("start \(UTCTimestamp(millisecondsSince1970: startCentiseconds * 10)), \(show(r.rateHz)) Hz, "
            + "seed \(r.seed), noise \(show(r.noiseMetres)) m, "
            + (r.speedScale == 1 ? "" : "speeds × \(show(r.speedScale)), ")
            + "constellations \(r.constellations.map(\.rawValue).joined(separator: " "))")
        var sentences = ["GGA", "GSA", "GSV", "RMC"]
        sentences += NMEASynthesisRecipe.ExtraSentence.allCases.filter { r.extraSentences.contains($0) }.map(\.rawValue)
        line("sentences \(sentences.joined(separator: " ")), sky every "
            + (r.skyEverySeconds.map { "\(show($0)) s" } ?? "epoch")
            + ", acquire \(showTime(r.acquireSeconds)), \(epochCount) epochs over \(showTime(duration))")
        var route = "route \(r.route.name.map { String($0.prefix(80)) } ?? "(unnamed)"): \(r.route.points.count) points, "
        route += "\(show((path.length / 10).rounded() / 100)) km, "
        route += path.isClosed ? "closed (laps)" : "open (out and back)"
        route += altitudeFromRoute ? ", its elevations" : ", altitude \(show(r.altitudeMetres)) m"
        line(route)
        for (i, s) in r.stretches.enumerated() {
            var text = "stretch \(i + 1): "
            switch s.length {
            case .seconds(let seconds): text += showTime(seconds)
            case .metres(let metres): text += "\(show(metres / 1000)) km"
            }
            text += s.isRamp ? " from \(show(s.fromKmh)) to \(show(s.toKmh)) km/h" : " at \(show(s.fromKmh)) km/h"
            line(text)
        }
        for o in outages {
            line("outage \(showTime(o.from))-\(showTime(o.to)) \(o.mode.rawValue)")
        }
        for c in r.comments { line(c) }
    }
}
