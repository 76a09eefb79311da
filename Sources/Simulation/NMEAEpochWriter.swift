import NMEA
import PacerCore

/// One fix as the sentences write it: every field in the integer units NMEA prints, so the
/// same values give the same bytes on any machine.
struct WrittenFix {
    /// Hundred-thousandths of a minute.
    var latitude: Int
    var longitude: Int
    var decimetres: Int
    var milliknots: Int
    var centidegrees: Int
    /// GGA's satellites used and HDOP; nil: the sky model's.
    var satellitesUsed: Int? = nil
    var hdop: Double? = nil

    /// The position a reader decodes from the sentences.
    var position: GeoPoint {
        GeoPoint(latitude: NMEAAngle.degrees(latitude), longitude: NMEAAngle.degrees(longitude))
    }

    var altitude: Double { Double(decimetres) / 10 }
    var speed: Double { Double(milliknots) / 1000 * EpochAssembler.metresPerSecondPerKnot }
    var course: Double { Double(centidegrees) / 100 }

    /// The nearest representable fix: a position, metres above sea level, metres per second
    /// and degrees true as a u-blox M8 prints them (180° of longitude written W, a course in
    /// 0 ..< 360).
    init(position: GeoPoint, altitude: Double, speed: Double, course: Double,
         satellitesUsed: Int? = nil, hdop: Double? = nil) {
        var centidegrees = Int((course * 100).rounded()) % 36_000
        if centidegrees < 0 { centidegrees += 36_000 }
        var lonUnits = NMEAAngle.units(position.longitude)
        if lonUnits == 180 * NMEAAngle.unitsPerDegree { lonUnits = -lonUnits }  // 180° is written W
        self.latitude = NMEAAngle.units(position.latitude)
        self.longitude = lonUnits
        self.decimetres = Int((altitude * 10).rounded())
        self.milliknots = Int((max(0, speed) / EpochAssembler.metresPerSecondPerKnot * 1000).rounded())
        self.centidegrees = centidegrees
        self.satellitesUsed = satellitesUsed
        self.hdop = hdop
    }
}

/// Writes one receiver cycle's sentences, in the order SiRF and MediaTek receivers send
/// them (GGA, GSA and GSV when the sky is reported, RMC, then VTG, GLL and ZDA when asked),
/// formatted as a u-blox M8 prints them in NMEA 4.1 mode. Shared by the route synthesizer
/// (`NMEASynthesizer`) and the track replay (`TrackSynthesizer`), so both write the same
/// receiver.
struct NMEAEpochWriter {
    var sky: SkyModel
    /// RMC, GGA, GSA, VTG, GLL and ZDA's talker: `GN` with more than one constellation.
    let combined: Talker
    let extraSentences: Set<NMEASynthesisRecipe.ExtraSentence>
    private var day = Int.min
    private var date = CivilDate(daysSince1970: 0)

    /// Geoid height above the WGS84 ellipsoid written in GGA: constant, as over a small area.
    static let geoidSeparation = 47.0

    init(constellations: [NMEASynthesisRecipe.Constellation], seed: UInt64,
         extraSentences: Set<NMEASynthesisRecipe.ExtraSentence>) {
        sky = SkyModel(constellations: constellations, seed: seed)
        combined = constellations.count > 1 ? .combined : constellations[0].talker
        self.extraSentences = extraSentences
    }

    /// The cycle at `centis` (hundredths of a second since 1970): GGA, the sky (`writesSky`),
    /// RMC and the extra sentences; `fix` nil: a receiver without a position.
    mutating func write(_ out: inout [UInt8], centis: Int64, fix: WrittenFix?, writesSky: Bool) {
        let dayNumber = Int(centis.floorDivided(by: 8_640_000))
        if dayNumber != day {
            day = dayNumber
            date = CivilDate(daysSince1970: dayNumber)
        }
        let timeOfDay = Int(centis - Int64(dayNumber) * 8_640_000)
        appendGGA(&out, timeOfDay, fix)
        if writesSky {
            appendGSA(&out, fix != nil)
            appendGSV(&out)
        }
        appendRMC(&out, timeOfDay, fix)
        if extraSentences.contains(.vtg) { appendVTG(&out, fix) }
        if extraSentences.contains(.gll) { appendGLL(&out, timeOfDay, fix) }
        if extraSentences.contains(.zda) { appendZDA(&out, timeOfDay) }
    }

