// libFuzzer target: the FIT workout reader on arbitrary bytes, as `pacer plan import FILE.fit`
// reads a file (`scripts/fuzz.sh workout`).
import Coaching
import Configurator
import Foundation
import PacerCore
import Storage

/// One input: a whole file, read as it is (through a window of 1 to 29 bytes, so the reader's
/// refills are tried), then again with its header's data size and both CRCs made right (a
/// mutation almost never keeps a CRC right; the fixed copy takes the fuzzer into the
/// definitions and the steps). A workout that reads must then hold what an import promises:
/// its plan file, written and loaded back, is the same plan, and Pacer's export of it reads
/// back the same workout (when its names and notes fit the export's string fields).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFITWorkoutReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = PlanActions.fitWorkoutLimits
    if let read = try? FITWorkoutReader.parse(bytes, file: "fuzz.fit", limits: limits, window: 1 + size % 29) {
        check(read)
    }
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
    if let read = try? FITWorkoutReader.parse(fixed, file: "fuzz.fit", limits: limits) {
        check(read)
    }
    return 0
}

/// What every workout read must keep: within the bounds, a plan file that loads back equal,
/// and Pacer's own export of it reading back the same.
func check(_ read: FITWorkoutData) {
    let workout = read.workout
    // fatalError, not precondition: a release build keeps its message, which says what differed.
    if workout.phases.isEmpty || workout.phases.count > PlanActions.fitWorkoutLimits.maximumPhases {
        fatalError("\(workout.phases.count) phases")
    }
    let plan = TrainingPlan(name: workout.name, summary: read.description, workouts: [workout])
    let text = PlanWriter.text(plan)
    do {
        let loaded = try PlanLoader.load(file: "fuzz.yaml", text: text)
        if loaded != plan { fatalError("the plan file reads back different:\n\(text)\n\(loaded)\n\(plan)") }
    } catch {
        fatalError("the plan file does not load: \(error)\n\(text)")
    }
    let fits = workout.name.utf8.count < 64
        && workout.phases.allSatisfy { $0.name.utf8.count < 64 && ($0.notes?.utf8.count ?? 0) < 255 }
    guard fits else { return }
    let again = FITWriter.workout(workout, name: workout.name, createdAt: UTCTimestamp(millisecondsSince1970: 0))
    do {
        let back = try FITWorkoutReader.parse(again, file: "again.fit", limits: PlanActions.fitWorkoutLimits)
        if back.workout != workout { fatalError("the export reads back different: \(back.workout) != \(workout)") }
    } catch {
        fatalError("the export does not read back: \(error)")
    }
}
