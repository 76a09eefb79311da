import Coaching
import Configurator
import Foundation
import HAL
import Logging
import NMEA
import PacerCore
import Simulation
import Storage

/// `pacer battery compare`: one scenario run once per power profile, and what each costs in
/// energy and gives the runner in coaching and track quality.
public enum ProfileComparison {
    /// One profile's figures.
    public struct Row: Sendable {
        public var profile: String
        public var hardware: String
        /// Battery charge used over the run, mAh, and its average current, mA.
        public var energyMilliampHours: Double
        public var averageMilliamps: Double
        /// Hours a full battery lasts at that average.
        public var projectedRuntimeHours: Double
        /// Share of the run the receiver was powered (not in backup), %.
        public var gpsOnPercent: Double
        public var wakeups: Int
        public var trackPoints: Int
        /// Stored distance against the distance along every fix of the recording (1 Hz), %.
        public var distanceErrorPercent: Double
        public var cues: Int
        /// From the runner leaving the speed band to the first corrective cue, seconds.
        public var latencies: [Double]
        /// Departures from the band that got no corrective cue before the runner came back.
        public var missed: Int
        public var batteryCapacityMilliampHours: Double
        /// Seconds of words said, and what the speaker (amplifier and rendering) cost: a row
        /// run with speech on (`pacer battery compare --speech`).
        public var speechSeconds = 0.0
        public var speechMilliampHours = 0.0
        /// The speaker part charged for the words (a speech row only): its name, its file, and
        /// whether it is the build's own or assumed for a build without one (`--speaker`).
        public var speaker: String?
        public var speakerFile: String?
        public var speakerInBuild = false
        /// Seconds the Wi-Fi radio was off (the profile's `wifi_off_during_workout`), and the
        /// charge that saved: already out of `energyMilliampHours`.
        public var radioOffSeconds = 0.0
        public var radioSavedMilliampHours = 0.0
        /// The Bluetooth radio for the scenario's heart-rate strap: its charge (already in
        /// `energyMilliampHours`; 0 on a build without Bluetooth figures) and its seconds
        /// scanning and connected. All zero for a scenario without a strap.
        public var bluetoothMilliampHours = 0.0
        public var bluetoothScanningSeconds = 0.0
        public var bluetoothConnectedSeconds = 0.0
        /// A row run without the scenario's strap (`--no-strap`): what the strap cost in the
        /// same profile's row with it (mAh: the radio and the board woken by each measurement),
        /// and the wakeups it added.
        public var strapExtraMilliampHours: Double?
        public var strapExtraWakeups = 0
        /// The row with the strap that a `--no-strap` row is compared with: its runtime.
        public var strapRuntimeHours: Double?
        /// Each distance phase's end as the runner heard it: metres run (the truth) from the
        /// phase's start to the end's cue, less the phase's distance (+: heard late). Only for
        /// a synthesized run, whose truth is known.
        public var endErrors: [Double] = []
        /// A row run with the anticipation on (`--to-go`): its to-go cues and countdown ticks,
        /// and what they cost over the same profile's row without (mAh).
        public var toGoCues = 0
        public var countdownCues = 0
        public var toGoExtraMilliampHours: Double?
        public var maximumEndError: Double? { endErrors.map(abs).max() }

        public var medianLatency: Double? {
            guard !latencies.isEmpty else { return nil }
            let sorted = latencies.sorted()
            let mid = sorted.count / 2
            return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
        }
        public var maximumLatency: Double? { latencies.max() }
    }

    /// How long the runner must stay out of the band for it to count as having left it.
    public static let departureMinimum = 5.0
    /// The true speed is averaged over this many seconds of the recording.
    public static let speedWindow = 5.0

    /// The speaker charged for a build without one when none is named.
    public static let defaultSpeaker = "max98357a"

