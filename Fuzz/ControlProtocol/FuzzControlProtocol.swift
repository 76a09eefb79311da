// libFuzzer target: the control protocol's parser, `ControlCommand(parsing:)`, which reads
// every line a client writes to the device's control socket (`scripts/fuzz.sh control`).
import HAL

/// One input: the bytes a client sends. They are framed as the socket server frames them
/// (`ControlSocketServer`: the first line, a `\r` before its `\n` dropped, refused unless it is
/// UTF-8), then parsed. A line that parses must parse again, to the same command, from the
/// line `pacer ctl` would send for it: what the client sends is what the device reads.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzControlProtocol(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    var line = bytes[...]
    if let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) { line = bytes[..<newline] }
    if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
    guard let text = String(validating: line, as: UTF8.self) else { return 0 }
    guard let command = try? ControlCommand(parsing: text) else { return 0 }
    let again = try? ControlCommand(parsing: command.line)
    if again != command {
        // fatalError, not precondition: its message survives an optimized build.
        fatalError("'\(text)' parses as \(command), but its line '\(command.line)' parses as \(String(describing: again))")
    }
    return 0
}
