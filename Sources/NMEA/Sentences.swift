import PacerCore

/// One parsed NMEA sentence. Each case holds a plain value type with no heap storage.
public enum NMEASentence: Hashable, Sendable {
    case rmc(RMC)
    case gga(GGA)
    case gns(GNS)
    case gll(GLL)
    case vtg(VTG)
    case gsa(GSA)
    case gsv(GSV)
    case zda(ZDA)

    public var talker: Talker {
        switch self {
        case .rmc(let s): s.talker
        case .gga(let s): s.talker
        case .gns(let s): s.talker
        case .gll(let s): s.talker
        case .vtg(let s): s.talker
        case .gsa(let s): s.talker
        case .gsv(let s): s.talker
        case .zda(let s): s.talker
        }
    }
}

/// Quality of a position as the sentence states it: GGA's quality digit, or the mode
/// indicator letter of RMC, GLL, GNS and VTG (NMEA 2.3 and later).
public enum PositionStatus: Hashable, Sendable {
    case invalid
    case valid(FixQuality)

    public var isValid: Bool {
        if case .valid = self { return true }
        return false
    }

    /// GGA field 6.
    public init(ggaQuality: Int) {
        switch ggaQuality {
        case 1: self = .valid(.gps)
        case 2: self = .valid(.dgps)
        case 3: self = .valid(.pps)
        case 4: self = .valid(.rtk)
        case 5: self = .valid(.floatRTK)
        case 6: self = .valid(.estimated)
        case 7: self = .valid(.manual)
        case 8: self = .valid(.simulated)
        default: self = .invalid
        }
    }

    /// A mode indicator letter (`A` autonomous, `D` differential, `E` estimated, `F` float RTK,
    /// `M` manual, `N` not valid, `P` precise, `R` RTK, `S` simulator). nil for an unknown letter.
    public init?(modeIndicator: UInt8) {
        switch modeIndicator {
        case UInt8(ascii: "A"): self = .valid(.gps)
        case UInt8(ascii: "D"): self = .valid(.dgps)
        case UInt8(ascii: "P"): self = .valid(.pps)
        case UInt8(ascii: "R"): self = .valid(.rtk)
        case UInt8(ascii: "F"): self = .valid(.floatRTK)
        case UInt8(ascii: "E"): self = .valid(.estimated)
        case UInt8(ascii: "M"): self = .valid(.manual)
        case UInt8(ascii: "S"): self = .valid(.simulated)
        case UInt8(ascii: "N"): self = .invalid
        default: return nil
        }
    }
}

/// Recommended minimum data.
/// `$GPRMC,202640.000,A,4404.1306,N,12118.8515,W,0.03,225.97,130415,,,D*73`
public struct RMC: Hashable, Sendable {
    public var talker: Talker
    public var timeOfDay: Int32?
    public var status: PositionStatus
    public var position: GeoPoint?
    public var speedKnots: Double?
    public var course: Double?
    public var date: ShortDate?

    public init(talker: Talker, timeOfDay: Int32?, status: PositionStatus, position: GeoPoint?,
                speedKnots: Double?, course: Double?, date: ShortDate?) {
        self.talker = talker
        self.timeOfDay = timeOfDay
        self.status = status
        self.position = position
        self.speedKnots = speedKnots
        self.course = course
        self.date = date
    }

    /// `$GPRMC,202640.000,A,4404.1306,N,12118.8515,W,0.03,225.97,130415,,,D*73`
    struct Layout: NMEASentenceLayout {
        static let sample: StaticString = "$GPRMC,202640.000,A,4404.1306,N,12118.8515,W,0.03,225.97,130415,,,D*73"
        static let kinds: [NMEAFieldKind] = [
            .time, .character, .latitude, .hemisphere, .longitude, .hemisphere,
            .number, .number, .date, .ignored, .ignored, .character,
        ]
        let time = NMEAFieldAt<NMEAField.Time>(1)
        let status = NMEAFieldAt<NMEAField.Character>(2)
        let position = NMEAPositionAt(3)
        let speedKnots = NMEAFieldAt<NMEAField.Number>(7)
        let course = NMEAFieldAt<NMEAField.Number>(8)
        let date = NMEAFieldAt<NMEAField.Date>(9)
        // 10, 11: magnetic variation and its E/W, not read.
        let mode = NMEAFieldAt<NMEAField.Character>(12)
    }

