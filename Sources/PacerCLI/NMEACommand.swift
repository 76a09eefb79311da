import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import NMEA
import PacerCore
import Simulation

struct NMEACommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nmea", abstract: "Work with NMEA 0183 recordings.",
        subcommands: [Decode.self])

    struct Decode: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decode NMEA into fixes, one line per fix.",
            discussion: """
                Reads FILE (or standard input for -) as a raw receiver byte stream: any chunking, \
                CRLF or LF, binary packets interleaved. Prints one line per receiver cycle with a \
                valid position; a summary of sentences read, rejected and skipped goes to stderr.
                """)

        @Flag(name: .long, help: "One JSON object per fix: time, lat, lon, and alt, speed, track, mode when known.")
        var json = false

        @Flag(name: .long, help: "List every refused line on stderr, with its line number and the reason.")
        var explain = false

        @Argument(help: "An NMEA recording, or - for standard input.")
        var file: String

        func run() throws {
            var out = OutputBuffer()
            var reader = RecordingReader(path: file)
            let file = self.file
            let report: ((NMEARejection) -> Void)? = explain ? { rejection in
                FileDescriptorOutput.write(Array("\(file):\(rejection)\n".utf8), to: 2)
            } : nil
            do {
                try reader.decode(onEpoch: { epoch in
                    guard case .fix(let fix) = epoch else { return }
                    if json {
                        fix.appendJSON(to: &out.bytes)
                    } else {
                        fix.appendText(to: &out.bytes)
                    }
                    out.bytes.append(0x0A)
                    out.flushIfFull()
                }, onReject: report)
            } catch {
                out.flush()
                throw ValidationError("\(error)")
            }
            out.flush()
            let s = reader.decoder.statistics
            var summary = "\(file): \(s.bytes) bytes, \(s.sentences) sentences read, \(s.rejected) rejected"
            summary += " (\(s.badChecksum) bad checksum, \(s.missingChecksum) missing checksum, "
            summary += "\(s.malformed) malformed, \(s.overlong) overlong), \(s.skipped) skipped, "
            summary += "\(s.binaryPackets) binary packets, \(s.fixes) fixes\n"
            FileDescriptorOutput.write(Array(summary.utf8), to: 2)
        }
    }
}

extension Fix {
    /// `2010-06-03T14:52:43.000Z  34.032940000 -117.747123300  alt 234.7  0.000 m/s  119.27°  3D`
    func appendText(to out: inout [UInt8]) {
        time.appendISO8601(to: &out)
        out.append(contentsOf: "  ".utf8)
        out.appendDecimal(position.latitude, places: 7)
        out.append(0x20)
        out.appendDecimal(position.longitude, places: 7)
        if let altitude {
            out.append(contentsOf: "  alt ".utf8)
            out.appendDecimal(altitude, places: 1)
            out.append(contentsOf: " m".utf8)
        }
        if let speed {
            out.append(contentsOf: "  ".utf8)
            out.appendDecimal(speed, places: 2)
            out.append(contentsOf: " m/s".utf8)
        }
        if let course {
            out.append(contentsOf: "  ".utf8)
            out.appendDecimal(course, places: 1)
            out.append(contentsOf: " deg".utf8)
        }
        out.append(contentsOf: mode == .threeD ? "  3D".utf8 : "  2D".utf8)
        if let satellitesUsed {
            out.append(contentsOf: "  sats ".utf8)
            out.appendDigits(satellitesUsed, width: 1)
        }
    }
}

/// Standard output through one reused buffer, written in large blocks.
struct OutputBuffer {
    static let threshold = 64 * 1024
    var bytes: [UInt8]

    init() {
        bytes = []
        bytes.reserveCapacity(OutputBuffer.threshold + 1024)
    }

    mutating func flushIfFull() {
        if bytes.count >= OutputBuffer.threshold { flush() }
    }

    mutating func flush() {
        FileDescriptorOutput.write(bytes, to: 1)
        bytes.removeAll(keepingCapacity: true)
    }
}

enum FileDescriptorOutput {
    /// Writes all of `bytes` to `fd`, retrying short writes and EINTR. A closed pipe ends the
    /// write quietly (`pacer nmea decode … | head`).
    static func write(_ bytes: [UInt8], to fd: Int32) {
        bytes.withUnsafeBytes { p in
            var offset = 0
            while offset < p.count {
                let n = Glibc.write(fd, p.baseAddress! + offset, p.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += n
            }
        }
    }
}