    /// Runs `scenario` once per profile; with `speech`, once more per profile with the device
    /// speaking, charged for the build's speaker or, on a build without one, for the part
    /// `speaker` names (`defaultSpeaker` when nil).
    public static func run(
        _ scenario: Scenario, profiles: [String], hardware: String?, options: ScenarioOptions, out: String,
        speech: Bool = false, speaker: String? = nil, toGo: Bool = false, noStrap: Bool = false,
        logger: Logger = Logger(label: "pacer.scenario")
    ) throws -> [Row] {
        if noStrap && scenario.heartRate == nil {
            throw ScenarioError("--no-strap: \(scenario.file) has no heart-rate strap (heart_rate:) to leave out")
        }
        var rows: [Row] = []
        let reference = try scenario.recipe.map(ReferenceTrack.init(recipe:))
            ?? ReferenceTrack(path: ScenarioRecordings.recording(for: scenario, scratch: out))
        for profile in profiles {
            var variant = scenario
            variant.profile = profile
            // The radio as the board has it (`radio: sysfs` in board.yaml): a profile that asks
            // switches it off for the workout, and the build's board saves its radio's current.
            if variant.radio == nil { variant.radio = try? DeviceURI(parsing: "sim") }
            if let hardware { variant.hardware = hardware }
            if variant.hardware == nil && options.settings.hardware == nil {
                throw ScenarioError("no hardware build: give --hardware NAME (Hardware/builds) or `hardware:` in the settings")
            }
            let outcome = try ScenarioRunner.run(variant, out: "\(out)/\(profile)", options: options, logger: logger)
            let base = row(outcome, profile: profile, reference: reference)
            rows.append(base)
            // The same run without the strap: what the heart rate costs the battery (the radio
            // scanning and connected, and a wakeup for each measurement).
            if noStrap {
                var strapless = variant
                strapless.heartRate = nil
                let run = try ScenarioRunner.run(strapless, out: "\(out)/\(profile)+no-strap", options: options, logger: logger)
                var r = row(run, profile: "\(profile)+no-strap", reference: reference)
                r.strapExtraMilliampHours = base.energyMilliampHours - r.energyMilliampHours
                r.strapExtraWakeups = base.wakeups - r.wakeups
                r.strapRuntimeHours = base.projectedRuntimeHours
                rows.append(r)
            }
            // The same run with the anticipation on (the profile's own `to_go`, else the
            // standard one): what "200 metres to go" and the countdown cost.
            if toGo {
                var anticipating = variant
                if anticipating.anticipation == nil {
                    let own = try? PowerProfileLoader.load(name: profile, hardwareDir: options.settings.hardwareDirectory).anticipation
                    anticipating.anticipation = own.flatMap { $0.isNone ? nil : $0 } ?? .standard
                }
                let run = try ScenarioRunner.run(anticipating, out: "\(out)/\(profile)+to-go", options: options, logger: logger)
                var r = row(run, profile: "\(profile)+to-go", reference: reference)
                r.toGoCues = run.events.filter { $0.kind == "cue" && $0.name == Cue.toGo.rawValue }.count
                r.countdownCues = run.events.filter { $0.kind == "cue" && $0.name == Cue.countdown.rawValue }.count
                r.toGoExtraMilliampHours = r.energyMilliampHours - base.energyMilliampHours
                rows.append(r)
            }
            // The same run with the device speaking its default announcements.
            if speech && variant.speech == nil {
                variant.speech = SpeechSettings(enabled: true)
                let build = variant.hardware ?? options.settings.hardware ?? ""
                let (part, inBuild) = try speakerPart(build: build, named: speaker, hardwareDir: options.settings.hardwareDirectory)
                var spokenOptions = options
                if !inBuild { spokenOptions.settings.assumedSpeaker = part }
                let spoken = try ScenarioRunner.run(
                    variant, out: "\(out)/\(profile)+speech", options: spokenOptions, logger: logger)
                var r = row(spoken, profile: "\(profile)+speech", reference: reference)
                r.speechSeconds = spoken.energy.reduce(0) { $0 + $1.speakingTime.inSeconds }
                r.speechMilliampHours = spoken.energy.reduce(0) { $0 + $1.speakerMilliampHours }
                r.speaker = part.name
                r.speakerFile = displayPath(speaker: part.name, hardwareDir: options.settings.hardwareDirectory)
                r.speakerInBuild = inBuild
                rows.append(r)
            }
        }
        return rows
    }