    static func parse(_ f: NMEAFields, talker: Talker) -> RMC? {
        let l = Layout()
        guard f.has(l.date) else { return nil }
        var status: PositionStatus = f[l.status] == UInt8(ascii: "A") ? .valid(.gps) : .invalid
        if status.isValid, let letter = f[l.mode], let mode = PositionStatus(modeIndicator: letter) {
            status = mode
        }
        let time = f[l.time], position = f[l.position], date = f[l.date]
        // A receiver that says `V` may fill the position with junk (`36000.0000`): not malformed.
        if f.garbled(l.time, time) || status.isValid && f.garbled(l.position, position) || f.garbled(l.date, date) { return nil }
        return RMC(
            talker: talker, timeOfDay: time, status: status, position: position,
            speedKnots: f[l.speedKnots], course: f[l.course], date: date)
    }
}

/// Fix data, with altitude.
/// `$GPGGA,202640.000,4404.1306,N,12118.8515,W,2,10,0.98,1127.7,M,-19.6,M,0000,0000*6C`
public struct GGA: Hashable, Sendable {
    public var talker: Talker
    public var timeOfDay: Int32?
    public var status: PositionStatus
    public var position: GeoPoint?
    public var satellitesUsed: Int?
    public var hdop: Double?
    /// Metres above mean sea level.
    public var altitude: Double?
    public var geoidSeparation: Double?

    public init(talker: Talker, timeOfDay: Int32?, status: PositionStatus, position: GeoPoint?,
                satellitesUsed: Int?, hdop: Double?, altitude: Double?, geoidSeparation: Double?) {
        self.talker = talker
        self.timeOfDay = timeOfDay
        self.status = status
        self.position = position
        self.satellitesUsed = satellitesUsed
        self.hdop = hdop
        self.altitude = altitude
        self.geoidSeparation = geoidSeparation
    }

    /// `$GPGGA,202640.000,4404.1306,N,12118.8515,W,2,10,0.98,1127.7,M,-19.6,M,0000,0000*6C`
    struct Layout: NMEASentenceLayout {
        static let sample: StaticString = "$GPGGA,202640.000,4404.1306,N,12118.8515,W,2,10,0.98,1127.7,M,-19.6,M,0000,0000*6C"
        static let kinds: [NMEAFieldKind] = [
            .time, .latitude, .hemisphere, .longitude, .hemisphere, .integer, .integer,
            .number, .number, .character, .number, .character, .ignored, .ignored,
        ]
        let time = NMEAFieldAt<NMEAField.Time>(1)
        let position = NMEAPositionAt(2)
        let quality = NMEAFieldAt<NMEAField.Integer>(6)
        let satellitesUsed = NMEAFieldAt<NMEAField.Integer>(7)
        let hdop = NMEAFieldAt<NMEAField.Number>(8)
        let altitude = NMEAFieldAt<NMEAField.Number>(9)
        // 10: `M`, 12: `M`, 13, 14: age of the differential data and its station, not read.
        let geoidSeparation = NMEAFieldAt<NMEAField.Number>(11)
    }

    static func parse(_ f: NMEAFields, talker: Talker) -> GGA? {
        let l = Layout()
        guard f.has(l.altitude) else { return nil }
        let time = f[l.time], position = f[l.position], quality = f[l.quality]
        if f.garbled(l.time, time) || f.garbled(l.quality, quality) { return nil }
        if (quality ?? 0) > 0, f.garbled(l.position, position) { return nil }
        return GGA(
            talker: talker, timeOfDay: time, status: PositionStatus(ggaQuality: quality ?? 0),
            position: position, satellitesUsed: f[l.satellitesUsed], hdop: f[l.hdop],
            altitude: f[l.altitude], geoidSeparation: f[l.geoidSeparation])
    }
}

/// Fix data for multi-constellation receivers; one mode letter per constellation.
/// `$GNGNS,014035.00,4332.69262,S,17235.48549,E,RR,13,0.9,25.63,11.24,,*70`
public struct GNS: Hashable, Sendable {
    public var talker: Talker
    public var timeOfDay: Int32?
    public var status: PositionStatus
    public var position: GeoPoint?
    public var satellitesUsed: Int?
    public var hdop: Double?
    public var altitude: Double?
    public var geoidSeparation: Double?

    public init(talker: Talker, timeOfDay: Int32?, status: PositionStatus, position: GeoPoint?,
                satellitesUsed: Int?, hdop: Double?, altitude: Double?, geoidSeparation: Double?) {
        self.talker = talker
        self.timeOfDay = timeOfDay
        self.status = status
        self.position = position
        self.satellitesUsed = satellitesUsed
        self.hdop = hdop
        self.altitude = altitude
        self.geoidSeparation = geoidSeparation
    }

