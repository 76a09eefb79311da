@testable import NMEA
import PacerCore
import TestSupport
import Testing

// Each sentence type's field layout (Sources/NMEA/FieldLayout.swift) against its sample
// sentence and its parser: the layout has the sample's fields, every handle the parser reads
// through names fields of its own kind, and a field of the wrong kind is rejected as before.

/// Every layout a sentence parser reads through.
let allLayouts: [any NMEASentenceLayout.Type] = [
    RMC.Layout.self, GGA.Layout.self, GNS.Layout.self, GLL.Layout.self, VTG.Layout.self,
    VTG.LegacyLayout.self, GSA.Layout.self, GSV.Layout.self, ZDA.Layout.self,
]

/// The sample's address and fields, without `$` and `*hh`.
func sampleFields(_ layout: any NMEASentenceLayout.Type) -> (address: String, fields: [String]) {
    let text = "\(layout.sample)"
    let body = text.dropFirst().split(separator: "*", omittingEmptySubsequences: false)[0]
    let parts = body.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    return (parts[0], Array(parts.dropFirst()))
}

/// The sample with field `index` (1-based, after the address) replaced, checksum recomputed.
func sample(_ layout: any NMEASentenceLayout.Type, replacing index: Int, with text: String) -> String {
    var (address, fields) = sampleFields(layout)
    fields[index - 1] = text
    return nmea(([address] + fields).joined(separator: ","))
}

@Suite("Field layouts")
struct LayoutTests {
    @Test(arguments: allLayouts.indices)
    func layoutHasTheSampleFields(_ k: Int) {
        let layout = allLayouts[k]
        let (_, fields) = sampleFields(layout)
        #expect(layout.kinds.count == fields.count, "\(layout): \(layout.format) for \(layout.sample)")
    }

    @Test(arguments: allLayouts.indices)
    func sampleDecodes(_ k: Int) {
        let layout = allLayouts[k]
        let line = NMEALineParser.parse("\(layout.sample)")
        guard case .sentence = line else {
            Issue.record("\(layout.sample): \(line)")
            return
        }
    }

    /// Every stored handle of a layout points at fields of its kind, inside the sample; the
    /// parser reads only through these handles.
    @Test(arguments: allLayouts.indices)
    func handlesNameFieldsOfTheirKind(_ k: Int) {
        let layout = allLayouts[k]
        let kinds = layout.kinds
        var handles = 0
        for child in Mirror(reflecting: layout.init()).children {
            guard let handle = child.value as? any NMEAFieldHandle else { continue }
            handles += 1
            let first = handle.index - 1
            let declared = first >= 0 && first + handle.kinds.count <= kinds.count
                ? Array(kinds[first..<first + handle.kinds.count]) : []
            #expect(declared == handle.kinds, "\(layout).\(child.label ?? "?") at \(handle.index)")
            #expect(!handle.kinds.contains(.ignored))
        }
        #expect(handles > 0)
        // Every field the layout does not ignore is read through some handle (GSV's later
        // satellite groups through the first group's handles, shifted).
        let read = Set(Mirror(reflecting: layout.init()).children.flatMap { child -> [Int] in
            guard let h = child.value as? any NMEAFieldHandle else { return [] }
            return Array(h.index..<h.index + h.kinds.count)
        })
        for (i, kind) in kinds.enumerated() where kind != .ignored && kind != .character {
            #expect(read.contains(i + 1) || layout == GSV.Layout.self && i >= 7,
                    "\(layout): field \(i + 1) (\(kind)) declared but not read")
        }
    }

    @Test func formatsReadLikeTheirSamples() {
        #expect(RMC.Layout.format == "tcphPhffd__c")
        #expect(GGA.Layout.format == "tphPhiiffcfc__")
        #expect(GSV.Layout.format == "iiiiIiiiIiiiIiiiIii")
        #expect(ZDA.Layout.format == "tiii__")
    }

    /// Text in a time, position or date field that does not parse makes the sentence
    /// malformed, as before the layouts; in a number field it only leaves the value unknown.
    @Test(arguments: allLayouts.indices)
    func fieldOfTheWrongKindIsRejectedAsBefore(_ k: Int) {
        let layout = allLayouts[k]
        for (i, kind) in layout.kinds.enumerated() {
            let line = NMEALineParser.parse(sample(layout, replacing: i + 1, with: "X1"))
            switch kind {
            case .time, .latitude, .longitude, .hemisphere, .date:
                #expect(line == .malformed, "\(layout) field \(i + 1) (\(kind)): \(line)")
            case .number, .ignored:
                guard case .sentence = line else {
                    Issue.record("\(layout) field \(i + 1) (\(kind)): \(line)")
                    continue
                }
            default:
                continue
            }
        }
        // GGA's quality digit is the one integer whose junk is malformed.
        #expect(NMEALineParser.parse(sample(GGA.Layout.self, replacing: GGA.Layout().quality.index, with: "X")) == .malformed)
    }

    /// The sentence value read through a layout is the sample's.
    @Test func ggaSampleReadsThroughItsLayout() {
        let line = NMEALineParser.parse("\(GGA.Layout.sample)")
        guard case .sentence(.gga(let gga)) = line else {
            Issue.record("\(line)")
            return
        }
        #expect(gga.timeOfDay == 73_600_000)
        #expect(gga.status == .valid(.dgps))
        #expect(gga.satellitesUsed == 10)
        #expect(abs((gga.hdop ?? 0) - 0.98) < 1e-9)
        #expect(abs((gga.altitude ?? 0) - 1127.7) < 1e-9)
        #expect(abs((gga.geoidSeparation ?? 0) - -19.6) < 1e-9)
    }
}