    /// The speaker a speech run is charged for: the build's own (true), or the part `named`
    /// (`defaultSpeaker` when nil) for a build without one (false). Naming a part other than
    /// the build's own is refused: the build's is the one it has.
    static func speakerPart(
        build: String, named: String?, hardwareDir: String
    ) throws -> (HardwareModel.SpeakerPart, inBuild: Bool) {
        do {
            let model = try HardwareModelLoader.load(build: build, hardwareDir: hardwareDir)
            if let own = model.speaker {
                if let named, named != own.name {
                    throw ScenarioError(
                        "--speaker \(named): build \(build) has its own speaker, \(own.name); --speaker is for a build without one")
                }
                return (own, true)
            }
            return (try HardwareModelLoader.loadSpeaker(named: named ?? defaultSpeaker, hardwareDir: hardwareDir), false)
        } catch let error as DataFileError {
            throw ScenarioError(error.description)
        }
    }

    /// The speaker part `name`'s file as a reader finds it: relative to the working directory
    /// when the hardware folder is under it, or is the working directory's folder of the
    /// same name (`Hardware`, maybe a link); absolute otherwise.
    static func displayPath(speaker name: String, hardwareDir: String) -> String {
        let file = HardwareModelLoader.path(of: .speaker, named: name, hardwareDir: hardwareDir)
        let cwd = FileManager.default.currentDirectoryPath
        let standard = (file as NSString).standardizingPath
        if standard.hasPrefix(cwd + "/") { return String(standard.dropFirst(cwd.count + 1)) }
        let folder = ((hardwareDir as NSString).standardizingPath as NSString).lastPathComponent
        let here = "\(cwd)/\(folder)"
        if (here as NSString).resolvingSymlinksInPath == (hardwareDir as NSString).resolvingSymlinksInPath {
            return "\(folder)/parts/\(HardwareModelLoader.PartKind.speaker.folder)/\(name).yaml"
        }
        return standard
    }

    static func row(_ o: ScenarioOutcome, profile: String, reference: ReferenceTrack) -> Row {
        let used = o.energy.reduce(0) { $0 + $1.totalMilliampHours }
        let span = o.energy.reduce(0) { $0 + ($1.settled - $1.start).inSeconds }
        let average = span > 0 ? used / (span / 3600) : 0
        let capacity = o.energy.first?.model.battery.capacityMilliampHours ?? 0
        var powered = 0.0
        for e in o.energy {
            for (state, time) in e.gpsTime where state != .backup && state != .off { powered += time.inSeconds }
        }
        let stored = o.activities.reduce(0) { $0 + $1.summary.distance }
        // The truth: what the runner ran of each activity, start to end, pauses left out (a
        // synthesized run's path, else the recording's full-rate length).
        var pauses: [ClosedRange<Double>] = []
        var pausedAt: Double?
        for e in o.events {
            if e.kind == "paused" { pausedAt = e.time.inSeconds }
            if e.kind == "resumed", let p = pausedAt { pauses.append(p...e.time.inSeconds); pausedAt = nil }
        }
        if let p = pausedAt { pauses.append(p...Double.infinity) }
        let truth = o.activities.reduce(0.0) { sum, a in
            guard let start = a.summary.startedAt, let end = a.summary.endedAt else { return sum }
            return sum + reference.distance(from: start, to: end, excluding: pauses)
        }
        let (latencies, missed) = alertLatencies(o, reference: reference)
        var row = Row(
            profile: profile, hardware: o.energy.first?.model.name ?? "-", energyMilliampHours: used,
            averageMilliamps: average, projectedRuntimeHours: average > 0 ? capacity / average : .infinity,
            gpsOnPercent: span > 0 ? powered / span * 100 : 0, wakeups: o.energy.reduce(0) { $0 + $1.wakeups },
            trackPoints: o.activities.reduce(0) { $0 + $1.points.count },
            distanceErrorPercent: truth > 0 ? (stored - truth) / truth * 100 : 0,
            cues: o.events.filter { $0.kind == "cue" }.count, latencies: latencies, missed: missed,
            batteryCapacityMilliampHours: capacity)
        row.endErrors = endErrors(o, reference: reference)
        row.radioOffSeconds = o.energy.reduce(0) { $0 + $1.radioOffTime.inSeconds }
        row.radioSavedMilliampHours = o.energy.reduce(0) { $0 + $1.radioSavedMilliampHours }
        row.bluetoothMilliampHours = o.energy.reduce(0) { $0 + $1.bluetoothMilliampHours }
        row.bluetoothScanningSeconds = o.energy.reduce(0) { $0 + ($1.bluetoothTime[.scanning] ?? .zero).inSeconds }
        row.bluetoothConnectedSeconds = o.energy.reduce(0) { $0 + ($1.bluetoothTime[.connected] ?? .zero).inSeconds }
        return row
    }