    /// `$GNGNS,014035.00,4332.69262,S,17235.48549,E,RR,13,0.9,25.63,11.24,,*70`
    struct Layout: NMEASentenceLayout {
        static let sample: StaticString = "$GNGNS,014035.00,4332.69262,S,17235.48549,E,RR,13,0.9,25.63,11.24,,*70"
        static let kinds: [NMEAFieldKind] = [
            .time, .latitude, .hemisphere, .longitude, .hemisphere, .letters, .integer,
            .number, .number, .number, .ignored, .ignored,
        ]
        let time = NMEAFieldAt<NMEAField.Time>(1)
        let position = NMEAPositionAt(2)
        let modes = NMEAFieldAt<NMEAField.Letters>(6)
        let satellitesUsed = NMEAFieldAt<NMEAField.Integer>(7)
        let hdop = NMEAFieldAt<NMEAField.Number>(8)
        let altitude = NMEAFieldAt<NMEAField.Number>(9)
        let geoidSeparation = NMEAFieldAt<NMEAField.Number>(10)
        // 11, 12: age of the differential data and its station, not read.
    }

    static func parse(_ f: NMEAFields, talker: Talker) -> GNS? {
        let l = Layout()
        guard f.has(l.altitude) else { return nil }
        // The best of the per-constellation letters decides: valid if any constellation is.
        var status = PositionStatus.invalid
        for letter in f[l.modes] {
            if let s = PositionStatus(modeIndicator: letter), s.isValid {
                status = s
                break
            }
        }
        let time = f[l.time], position = f[l.position]
        if f.garbled(l.time, time) || status.isValid && f.garbled(l.position, position) { return nil }
        return GNS(
            talker: talker, timeOfDay: time, status: status, position: position,
            satellitesUsed: f[l.satellitesUsed], hdop: f[l.hdop], altitude: f[l.altitude],
            geoidSeparation: f[l.geoidSeparation])
    }
}

/// Geographic position.
/// `$GPGLL,4404.1306,N,12118.8515,W,202640.000,A,A*4B`
public struct GLL: Hashable, Sendable {
    public var talker: Talker
    public var timeOfDay: Int32?
    public var status: PositionStatus
    public var position: GeoPoint?

    public init(talker: Talker, timeOfDay: Int32?, status: PositionStatus, position: GeoPoint?) {
        self.talker = talker
        self.timeOfDay = timeOfDay
        self.status = status
        self.position = position
    }

    /// `$GPGLL,4404.1306,N,12118.8515,W,202640.000,A,A*4B`
    struct Layout: NMEASentenceLayout {
        static let sample: StaticString = "$GPGLL,4404.1306,N,12118.8515,W,202640.000,A,A*4B"
        static let kinds: [NMEAFieldKind] = [
            .latitude, .hemisphere, .longitude, .hemisphere, .time, .character, .character,
        ]
        let position = NMEAPositionAt(1)
        let time = NMEAFieldAt<NMEAField.Time>(5)
        let status = NMEAFieldAt<NMEAField.Character>(6)
        let mode = NMEAFieldAt<NMEAField.Character>(7)
    }

    static func parse(_ f: NMEAFields, talker: Talker) -> GLL? {
        let l = Layout()
        guard f.has(l.status) else { return nil }
        var status: PositionStatus = f[l.status] == UInt8(ascii: "A") ? .valid(.gps) : .invalid
        if status.isValid, let letter = f[l.mode], let mode = PositionStatus(modeIndicator: letter) {
            status = mode
        }
        let time = f[l.time], position = f[l.position]
        if f.garbled(l.time, time) || status.isValid && f.garbled(l.position, position) { return nil }
        return GLL(talker: talker, timeOfDay: time, status: status, position: position)
    }
}

/// Course and speed over ground.
/// `$GPVTG,225.97,T,,M,0.03,N,0.05,K,D*35` (older receivers omit the `T`/`M`/`N`/`K` units)
public struct VTG: Hashable, Sendable {
    public var talker: Talker
    public var course: Double?
    public var speedKnots: Double?
    public var speedKmh: Double?
    /// Nil when the sentence carries no mode letter (before NMEA 2.3).
    public var status: PositionStatus?

    public init(talker: Talker, course: Double?, speedKnots: Double?, speedKmh: Double?,
                status: PositionStatus?) {
        self.talker = talker
        self.course = course
        self.speedKnots = speedKnots
        self.speedKmh = speedKmh
        self.status = status
    }

