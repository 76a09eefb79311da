// libFuzzer target: the NMEA engine on arbitrary bytes, as a serial port, gpsd's raw mode or a
// recording would deliver them (`scripts/fuzz.sh nmea`).
import NMEA
import PacerCore

/// One input: the first byte picks the chunk size (1 to 256) and the checksum policy, so the
/// framer is also tried with lines split across reads; the rest is the stream. Every epoch is
/// written as `pacer nmea decode --json` writes it, so the numbers the decoder lets through
/// are also formatted.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNMEADecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let control = data[0]
    let stream = UnsafeBufferPointer(start: data + 1, count: size - 1)
    var decoder = NMEADecoder(checksumPolicy: control & 0x80 == 0 ? .acceptFromReceiversWithoutChecksums : .require)
    let chunk = Int(control & 0x7F) * 2 + 1
    var json: [UInt8] = []
    let onEpoch = { (epoch: NMEAEpoch) in
        if case .fix(let fix) = epoch {
            json.removeAll(keepingCapacity: true)
            fix.appendJSON(to: &json)
        }
    }
    var offset = 0
    while offset < stream.count {
        let end = min(stream.count, offset + chunk)
        decoder.feed(UnsafeBufferPointer(rebasing: stream[offset..<end]), onEpoch: onEpoch, onReject: { _ in })
        offset = end
    }
    decoder.finish(onEpoch: onEpoch, onReject: { _ in })
    _ = decoder.statistics
    return 0
}
