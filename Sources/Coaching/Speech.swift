import PacerCore

/// What the runner hears in words: the phrase book of one language (data, from
/// `Hardware/speech/<language>.yaml`), the announcements the runner chose, and the formatting
/// of figures as an engine reads them: digits it says in its own language, durations as a
/// person says them ("1 hour 5 minutes"), paces as "5 41 per kilometre".
public struct PhraseBook: Hashable, Sendable {
    /// The announcements a book must have, and the placeholders each may use.
    public static let templates: [String: Set<String>] = [
        "split": ["split", "split_time", "split_pace", "distance", "time"],
        "phase-start": ["phase", "duration", "target"],
        "finish": ["time", "distance", "pace"],
        "status": ["phase", "left", "pace", "band", "distance", "needed"],
        "status-needed": ["needed"],
        "faster": ["pace", "target"],
        "ease-off": ["pace", "target"],
        "on-pace": ["pace", "target"],
        "band-slow": [],
        "band-fast": [],
        "band-on": [],
        "band-unknown": [],
        "gps-lost": [],
        "gps-back": [],
        "low-battery": ["battery"],
        "storage-fault": [],
        "off-route": ["off"],
        "on-route": [],
        "waypoint-ahead": ["waypoint", "ahead"],
        "turn-around": [],
        "route-end": [],
        // Added with workouts by distance (issue 40): a book written before them says nothing
        // for them (`optionalTemplates`).
        "phase-start-free": ["phase", "duration"],
        "status-open": ["phase", "pace", "band", "distance"],
        "repeat": ["repeat", "repeats"],
        "lap": ["lap", "lap_time", "lap_pace"],
        "to-go": ["left"],
        // Added with heart rate (issue 41), optional as the above.
        "phase-start-heart": ["phase", "duration", "target"],
        "heart-high": ["heart", "limit"],
        "heart-low": ["heart", "limit"],
        "heart-in": ["heart", "limit"],
        "strap-lost": [],
        "strap-back": ["heart"],
        "status-heart": ["heart"],
        "status-heart-phase": ["phase", "left", "distance"],
        // Added with the ghost (issue 43), optional as the above.
        "ghost-ahead": ["seconds", "distance"],
        "ghost-behind": ["seconds", "distance"],
        "ghost-level": [],
    ]
    /// Announcements a book may leave out: it was written before they existed, and the
    /// device says nothing for them.
    public static let optionalTemplates: Set<String> = [
        "phase-start-free", "status-open", "repeat", "lap", "to-go",
        "phase-start-heart", "heart-high", "heart-low", "heart-in", "strap-lost", "strap-back", "status-heart",
        "status-heart-phase", "ghost-ahead", "ghost-behind", "ghost-level",
    ]
    /// Words a book may leave out (`optionalTemplates`' words): the key is said instead.
    public static let optionalWords: Set<String> = ["until-lap"]
    /// The unit words a book must have.
    public static let words: [String] = [
        "hour", "hours", "minute", "minutes", "second", "seconds",
        "kilometre", "kilometres", "mile", "miles", "per-kilometre", "per-mile",
        "kilometres-per-hour", "miles-per-hour", "metre", "metres", "yard", "yards", "until-lap",
    ]

    /// The language's code (`en`, `de`), as the engine's voice is named.
    public var language: String
    /// Between a number's whole part and its tenths: "." (2.5) or "," (2,5).
    public var decimalSeparator: String
    /// Announcement key → template with `{placeholder}`s.
    public var templateTexts: [String: String]
    /// Unit key → word.
    public var wordTexts: [String: String]

    public init(language: String, decimalSeparator: String, templates: [String: String], words: [String: String]) {
        self.language = language
        self.decimalSeparator = decimalSeparator
        self.templateTexts = templates
        self.wordTexts = words
    }

    /// The word for `key` (the key itself when the book has none).
    public func word(_ key: String) -> String { wordTexts[key] ?? key }

    /// `key`'s template with each `{name}` replaced by `values[name]` (an unknown one by
    /// nothing), runs of spaces closed up.
    public func render(_ key: String, _ values: [String: String]) -> String {
        guard let template = templateTexts[key] else { return "" }
        var out = ""
        var name = ""
        var inName = false
        for ch in template {
            if inName {
                if ch == "}" {
                    out += values[name] ?? ""
                    inName = false
                    name = ""
                } else {
                    name.append(ch)
                }
            } else if ch == "{" {
                inName = true
            } else {
                out.append(ch)
            }
        }
        var closed = ""
        for ch in out where !(ch == " " && (closed.last == " " || closed.isEmpty)) { closed.append(ch) }
        while closed.last == " " { closed.removeLast() }
        return closed
    }