    /// `$GPVTG,225.97,T,,M,0.03,N,0.05,K,D*35`: NMEA 2.3 and later (units; mode letter).
    struct Layout: NMEASentenceLayout {
        static let sample: StaticString = "$GPVTG,225.97,T,,M,0.03,N,0.05,K,D*35"
        static let kinds: [NMEAFieldKind] = [
            .number, .character, .ignored, .character, .number, .character, .number, .character, .character,
        ]
        let course = NMEAFieldAt<NMEAField.Number>(1)
        let courseUnit = NMEAFieldAt<NMEAField.Character>(2)
        // 3, 4: course magnetic and its `M`, not read.
        let speedKnots = NMEAFieldAt<NMEAField.Number>(5)
        // 6: `N`.
        let speedKmh = NMEAFieldAt<NMEAField.Number>(7)
        let speedKmhUnit = NMEAFieldAt<NMEAField.Character>(8)
        let mode = NMEAFieldAt<NMEAField.Character>(9)
    }

    /// `$GPVTG,054.7,034.4,005.5,010.2*54`: NMEA 1.x (no unit letters).
    struct LegacyLayout: NMEASentenceLayout {
        static let sample: StaticString = "$GPVTG,054.7,034.4,005.5,010.2*54"
        static let kinds: [NMEAFieldKind] = [.number, .ignored, .number, .number]
        let course = NMEAFieldAt<NMEAField.Number>(1)
        // 2: course magnetic, not read.
        let speedKnots = NMEAFieldAt<NMEAField.Number>(3)
        let speedKmh = NMEAFieldAt<NMEAField.Number>(4)
    }

    static func parse(_ f: NMEAFields, talker: Talker) -> VTG? {
        let l = Layout()
        if f.has(l.speedKmhUnit),
           f[l.courseUnit] == UInt8(ascii: "T") || f.isEmpty(l.courseUnit) && f[l.speedKmhUnit] == UInt8(ascii: "K") {
            return VTG(
                talker: talker, course: f[l.course], speedKnots: f[l.speedKnots], speedKmh: f[l.speedKmh],
                status: f[l.mode].flatMap { PositionStatus(modeIndicator: $0) })
        }
        // NMEA 1.x form: course true, course magnetic, knots, km/h. A sentence with unit
        // letters that is too short for the later form is malformed, not the old form.
        let old = LegacyLayout()
        guard f.has(old.speedKmh), f[l.courseUnit] != UInt8(ascii: "T") else { return nil }
        return VTG(talker: talker, course: f[old.course], speedKnots: f[old.speedKnots],
                   speedKmh: f[old.speedKmh], status: nil)
    }
}

/// DOP and active satellites.
/// `$GPGSA,A,3,20,16,09,03,07,10,23,19,27,30,,,1.64,0.98,1.31*05`
public struct GSA: Hashable, Sendable {
    public var talker: Talker
    /// 1 no fix, 2 two-dimensional, 3 three-dimensional.
    public var fixType: Int?
    public var satellitesUsed: Int
    public var pdop: Double?
    public var hdop: Double?
    public var vdop: Double?
    /// NMEA 4.1 GNSS system id (1 GPS, 2 GLONASS, 3 Galileo, 4 BeiDou, 5 QZSS, 6 NavIC).
    public var systemID: Int?

    public init(talker: Talker, fixType: Int?, satellitesUsed: Int, pdop: Double?, hdop: Double?,
                vdop: Double?, systemID: Int?) {
        self.talker = talker
        self.fixType = fixType
        self.satellitesUsed = satellitesUsed
        self.pdop = pdop
        self.hdop = hdop
        self.vdop = vdop
        self.systemID = systemID
    }

    /// `$GNGSA,A,3,20,16,09,03,07,10,23,19,27,30,,,1.64,0.98,1.31,1*06` (NMEA 4.1: with the
    /// system id; older receivers end at the VDOP)
    struct Layout: NMEASentenceLayout {
        static let sample: StaticString = "$GNGSA,A,3,20,16,09,03,07,10,23,19,27,30,,,1.64,0.98,1.31,1*06"
        static let kinds: [NMEAFieldKind] = [.character, .integer]
            + Array(repeating: .integer, count: 12) + [.number, .number, .number, .integer]
        // 1: selection mode (`A`/`M`), not read.
        let fixType = NMEAFieldAt<NMEAField.Integer>(2)
        let satellites = NMEAFieldRunAt<NMEAField.Integer>(3, count: 12)
        let pdop = NMEAFieldAt<NMEAField.Number>(15)
        let hdop = NMEAFieldAt<NMEAField.Number>(16)
        let vdop = NMEAFieldAt<NMEAField.Number>(17)
        let systemID = NMEAFieldAt<NMEAField.Integer>(18)
    }

