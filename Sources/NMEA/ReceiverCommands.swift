// The commands that change a serial GPS receiver's power mode, as bytes: UBX for u-blox M8
// receivers, PMTK sentences for MediaTek MT3339 ones. Pure: no I/O, no clock; the serial
// source writes what this returns.
//
// Sources (each command below names its own):
//   [M8]  u-blox 8 / u-blox M8 Receiver Description including Protocol Specification,
//         UBX-13003221 (R25): the UBX frame ("UBX Frame Structure", "UBX Checksum"), the
//         "Power Management" chapter (continuous mode, Power Save Mode with its cyclic-tracking
//         and ON/OFF operations, software backup), and the messages UBX-CFG-RXM (0x06 0x11),
//         UBX-CFG-PM2 (0x06 0x3B) and UBX-RXM-PMREQ (0x02 0x41).
//   [GT]  GlobalTop PMTK command packet, Rev. A08 (MT3339): packet types 161
//         (PMTK_CMD_STANDBY_MODE) and 225 (PMTK_CMD_PERIODIC_MODE).
//   [L80] Quectel L80 GPS Protocol Specification (MT3339): §3.8 packet 161, §3.13 packet 225
//         (field ranges; a second run time of 0 disables it).
//   [NMEA] NMEA 0183: `$`, fields, `*`, two hex digits of the XOR of the bytes between them,
//         CR LF.

/// The command set a serial receiver understands for its power modes (the board's
/// `serial:…?receiver=` option).
public enum ReceiverCommandSet: String, Hashable, Sendable, CaseIterable {
    /// u-blox M8 (protocol version 18 to 23.01, firmware SPG 3.01 and later): UBX binary
    /// messages.
    case ubx
    /// MediaTek MT3339 (GlobalTop PA6H / Adafruit Ultimate GPS, Quectel L80): PMTK sentences.
    case pmtk
    /// A receiver that is only listened to: nothing is ever sent, it keeps tracking.
    case none
}

/// What the firmware asks of the receiver: the power modes a profile uses between position
/// updates.
public enum ReceiverPowerRequest: Hashable, Sendable {
    /// Track continuously; wakes a receiver that is in backup or standby.
    case continuous
    /// The receiver's own power-save mode, one position every `updatePeriod`.
    case powerSave(updatePeriod: Duration)
    /// Software backup (u-blox) or standby (MediaTek) until woken by the next command, or,
    /// where the receiver supports it (UBX), until `wakeAfter` has passed.
    case backup(wakeAfter: Duration?)
}

/// The exact bytes for each power request in each command set.
public enum ReceiverCommands {
    /// Everything to write for `request` to a receiver speaking `commands`, in order (empty
    /// for `.none`).
    public static func encode(_ request: ReceiverPowerRequest, for commands: ReceiverCommandSet) -> [UInt8] {
        switch commands {
        case .ubx: UBX.encode(request)
        case .pmtk: PMTK.encode(request)
        case .none: []
        }
    }

