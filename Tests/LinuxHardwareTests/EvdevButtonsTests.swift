#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HAL
@testable import LinuxHardware
import PacerCore
import Synchronization
import TestSupport
import Testing

/// The evdev adapter against the kernel's own record layout, written into a FIFO (this
/// machine has no uinput): presses, releases, key repeats, chatter, other keys and event
/// types, a device that vanishes and comes back.
@Suite("Buttons from Linux input events", .serialized)
struct EvdevButtonsTests {
    /// One `struct input_event` as a 64-bit kernel writes it: the time as a `timeval` (two
    /// 64-bit longs), then type, code (16 bits each) and value (32 bits), native byte order.
    static func record(_ micros: Int64, type: UInt16 = 1, code: UInt16, value: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        withUnsafeBytes(of: micros / 1_000_000) { bytes += $0 }
        withUnsafeBytes(of: micros % 1_000_000) { bytes += $0 }
        withUnsafeBytes(of: type) { bytes += $0 }
        withUnsafeBytes(of: code) { bytes += $0 }
        withUnsafeBytes(of: value) { bytes += $0 }
        return bytes
    }

    static let enter: UInt16 = 28, button0: UInt16 = 256

    final class Heard: Sendable {
        private let events = Mutex<[ButtonEvent]>([])
        func add(_ e: ButtonEvent) { events.withLock { $0.append(e) } }
        var all: [ButtonEvent] { events.withLock { $0 } }
        var presses: [String] {
            all.compactMap { if case .pressed(let p, let b) = $0 { "\(p.rawValue) \(b)" } else { nil } }
        }
        func wait(until done: ([ButtonEvent]) -> Bool, seconds: Double = 5) -> Bool {
            eventuallyBlocking(within: .seconds(seconds), every: .milliseconds(10)) { done(all) }
        }
    }

    @Test func theKernelsLayoutIsReadOnThisMachine() {
        #expect(EvdevButtons.eventSize == (MemoryLayout<Int>.size == 8 ? 24 : 16))
    }

    @Test func pressesRepeatsChatterAndAVanishingDevice() throws {
        let temp = TemporaryDirectory()
        let fifo = "\(temp.path)/event0"
        #expect(mkfifo(fifo, 0o600) == 0)
        // Holding it open for reading and writing keeps a writer while the adapter opens it.
        var writer = open(fifo, O_RDWR)
        #expect(writer >= 0)
        let loop = SerialClockLoop()
        defer { loop.shutdown() }
        let heard = Heard()
        let sink = ButtonSink(clock: loop.clock) { heard.add($0) }
        let buttons = EvdevButtons(path: fifo, keys: [Self.enter], clock: loop.clock, retryInterval: .milliseconds(50))
        buttons.start(sink)
        defer { buttons.stop() }
        #expect(heard.wait { $0.contains(.connected(fifo)) })

        func send(_ records: [[UInt8]]) {
            let bytes = records.flatMap { $0 }
            // In odd-sized pieces: the adapter must put records together across reads.
            var offset = 0
            while offset < bytes.count {
                let n = min(7, bytes.count - offset)
                let written = bytes[offset..<(offset + n)].withUnsafeBytes { write(writer, $0.baseAddress, n) }
                #expect(written == n)
                offset += n
            }
        }
        let t0: Int64 = 1_700_000_000_000_000
        send([
            // A short press of Enter with chatter at its start, the sync events between.
            Self.record(t0, code: Self.enter, value: 1),
            Self.record(t0, type: 0, code: 0, value: 0),
            Self.record(t0 + 4_000, code: Self.enter, value: 0),
            Self.record(t0 + 8_000, code: Self.enter, value: 1),
            // Another key, not one of the buttons: ignored.
            Self.record(t0 + 20_000, code: 30, value: 1),
            Self.record(t0 + 30_000, code: 30, value: 0),
            Self.record(t0 + 120_000, code: Self.enter, value: 0),
        ])
        #expect(heard.wait { _ in heard.presses == ["short 28"] })
        // A hold of 1.5 s with the kernel's key repeats: long, not many presses.
        let t1 = t0 + 2_000_000
        send([Self.record(t1, code: Self.enter, value: 1)]
             + (1...5).map { Self.record(t1 + Int64($0) * 250_000, code: Self.enter, value: 2) }
             + [Self.record(t1 + 1_500_000, code: Self.enter, value: 0)])
        #expect(heard.wait { _ in heard.presses == ["short 28", "long 28"] })
        // The device vanishes: reported once; back, reported connected, and read again.
        close(writer)
        #expect(heard.wait { $0.contains { if case .gone(let why) = $0 { why.hasSuffix("closed") } else { false } } })
        writer = open(fifo, O_RDWR)
        defer { close(writer) }
        #expect(heard.wait { $0.filter { $0 == .connected(fifo) }.count == 2 })
        let t2 = t1 + 10_000_000
        send([Self.record(t2, code: Self.enter, value: 1), Self.record(t2 + 50_000, code: Self.enter, value: 0),
              Self.record(t2 + 200_000, code: Self.enter, value: 1), Self.record(t2 + 260_000, code: Self.enter, value: 0)])
        #expect(heard.wait { _ in heard.presses == ["short 28", "long 28", "double 28"] })
        let gone = heard.all.filter { if case .gone = $0 { true } else { false } }
        #expect(gone.count == 1, "\(heard.all)")
    }

    @Test func aDeviceMissingAtTheStartIsReportedAndPickedUpWhenItAppears() throws {
        let temp = TemporaryDirectory()
        let path = "\(temp.path)/event1"
        let loop = SerialClockLoop()
        defer { loop.shutdown() }
        let heard = Heard()
        let buttons = EvdevButtons(path: path, clock: loop.clock, retryInterval: .milliseconds(50))
        buttons.start(ButtonSink(clock: loop.clock) { heard.add($0) })
        defer { buttons.stop() }
        #expect(heard.wait { $0.contains { if case .gone(let why) = $0 { why.contains("No such file") } else { false } } },
                "\(heard.all)")
        #expect(mkfifo(path, 0o600) == 0)
        let writer = open(path, O_RDWR)
        defer { close(writer) }
        #expect(heard.wait { $0.contains(.connected(path)) })
        #expect(heard.all.filter { if case .gone = $0 { true } else { false } }.count == 1)
    }
}