    static func parse(_ f: NMEAFields, talker: Talker) -> GSA? {
        let l = Layout()
        guard f.has(l.vdop) else { return nil }
        return GSA(
            talker: talker, fixType: f[l.fixType], satellitesUsed: f.nonEmptyCount(l.satellites),
            pdop: f[l.pdop], hdop: f[l.hdop], vdop: f[l.vdop], systemID: f[l.systemID])
    }
}

/// One satellite of a GSV sentence.
///
/// Stored in small integers (a GSV sentence holds four of these inline, and sentences are
/// passed by value on the hot path).
public struct SatelliteInView: Hashable, Sendable {
    public var prn: UInt16
    /// Degrees above the horizon, -90...90.
    public var elevation: Int8?
    /// Degrees true, 0...359.
    public var azimuth: UInt16?
    /// Carrier-to-noise density, dB-Hz; nil when not tracked.
    public var snr: UInt8?

    public init(prn: UInt16, elevation: Int8?, azimuth: UInt16?, snr: UInt8?) {
        self.prn = prn
        self.elevation = elevation
        self.azimuth = azimuth
        self.snr = snr
    }
}

/// Satellites in view, up to four per sentence.
/// `$GPGSV,3,1,12,09,88,089,31,07,60,281,44,23,55,123,33,10,44,274,32*78`
public struct GSV: Hashable, Sendable {
    public var talker: Talker
    public var messageCount: Int
    public var messageNumber: Int
    public var satellitesInView: Int
    public var satellites: Satellites
    /// NMEA 4.1 signal id, when present.
    public var signalID: Int?

    /// Up to four satellites, stored inline.
    public struct Satellites: Hashable, Sendable, RandomAccessCollection {
        var storage: (SatelliteInView?, SatelliteInView?, SatelliteInView?, SatelliteInView?)
        public private(set) var count: Int

        public init(_ list: [SatelliteInView] = []) {
            storage = (nil, nil, nil, nil)
            count = 0
            for s in list.prefix(4) { append(s) }
        }

        mutating func append(_ s: SatelliteInView) {
            switch count {
            case 0: storage.0 = s
            case 1: storage.1 = s
            case 2: storage.2 = s
            case 3: storage.3 = s
            default: return
            }
            count += 1
        }

        public var startIndex: Int { 0 }
        public var endIndex: Int { count }
        public subscript(i: Int) -> SatelliteInView {
            precondition(i >= 0 && i < count)
            switch i {
            case 0: return storage.0!
            case 1: return storage.1!
            case 2: return storage.2!
            default: return storage.3!
            }
        }

        public static func == (a: Satellites, b: Satellites) -> Bool { a.elementsEqual(b) }
        public func hash(into h: inout Hasher) {
            for s in self { h.combine(s) }
        }
    }

    public init(talker: Talker, messageCount: Int, messageNumber: Int, satellitesInView: Int,
                satellites: Satellites, signalID: Int?) {
        self.talker = talker
        self.messageCount = messageCount
        self.messageNumber = messageNumber
        self.satellitesInView = satellitesInView
        self.satellites = satellites
        self.signalID = signalID
    }

    /// `$GPGSV,3,1,12,09,88,089,31,07,60,281,44,23,55,123,33,10,44,274,32*78`: up to four
    /// groups of four fields, one a satellite (NMEA 4.1 adds a lone signal id after them).
    struct Layout: NMEASentenceLayout {
        static let sample: StaticString = "$GPGSV,3,1,12,09,88,089,31,07,60,281,44,23,55,123,33,10,44,274,32*78"
        static let kinds: [NMEAFieldKind] = [.integer, .integer, .integer]
            + Array(repeating: [.integer, .signedInteger, .integer, .integer], count: 4).joined()
        let messageCount = NMEAFieldAt<NMEAField.Integer>(1)
        let messageNumber = NMEAFieldAt<NMEAField.Integer>(2)
        let satellitesInView = NMEAFieldAt<NMEAField.Integer>(3)
        // The first satellite's group; the next ones follow `groupWidth` fields later.
        let prn = NMEAFieldAt<NMEAField.Integer>(4)
        let elevation = NMEAFieldAt<NMEAField.SignedInteger>(5)
        let azimuth = NMEAFieldAt<NMEAField.Integer>(6)
        let snr = NMEAFieldAt<NMEAField.Integer>(7)
        let groupWidth = 4
    }

