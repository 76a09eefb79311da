import NMEA
import PacerCore
import TestSupport
import Testing

// One `NMEAEpoch` per receiver cycle: which sentences make a fix, and what goes into it.

@Suite("Epoch assembly")
struct EpochAssemblerTests {
    /// ZDA for 2010-06-03 at `time`: gives a GGA-, GNS- or GLL-only cycle its date.
    static func zda(_ time: String = "145243.00") -> String {
        nmea("GPZDA,\(time),03,06,2010,00,00")
    }

    static let gga = nmea("GPGGA,145243.00,3401.9764,N,11744.827398,W,1,08,0.9,234.7,M,-32.1,M,,")

    @Test func oneFixPerCycle() {
        let decoded = decode(cycle())
        #expect(epochs(decoded, like: [.fix(cycleFix)]) == [.fix(cycleFix)])
        #expect(decoded.statistics.sentences == 7)
        #expect(decoded.statistics.fixes == 1)
        #expect(decoded.statistics.rejected == 0)
    }

    @Test func consecutiveCyclesGiveOneFixEach() {
        let decoded = decode(cycle(time: "145243.00") + cycle(time: "145244.00") + cycle(time: "145245.00"))
        #expect(decoded.fixes.map(\.time.millisecondsSince1970)
            == [1_275_576_763_000, 1_275_576_764_000, 1_275_576_765_000])
        #expect(decoded.statistics.fixes == 3)
    }

    @Test func aCycleClosesWhenTheNextBegins() throws {
        func sentence(_ text: String) throws -> NMEASentence {
            guard case .sentence(let s) = NMEALineParser.parse(text) else { throw ParseFailure(text: text) }
            return s
        }
        var assembler = EpochAssembler()
        #expect(assembler.add(try sentence(nmea("GPRMC,145243.00,A,3401.9764,N,11744.827398,W,0.00,119.27,030610,,,A"))) == nil)
        #expect(assembler.add(try sentence(Self.gga)) == nil)
        let closed = assembler.add(try sentence(nmea("GPRMC,145244.00,V,,,,,,,030610,,,N")))
        let expected = Fix(
            time: cycleTime, position: cyclePosition, altitude: 234.7, speed: 0.0, course: 119.27,
            mode: .threeD, quality: .gps, hdop: 0.9, satellitesUsed: 8, satellitesInView: nil)
        #expect(closed.map { snapped([$0], to: [.fix(expected)]) } == [.fix(expected)])
        #expect(assembler.finish() == .noFix(UTCTimestamp(millisecondsSince1970: 1_275_576_764_000)))
        #expect(assembler.finish() == nil)
    }

    @Test func rmcStatusVIsNoFix() {
        let decoded = decode([nmea("GPRMC,145243.00,V,,,,,,,030610,,,N")])
        #expect(decoded.epochs == [.noFix(cycleTime)])
        #expect(decoded.statistics.fixes == 0)
    }

    @Test func rmcStatusVWithAPositionIsNoFix() {
        let decoded = decode([nmea("GPRMC,145243.00,V,3401.9764,N,11744.827398,W,0.00,119.27,030610,,,N")])
        #expect(decoded.epochs == [.noFix(cycleTime)])
    }

    @Test func ggaQualityZeroIsNoFix() {
        let decoded = decode([Self.zda(), nmea("GPGGA,145243.00,,,,,0,00,99.99,,,,,,")])
        #expect(decoded.epochs == [.noFix(cycleTime)])
    }

    @Test func ggaQualityZeroWithAPositionIsNoFix() {
        let decoded = decode([Self.zda(), nmea("GPGGA,145243.00,3401.9764,N,11744.827398,W,0,08,0.9,234.7,M,-32.1,M,,")])
        #expect(decoded.epochs == [.noFix(cycleTime)])
    }

    @Test func gllStatusVIsNoFix() {
        let decoded = decode([Self.zda(), nmea("GPGLL,3401.9764,N,11744.827398,W,145243.00,V,N")])
        #expect(decoded.epochs == [.noFix(cycleTime)])
    }

    @Test func gllAloneGivesATwoDimensionalFix() {
        let decoded = decode([Self.zda(), nmea("GPGLL,3401.9764,N,11744.827398,W,145243.00,A,D")])
        let expected = NMEAEpoch.fix(Fix(time: cycleTime, position: cyclePosition, mode: .twoD, quality: .dgps))
        #expect(epochs(decoded, like: [expected]) == [expected])
    }

    @Test func gnsWithNoValidConstellationIsNoFix() {
        let decoded = decode([Self.zda(), nmea("GNGNS,145243.00,3401.9764,N,11744.827398,W,NN,08,0.9,234.7,-32.1,,")])
        #expect(decoded.epochs == [.noFix(cycleTime)])
    }

    @Test func gnsWithOneValidConstellationIsAFix() {
        let decoded = decode([Self.zda(), nmea("GNGNS,145243.00,3401.9764,N,11744.827398,W,AN,08,0.9,234.7,-32.1,,")])
        let expected = NMEAEpoch.fix(Fix(
            time: cycleTime, position: cyclePosition, altitude: 234.7, mode: .threeD, quality: .gps,
            hdop: 0.9, satellitesUsed: 8))
        #expect(epochs(decoded, like: [expected]) == [expected])
    }

    /// A position sentence that says invalid vetoes the cycle, whatever the order.
    @Test(arguments: [true, false])
    func rmcVVetoesAValidGGA(ggaFirst: Bool) {
        let rmc = nmea("GPRMC,145243.00,V,3401.9764,N,11744.827398,W,0.00,119.27,030610,,,N")
        let decoded = decode(ggaFirst ? [Self.gga, rmc] : [rmc, Self.gga])
        #expect(decoded.epochs == [.noFix(cycleTime)])
    }

    @Test func ggaQualityZeroVetoesAValidRMC() {
        let decoded = decode([
            nmea("GPRMC,145243.00,A,3401.9764,N,11744.827398,W,0.00,119.27,030610,,,A"),
            nmea("GPGGA,145243.00,3401.9764,N,11744.827398,W,0,08,0.9,234.7,M,-32.1,M,,"),
        ])
        #expect(decoded.epochs == [.noFix(cycleTime)])
    }

    @Test func untimedRMCDoesNotVetoTheNextCycle() {
        let decoded = decode([nmea("GPRMC,,V,,,,,,,,,,N")] + cycle())
        #expect(epochs(decoded, like: [.noFix(nil), .fix(cycleFix)]) == [.noFix(nil), .fix(cycleFix)])
    }

    @Test func rmcSpeedIsConvertedFromKnots() throws {
        let decoded = decode([nmea("GPRMC,145243.00,A,3401.9764,N,11744.827398,W,10.0,119.27,030610,,,A")])
        let fix = try #require(decoded.fixes.first)
        #expect(isClose(fix.speed, 10.0 * 1852 / 3600))
        #expect(fix.course == 119.27)
    }

    @Test func vtgSpeedIsUsedWithoutRMC() throws {
        let decoded = decode([Self.zda(), Self.gga, nmea("GPVTG,054.7,T,034.4,M,010.0,N,018.5,K,A")])
        let fix = try #require(decoded.fixes.first)
        #expect(isClose(fix.speed, 10.0 * 1852 / 3600))
        #expect(fix.course == 54.7)
    }

    @Test func vtgKilometresPerHourAreUsedWithoutKnots() throws {
        let decoded = decode([Self.zda(), Self.gga, nmea("GPVTG,054.7,T,,M,,N,36.0,K,A")])
        let fix = try #require(decoded.fixes.first)
        #expect(isClose(fix.speed, 10.0))
    }

    @Test func oldVTGWithoutUnitsGivesSpeed() throws {
        let decoded = decode([Self.zda(), Self.gga, nmea("GPVTG,054.7,034.4,010.0,018.5")])
        let fix = try #require(decoded.fixes.first)
        #expect(isClose(fix.speed, 10.0 * 1852 / 3600))
        #expect(fix.course == 54.7)
    }

    @Test func invalidVTGIsIgnored() throws {
        let decoded = decode([Self.zda(), Self.gga, nmea("GPVTG,054.7,T,,M,010.0,N,018.5,K,N")])
        let fix = try #require(decoded.fixes.first)
        #expect(fix.speed == nil)
        #expect(fix.course == nil)
    }

    @Test func rmcSpeedWinsOverVTG() throws {
        let decoded = decode([
            nmea("GPRMC,145243.00,A,3401.9764,N,11744.827398,W,2.0,119.27,030610,,,A"),
            nmea("GPVTG,054.7,T,,M,010.0,N,018.5,K,A"),
        ])
        let fix = try #require(decoded.fixes.first)
        #expect(isClose(fix.speed, 2.0 * 1852 / 3600))
        #expect(fix.course == 119.27)
    }

    @Test func satellitesInViewAreSummedOverConstellations() throws {
        let decoded = decode(cycle())
        #expect(try #require(decoded.fixes.first).satellitesInView == 11)
    }

    @Test func onlyTheFirstGSVOfAGroupCounts() throws {
        let decoded = decode([
            Self.zda(), Self.gga,
            nmea("GPGSV,2,2,09,24,45,120,38,25,30,060,40,29,10,300,25,31,70,010,41"),
            nmea("GAGSV,1,1,04,01,45,120,38,02,30,060,40,03,10,300,25,04,70,010,41"),
        ])
        #expect(try #require(decoded.fixes.first).satellitesInView == 4)
    }

    @Test(arguments: [
        // (GSA fix type or nil for no GSA, GGA altitude, expected mode)
        (Int?.some(3), "234.7", FixMode.threeD),
        (2, "234.7", .twoD),
        (3, "", .threeD),
        (nil, "234.7", .threeD),
        (nil, "", .twoD),
    ])
    func modeComesFromGSAOrAltitude(_ gsaFixType: Int?, _ altitude: String, _ expected: FixMode) throws {
        var sentences = [Self.zda(), nmea("GPGGA,145243.00,3401.9764,N,11744.827398,W,1,08,0.9,\(altitude),M,-32.1,M,,")]
        if let gsaFixType { sentences.append(nmea("GPGSA,A,\(gsaFixType),04,05,09,,,,,,,,,,1.8,0.9,1.5")) }
        let fix = try #require(decode(sentences).fixes.first)
        #expect(fix.mode == expected)
    }

    @Test(arguments: [("1", FixQuality.gps), ("2", .dgps), ("4", .rtk), ("5", .floatRTK), ("6", .estimated)])
    func qualityComesFromGGA(_ digit: String, _ expected: FixQuality) throws {
        let decoded = decode([
            Self.zda(), nmea("GPGGA,145243.00,3401.9764,N,11744.827398,W,\(digit),08,0.9,234.7,M,-32.1,M,,"),
        ])
        #expect(try #require(decoded.fixes.first).quality == expected)
    }

    @Test func gsaHDOPIsUsedWhenGGAHasNone() throws {
        let decoded = decode([
            Self.zda(), nmea("GPGGA,145243.00,3401.9764,N,11744.827398,W,1,08,,234.7,M,-32.1,M,,"),
            nmea("GPGSA,A,3,04,05,09,,,,,,,,,,1.8,1.2,1.5"),
        ])
        #expect(try #require(decoded.fixes.first).hdop == 1.2)
    }

    @Test func validPositionWithoutAnyDateIsNoFixWithoutTime() {
        let decoded = decode([Self.gga])
        #expect(decoded.epochs == [.noFix(nil)])
        #expect(decoded.statistics.fixes == 0)
    }
}

struct ParseFailure: Error {
    var text: String
}