    /// `$GNGGA,092725.00,4717.11399,N,00833.91590,E,1,08,1.01,499.6,M,48.0,M,,*5B`
    private func appendGGA(_ out: inout [UInt8], _ timeOfDay: Int, _ fix: WrittenFix?) {
        let s = out.beginSentence(combined, "GGA")
        out.comma()
        out.appendTimeOfDay(centiseconds: timeOfDay)
        out.comma()
        if let fix {
            out.appendLatitude(units: fix.latitude)
            out.comma()
            out.appendLongitude(units: fix.longitude)
            out.appendASCII(",1,")
            out.appendDigits(fix.satellitesUsed ?? sky.usedTotal, width: 2)
            out.comma()
            out.appendFixed(fix.hdop ?? sky.hdop, places: 2)
            out.comma()
            out.appendFixed(Double(fix.decimetres) / 10, places: 1)
            out.appendASCII(",M,")
            out.appendFixed(Self.geoidSeparation, places: 1)
            out.appendASCII(",M,,")
        } else {
            out.appendASCII(",,,,0,00,99.99,,,,,,")
        }
        out.endSentence(s)
    }

    /// `$GNGSA,A,3,80,71,73,79,69,,,,,,,,1.83,1.09,1.47,2*0F`, one per constellation.
    private func appendGSA(_ out: inout [UInt8], _ hasFix: Bool) {
        for system in sky.systems {
            let s = out.beginSentence(combined, "GSA")
            out.appendASCII(hasFix ? ",A,3" : ",A,1")
            var listed = 0
            for v in system.inView where v.used {
                out.comma()
                out.appendDigits(v.id, width: 2)
                listed += 1
            }
            out.comma(SkyModel.maximumUsedPerSystem - listed + 1)
            if hasFix {
                out.appendFixed(sky.pdop, places: 2)
                out.comma()
                out.appendFixed(sky.hdop, places: 2)
                out.comma()
                out.appendFixed(sky.vdop, places: 2)
            } else {
                out.appendASCII("99.99,99.99,99.99")
            }
            out.comma()
            out.appendDigits(system.constellation.systemID, width: 1)
            out.endSentence(s)
        }
    }

    /// `$GPGSV,3,1,11,01,12,326,24,03,52,265,40,04,23,193,35,08,18,047,29,1*6A`: four
    /// satellites a sentence, each constellation under its own talker, the NMEA 4.1 signal
    /// id (1: GPS L1 C/A, GLONASS L1OF, BeiDou B1I; 7: Galileo E1) last.
    private func appendGSV(_ out: inout [UInt8]) {
        for system in sky.systems {
            let n = system.inView.count
            let messages = max(1, (n + 3) / 4)
            for m in 0..<messages {
                let s = out.beginSentence(system.constellation.talker, "GSV")
                out.comma()
                out.appendDigits(messages, width: 1)
                out.comma()
                out.appendDigits(m + 1, width: 1)
                out.comma()
                out.appendDigits(n, width: 2)
                for v in system.inView[min(n, m * 4)..<min(n, m * 4 + 4)] {
                    out.comma()
                    out.appendDigits(v.id, width: 2)
                    out.comma()
                    out.appendDigits(v.elevation, width: 2)
                    out.comma()
                    out.appendDigits(v.azimuth, width: 3)
                    out.comma()
                    if let snr = v.snr { out.appendDigits(snr, width: 2) }
                }
                out.comma()
                out.append(system.constellation == .galileo ? UInt8(ascii: "7") : UInt8(ascii: "1"))
                out.endSentence(s)
            }
        }
    }

    /// `$GNRMC,083559.00,A,4717.11437,N,00833.91522,E,0.004,77.52,091202,,,A,V*57`
    private func appendRMC(_ out: inout [UInt8], _ timeOfDay: Int, _ fix: WrittenFix?) {
        let s = out.beginSentence(combined, "RMC")
        out.comma()
        out.appendTimeOfDay(centiseconds: timeOfDay)
        if let fix {
            out.appendASCII(",A,")
            out.appendLatitude(units: fix.latitude)
            out.comma()
            out.appendLongitude(units: fix.longitude)
            out.comma()
            out.appendFixed(Double(fix.milliknots) / 1000, places: 3)
            out.comma()
            out.appendFixed(Double(fix.centidegrees) / 100, places: 2)
            out.comma()
            out.appendShortDate(date)
            out.appendASCII(",,,A,V")
        } else {
            out.appendASCII(",V,,,,,,,")
            out.appendShortDate(date)
            out.appendASCII(",,,N,V")
        }
        out.endSentence(s)
    }