    /// The placeholders `{…}` in `template`, in order (none when it does not parse).
    public static func placeholders(in template: String) -> [String] {
        guard case .success(let parts) = parse(template) else { return [] }
        return parts.compactMap { if case .placeholder(let name) = $0 { name } else { nil } }
    }

    /// A piece of a template: words as they are said, or a placeholder's name.
    public enum TemplatePart: Hashable, Sendable {
        case text(String)
        case placeholder(String)
    }

    /// Why a template does not parse, and where: `column` counts characters from 1.
    public struct TemplateError: Error, Hashable, Sendable {
        public var column: Int
        public var reason: String
    }

    /// A template by its grammar: `template = (text | "{" name "}")*`, where text is any
    /// character but a brace and a name is a letter or `_` then letters, digits or `_`.
    /// `{{split}}`, `}{ now please` and `{split` are refused at the brace that breaks it,
    /// so a runner never hears a stray brace read out.
    public static func parse(_ template: String) -> Result<[TemplatePart], TemplateError> {
        var parts: [TemplatePart] = []
        var text = ""
        var name: String?
        var opened = 0
        for (offset, ch) in template.enumerated() {
            let column = offset + 1
            switch (ch, name) {
            case ("{", nil):
                if !text.isEmpty { parts.append(.text(text)) }
                text = ""
                name = ""
                opened = column
            case ("{", _?):
                return .failure(TemplateError(column: column, reason: "a '{' inside the placeholder opened at column \(opened)"))
            case ("}", nil):
                return .failure(TemplateError(column: column, reason: "a '}' with no '{' before it"))
            case ("}", let n?):
                guard !n.isEmpty else { return .failure(TemplateError(column: opened, reason: "an empty placeholder '{}'")) }
                parts.append(.placeholder(n))
                name = nil
            case (_, let n?):
                let allowed = ch == "_" || ch.isASCII && (ch.isLetter || (ch.isNumber && !n.isEmpty))
                guard allowed else {
                    return .failure(TemplateError(
                        column: column, reason: "'\(ch)' cannot be in a placeholder's name (letters, digits and _)"))
                }
                name = n + String(ch)
            case (_, nil):
                text.append(ch)
            }
        }
        if name != nil { return .failure(TemplateError(column: opened, reason: "the '{' is not closed")) }
        if !text.isEmpty { parts.append(.text(text)) }
        return .success(parts)
    }
}

/// The runner's choices about speech: which announcements, in which units, how pace cues
/// sound. The defaults are not chatty: a split each kilometre (or mile), the phase changes and
/// the end; pace cues stay beeps.
public struct SpeechSettings: Hashable, Sendable {
    public enum Units: String, CaseIterable, Hashable, Sendable { case metric, imperial }
    /// A pace as time per distance ("5 41 per kilometre") or as speed ("10.6 kilometres per hour").
    public enum PaceStyle: String, CaseIterable, Hashable, Sendable { case pace, speed }
    /// How a pace cue (faster, ease off, on pace) sounds.
    public enum PaceCues: String, CaseIterable, Hashable, Sendable { case beep, words, both }

    /// Whether the device speaks at all (a speaker in the settings is needed too).
    public var enabled: Bool
    public var language: String
    public var units: Units
    public var paceStyle: PaceStyle
    /// Metres between split announcements; nil: a kilometre (metric) or a mile (imperial); 0: none.
    public var splitEvery: Double?
    public var phases: Bool
    public var finish: Bool
    public var paceCues: PaceCues
    /// The largest share of the run's time announcements may take (pace and safety words are
    /// never dropped for it).
    public var maximumShare: Double
    /// Words a minute the simulated speaker and the estimates assume.
    public var wordsPerMinute: Double
    /// How a safety cue (gps-lost, gps-back, low-battery, storage-fault, off-route, on-route)
    /// sounds: its beep alone, or the beep and then what it means in words.
    public var alerts: Alerts
    /// The choices that differ under a power profile, by the profile's name (`speech.profiles`
    /// in the settings): the device switches to them when it switches profile (a step-down).
    public var perProfile: [String: SpeechSettings]