    /// How far from the true crossing each distance phase's end was heard: for each phase
    /// that ends on distance and did (the next phase started, or the workout completed, by
    /// it), the truth's metres from its start to its end less its distance. Scenario time is
    /// placed on the recording's by the activity's start.
    static func endErrors(_ o: ScenarioOutcome, reference: ReferenceTrack) -> [Double] {
        guard reference.along != nil, let activity = o.activities.first, let started = activity.summary.startedAt,
              let start = o.events.first(where: { $0.kind == "started" })?.time else { return [] }
        func along(_ t: Duration) -> Double? {
            reference.along(at: UTCTimestamp(millisecondsSince1970: started.millisecondsSince1970
                                                 + Int64(((t - start).inSeconds * 1000).rounded())))
        }
        var errors: [Double] = []
        var open: (start: Duration, goal: Double)?
        for e in o.events {
            let ended = e.kind == "phase-started" || (e.kind == "cue" && e.name == Cue.workoutComplete.rawValue)
            if ended, let p = open, let a = along(p.start), let b = along(e.time) { errors.append(b - a - p.goal) }
            if ended || e.kind == "finished" { open = nil }
            if e.kind == "phase-started", let goal = e.goal { open = (e.time, goal) }
        }
        return errors
    }

    /// Departures from the band (from the recording's own speeds, averaged over a few
    /// seconds) and the first corrective cue after each: speed-up for too slow, slow-down
    /// for too fast. A departure shorter than `departureMinimum`, or while paused, is not one.
    static func alertLatencies(_ o: ScenarioOutcome, reference: ReferenceTrack) -> ([Double], Int) {
        // The band over scenario time, from the phase changes; none while paused or finished.
        var bands: [(from: Double, band: ClosedRange<Double>?)] = []
        for e in o.events {
            switch e.kind {
            case "phase-started": bands.append((e.time.inSeconds, e.band))
            case "paused", "finished", "power-cut": bands.append((e.time.inSeconds, nil))
            case "resumed": bands.append((e.time.inSeconds, bands.last(where: { $0.band != nil })?.band))
            default: break
            }
        }
        func band(at t: Double) -> ClosedRange<Double>? { bands.last(where: { $0.from <= t })?.band }
        let cues = o.events.filter { $0.kind == "cue" }.map { ($0.time.inSeconds, $0.name ?? "") }

        enum Side: Equatable { case slow, inBand, fast }
        let samples = reference.smoothedSpeeds(window: speedWindow)
        var latencies: [Double] = []
        var missed = 0
        var previous: Side?
        var i = 0
        while i < samples.count {
            let (t, v) = samples[i]
            guard let b = band(at: t) else {
                previous = nil
                i += 1
                continue
            }
            let side: Side = v < b.lowerBound ? .slow : v > b.upperBound ? .fast : .inBand
            defer { previous = side }
            guard side != .inBand, previous == .inBand || previous == nil else {
                i += 1
                continue
            }
            // Out of the band: for long enough? And until when?
            var j = i
            while j + 1 < samples.count, let bj = band(at: samples[j + 1].0), bj == b,
                  (side == .slow ? samples[j + 1].1 < bj.lowerBound : samples[j + 1].1 > bj.upperBound) {
                j += 1
            }
            let until = samples[j].0
            if until - t >= departureMinimum {
                let wanted = side == .slow ? Cue.speedUp.rawValue : Cue.slowDown.rawValue
                if let cue = cues.first(where: { $0.1 == wanted && $0.0 >= t && $0.0 <= until + 1 }) {
                    latencies.append(cue.0 - t)
                } else {
                    missed += 1
                }
            }
            i = j + 1
            previous = side
        }
        return (latencies, missed)
    }
}