    /// Whole milliseconds in `duration`, rounded down, clamped to `range`.
    static func milliseconds(_ duration: Duration, clampedTo range: ClosedRange<UInt32>) -> UInt32 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return range.lowerBound }
        let ms = seconds.multipliedReportingOverflow(by: 1000)
        guard !ms.overflow else { return range.upperBound }
        let total = ms.partialValue + attoseconds / 1_000_000_000_000_000
        return UInt32(clamping: min(max(total, Int64(range.lowerBound)), Int64(range.upperBound)))
    }

    // MARK: - u-blox M8 (UBX)

    /// UBX messages for u-blox M8 receivers [M8].
    ///
    /// The layouts are those of protocol versions 18 to 23.01 (firmware SPG 3.01 and later,
    /// what current NEO-M8N and SAM-M8Q modules run): UBX-CFG-PM2 version 0x02 (48 bytes) and
    /// the 16-byte UBX-RXM-PMREQ with `wakeupSources`. Firmware 2.01 (protocol 15 to 17) knows
    /// only the 44-byte CFG-PM2 and the 8-byte PMREQ and does not take these.
    ///
    /// Sequences, per request:
    /// - `.continuous`: the wake train, then UBX-CFG-RXM lpMode 0 (Continuous Mode).
    /// - `.powerSave(p)`: the wake train, UBX-CFG-PM2 (update period `p`), then UBX-CFG-RXM
    ///   lpMode 1 (Power Save Mode): the operation is configured before it is switched on.
    /// - `.backup(d)`: UBX-RXM-PMREQ, backup for `d` (nil: until woken), woken by UART RX.
    ///
    /// The configuration messages are acknowledged by the receiver (UBX-ACK-ACK / -NAK);
    /// PMREQ is a command and is not. Nothing here waits for an acknowledgement.
    public enum UBX {
        /// Sync characters 1 and 2 [M8, "UBX Frame Structure"].
        public static let sync: [UInt8] = [0xB5, 0x62]

        /// Sent first whenever the receiver must be awake: eight 0xFF bytes. Every byte's
        /// start bit is an edge on the receiver's RX pin, which is the wake-up source
        /// `uartrx` that `rxmPMREQ` selects [M8, UBX-RXM-PMREQ `wakeupSources`]; bytes that
        /// arrive while the receiver is still waking may be lost, so the train goes before
        /// the command that matters, as u-blox advises ("send a number (at least 8) of 0xFF
        /// characters to wake up the serial communication module, otherwise the first bytes
        /// may get lost", ANTARIS 4 / TIM-L system integration manual). 0xFF is neither a
        /// UBX sync character nor `$`, so an awake receiver's parser discards it.
        public static let wakeTrain = [UInt8](repeating: 0xFF, count: 8)

        /// UBX-CFG-RXM `lpMode` [M8, UBX-CFG-RXM (0x06 0x11)].
        public enum LowPowerMode: UInt8, Sendable {
            case continuous = 0
            case powerSave = 1
        }

        /// How UBX-CFG-PM2 runs Power Save Mode (its `mode` field) [M8, "Power Save Mode"]:
        /// cyclic tracking keeps tracking at a low duty cycle, ON/OFF operation switches the
        /// receiver off between fixes. u-blox gives cyclic tracking for update periods of 1 to
        /// 10 s and ON/OFF for longer ones (ZOE-M8B System Integration Manual UBX-17045131,
        /// "Super-E mode": 1–10 s through UBX-CFG-PM2; the M10 integration manuals, "Power save
        /// mode": cyclic tracking for 0.5–10 s, on/off for periods longer than 10 s).
        public enum PowerSaveOperation: UInt32, Sendable {
            case onOff = 0
            case cyclicTracking = 1

            /// Cyclic tracking up to 10 s, ON/OFF beyond.
            public static func forUpdatePeriod(_ period: Duration) -> PowerSaveOperation {
                period <= .seconds(10) ? .cyclicTracking : .onOff
            }
        }

        public static func encode(_ request: ReceiverPowerRequest) -> [UInt8] {
            switch request {
            case .continuous:
                return wakeTrain + cfgRXM(.continuous)
            case .powerSave(let period):
                return wakeTrain + cfgPM2(updatePeriod: period) + cfgRXM(.powerSave)
            case .backup(let wakeAfter):
                return rxmPMREQ(wakeAfter: wakeAfter)
            }
        }

        /// The 8-bit Fletcher checksum (CK_A, CK_B) over `bytes` (class, ID, length and
        /// payload) [M8, "UBX Checksum"].
        public static func checksum(_ bytes: some Sequence<UInt8>) -> (a: UInt8, b: UInt8) {
            var a: UInt8 = 0
            var b: UInt8 = 0
            for byte in bytes {
                a &+= byte
                b &+= a
            }
            return (a, b)
        }

        /// A whole frame: sync, class, ID, little-endian payload length, payload, CK_A, CK_B
        /// [M8, "UBX Frame Structure"].
        public static func frame(class messageClass: UInt8, id: UInt8, payload: [UInt8]) -> [UInt8] {
            precondition(payload.count <= Int(UInt16.max), "a UBX payload is at most 65535 bytes")
            let length = UInt16(payload.count)
            let body = [messageClass, id, UInt8(length & 0xFF), UInt8(length >> 8)] + payload
            let (a, b) = checksum(body)
            return sync + body + [a, b]
        }

        /// UBX-CFG-RXM (0x06 0x11), 2 bytes: `reserved1`, `lpMode` [M8, UBX-CFG-RXM].
        ///
        /// `reserved1` is 0x08: the value u-blox's own protocol specifications before M8
        /// prescribe ("always set to 8") and u-center sends; the M8 specification only calls
        /// the byte reserved. With it the frames are the published ones
        /// (`B5 62 06 11 02 00 08 00 21 91`, `… 08 01 22 92`).
        public static func cfgRXM(_ mode: LowPowerMode) -> [UInt8] {
            frame(class: 0x06, id: 0x11, payload: [0x08, mode.rawValue])
        }

        /// UBX-CFG-PM2 flags [M8, UBX-CFG-PM2 "Bitfield flags"]: `updateEPH` (bit 12),
        /// `doNotEnterOff` (bit 16), `mode` (bits 17–18).
        public static let updateEphemerisFlag: UInt32 = 1 << 12
        public static let doNotEnterOffFlag: UInt32 = 1 << 16
        public static let modeShift: UInt32 = 17

        /// UBX-CFG-PM2 (0x06 0x3B), version 0x02, 48 bytes [M8, UBX-CFG-PM2]:
        ///
        /// | offset | field | sent |
        /// |---|---|---|
        /// | 0 | version U1 | 0x02 |
        /// | 1 | reserved1 U1 | 0 |
        /// | 2 | maxStartupStateDur U1 (s) | 0: no bound on acquisition |
        /// | 3 | reserved2 U1 | 0 |
        /// | 4 | flags X4 | `updateEPH`, `mode` = `operation` |
        /// | 8 | updatePeriod U4 (ms) | `updatePeriod` (at least 1 s) |
        /// | 12 | searchPeriod U4 (ms) | `updatePeriod`: a failed acquisition is retried at the next update |
        /// | 16 | gridOffset U4 (ms) | 0 |
        /// | 20 | onTime U2 (s) | 0: leave Tracking as soon as possible |
        /// | 22 | minAcqTime U2 (s) | 0 |
        /// | 24 | reserved3 U1[20] | 0 |
        /// | 44 | extintInactivityMs U4 (ms) | 0 (EXTINT not used) |
        ///
        /// `updateEPH` lets the receiver wake to keep its ephemeris current, so the fixes
        /// that follow stay hot starts; `doNotEnterOff` stays clear, so a receiver that finds
        /// no satellites (indoors) rests until the next search instead of searching on.
        public static func cfgPM2(
            updatePeriod: Duration, operation: PowerSaveOperation? = nil
        ) -> [UInt8] {
            let period = milliseconds(updatePeriod, clampedTo: 1000...UInt32.max)
            let operation = operation ?? .forUpdatePeriod(.milliseconds(period))
            let flags = updateEphemerisFlag | (operation.rawValue << modeShift)
            var payload: [UInt8] = [0x02, 0x00, 0x00, 0x00]
            payload += littleEndian(flags)
            payload += littleEndian(period)  // updatePeriod
            payload += littleEndian(period)  // searchPeriod
            payload += littleEndian(UInt32(0))  // gridOffset
            payload += [0x00, 0x00]  // onTime
            payload += [0x00, 0x00]  // minAcqTime
            payload += [UInt8](repeating: 0, count: 20)  // reserved3
            payload += littleEndian(UInt32(0))  // extintInactivityMs
            return frame(class: 0x06, id: 0x3B, payload: payload)
        }

        /// UBX-RXM-PMREQ flags and wake-up sources [M8, UBX-RXM-PMREQ]: `backup` (bit 1),
        /// `uartrx` (bit 3).
        public static let backupFlag: UInt32 = 1 << 1
        public static let wakeOnUARTRX: UInt32 = 1 << 3
        /// The longest backup the receiver supports: 12 days [M8, UBX-RXM-PMREQ `duration`].
        public static let longestBackup = Duration.seconds(12 * 24 * 3600)

        /// UBX-RXM-PMREQ (0x02 0x41), version 0x00, 16 bytes [M8, UBX-RXM-PMREQ]: `version`,
        /// `reserved1[3]`, `duration` (ms; 0: until a wake-up source fires), `flags`
        /// (`backup`), `wakeupSources` (`uartrx`).
        ///
        /// `wakeAfter` is rounded down to whole milliseconds, at least 1 (0 would mean
        /// "forever") and at most 12 days. `force` (bit 2) stays clear: a receiver on its own
        /// USB port (a USB "G-mouse") then refuses backup rather than dropping off the bus
        /// where nothing could wake it.
        public static func rxmPMREQ(wakeAfter: Duration?) -> [UInt8] {
            var duration: UInt32 = 0
            if let wakeAfter {
                let longest = milliseconds(longestBackup, clampedTo: 0...UInt32.max)
                duration = milliseconds(wakeAfter, clampedTo: 1...longest)
            }
            var payload: [UInt8] = [0x00, 0x00, 0x00, 0x00]
            payload += littleEndian(duration)
            payload += littleEndian(backupFlag)
            payload += littleEndian(wakeOnUARTRX)
            return frame(class: 0x02, id: 0x41, payload: payload)
        }

        static func littleEndian(_ value: UInt32) -> [UInt8] {
            [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
        }
    }

    // MARK: - MediaTek MT3339 (PMTK)

    /// PMTK sentences for MediaTek MT3339 receivers [GT, L80].
    ///
    /// Sequences, per request:
    /// - `.continuous`: `$PMTK225,0*2B` (back to normal mode). Its first byte also wakes a
    ///   receiver in standby ("software on host side sends any byte to wake up from standby
    ///   mode", [GT] packet 161).
    /// - `.powerSave(p)`: `$PMTK225,2,<run>,<sleep>,0,0` — periodic *standby* mode, which,
    ///   unlike periodic backup, can be left at any time with `$PMTK225,0` ([GT] packet 225;
    ///   GlobalTop's note on the Type field). Run and sleep time add up to `p`.
    /// - `.backup`: `$PMTK161,0*28` (standby). The MT3339 has no software command for a
    ///   backup it can be woken from by serial (perpetual backup, PMTK225 type 4, needs a
    ///   hardware trigger), so standby stands in for backup, and `wakeAfter` has no
    ///   equivalent: the receiver sleeps until the next command.
    ///
    /// Every sentence is acknowledged with `$PMTK001,<type>,<flag>`; nothing here waits.
    public enum PMTK {
        /// How long each period the receiver runs before it sleeps: 3 s, the run time of the
        /// documented examples (`$PMTK225,2,3000,12000,…`), room for a hot-start fix.
        public static let runTime = Duration.seconds(3)
        /// The shortest run or sleep time the receiver takes: 1000 ms [L80 §3.13].
        public static let shortestPhase: UInt32 = 1000
        /// The longest: 518 400 000 ms (6 days) [L80 §3.13].
        public static let longestPhase: UInt32 = 518_400_000

        public static func encode(_ request: ReceiverPowerRequest) -> [UInt8] {
            switch request {
            case .continuous: normalMode()
            case .powerSave(let period): periodicStandby(updatePeriod: period)
            case .backup: standby()
            }
        }

        /// `$<body>*HH\r\n` with the NMEA checksum: the XOR of every byte of `body` as two
        /// uppercase hexadecimal digits [NMEA].
        public static func sentence(_ body: String) -> [UInt8] {
            var sum: UInt8 = 0
            for byte in body.utf8 { sum ^= byte }
            let digits = Array("0123456789ABCDEF".utf8)
            return [UInt8(ascii: "$")] + Array(body.utf8)
                + [UInt8(ascii: "*"), digits[Int(sum >> 4)], digits[Int(sum & 0x0F)], 0x0D, 0x0A]
        }

        /// `$PMTK225,0*2B`: periodic mode off, back to normal (continuous) operation [GT 225].
        public static func normalMode() -> [UInt8] {
            sentence("PMTK225,0")
        }

        /// `$PMTK161,0*28`: standby [GT 161, L80 §3.8].
        public static func standby() -> [UInt8] {
            sentence("PMTK161,0")
        }

        /// `$PMTK225,2,<run>,<sleep>,0,0`: periodic standby [GT 225, L80 §3.13]. Type 2;
        /// run time `runTime` and sleep time `updatePeriod − runTime`, each in ms and
        /// within 1000 ms to 518 400 000 ms (for a period under 4 s the run time shrinks to
        /// leave 1 s of sleep, and neither goes below 1 s); second run and sleep time 0
        /// (disabled: no second run after a failed acquisition).
        public static func periodicStandby(updatePeriod: Duration) -> [UInt8] {
            let range = shortestPhase...longestPhase
            let period = milliseconds(updatePeriod, clampedTo: (2 * shortestPhase)...UInt32.max)
            var run = milliseconds(runTime, clampedTo: range)
            if period < run + shortestPhase { run = max(shortestPhase, period - shortestPhase) }
            let sleep = min(max(period - run, shortestPhase), longestPhase)
            return sentence("PMTK225,2,\(run),\(sleep),0,0")
        }
    }
}
