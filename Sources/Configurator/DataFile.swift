import Foundation
import Yams

/// A data or settings file that cannot be used, with where and why:
/// `Hardware/profiles/fast.yaml:4: alert_interval_s: must be positive, got -10`.
public struct DataFileError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var key: String?
    public var reason: String

    /// The reasons a file could not be read at all (not there, a folder, no permission).
    static let noSuchFile = "no such file"
    static let folder = "is a folder, not a file"
    static let unreadable = "cannot be read"

    /// The file could not be read at all: an input that is not there, not a broken one.
    public var isUnreadable: Bool {
        reason == Self.noSuchFile || reason == Self.folder || reason.hasPrefix(Self.unreadable)
    }

    public init(file: String, line: Int? = nil, key: String? = nil, reason: String) {
        self.file = file
        self.line = line
        self.key = key
        self.reason = reason
    }

    public var description: String {
        var s = file
        if let line { s += ":\(line)" }
        s += ": "
        if let key { s += "\(key): " }
        return s + reason
    }
}

/// One YAML mapping of a data file, read key by key with errors that name the file, the line
/// and the key. Keys not read by the loader are reported by `finish()` as unknown, so a
/// misspelt key is refused rather than silently ignored.
public struct YAMLMapping {
    public let file: String
    public let node: Node
    public let path: String
    private let mapping: Node.Mapping
    private var used: Set<String> = []

