// libFuzzer target: the Heart Rate Measurement reader, `HeartRateMeasurement(bytes:)`, which
// reads every notification a Bluetooth strap sends through BlueZ (`scripts/fuzz.sh heartrate`).
import HAL

/// One input: a notification's value, as BlueZ hands it over. Whatever it is, the reader
/// must return or throw, never trap; a measurement it reads must read back the same from the
/// bytes `bytes` writes for it (what the simulator and the tests' straps send is what the
/// device reads).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHeartRateMeasurement(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let measurement = try? HeartRateMeasurement(bytes: bytes) else { return 0 }
    _ = measurement.heartRate
    let again = try? HeartRateMeasurement(bytes: measurement.bytes)
    if again != measurement {
        // fatalError, not precondition: its message survives an optimized build.
        fatalError("\(Array(bytes)) reads as \(measurement), but its bytes \(measurement.bytes) read as \(String(describing: again))")
    }
    return 0
}
