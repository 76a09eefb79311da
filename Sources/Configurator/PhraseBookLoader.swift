import Coaching
import Yams

/// Reads a phrase book, `<hardware_dir>/speech/<language>.yaml`: the language, its decimal
/// separator, the unit words and a template per announcement (`PhraseBook.templates` names
/// them and the placeholders each may use). Every word and template must be there; a bad
/// file is refused with its file, line, field and reason:
/// `Hardware/speech/en.yaml:24: templates.split: unknown placeholder {pace} (split knows: …)`.
public enum PhraseBookLoader {
    public static let folder = "speech"

    /// The book for `language` in `hardwareDir`.
    /// The longest template taken: one announcement (`Utterance.maximumCharacters` with its
    /// placeholders filled is what is said). A 600 kB template took 209 s and 5 GB.
    public static let maximumTemplateLength = 200

    public static func load(language: String, hardwareDir: String) throws(DataFileError) -> PhraseBook {
        guard !language.isEmpty, language.allSatisfy({ $0.isLetter || $0 == "-" || $0 == "_" }) else {
            throw DataFileError(file: "\(hardwareDir)/\(folder)", key: "language", reason: "'\(language)' is not a language code like en or de")
        }
        return try load(path: "\(hardwareDir)/\(folder)/\(language).yaml")
    }

    public static func load(path: String) throws(DataFileError) -> PhraseBook {
        try book(from: YAMLMapping.load(path: path))
    }

    /// Parses `text`, the contents of `file` (named in errors).
    public static func load(file: String, text: String) throws(DataFileError) -> PhraseBook {
        try book(from: YAMLMapping.load(file: file, text: text))
    }

    static func book(from top: YAMLMapping) throws(DataFileError) -> PhraseBook {
        var map = top
        let language = try map.string("language")
        let decimal = try map.optionalString("decimal") ?? "."
        guard decimal == "." || decimal == "," else { throw map.error("decimal", "must be \".\" or \",\", got \"\(decimal)\"") }
        var words = try map.mapping("words")
        var wordTexts: [String: String] = [:]
        for key in words.keys {
            guard PhraseBook.words.contains(key) else {
                throw words.error(key, "unknown word (words: \(PhraseBook.words.joined(separator: ", ")))")
            }
            let text = try words.string(key)
            guard !text.isEmpty else { throw words.error(key, "must not be empty") }
            wordTexts[key] = text
        }
        if let missing = PhraseBook.words.first(where: { wordTexts[$0] == nil && !PhraseBook.optionalWords.contains($0) }) {
            throw words.error(nil, "missing word '\(missing)'")
        }
        try words.finish()
        var templates = try map.mapping("templates")
        var texts: [String: String] = [:]
        let known = PhraseBook.templates.keys.sorted()
        for key in templates.keys {
            guard let allowed = PhraseBook.templates[key] else {
                throw templates.error(key, "unknown announcement (announcements: \(known.joined(separator: ", ")))")
            }
            let text = try templates.string(key)
            guard text.count <= maximumTemplateLength else {
                throw templates.error(key, "\(text.count) characters; a template has at most \(maximumTemplateLength) (one announcement, a sentence or two)")
            }
            if case .failure(let broken) = PhraseBook.parse(text) {
                throw templates.error(key, "column \(broken.column) of the template: \(broken.reason), in \"\(text)\"")
            }
            for name in PhraseBook.placeholders(in: text) where !allowed.contains(name) {
                let list = allowed.isEmpty ? "none" : allowed.sorted().joined(separator: ", ")
                throw templates.error(key, "unknown placeholder {\(name)} (\(key) knows: \(list))")
            }
            texts[key] = text
        }
        if let missing = known.first(where: { texts[$0] == nil && !PhraseBook.optionalTemplates.contains($0) }) {
            throw templates.error(nil, "missing announcement '\(missing)'")
        }
        try templates.finish()
        try map.finish()
        return PhraseBook(language: language, decimalSeparator: decimal, templates: texts, words: wordTexts)
    }
}