    /// A safety cue as a beep, or as a beep and its words.
    public enum Alerts: String, CaseIterable, Hashable, Sendable { case beep, both }

    public init(enabled: Bool = false, language: String = "en", units: Units = .metric, paceStyle: PaceStyle = .pace,
                splitEvery: Double? = nil, phases: Bool = true, finish: Bool = true, paceCues: PaceCues = .beep,
                maximumShare: Double = 0.10, wordsPerMinute: Double = 160, alerts: Alerts = .both,
                perProfile: [String: SpeechSettings] = [:]) {
        self.alerts = alerts
        self.perProfile = perProfile
        self.enabled = enabled
        self.language = language
        self.units = units
        self.paceStyle = paceStyle
        self.splitEvery = splitEvery
        self.phases = phases
        self.finish = finish
        self.paceCues = paceCues
        self.maximumShare = maximumShare
        self.wordsPerMinute = wordsPerMinute
    }

    /// The metres between splits (0: none).
    public var splitDistance: Double { splitEvery ?? (units == .metric ? 1000 : SpeechFormatter.metresPerMile) }

    /// The choices under the power profile `name`: its own block's, or these.
    public func under(profile name: String) -> SpeechSettings {
        perProfile[name] ?? self
    }

    /// Whether the device speaks under some profile (it needs a voice and a phrase book then).
    public var speaksAnywhere: Bool { enabled || perProfile.values.contains(where: \.enabled) }
}

/// Figures as words for the engine: pure, no I/O.
public struct SpeechFormatter: Hashable, Sendable {
    public static let metresPerMile = 1609.344
    public var book: PhraseBook
    public var units: SpeechSettings.Units
    public var paceStyle: SpeechSettings.PaceStyle

    public init(book: PhraseBook, units: SpeechSettings.Units, paceStyle: SpeechSettings.PaceStyle) {
        self.book = book
        self.units = units
        self.paceStyle = paceStyle
    }

    private var unitLength: Double { units == .metric ? 1000 : Self.metresPerMile }

    /// "1 hour 5 minutes", "3 minutes 20 seconds", "45 seconds": whole seconds; an hour or more
    /// is said to the minute.
    public func duration(_ d: Duration) -> String {
        let total = max(0, Int(d.inSeconds.rounded()))
        let h = total / 3600, m = total % 3600 / 60, s = total % 60
        var parts: [String] = []
        func add(_ n: Int, _ one: String, _ many: String) { parts.append("\(n) \(book.word(n == 1 ? one : many))") }
        if h > 0 {
            add(h, "hour", "hours")
            if m > 0 { add(m, "minute", "minutes") }
        } else if m > 0 {
            add(m, "minute", "minutes")
            if s > 0 { add(s, "second", "seconds") }
        } else {
            add(s, "second", "seconds")
        }
        return parts.joined(separator: " ")
    }

    /// A number to a tenth, the tenths left out when zero: "2.5", "5", "2,5".
    public func tenths(_ v: Double) -> String {
        let t = Int((max(0, v) * 10).rounded())
        return t % 10 == 0 ? "\(t / 10)" : "\(t / 10)\(book.decimalSeparator)\(t % 10)"
    }

    /// "2.5 kilometres", "1 mile".
    public func distance(_ metres: Double) -> String {
        let v = tenths(metres / unitLength)
        let one = v == "1"
        let word = units == .metric ? (one ? "kilometre" : "kilometres") : (one ? "mile" : "miles")
        return "\(v) \(book.word(word))"
    }

    /// A speed (m/s) as the runner chose: "5 41 per kilometre" (minutes, then seconds as two
    /// digits) or "10.6 kilometres per hour"; nil for no speed.
    public func pace(_ speed: Double?) -> String? {
        guard let speed, speed > 0.1, speed.isFinite else { return nil }
        switch paceStyle {
        case .pace:
            let seconds = Int((unitLength / speed).rounded())
            let m = seconds / 60, s = seconds % 60
            return "\(m) \(s < 10 ? "0" : "")\(s) \(book.word(units == .metric ? "per-kilometre" : "per-mile"))"
        case .speed:
            return "\(tenths(speed * 3600 / unitLength)) \(book.word(units == .metric ? "kilometres-per-hour" : "miles-per-hour"))"
        }
    }

