import NMEA
import PacerCore
import TestSupport
import Testing

// Each sentence type through `NMEALineParser.parse(String)`, compared as whole values
// (positions within 1e-9 degrees).

@Suite("RMC")
struct RMCTests {
    static let cases: [(String, NMEALine)] = [
        // NMEA 2.0, no mode letter: status A alone means an autonomous fix.
        (nmea("GPRMC,225446,A,4916.45,N,12311.12,W,000.5,054.7,191194,020.3,E"),
         .sentence(.rmc(RMC(
            talker: .gps, timeOfDay: 82_486_000, status: .valid(.gps),
            position: GeoPoint(latitude: 49.274166666667, longitude: -123.185333333333),
            speedKnots: 0.5, course: 54.7, date: ShortDate(day: 19, month: 11, yearOfCentury: 94))))),
        // NMEA 2.3 mode letter D: differential.
        (nmea("GPRMC,202640.000,A,4404.1306,N,12118.8515,W,0.03,225.97,130415,,,D"),
         .sentence(.rmc(RMC(
            talker: .gps, timeOfDay: 73_600_000, status: .valid(.dgps),
            position: GeoPoint(latitude: 44.068843333333, longitude: -121.314191666667),
            speedKnots: 0.03, course: 225.97, date: ShortDate(day: 13, month: 4, yearOfCentury: 15))))),
        // NMEA 4.1, GN talker, mode R, navigational status, no course.
        (nmea("GNRMC,014035.00,A,4332.69262,S,17235.48549,E,0.027,,100719,,,R,V"),
         .sentence(.rmc(RMC(
            talker: .combined, timeOfDay: 6_035_000, status: .valid(.rtk),
            position: GeoPoint(latitude: -43.544877, longitude: 172.591424833333),
            speedKnots: 0.027, course: nil, date: ShortDate(day: 10, month: 7, yearOfCentury: 19))))),
        // A receiver still searching: everything empty.
        (nmea("GPRMC,,V,,,,,,,,,,N"),
         .sentence(.rmc(RMC(
            talker: .gps, timeOfDay: nil, status: .invalid, position: nil,
            speedKnots: nil, course: nil, date: nil)))),
        // Status V with a position: parsed, but invalid.
        (nmea("GPRMC,081836,V,3751.65,S,14507.36,E,000.0,360.0,130998,011.3,E"),
         .sentence(.rmc(RMC(
            talker: .gps, timeOfDay: 29_916_000, status: .invalid,
            position: GeoPoint(latitude: -37.860833333333, longitude: 145.122666666667),
            speedKnots: 0.0, course: 360.0, date: ShortDate(day: 13, month: 9, yearOfCentury: 98))))),
        // Status A but mode letter N: the mode letter wins.
        (nmea("GLRMC,081836,A,3751.65,S,14507.36,E,000.0,360.0,130998,011.3,E,N"),
         .sentence(.rmc(RMC(
            talker: .glonass, timeOfDay: 29_916_000, status: .invalid,
            position: GeoPoint(latitude: -37.860833333333, longitude: 145.122666666667),
            speedKnots: 0.0, course: 360.0, date: ShortDate(day: 13, month: 9, yearOfCentury: 98))))),
    ]

    @Test(arguments: cases)
    func parses(_ text: String, _ expected: NMEALine) {
        #expect(parse(text, like: expected) == expected)
    }
}

