import PacerCore
import HAL
import Yams

/// Reads the cue sounds, `<hardware_dir>/cues.yaml`, into a `CueBook`: for every cue a beep
/// pattern and an RTTTL melody (the file's header describes the format). Every cue must be
/// there; a bad file is refused with its file, line, key and reason:
/// `Hardware/cues.yaml:12: speed-up.beeps[1].on_ms: must be positive, got 0`.
public enum CueBookLoader {
    public static let fileName = "cues.yaml"
    /// Beep pitches a buzzer can play.
    public static let pitchRange: ClosedRange<Double> = 20...10_000
    /// How long one beep sounds, and the longest silence after it: up to 10 s, longer than
    /// any cue should take.
    public static let beepRange = AllowedRange(above: 0, atMost: 10_000, unit: "ms")
    public static let silenceRange = AllowedRange(0...10_000, unit: "ms")

    /// The cue book in `hardwareDir`.
    public static func load(hardwareDir: String) throws(DataFileError) -> CueBook {
        try load(path: "\(hardwareDir)/\(fileName)")
    }

    public static func load(path: String) throws(DataFileError) -> CueBook {
        try book(from: YAMLMapping.load(path: path))
    }

    /// Parses `text`, the contents of `file` (named in errors).
    public static func load(file: String, text: String) throws(DataFileError) -> CueBook {
        try book(from: YAMLMapping.load(file: file, text: text))
    }

    static func book(from top: YAMLMapping) throws(DataFileError) -> CueBook {
        var map = top
        let known = Cue.allCases.map(\.rawValue).joined(separator: ", ")
        var sounds: [Cue: [CueStyle: [Tone]]] = [:]
        for key in map.keys {
            guard let cue = Cue(rawValue: key) else {
                // The key's own line, as `finish()` gives for unknown keys (not its value's).
                let line = map.node.mapping?.first(where: { $0.key.string == key })?.key.line
                throw DataFileError(file: map.file, line: line, key: key, reason: "unknown cue (cues: \(known))")
            }
            var entry = try map.mapping(key)
            let beeps = try beepTones(entry.requiredNode("beeps"), path: "\(key).beeps", file: map.file)
            let text = try entry.string("melody")
            let melody: RTTTL
            do {
                melody = try RTTTL(parsing: text)
            } catch {
                throw entry.error("melody", "not valid RTTTL: \(error)")
            }
            try entry.finish()
            sounds[cue] = [.beeps: beeps, .melody: melody.tones]
        }
        if let missing = Cue.allCases.first(where: { sounds[$0] == nil }) {
            throw map.error(nil, "missing cue '\(missing.rawValue)': every cue needs beeps and a melody (cues: \(known))")
        }
        return CueBook(sounds: sounds)
    }

    /// A list of steps (or one step), each `{hz, on_ms, off_ms, repeat}`.
    static func beepTones(_ node: Node, path: String, file: String) throws(DataFileError) -> [Tone] {
        var steps: [(node: Node, path: String)] = []
        switch node {
        case .sequence(let sequence):
            for (index, item) in sequence.enumerated() { steps.append((item, "\(path)[\(index)]")) }
        case .mapping:
            steps = [(node, path)]
        default:
            throw DataFileError(
                file: file, line: node.line, key: path,
                reason: "expected a list of beeps like {hz: 3000, on_ms: 60, off_ms: 40}")
        }
        guard !steps.isEmpty else {
            throw DataFileError(file: file, line: node.line, key: path, reason: "needs at least one beep")
        }
        var tones: [Tone] = []
        for (stepNode, stepPath) in steps {
            var step = try YAMLMapping(file: file, node: stepNode, path: stepPath)
            let hz = try step.number("hz", in: AllowedRange(pitchRange, unit: "Hz"))
            let on = try step.number("on_ms", in: beepRange)
            let off = try step.optionalNumber("off_ms", in: silenceRange) ?? 0
            let repeats = try step.optionalNumber("repeat") ?? 1
            guard repeats >= 1, repeats == repeats.rounded(), repeats <= 100 else {
                throw step.error("repeat", "must be a whole number from 1 to 100, got \(YAMLMapping.format(repeats))")
            }
            guard repeats == 1 || off > 0 else {
                throw step.error("repeat", "needs a positive off_ms, or the repeated beeps run together into one")
            }
            try step.finish()
            for _ in 0..<Int(repeats) {
                tones.append(Tone(frequency: hz, duration: beepRange.duration(on)))
                if off > 0 { tones.append(.rest(silenceRange.duration(off))) }
            }
        }
        return tones
    }
}
