import LinuxHardware
import NMEA
import PacerCore
import Testing

/// The one-report-per-cycle rule for gpsd, without gpsd: the cycle assembler holds TPVs of one
/// time, the latest wins.
@Suite("gpsd cycles")
struct GPSDCycleTests {
    private static func at(_ second: Int) -> UTCTimestamp {
        UTCTimestamp(millisecondsSince1970: 1_715_767_200_000 + Int64(second) * 1000)
    }

    private static func fix(_ second: Int, speed: Double? = nil) -> GPSDReport {
        .fix(Fix(time: at(second), position: GeoPoint(latitude: 48, longitude: 11), speed: speed))
    }

    private func run(_ steps: [GPSDReport?]) -> [GPSDReport] {
        var filter = CycleAssembler<GPSDCycle>()
        var out: [GPSDReport] = []
        for step in steps {
            if let report = step {
                filter.offer(report) { out.append($0) }
            } else {
                filter.flush { out.append($0) }  // gps_waiting timed out
            }
        }
        return out
    }

    @Test("the latest report of a cycle is delivered when the next cycle starts")
    func latestOfCycleOnNextTime() {
        let out = run([Self.fix(0), Self.fix(0, speed: 3), Self.fix(1)])
        #expect(out == [Self.fix(0, speed: 3)])
    }

    @Test("a quiet spell delivers the held cycle; later reports of that time are dropped")
    func flushOnQuiet() {
        let out = run([Self.fix(0), nil, Self.fix(0, speed: 3), nil, Self.fix(1), nil, nil])
        #expect(out == [Self.fix(0), Self.fix(1)])
    }

    @Test("no-fix cycles are grouped the same way; untimed ones go out at once, in order")
    func noFixReports() {
        let out = run([.noFix(nil), Self.fix(0), .noFix(Self.at(0)), .noFix(nil), .noFix(Self.at(1)), nil])
        #expect(out == [.noFix(nil), .noFix(Self.at(0)), .noFix(nil), .noFix(Self.at(1))])
    }

    @Test("a complete report goes at once; later reports of its time are dropped")
    func completeReportAtOnce() {
        let complete = GPSDReport.fix(Fix(
            time: Self.at(0), position: GeoPoint(latitude: 48, longitude: 11), altitude: 520, speed: 3,
            mode: .threeD, hdop: 0.9, satellitesUsed: 9))
        var filter = CycleAssembler<GPSDCycle>()
        var out: [GPSDReport] = []
        filter.offer(Self.fix(0)) { out.append($0) }
        #expect(out.isEmpty && filter.isHolding)
        filter.offer(complete) { out.append($0) }
        #expect(out == [complete])
        #expect(!filter.isHolding, "a complete report waits for nothing")
        filter.offer(Self.fix(0, speed: 4)) { out.append($0) }
        filter.flush { out.append($0) }
        #expect(out == [complete])
        // A 2D fix, or one without its altitude, is not complete: it waits for its cycle.
        var twoD = complete
        if case .fix(var f) = twoD { f.mode = .twoD; twoD = .fix(f) }
        #expect(!twoD.isComplete)
        if case .fix(var f) = complete { f.altitude = nil; #expect(!GPSDReport.fix(f).isComplete) }
    }

    @Test("nothing held, nothing delivered")
    func emptyFlush() {
        var filter = CycleAssembler<GPSDCycle>()
        #expect(!filter.isHolding)
        filter.offer(Self.fix(0)) { _ in Issue.record("delivered too early") }
        #expect(filter.isHolding)
        filter.discard()
        #expect(!filter.isHolding)
        filter.flush { _ in Issue.record("delivered a discarded report") }
    }
}