    /// Parses `text` (the contents of `file`) and expects a mapping at the top.
    public static func load(file: String, text: String) throws(DataFileError) -> YAMLMapping {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw DataFileError(file: file, line: YAMLMapping.line(of: error), reason: "not valid YAML: \(YAMLMapping.describe(error))")
        } catch {
            throw DataFileError(file: file, reason: "not valid YAML: \(error)")
        }
        guard let root else { throw DataFileError(file: file, reason: "is empty") }
        let values = expandedCount(root, upTo: maximumValues)
        guard values <= maximumValues else {
            throw DataFileError(file: file, reason: "holds more than \(maximumValues) values once its aliases (*name) are "
                + "expanded: a data file may hold at most that many (does an alias repeat a large block?)")
        }
        return try YAMLMapping(file: file, node: root, path: "")
    }

    /// The most values (scalars, lists, mappings) a data file may hold with its aliases
    /// expanded. A 140 kB plan whose aliases repeated one 500-phase workout 20,000 times
    /// held 10 million phases, and took the board to 1.1 GB at every power-on; a file of
    /// `maximumFileSize` without aliases holds a few hundred thousand values at the most.
    public static let maximumValues = 250_000

    /// How many values `root` holds with its aliases expanded (Yams gives each alias the node
    /// it names), counted up to one past `limit` and no further: a bomb costs no more to
    /// refuse than a file at the limit.
    static func expandedCount(_ root: Node, upTo limit: Int) -> Int {
        var count = 0
        var stack = [root]
        while let node = stack.popLast() {
            count += 1
            if count > limit { return count }
            switch node {
            case .scalar, .alias: break
            case .sequence(let sequence): stack.append(contentsOf: sequence)
            case .mapping(let mapping):
                for (key, value) in mapping {
                    stack.append(key)
                    stack.append(value)
                }
            }
        }
        return count
    }

    /// The largest data file read (settings, a profile, a plan, a scenario, a recipe): far
    /// more than any needs (the longest bundled plan is a few kilobytes), and small enough that
    /// reading it cannot exhaust a 512 MB board.
    public static let maximumFileSize = 1 << 20

    /// Reads and parses a file from disk. Only a regular file is read (a FIFO would block, a
    /// device never end), at most `maximumFileSize` bytes, and only UTF-8 text: a stray byte
    /// is named by its line and its offset in the file.
    public static func load(path: String) throws(DataFileError) -> YAMLMapping {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw DataFileError(file: path, reason: DataFileError.noSuchFile)
        }
        guard !isDirectory.boolValue else { throw DataFileError(file: path, reason: DataFileError.folder) }
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw DataFileError(file: path, reason: "\(DataFileError.unreadable) (\(String(cString: strerror(errno))))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw DataFileError(file: path, reason: "\(DataFileError.unreadable): not a regular file (a FIFO, a device, a socket)")
        }
        guard info.st_size <= maximumFileSize else {
            throw DataFileError(
                file: path,
                reason: "is \(info.st_size) bytes, more than a data file may be (\(maximumFileSize) bytes): is it the right file?")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw DataFileError(file: path, reason: "\(DataFileError.unreadable) (\(YAMLMapping.reason(error)))")
        }
        return try load(file: path, text: try text(of: data, file: path))
    }

    /// `data` as UTF-8 text; a byte sequence that is not UTF-8 is refused with its line and
    /// its byte offset in the file (from 0).
    public static func text(of data: Data, file: String) throws(DataFileError) -> String {
        let bytes = [UInt8](data)
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        // Decode scalar by scalar to the first error: its offset, and the line it is on.
        var offset = 0, line = 1
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        decoding: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                if scalar == "\n" { line += 1 }
                offset += UTF8.width(scalar)
            case .emptyInput:
                break decoding
            case .error:
                break decoding
            }
        }
        throw DataFileError(
            file: file, line: line,
            reason: String(format: "byte offset %d (0x%02X): not UTF-8 text (save the file as UTF-8)", offset, bytes[min(offset, bytes.count - 1)]))
    }

    public init(file: String, node: Node, path: String) throws(DataFileError) {
        self.file = file
        self.node = node
        self.path = path
        guard let mapping = node.mapping else {
            throw DataFileError(
                file: file, line: node.line, key: path.isEmpty ? nil : path,
                reason: "expected a mapping of keys to values")
        }
        self.mapping = mapping
    }

    public var line: Int? { node.line }
    public var keys: [String] { mapping.keys.compactMap(\.string) }

    private func qualified(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    public func error(_ key: String?, _ reason: String) -> DataFileError {
        let line = key.flatMap { mapping[$0]?.line } ?? node.line
        return DataFileError(file: file, line: line, key: key.map(qualified), reason: reason)
    }

    public mutating func has(_ key: String) -> Bool {
        mapping[key] != nil
    }

    public mutating func optionalNode(_ key: String) -> Node? {
        used.insert(key)
        return mapping[key]
    }

    public mutating func requiredNode(_ key: String) throws(DataFileError) -> Node {
        guard let n = optionalNode(key) else { throw error(nil, "missing key '\(qualified(key))'") }
        return n
    }

    public mutating func string(_ key: String) throws(DataFileError) -> String {
        let n = try requiredNode(key)
        guard let s = n.scalar?.string, !s.isEmpty else { throw error(key, "expected text") }
        return s
    }

    public mutating func optionalString(_ key: String) throws(DataFileError) -> String? {
        guard let n = optionalNode(key) else { return nil }
        guard let s = n.scalar?.string else { throw error(key, "expected text") }
        return s
    }

    public mutating func number(_ key: String) throws(DataFileError) -> Double {
        let n = try requiredNode(key)
        return try number(n, key)
    }

    public mutating func optionalNumber(_ key: String) throws(DataFileError) -> Double? {
        guard let n = optionalNode(key) else { return nil }
        return try number(n, key)
    }

    private func number(_ n: Node, _ key: String) throws(DataFileError) -> Double {
        guard let s = n.scalar?.string, let v = YAMLMapping.decimal(s), v.isFinite else {
            throw error(key, "expected a number, got '\(n.scalar?.string ?? "a \(YAMLMapping.kind(n))")'")
        }
        return v
    }

    /// A number as a person writes one in decimal (`12`, `-0.5`, `.5`, `2.5e3`), else nil:
    /// Swift's `Double("0x10")` (16), `"nan"` and `"infinity"` are not numbers a file means.
    static func decimal(_ text: String) -> Double? {
        // Double's own reading refuses a malformed decimal; what it takes besides (hex, nan,
        // infinity) has letters other than an exponent's.
        guard text.utf8.allSatisfy({ (48...57).contains($0) || $0 == 43 || $0 == 45 || $0 == 46 || $0 == 101 || $0 == 69 })
        else { return nil }
        return Double(text)
    }

    /// A number within `range`, refused with the range and the value as written otherwise.
    /// Every number a loader turns into a `Duration`, an `Int` or a count goes through a
    /// range first: the conversions trap on values out of theirs (`minutes: 1e20`).
    public mutating func number(_ key: String, in range: AllowedRange) throws(DataFileError) -> Double {
        let n = try requiredNode(key)
        return try number(n, key, in: range)
    }

    public mutating func optionalNumber(_ key: String, in range: AllowedRange) throws(DataFileError) -> Double? {
        guard let n = optionalNode(key) else { return nil }
        return try number(n, key, in: range)
    }

    private func number(_ n: Node, _ key: String, in range: AllowedRange) throws(DataFileError) -> Double {
        let v = try number(n, key)
        guard range.contains(v) else { throw error(key, range.refusal(of: v, written: n.scalar?.string)) }
        return v
    }

    /// A length of time within `range`, written as a number of `range.unit` (`s` or `ms`).
    public mutating func duration(_ key: String, in range: AllowedRange) throws(DataFileError) -> Duration {
        range.duration(try number(key, in: range))
    }

    /// `true` or `false` (`yes`/`no` too), nil when the key is absent.
    public mutating func optionalBool(_ key: String) throws(DataFileError) -> Bool? {
        guard let text = try optionalString(key) else { return nil }
        guard let value = ["true": true, "false": false, "yes": true, "no": false][text] else {
            throw error(key, "expected true or false, got '\(text)'")
        }
        return value
    }

    public mutating func mapping(_ key: String) throws(DataFileError) -> YAMLMapping {
        try YAMLMapping(file: file, node: requiredNode(key), path: qualified(key))
    }

    public mutating func optionalMapping(_ key: String) throws(DataFileError) -> YAMLMapping? {
        guard let n = optionalNode(key) else { return nil }
        return try YAMLMapping(file: file, node: n, path: qualified(key))
    }

    /// One of a fixed set of words.
    public mutating func choice<T: RawRepresentable>(_ key: String, _: T.Type) throws(DataFileError) -> T
    where T.RawValue == String, T: CaseIterable {
        let s = try string(key)
        guard let v = T(rawValue: s) else {
            throw error(key, "'\(s)' is not one of \(T.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return v
    }

    /// Refuses keys that no one read.
    public func finish() throws(DataFileError) {
        for case let (k, _) in mapping {
            guard let name = k.string else { continue }
            if !used.contains(name) {
                throw DataFileError(
                    file: file, line: k.line, key: qualified(name),
                    reason: "unknown key (expected one of: \(used.sorted().joined(separator: ", ")))")
            }
        }
    }

    static func kind(_ n: Node) -> String {
        switch n {
        case .scalar: "scalar"
        case .mapping: "mapping"
        case .sequence: "list"
        case .alias: "alias"
        }
    }

    /// A number as a person wrote it: whole numbers without `.0`; any other (1e20, NaN)
    /// as Swift prints it, never trapping on a conversion.
    public static func format(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
    }

    static func line(of error: YamlError) -> Int? {
        switch error {
        case .scanner(_, _, let mark, _), .parser(_, _, let mark, _), .composer(_, _, let mark, _):
            return mark.line
        default:
            return nil
        }
    }

    static func describe(_ error: YamlError) -> String {
        switch error {
        case .scanner(_, let problem, _, _), .parser(_, let problem, _, _), .composer(_, let problem, _, _):
            return problem
        default:
            return "\(error)"
        }
    }

    static func reason(_ error: any Error) -> String {
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return ns.localizedDescription
    }
}

/// The values a number in a data file or on the command line may take: `0.1 to 3600 s`, or
/// `above 0 and at most 24 V` when the lower end is excluded. Not finite is never within.
/// Refusals name the range and the value as it was written:
/// `alert_interval_s: must be from 0.1 to 3600 s, got 1e20`.
public struct AllowedRange: Hashable, Sendable, CustomStringConvertible {
    public var lower: Double
    public var upper: Double
    /// False: the values must be above `lower` (a capacity, a voltage: zero means nothing).
    public var includesLower: Bool
    /// `s`, `ms`, `km/h`, …, or empty.
    public var unit: String

    public init(_ range: ClosedRange<Double>, unit: String = "") {
        lower = range.lowerBound
        upper = range.upperBound
        includesLower = true
        self.unit = unit
    }

    public init(above lower: Double, atMost upper: Double, unit: String = "") {
        self.lower = lower
        self.upper = upper
        includesLower = false
        self.unit = unit
    }

    public func contains(_ value: Double) -> Bool {
        value.isFinite && (includesLower ? value >= lower : value > lower) && value <= upper
    }

    public var description: String {
        let unit = self.unit.isEmpty ? "" : " \(self.unit)"
        return includesLower
            ? "from \(YAMLMapping.format(lower)) to \(YAMLMapping.format(upper))\(unit)"
            : "above \(YAMLMapping.format(lower)) and at most \(YAMLMapping.format(upper))\(unit)"
    }

    /// `must be from 0.1 to 3600 s, got 1e20`: the value as written when there is its text.
    public func refusal(of value: Double, written: String? = nil) -> String {
        "must be \(description), got \(written ?? YAMLMapping.format(value))"
    }

    /// A value of this range as a length of time, the range's unit `s` or `ms`. Only for a
    /// value the range contains: that is what keeps the conversion in bounds.
    public func duration(_ value: Double) -> Duration {
        let scale: Double = unit == "ms" ? 1e6 : 1e9
        precondition(unit == "s" || unit == "ms", "a range of \(unit) is not one of times")
        precondition(contains(value) && abs(value * scale) < 9e18, "\(value) \(unit) is not a checked duration")
        return .nanoseconds(Int64((value * scale).rounded()))
    }
}

extension Node {
    /// 1-based line of the node in its file.
    var line: Int? { mark?.line }
}