@Suite("GGA")
struct GGATests {
    static let cases: [(String, NMEALine)] = [
        (nmea("GPGGA,202640.000,4404.1306,N,12118.8515,W,2,10,0.98,1127.7,M,-19.6,M,0000,0000"),
         .sentence(.gga(GGA(
            talker: .gps, timeOfDay: 73_600_000, status: .valid(.dgps),
            position: GeoPoint(latitude: 44.068843333333, longitude: -121.314191666667),
            satellitesUsed: 10, hdop: 0.98, altitude: 1127.7, geoidSeparation: -19.6)))),
        (nmea("GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
         .sentence(.gga(GGA(
            talker: .gps, timeOfDay: 45_319_000, status: .valid(.gps),
            position: GeoPoint(latitude: 48.1173, longitude: 11.516666666667),
            satellitesUsed: 8, hdop: 0.9, altitude: 545.4, geoidSeparation: 46.9)))),
        (nmea("GNGGA,014035.00,4332.69262,S,17235.48549,E,4,13,0.9,25.63,M,11.24,M,1.0,0000"),
         .sentence(.gga(GGA(
            talker: .combined, timeOfDay: 6_035_000, status: .valid(.rtk),
            position: GeoPoint(latitude: -43.544877, longitude: 172.591424833333),
            satellitesUsed: 13, hdop: 0.9, altitude: 25.63, geoidSeparation: 11.24)))),
        (nmea("GPGGA,123519,4807.038,N,01131.000,E,6,04,2.5,545.4,M,,M,,"),
         .sentence(.gga(GGA(
            talker: .gps, timeOfDay: 45_319_000, status: .valid(.estimated),
            position: GeoPoint(latitude: 48.1173, longitude: 11.516666666667),
            satellitesUsed: 4, hdop: 2.5, altitude: 545.4, geoidSeparation: nil)))),
        // Quality 0 and nothing else known.
        (nmea("GPGGA,,,,,,0,00,99.99,,,,,,"),
         .sentence(.gga(GGA(
            talker: .gps, timeOfDay: nil, status: .invalid, position: nil,
            satellitesUsed: 0, hdop: 99.99, altitude: nil, geoidSeparation: nil)))),
    ]

    @Test(arguments: cases)
    func parses(_ text: String, _ expected: NMEALine) {
        #expect(parse(text, like: expected) == expected)
    }
}

@Suite("GNS")
struct GNSTests {
    static let position = GeoPoint(latitude: -43.544877, longitude: 172.591424833333)

    static let cases: [(String, NMEALine)] = [
        (nmea("GNGNS,014035.00,4332.69262,S,17235.48549,E,RR,13,0.9,25.63,11.24,,"),
         .sentence(.gns(GNS(
            talker: .combined, timeOfDay: 6_035_000, status: .valid(.rtk), position: position,
            satellitesUsed: 13, hdop: 0.9, altitude: 25.63, geoidSeparation: 11.24)))),
        // One constellation valid is enough.
        (nmea("GNGNS,014035.00,4332.69262,S,17235.48549,E,AN,13,0.9,25.63,11.24,,"),
         .sentence(.gns(GNS(
            talker: .combined, timeOfDay: 6_035_000, status: .valid(.gps), position: position,
            satellitesUsed: 13, hdop: 0.9, altitude: 25.63, geoidSeparation: 11.24)))),
        (nmea("GNGNS,014035.00,4332.69262,S,17235.48549,E,ND,13,0.9,25.63,11.24,,"),
         .sentence(.gns(GNS(
            talker: .combined, timeOfDay: 6_035_000, status: .valid(.dgps), position: position,
            satellitesUsed: 13, hdop: 0.9, altitude: 25.63, geoidSeparation: 11.24)))),
        (nmea("GNGNS,014035.00,4332.69262,S,17235.48549,E,NN,13,0.9,25.63,11.24,,"),
         .sentence(.gns(GNS(
            talker: .combined, timeOfDay: 6_035_000, status: .invalid, position: position,
            satellitesUsed: 13, hdop: 0.9, altitude: 25.63, geoidSeparation: 11.24)))),
    ]