    /// A split: its number, its time and pace, the totals.
    public func split(number: Int, time: Duration, length: Double, distance: Double, total: Duration) -> String {
        book.render("split", [
            "split": "\(number)", "split_time": duration(time),
            "split_pace": pace(time > .zero ? length / time.inSeconds : nil) ?? "",
            "distance": self.distance(distance), "time": duration(total),
        ])
    }

    /// A phase's start: its name, its length (a time, a distance, or until the lap press) and
    /// its target pace; a phase without a target (a recovery jog, a free run) says its name
    /// and length only (`phase-start-free`). Empty when the book has no words for it.
    public func phaseStart(_ phase: Phase) -> String {
        let length: String = switch phase.end {
        case .time(let d): duration(d)
        case .distance(let m): phaseDistance(m)
        case .lapPress: book.word("until-lap")
        case .stop: ""
        }
        if let target = phase.heartRateTarget, book.templateTexts["phase-start-heart"] != nil {
            return book.render("phase-start-heart", ["phase": phase.name, "duration": length, "target": heartTarget(target)])
        }
        guard phase.speedBand != nil else {
            // A free run has no length to tell: its start is the started cue's.
            guard !length.isEmpty else { return "" }
            return book.render("phase-start-free", ["phase": phase.name, "duration": length])
        }
        return book.render("phase-start", [
            "phase": phase.name, "duration": length,
            "target": pace(phase.maximumSpeed > 0 && phase.minimumSpeed > 0 ? phase.targetSpeed : nil) ?? "",
        ])
    }

    /// A phase's distance as said: metres (or yards) under a kilometre (a mile), to the metre
    /// as the plan has it ("800 metres", "400 metres"), then kilometres to a tenth.
    public func phaseDistance(_ metres: Double) -> String {
        let perUnit = units == .metric ? 1.0 : 0.9144
        let n = Int((metres / perUnit).rounded())
        guard metres < unitLength else { return distance(metres) }
        let word = units == .metric ? (n == 1 ? "metre" : "metres") : (n == 1 ? "yard" : "yards")
        return "\(n) \(book.word(word))"
    }

    /// "Repeat 3 of 6."
    public func repetition(_ r: Repetition) -> String {
        book.render("repeat", ["repeat": "\(r.number)", "repeats": "\(r.count)"])
    }

    /// A lap the runner marked: its number, time and pace.
    public func lap(number: Int, time: Duration, length: Double) -> String {
        book.render("lap", [
            "lap": "\(number)", "lap_time": duration(time),
            "lap_pace": pace(time > .zero ? length / time.inSeconds : nil) ?? "",
        ])
    }

    /// Where the runner stands against the ghost: "12 seconds ahead, the ghost 40 metres
    /// behind", "Level with the ghost."
    public func ghost(_ gap: GhostGap) -> String {
        let values = ["seconds": duration(.seconds(abs(gap.seconds).rounded())), "distance": shortDistance(abs(gap.metres))]
        switch gap.standing {
        case .ahead: return book.render("ghost-ahead", values)
        case .behind: return book.render("ghost-behind", values)
        case .level: return book.render("ghost-level", [:])
        }
    }

    /// What is left of a phase before its end: "200 metres to go", "30 seconds to go".
    public func toGo(metres: Double? = nil, time: Duration? = nil) -> String {
        let left = metres.map(phaseDistance) ?? time.map(duration) ?? ""
        return book.render("to-go", ["left": left])
    }

    /// The end: time, distance, average pace.
    public func finish(time: Duration, distance: Double) -> String {
        book.render("finish", [
            "time": duration(time), "distance": self.distance(distance),
            "pace": pace(time > .zero ? distance / time.inSeconds : nil) ?? "",
        ])
    }

