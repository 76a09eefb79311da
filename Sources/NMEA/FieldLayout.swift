import PacerCore

// Field layouts: each sentence type declares, once and next to its sample sentence, what each
// of its fields holds (as minmea's format strings do: "tfdfdiiffcfcf_" for GGA), and its
// parser reads every value through a typed handle of that layout (`f[l.time]`), never through
// a bare index.
//
// A handle's type is the kind of its field, so a read can only use the parser of that kind
// (a time field yields an `Int32?` of milliseconds, a number field a `Double?`). The handles
// are `let` constants of an empty-initialised struct: the optimizer folds them into constant
// indices, as if each parser indexed its fields by hand, so a layout costs no instruction per
// line (the `kinds` list is only read by the tests and tools, never on the decoding path). The tests
// (`LayoutTests`) check that every layout's `kinds` has as many fields as its sample sentence,
// that every handle points at fields of its own kind, and that the sample decodes.

/// What one field of a sentence holds. The letters are minmea's where minmea has one.
public enum NMEAFieldKind: Character, Hashable, Sendable, CaseIterable {
    /// `hhmmss` or `hhmmss.sss`, UTC.
    case time = "t"
    /// `ddmm.mmmm`.
    case latitude = "p"
    /// `dddmm.mmmm`.
    case longitude = "P"
    /// `N`/`S` after a latitude, `E`/`W` after a longitude.
    case hemisphere = "h"
    /// One letter: a status, a mode indicator or a unit.
    case character = "c"
    /// Several letters, one per constellation (GNS's mode).
    case letters = "s"
    /// Unsigned decimal digits.
    case integer = "i"
    /// Decimal digits with an optional sign.
    case signedInteger = "I"
    /// A decimal number with an optional sign and fraction.
    case number = "f"
    /// `ddmmyy`.
    case date = "d"
    /// A field the parser does not read.
    case ignored = "_"
}

/// The type of a handle's field: one per `NMEAFieldKind` a parser reads.
public protocol NMEAFieldKindTag {
    static var kind: NMEAFieldKind { get }
}

/// The kinds of field a handle can name.
public enum NMEAField {
    public enum Time: NMEAFieldKindTag { public static var kind: NMEAFieldKind { .time } }
    public enum Character: NMEAFieldKindTag { public static var kind: NMEAFieldKind { .character } }
    public enum Letters: NMEAFieldKindTag { public static var kind: NMEAFieldKind { .letters } }
    public enum Integer: NMEAFieldKindTag { public static var kind: NMEAFieldKind { .integer } }
    public enum SignedInteger: NMEAFieldKindTag { public static var kind: NMEAFieldKind { .signedInteger } }
    public enum Number: NMEAFieldKindTag { public static var kind: NMEAFieldKind { .number } }
    public enum Date: NMEAFieldKindTag { public static var kind: NMEAFieldKind { .date } }
}

/// Anything of a layout that names fields: what the layout tests check against `kinds`.
public protocol NMEAFieldHandle: Sendable {
    /// The first field named (1 is the first after the address).
    var index: Int { get }
    /// The kinds of the fields named, from `index` on.
    var kinds: [NMEAFieldKind] { get }
}

/// One field of a sentence, of kind `Kind`, at `index`.
public struct NMEAFieldAt<Kind: NMEAFieldKindTag>: NMEAFieldHandle {
    public let index: Int

    @inlinable @inline(__always)
    public init(_ index: Int) { self.index = index }

    public var kinds: [NMEAFieldKind] { [Kind.kind] }

    /// The same field `fields` later (the next group of a repeated group).
    @inlinable @inline(__always)
    public func shifted(by fields: Int) -> NMEAFieldAt<Kind> { NMEAFieldAt(index + fields) }
}

/// A position: latitude, `N`/`S`, longitude, `E`/`W` from `index` on.
public struct NMEAPositionAt: NMEAFieldHandle {
    public let index: Int

    @inlinable @inline(__always)
    public init(_ index: Int) { self.index = index }

    public var kinds: [NMEAFieldKind] { [.latitude, .hemisphere, .longitude, .hemisphere] }
}

/// `count` consecutive fields of kind `Kind` from `index` on (GSA's satellite numbers).
public struct NMEAFieldRunAt<Kind: NMEAFieldKindTag>: NMEAFieldHandle {
    public let index: Int
    public let count: Int

    @inlinable @inline(__always)
    public init(_ index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    public var kinds: [NMEAFieldKind] { Array(repeating: Kind.kind, count: count) }
}

/// A sentence type's layout: its sample sentence, the kind of each of its fields in order
/// (after the address), and, as stored `let` handles, the fields its parser reads.
public protocol NMEASentenceLayout: Sendable {
    /// A real sentence of this layout, with its checksum.
    static var sample: StaticString { get }
    /// Field 1 onwards; the sample has exactly these fields.
    static var kinds: [NMEAFieldKind] { get }
    init()
}

extension NMEASentenceLayout {
    /// The layout as a minmea-like format string, one letter a field (for docs and tests).
    public static var format: String { String(kinds.map(\.rawValue)) }
}

// MARK: - Reads through a handle

extension NMEAFields {
    /// True when the sentence reaches `field` (it may still be empty).
    @inlinable @inline(__always)
    func has(_ field: some NMEAFieldHandle) -> Bool { field.index < count }

    @inlinable @inline(__always)
    func isEmpty<K>(_ field: NMEAFieldAt<K>) -> Bool { isEmpty(field.index) }

    @inlinable @inline(__always)
    subscript(_ field: NMEAFieldAt<NMEAField.Time>) -> Int32? { timeOfDay(field.index) }

    @inlinable @inline(__always)
    subscript(_ field: NMEAFieldAt<NMEAField.Character>) -> UInt8? { character(field.index) }

    @inlinable @inline(__always)
    subscript(_ field: NMEAFieldAt<NMEAField.Letters>) -> UnsafeBufferPointer<UInt8> { bytes(field.index) }

    @inlinable @inline(__always)
    subscript(_ field: NMEAFieldAt<NMEAField.Integer>) -> Int? { integer(field.index) }

    @inlinable @inline(__always)
    subscript(_ field: NMEAFieldAt<NMEAField.SignedInteger>) -> Int? { signedInteger(field.index) }

    @inlinable @inline(__always)
    subscript(_ field: NMEAFieldAt<NMEAField.Number>) -> Double? { number(field.index) }

    @inlinable @inline(__always)
    subscript(_ field: NMEAFieldAt<NMEAField.Date>) -> ShortDate? { shortDate(field.index) }

    @inlinable @inline(__always)
    subscript(_ field: NMEAPositionAt) -> GeoPoint? { position(field.index) }

    /// True when the field holds text that did not parse: the sentence is malformed (as
    /// opposed to an empty field, which NMEA uses for "unknown").
    @inlinable @inline(__always)
    func garbled<K, T>(_ field: NMEAFieldAt<K>, _ value: T?) -> Bool { garbled(field.index, value) }

    /// True when any of a position's four fields holds text but no position came of them.
    @inlinable @inline(__always)
    func garbled(_ field: NMEAPositionAt, _ value: GeoPoint?) -> Bool { garbledPosition(field.index, value) }

    /// How many fields of the run are not empty.
    @inlinable @inline(__always)
    func nonEmptyCount<K>(_ run: NMEAFieldRunAt<K>) -> Int {
        var n = 0
        for i in run.index..<run.index + run.count where !isEmpty(i) { n += 1 }
        return n
    }
}