    @Test(arguments: cases)
    func parses(_ text: String, _ expected: NMEALine) {
        #expect(parse(text, like: expected) == expected)
    }
}

@Suite("GLL")
struct GLLTests {
    static let cases: [(String, NMEALine)] = [
        // NMEA 2.0: status, no mode letter.
        (nmea("GPGLL,4916.45,N,12311.12,W,225444,A"),
         .sentence(.gll(GLL(
            talker: .gps, timeOfDay: 82_484_000, status: .valid(.gps),
            position: GeoPoint(latitude: 49.274166666667, longitude: -123.185333333333))))),
        // NMEA 2.3: mode letter D.
        (nmea("GAGLL,4404.1306,N,12118.8515,W,202640.000,A,D"),
         .sentence(.gll(GLL(
            talker: .galileo, timeOfDay: 73_600_000, status: .valid(.dgps),
            position: GeoPoint(latitude: 44.068843333333, longitude: -121.314191666667))))),
        (nmea("GPGLL,4404.1306,N,12118.8515,W,202640.000,V,N"),
         .sentence(.gll(GLL(
            talker: .gps, timeOfDay: 73_600_000, status: .invalid,
            position: GeoPoint(latitude: 44.068843333333, longitude: -121.314191666667))))),
        (nmea("GPGLL,,,,,,V,N"),
         .sentence(.gll(GLL(talker: .gps, timeOfDay: nil, status: .invalid, position: nil)))),
    ]

    @Test(arguments: cases)
    func parses(_ text: String, _ expected: NMEALine) {
        #expect(parse(text, like: expected) == expected)
    }
}

@Suite("VTG")
struct VTGTests {
    static let cases: [(String, NMEALine)] = [
        // NMEA 2.3: units and a mode letter.
        (nmea("GPVTG,054.7,T,034.4,M,005.5,N,010.2,K,A"),
         .sentence(.vtg(VTG(talker: .gps, course: 54.7, speedKnots: 5.5, speedKmh: 10.2, status: .valid(.gps))))),
        (nmea("GPVTG,225.97,T,,M,0.03,N,0.05,K,D"),
         .sentence(.vtg(VTG(talker: .gps, course: 225.97, speedKnots: 0.03, speedKmh: 0.05, status: .valid(.dgps))))),
        // NMEA 2.0: units, no mode letter.
        (nmea("GPVTG,054.7,T,034.4,M,005.5,N,010.2,K"),
         .sentence(.vtg(VTG(talker: .gps, course: 54.7, speedKnots: 5.5, speedKmh: 10.2, status: nil)))),
        // Units present but the true-course unit left out with its empty value.
        (nmea("GNVTG,,,,,0.00,N,0.00,K,N"),
         .sentence(.vtg(VTG(talker: .combined, course: nil, speedKnots: 0.0, speedKmh: 0.0, status: .invalid)))),
        // NMEA 1.x: no unit letters at all.
        (nmea("GPVTG,054.7,034.4,005.5,010.2"),
         .sentence(.vtg(VTG(talker: .gps, course: 54.7, speedKnots: 5.5, speedKmh: 10.2, status: nil)))),
        (nmea("GPVTG,,,,"),
         .sentence(.vtg(VTG(talker: .gps, course: nil, speedKnots: nil, speedKmh: nil, status: nil)))),
    ]

    @Test(arguments: cases)
    func parses(_ text: String, _ expected: NMEALine) {
        #expect(NMEALineParser.parse(text) == expected)
    }