    static func parse(_ f: NMEAFields, talker: Talker) -> GSV? {
        let l = Layout()
        guard f.has(l.satellitesInView), let total = f[l.messageCount], let number = f[l.messageNumber],
              let inView = f[l.satellitesInView], number >= 1, number <= total else { return nil }
        var sats = Satellites()
        var shift = 0
        while f.has(l.snr.shifted(by: shift)), sats.count < 4 {
            if let prn = f[l.prn.shifted(by: shift)], prn <= UInt16.max {
                var elevation: Int8?
                if let e = f[l.elevation.shifted(by: shift)], e >= -90, e <= 90 { elevation = Int8(truncatingIfNeeded: e) }
                var azimuth: UInt16?
                if let a = f[l.azimuth.shifted(by: shift)], a < 360 { azimuth = UInt16(truncatingIfNeeded: a) }
                var snr: UInt8?
                if let s = f[l.snr.shifted(by: shift)], s <= 99 { snr = UInt8(truncatingIfNeeded: s) }
                sats.append(SatelliteInView(
                    prn: UInt16(truncatingIfNeeded: prn), elevation: elevation, azimuth: azimuth, snr: snr))
            }
            shift += l.groupWidth
        }
        // A trailing lone field after the satellite groups is the NMEA 4.1 signal id.
        let signal = (f.count - l.prn.index) % l.groupWidth == 1 ? f.integer(f.count - 1) : nil
        return GSV(talker: talker, messageCount: total, messageNumber: number,
                   satellitesInView: inView, satellites: sats, signalID: signal)
    }
}

/// Time and date, with a four-digit year.
/// `$GPZDA,202640.000,13,04,2015,,*54`
public struct ZDA: Hashable, Sendable {
    public var talker: Talker
    public var timeOfDay: Int32?
    public var date: CivilDate?

    public init(talker: Talker, timeOfDay: Int32?, date: CivilDate?) {
        self.talker = talker
        self.timeOfDay = timeOfDay
        self.date = date
    }

    /// `$GPZDA,202640.000,13,04,2015,,*54`
    struct Layout: NMEASentenceLayout {
        static let sample: StaticString = "$GPZDA,202640.000,13,04,2015,,*54"
        static let kinds: [NMEAFieldKind] = [.time, .integer, .integer, .integer, .ignored, .ignored]
        let time = NMEAFieldAt<NMEAField.Time>(1)
        let day = NMEAFieldAt<NMEAField.Integer>(2)
        let month = NMEAFieldAt<NMEAField.Integer>(3)
        let year = NMEAFieldAt<NMEAField.Integer>(4)
        // 5, 6: local zone hours and minutes, not read.
    }

    static func parse(_ f: NMEAFields, talker: Talker) -> ZDA? {
        let l = Layout()
        guard f.has(l.year) else { return nil }
        let time = f[l.time]
        if f.garbled(l.time, time) { return nil }
        var date: CivilDate?
        // A four-digit year from GPS time's start: a longer one (320222670, found by the
        // fuzzer) overflowed the milliseconds of its timestamp and trapped the decoder.
        if let d = f[l.day], let m = f[l.month], let y = f[l.year], (1980...9999).contains(y) {
            date = CivilDate(year: y, month: m, day: d)
        }
        return ZDA(talker: talker, timeOfDay: time, date: date)
    }
}

extension NMEAFields {
    /// True when a field holds text that did not parse: the sentence is malformed (as opposed
    /// to an empty field, which NMEA uses for "unknown").
    @inlinable @inline(__always)
    func garbled<T>(_ index: Int, _ value: T?) -> Bool {
        value == nil && !isEmpty(index)
    }

    /// True when any of a position's four fields holds text but no position came of them.
    @inlinable @inline(__always)
    func garbledPosition(_ index: Int, _ value: GeoPoint?) -> Bool {
        value == nil && !(index..<index + 4).allSatisfy { isEmpty($0) }
    }

    /// Latitude in `index`/`index+1` and longitude in `index+2`/`index+3`.
    @inlinable @inline(__always)
    func position(_ index: Int) -> GeoPoint? {
        guard let lat = coordinate(index, isLatitude: true),
              let lon = coordinate(index + 2, isLatitude: false) else { return nil }
        return GeoPoint(latitude: lat, longitude: lon)
    }
}