    /// `$GNVTG,77.52,T,,M,0.004,N,0.008,K,A*3A`
    private func appendVTG(_ out: inout [UInt8], _ fix: WrittenFix?) {
        let s = out.beginSentence(combined, "VTG")
        if let fix {
            out.comma()
            out.appendFixed(Double(fix.centidegrees) / 100, places: 2)
            out.appendASCII(",T,,M,")
            out.appendFixed(Double(fix.milliknots) / 1000, places: 3)
            out.appendASCII(",N,")
            out.appendFixed(Double(fix.milliknots) / 1000 * 1.852, places: 3)
            out.appendASCII(",K,A")
        } else {
            out.appendASCII(",,T,,M,,N,,K,N")
        }
        out.endSentence(s)
    }

    /// `$GNGLL,4717.11364,N,00833.91565,E,092321.00,A,A*60`
    private func appendGLL(_ out: inout [UInt8], _ timeOfDay: Int, _ fix: WrittenFix?) {
        let s = out.beginSentence(combined, "GLL")
        out.comma()
        if let fix {
            out.appendLatitude(units: fix.latitude)
            out.comma()
            out.appendLongitude(units: fix.longitude)
        } else {
            out.comma(3)
        }
        out.comma()
        out.appendTimeOfDay(centiseconds: timeOfDay)
        out.appendASCII(fix == nil ? ",V,N" : ",A,A")
        out.endSentence(s)
    }

    /// `$GNZDA,082710.00,16,09,2002,00,00*71`
    private func appendZDA(_ out: inout [UInt8], _ timeOfDay: Int) {
        let s = out.beginSentence(combined, "ZDA")
        out.comma()
        out.appendTimeOfDay(centiseconds: timeOfDay)
        out.comma()
        out.appendDigits(date.day, width: 2)
        out.comma()
        out.appendDigits(date.month, width: 2)
        out.comma()
        out.appendDigits(date.year, width: 4)
        out.appendASCII(",00,00")
        out.endSentence(s)
    }
}

/// Writes a recording cycle by cycle into chunks of about `chunkSize` bytes for `sink`,
/// counting what was written: the route synthesizer's and the track replay's `write`.
enum NMEAChunkedWriting {
    static func write<E: Error>(
        chunkSize: Int, to sink: ([UInt8]) throws(E) -> Void,
        next: (inout [UInt8]) -> SynthesizedEpoch?, onEpoch: ((SynthesizedEpoch) -> Void)? = nil
    ) throws(E) -> NMEASynthesisSummary {
        var summary = NMEASynthesisSummary()
        var buffer: [UInt8] = []
        buffer.reserveCapacity(chunkSize + 8 * 1024)
        while let epoch = next(&buffer) {
            summary.epochs += 1
            switch epoch.status {
            case .fix: summary.fixes += 1
            case .noFix: summary.noFixes += 1
            case .silent: summary.silent += 1
            }
            summary.duration = epoch.elapsed
            summary.distance = epoch.distance
            onEpoch?(epoch)
            if buffer.count >= chunkSize {
                summary.bytes += buffer.count
                try sink(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        if !buffer.isEmpty {
            summary.bytes += buffer.count
            try sink(buffer)
        }
        return summary
    }

    /// A `#` line of a recording's header: printable, at most 200 bytes of `text`, CR LF.
    static func comment(_ text: String, to out: inout [UInt8]) {
        var bytes = Array(text.utf8.prefix(200))
        for i in bytes.indices where bytes[i] < 0x20 || bytes[i] == 0x7F { bytes[i] = 0x20 }
        out.append(contentsOf: "# ".utf8)
        out.append(contentsOf: bytes)
        out.append(contentsOf: "\r\n".utf8)
    }
}

extension Int64 {
    /// Division rounding towards minus infinity (times before 1970 stay on the right day).
    func floorDivided(by d: Int64) -> Int64 {
        let q = self / d
        return (self % d != 0 && (self < 0) != (d < 0)) ? q - 1 : q
    }
}
