// libFuzzer target: the FIT reader on arbitrary bytes, as `pacer activities import FILE.fit`
// reads a file (`scripts/fuzz.sh fit`).
import Coaching
import Foundation
import PacerCore
import Storage

/// One input: a whole file, read as it is (through a window of 1 to 29 bytes, so the reader's
/// refills are tried), then again with its header's data size and both
/// CRCs made right: a mutation almost never keeps a CRC right, and the fixed copy takes the
/// fuzzer past the checks into the definitions and the data messages. A file that reads is
/// taken as far as an import takes it without a database: its points' statistics.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFITReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // Through a small window as well as the import's 64 kB: the refills in between are tried.
    _ = try? FITReader.parse(bytes, file: "fuzz.fit", window: 1 + size % 29)
    guard bytes.count >= 16, bytes[0] == 12 || bytes[0] == 14 else { return 0 }
    var fixed = bytes
    let headerSize = Int(bytes[0])
    let records = UInt32(bytes.count - headerSize - 2)
    for i in 0..<4 { fixed[4 + i] = UInt8(truncatingIfNeeded: records >> (8 * UInt32(i))) }
    if headerSize == 14 {
        let crc = FIT.crc(fixed[0..<12])
        fixed[12] = UInt8(crc & 0xFF)
        fixed[13] = UInt8(crc >> 8)
    }
    let crc = FIT.crc(fixed[0..<(fixed.count - 2)])
    fixed[fixed.count - 2] = UInt8(crc & 0xFF)
    fixed[fixed.count - 1] = UInt8(crc >> 8)
    guard let file = try? FITReader.parse(fixed, file: "fuzz.fit") else { return 0 }
    var segment = 0
    let points = file.points.map { p -> TrackPoint in
        if p.afterStop { segment += 1 }
        return TrackPoint(segment: segment, time: p.time, position: p.position, altitude: p.altitude, speed: p.speed)
    }
    _ = ActivityStatistics(points: points)
    _ = PathStatistics(segments: [points.map { PathPoint(position: $0.position, altitude: $0.altitude, time: $0.time) }])
    return 0
}