/// The truth the stored track is compared with: a synthesized run's every epoch (where the
/// runner really was, how fast, how far along), else every fix of a recording at its own
/// rate (its positions' noise counted in: a recording's truth reads a little long).
struct ReferenceTrack {
    var fixes: [(offset: Double, time: UTCTimestamp, position: GeoPoint, speed: Double?)] = []
    /// Metres along the run at each fix, when known (a synthesized run).
    var along: [Double]?

    init(fixes: [(offset: Double, time: UTCTimestamp, position: GeoPoint, speed: Double?)]) {
        self.fixes = fixes
    }

    /// The truth behind the recording `recipe` makes: each epoch's true position, speed and
    /// distance along the route (the receiver's noise, bias and outages left out).
    init(recipe: String) throws {
        var synthesizer = try ScenarioRecordings.synthesizer(recipe: recipe)
        var bytes: [UInt8] = []
        var along: [Double] = []
        while let epoch = synthesizer.next(appendingTo: &bytes) {
            bytes.removeAll(keepingCapacity: true)
            fixes.append((epoch.elapsed, epoch.time, epoch.truePosition, epoch.trueSpeed))
            along.append(epoch.distance)
        }
        self.along = along
    }

    init(path: String) throws {
        var reader = RecordingReader(path: path)
        var first: UTCTimestamp?
        var fixes: [(Double, UTCTimestamp, GeoPoint, Double?)] = []
        try reader.decode(onEpoch: { epoch in
            // Offsets count from the first timed cycle, as scenario time does.
            if first == nil, case .noFix(let time?) = epoch { first = time }
            guard case .fix(let fix) = epoch else { return }
            if first == nil { first = fix.time }
            let offset = Double(fix.time.millisecondsSince1970 - first!.millisecondsSince1970) / 1000
            fixes.append((offset, fix.time, fix.position, fix.speed))
        })
        self.fixes = fixes.map { (offset: $0.0, time: $0.1, position: $0.2, speed: $0.3) }
    }

    /// Distance along every fix from `from` to `to` (UTC), metres, leaving out the legs
    /// that touch an excluded span (offsets, seconds: the pauses).
    func distance(from: UTCTimestamp, to: UTCTimestamp, excluding: [ClosedRange<Double>] = []) -> Double {
        var total = 0.0
        var last: (offset: Double, position: GeoPoint, along: Double?)?
        for (i, f) in fixes.enumerated() where f.time >= from && f.time <= to {
            let here = along?[i]
            if let l = last, !excluding.contains(where: { $0.overlaps(l.offset...f.offset) }) {
                if let a = l.along, let b = here { total += b - a } else { total += Geodesy.distance(l.position, f.position) }
            }
            last = (f.offset, f.position, here)
        }
        return total
    }

    /// Metres along the run at `time`, between the epochs around it; nil without the truth or
    /// outside the run.
    func along(at time: UTCTimestamp) -> Double? {
        guard let along, let first = fixes.first, let last = fixes.last, time >= first.time, time <= last.time else { return nil }
        var lo = 0, hi = fixes.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if fixes[mid].time <= time { lo = mid } else { hi = mid }
        }
        let a = fixes[lo].time.millisecondsSince1970, b = fixes[hi].time.millisecondsSince1970
        guard b > a else { return along[lo] }
        let f = Double(time.millisecondsSince1970 - a) / Double(b - a)
        return along[lo] + (along[hi] - along[lo]) * min(1, max(0, f))
    }

    /// (offset s, speed m/s averaged over the trailing `window` seconds), one per fix.
    func smoothedSpeeds(window: Double) -> [(Double, Double)] {
        var out: [(Double, Double)] = []
        var start = 0
        var sum = 0.0, count = 0
        for (k, f) in fixes.enumerated() {
            if let s = f.speed { sum += s; count += 1 }
            while fixes[start].offset < f.offset - window + 1e-9 {
                if let s = fixes[start].speed { sum -= s; count -= 1 }
                start += 1
            }
            _ = k
            if count > 0 { out.append((f.offset, sum / Double(count))) }
        }
        return out
    }
}
