#if canImport(Glibc)
import Glibc
#endif
import CLinuxInput

extension HardwareProbe {
    // MARK: button (evdev)

    /// The button as `EvdevButtons` reads it: the input device exists and can be opened for
    /// reading; with `pressWithin`, a key press (of one of `keys`, or any key) must also arrive
    /// within that time. The kernel's `input_event` records are read as the adapter reads
    /// them; a FIFO carrying such records stands in for the device in tests.
    ///
    /// Like every probe, it runs on a thread of its own, abandoned if a system call hangs.
    public static func button(path: String, keys: Set<UInt16>?, pressWithin: Duration?) -> ProbeFinding {
        let limit = (pressWithin ?? .zero) + .seconds(2)
        return runBounded(limit) { buttonProbe(path: path, keys: keys, pressWithin: pressWithin) }
            ?? ProbeFinding(status: .missing, found: ["\(path): no answer within \(seconds(limit))"],
                            problem: "the button's input device hangs when opened or read",
                            fix: ["check the device: ls -l \(path); dmesg | tail"])
    }

    static func buttonProbe(path: String, keys: Set<UInt16>?, pressWithin: Duration?) -> ProbeFinding {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            let inputs = glob("/dev/input/event*")
            return ProbeFinding(
                status: .missing,
                found: ["\(path): \(errnoText(code))"]
                    + [inputs.isEmpty ? "no input devices in /dev/input" : "input devices present: \(inputs.joined(separator: ", "))"],
                problem: "the button's input device \(path) is not there",
                fix: ["on a Raspberry Pi, add the gpio-key overlay to /boot/firmware/config.txt "
                      + "(dtoverlay=gpio-key,gpio=17,keycode=28,label=\"pacer\") and reboot (Hardware/README.md, A button on GPIO 17)",
                      "or name the device the button appears as: buttons: evdev:/dev/input/by-path/…-event?keys=28"],
                facts: ["errno": "\(code)"])
        }
        let kind = (info.st_mode & S_IFMT) == S_IFCHR ? "a character device" : (info.st_mode & S_IFMT) == S_IFIFO ? "a FIFO" : "not a device"
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            return ProbeFinding(
                status: .missing, found: ["\(path) exists (\(kind))", "cannot open it for reading: \(errnoText(code))"],
                problem: "the button's input device cannot be read",
                fix: code == EACCES
                    ? ["the device is readable by group input: sudo usermod -aG input $USER (the service's user is in it), then log in again"]
                    : ["check the device: ls -l \(path)"],
                facts: ["errno": "\(code)"])
        }
        defer { close(fd) }
        let keyText = keys.map { "keys \($0.sorted().map(String.init).joined(separator: ","))" } ?? "any key"
        var found = ["\(path) is \(kind), readable (\(keyText))"]
        guard let pressWithin else {
            found.append("not pressed during the check (--press SECONDS waits for a press)")
            return ProbeFinding(status: .ok, found: found, facts: ["readable": "yes"])
        }
        let start = monotonicNanoseconds()
        let limit = pressWithin.nanoseconds
        let size = Int(pacer_input_event_size())
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: size * 64)
        while true {
            let left = limit - (monotonicNanoseconds() - start)
            if left <= 0 { break }
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
            // A FIFO with no writer yet reads as its end: poll in short steps.
            let ready = poll(&fds, 1, Int32(clamping: min(left, 50_000_000) / 1_000_000 + 1))
            if ready < 0, errno != EINTR { break }
            guard ready > 0 else { continue }
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n == 0 || (n < 0 && (errno == EAGAIN || errno == EINTR)) {
                _ = poll(nil, 0, 20)
                continue
            }
            if n < 0 {
                let code = errno
                found.append("reading it failed: \(errnoText(code))")
                return ProbeFinding(status: .missing, found: found, problem: "the button's input device failed while read",
                                    fix: ["check the device: ls -l \(path); dmesg | tail"], facts: ["errno": "\(code)"])
            }
            pending += chunk[0..<n]
            var offset = 0
            while pending.count - offset >= size {
                var event = input_event()
                pending.withUnsafeBytes { raw in
                    withUnsafeMutableBytes(of: &event) {
                        $0.copyMemory(from: UnsafeRawBufferPointer(start: raw.baseAddress!.advanced(by: offset), count: size))
                    }
                }
                offset += size
                guard event.type == 0x01, event.value == 1 else { continue }
                guard keys.map({ $0.contains(event.code) }) ?? true else {
                    found.append("key \(event.code) pressed, not one of the configured keys")
                    continue
                }
                let after = Duration.nanoseconds(monotonicNanoseconds() - start)
                found.append("a press of key \(event.code) heard after \(seconds(after))")
                return ProbeFinding(status: .ok, found: found, facts: ["readable": "yes", "pressed_key": "\(event.code)"])
            }
            pending.removeFirst(offset)
        }
        found.append("no press within \(seconds(pressWithin))")
        return ProbeFinding(
            status: .missing, found: found, problem: "the button was not heard: no key press arrived",
            fix: ["press the button while the check runs (--press gives the seconds to wait)",
                  "check its wiring and the overlay's gpio and keycode; evtest \(path) shows its events"],
            facts: ["readable": "yes"])
    }
}