    /// Where the runner stands (a press asks): phase, time left in it, pace against the band,
    /// distance, the pace needed where the coach knows one.
    public func status(_ s: CoachStatus) -> String {
        let band = switch s.pace {
        case .slow: "band-slow"
        case .fast: "band-fast"
        case .onPace: "band-on"
        default: "band-unknown"
        }
        let needed = s.neededSpeed.flatMap(pace).map { book.render("status-needed", ["needed": $0]) } ?? ""
        if s.phase.heartRateTarget != nil, book.templateTexts["status-heart-phase"] != nil {
            // Coached by heart rate: no pace band to measure the pace against (the heart rate
            // follows, `statusHeart`).
            return book.render("status-heart-phase", [
                "phase": s.phaseName, "left": s.phaseDistanceLeft.map(phaseDistance) ?? duration(s.phaseTimeLeft),
                "distance": distance(s.distance),
            ])
        }
        if s.phase.timeLimit == nil && s.phase.distanceLimit == nil, book.templateTexts["status-open"] != nil {
            // An open phase or a free run: nothing is left of it to tell.
            return book.render("status-open", [
                "phase": s.phaseName, "pace": pace(s.smoothedSpeed) ?? "", "band": book.render(band, [:]),
                "distance": distance(s.distance),
            ])
        }
        return book.render("status", [
            "phase": s.phaseName,
            "left": s.phaseDistanceLeft.map(phaseDistance) ?? duration(s.phaseTimeLeft), "pace": pace(s.smoothedSpeed) ?? "",
            "band": book.render(band, [:]), "distance": distance(s.distance), "needed": needed,
        ])
    }

    /// What a safety or route cue's words are made of: the battery's level, how far off the
    /// route, the waypoint ahead and how far; the heart rate and the limit it was judged on.
    public struct AlertFacts: Hashable, Sendable {
        public var battery: Double?
        public var offRoute: Double?
        public var waypoint: String?
        public var ahead: Double?
        public var heart: Int?
        /// The band's edge or the ceiling the heart rate crossed, bpm.
        public var heartLimit: Int?

        public init(battery: Double? = nil, offRoute: Double? = nil, waypoint: String? = nil, ahead: Double? = nil,
                    heart: Int? = nil, heartLimit: Int? = nil) {
            self.battery = battery
            self.offRoute = offRoute
            self.waypoint = waypoint
            self.ahead = ahead
            self.heart = heart
            self.heartLimit = heartLimit
        }
    }

    /// A heart-rate target as said: "zone 2", "140 to 150" (digits; the template says "heart
    /// rate" in its language).
    public func heartTarget(_ target: HeartRateTarget) -> String {
        switch target {
        case .zone(let n): "zone \(n)"
        case .bpm(let lo, let hi): "\(lo)-\(hi)"
        }
    }

    /// A heart-rate cue in words: "Heart rate 162, over 150. Ease off."
    public func heartCue(_ key: String, _ facts: AlertFacts) -> String {
        book.render(key, ["heart": facts.heart.map(String.init) ?? "", "limit": facts.heartLimit.map(String.init) ?? ""])
    }

    /// The status's heart rate ("Heart rate 148."), or empty without one or words for it.
    public func statusHeart(_ bpm: Int?) -> String {
        guard let bpm, book.templateTexts["status-heart"] != nil else { return "" }
        return book.render("status-heart", ["heart": "\(bpm)"])
    }

    /// A short distance as said: to 10 m (metres or yards) under 1000, in kilometres or miles
    /// from there ("60 metres", "1.2 kilometres", "70 yards").
    public func shortDistance(_ metres: Double) -> String {
        let m = max(0, metres)
        let perUnit = units == .metric ? 1.0 : 0.9144
        let n = Int((m / perUnit / 10).rounded()) * 10
        if n >= 1000 { return distance(m) }
        let shown = max(n, Int((m / perUnit).rounded()) > 0 ? 10 : 0)
        let word = units == .metric ? (shown == 1 ? "metre" : "metres") : (shown == 1 ? "yard" : "yards")
        return "\(shown) \(book.word(word))"
    }

    /// A safety or route cue in words: "GPS lost.", "Battery low, 15 percent.", "Off the route
    /// by 60 metres."
    public func alert(_ key: String, _ facts: AlertFacts) -> String {
        book.render(key, [
            "heart": facts.heart.map(String.init) ?? "",
            "battery": facts.battery.map { "\(Int($0.rounded()))" } ?? "",
            "off": facts.offRoute.map(shortDistance) ?? "",
            "waypoint": facts.waypoint ?? "",
            "ahead": facts.ahead.map(shortDistance) ?? "",
        ])
    }

    /// A pace cue in words: "faster", "ease off", "on pace, 5 30".
    public func paceCue(_ key: String, speed: Double?, target: Double?) -> String {
        book.render(key, ["pace": pace(speed) ?? "", "target": pace(target) ?? ""])
    }
}