    /// A VTG with unit letters but fewer than nine fields is not the NMEA 1.x form: its third
    /// field is the magnetic course (34.4), not the speed.
    @Test func unitFormWithMissingFieldsIsNotReadAsOldForm() {
        let result = NMEALineParser.parse(nmea("GPVTG,054.7,T,034.4,M,005.5,N"))
        let partial = NMEALine.sentence(.vtg(VTG(talker: .gps, course: 54.7, speedKnots: 5.5, speedKmh: nil, status: nil)))
        #expect(result == .malformed || result == partial, "got \(result)")
    }
}

@Suite("GSA")
struct GSATests {
    static let cases: [(String, NMEALine)] = [
        (nmea("GPGSA,A,3,20,16,09,03,07,10,23,19,27,30,,,1.64,0.98,1.31"),
         .sentence(.gsa(GSA(
            talker: .gps, fixType: 3, satellitesUsed: 10, pdop: 1.64, hdop: 0.98, vdop: 1.31, systemID: nil)))),
        // NMEA 4.1: GNSS system id 2 (GLONASS).
        (nmea("GNGSA,A,3,80,71,73,79,69,,,,,,,,1.83,1.09,1.47,2"),
         .sentence(.gsa(GSA(
            talker: .combined, fixType: 3, satellitesUsed: 5, pdop: 1.83, hdop: 1.09, vdop: 1.47, systemID: 2)))),
        (nmea("BDGSA,A,2,01,02,03,,,,,,,,,,2.5,2.3,1.0,4"),
         .sentence(.gsa(GSA(
            talker: .beidouLegacy, fixType: 2, satellitesUsed: 3, pdop: 2.5, hdop: 2.3, vdop: 1.0, systemID: 4)))),
        // No fix: no satellites, no DOPs.
        (nmea("GPGSA,A,1,,,,,,,,,,,,,,,"),
         .sentence(.gsa(GSA(
            talker: .gps, fixType: 1, satellitesUsed: 0, pdop: nil, hdop: nil, vdop: nil, systemID: nil)))),
    ]

    @Test(arguments: cases)
    func parses(_ text: String, _ expected: NMEALine) {
        #expect(NMEALineParser.parse(text) == expected)
    }
}

@Suite("GSV")
struct GSVTests {
    static let cases: [(String, NMEALine)] = [
        // Four satellites.
        (nmea("GPGSV,3,1,12,09,88,089,31,07,60,281,44,23,55,123,33,10,44,274,32"),
         .sentence(.gsv(GSV(
            talker: .gps, messageCount: 3, messageNumber: 1, satellitesInView: 12,
            satellites: GSV.Satellites([
                SatelliteInView(prn: 9, elevation: 88, azimuth: 89, snr: 31),
                SatelliteInView(prn: 7, elevation: 60, azimuth: 281, snr: 44),
                SatelliteInView(prn: 23, elevation: 55, azimuth: 123, snr: 33),
                SatelliteInView(prn: 10, elevation: 44, azimuth: 274, snr: 32),
            ]),
            signalID: nil)))),
        // Three satellites, the last message of the group.
        (nmea("GPGSV,3,3,11,22,42,067,42,24,14,311,43,27,05,244,00"),
         .sentence(.gsv(GSV(
            talker: .gps, messageCount: 3, messageNumber: 3, satellitesInView: 11,
            satellites: GSV.Satellites([
                SatelliteInView(prn: 22, elevation: 42, azimuth: 67, snr: 42),
                SatelliteInView(prn: 24, elevation: 14, azimuth: 311, snr: 43),
                SatelliteInView(prn: 27, elevation: 5, azimuth: 244, snr: 0),
            ]),
            signalID: nil)))),
        // Two satellites, the first not tracked (no SNR).
        (nmea("GLGSV,1,1,02,65,40,083,,66,20,300,35"),
         .sentence(.gsv(GSV(
            talker: .glonass, messageCount: 1, messageNumber: 1, satellitesInView: 2,
            satellites: GSV.Satellites([
                SatelliteInView(prn: 65, elevation: 40, azimuth: 83, snr: nil),
                SatelliteInView(prn: 66, elevation: 20, azimuth: 300, snr: 35),
            ]),
            signalID: nil)))),
        // One satellite, SNR missing.
        (nmea("GAGSV,1,1,01,05,40,083,"),
         .sentence(.gsv(GSV(
            talker: .galileo, messageCount: 1, messageNumber: 1, satellitesInView: 1,
            satellites: GSV.Satellites([SatelliteInView(prn: 5, elevation: 40, azimuth: 83, snr: nil)]),
            signalID: nil)))),
        // NMEA 4.1 signal id after two satellites.
        (nmea("GQGSV,1,1,02,05,40,083,42,12,20,300,35,1"),
         .sentence(.gsv(GSV(
            talker: .qzss, messageCount: 1, messageNumber: 1, satellitesInView: 2,
            satellites: GSV.Satellites([
                SatelliteInView(prn: 5, elevation: 40, azimuth: 83, snr: 42),
                SatelliteInView(prn: 12, elevation: 20, azimuth: 300, snr: 35),
            ]),
            signalID: 1)))),
        // NMEA 4.1 signal id after four satellites.
        (nmea("GBGSV,2,1,05,01,45,120,38,02,30,060,,03,10,300,25,04,70,010,41,3"),
         .sentence(.gsv(GSV(
            talker: .beidou, messageCount: 2, messageNumber: 1, satellitesInView: 5,
            satellites: GSV.Satellites([
                SatelliteInView(prn: 1, elevation: 45, azimuth: 120, snr: 38),
                SatelliteInView(prn: 2, elevation: 30, azimuth: 60, snr: nil),
                SatelliteInView(prn: 3, elevation: 10, azimuth: 300, snr: 25),
                SatelliteInView(prn: 4, elevation: 70, azimuth: 10, snr: 41),
            ]),
            signalID: 3)))),
        // No satellites in view.
        (nmea("QZGSV,1,1,00"),
         .sentence(.gsv(GSV(
            talker: .qzssLegacy, messageCount: 1, messageNumber: 1, satellitesInView: 0,
            satellites: GSV.Satellites([]), signalID: nil)))),
    ]

    @Test(arguments: cases)
    func parses(_ text: String, _ expected: NMEALine) {
        #expect(NMEALineParser.parse(text) == expected)
    }
}

@Suite("ZDA")
struct ZDATests {
    static let cases: [(String, NMEALine)] = [
        (nmea("GPZDA,202640.000,13,04,2015,,"),
         .sentence(.zda(ZDA(talker: .gps, timeOfDay: 73_600_000, date: CivilDate(year: 2015, month: 4, day: 13))))),
        (nmea("GIZDA,201530.00,04,07,2002,00,00"),
         .sentence(.zda(ZDA(talker: .navic, timeOfDay: 72_930_000, date: CivilDate(year: 2002, month: 7, day: 4))))),
        // No time or date yet.
        (nmea("GNZDA,,,,,,"),
         .sentence(.zda(ZDA(talker: .combined, timeOfDay: nil, date: nil)))),
        // 31 February does not exist: no date, the time still counts.
        (nmea("GPZDA,000000,31,02,2015,,"),
         .sentence(.zda(ZDA(talker: .gps, timeOfDay: 0, date: nil)))),
    ]

    @Test(arguments: cases)
    func parses(_ text: String, _ expected: NMEALine) {
        #expect(NMEALineParser.parse(text) == expected)
    }
}

@Suite("Talkers")
struct TalkerTests {
    @Test(arguments: [
        ("GP", Talker.gps), ("GN", Talker.combined), ("GL", Talker.glonass), ("GA", Talker.galileo),
        ("GB", Talker.beidou), ("BD", Talker.beidouLegacy), ("GQ", Talker.qzss), ("QZ", Talker.qzssLegacy),
        ("GI", Talker.navic),
    ])
    func ggaKeepsItsTalker(_ id: String, _ talker: Talker) {
        let expected = NMEALine.sentence(.gga(GGA(
            talker: talker, timeOfDay: 45_319_000, status: .valid(.gps),
            position: GeoPoint(latitude: 48.1173, longitude: 11.516666666667),
            satellitesUsed: 8, hdop: 0.9, altitude: 545.4, geoidSeparation: 46.9)))
        let text = nmea("\(id)GGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
        #expect(parse(text, like: expected) == expected)
    }

    @Test(arguments: ["GP", "GN", "GL", "GA", "GB", "BD", "GQ", "QZ", "GI"])
    func sentenceReportsItsTalker(_ id: String) {
        guard case .sentence(let sentence) = NMEALineParser.parse(nmea("\(id)ZDA,201530.00,04,07,2002,00,00")) else {
            Issue.record("not parsed")
            return
        }
        #expect(sentence.talker.description == id)
    }
}
