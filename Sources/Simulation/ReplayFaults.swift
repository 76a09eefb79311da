extension NMEAFileSource {
    /// What goes wrong with the receiver during a replay, scripted so a scenario can rehearse
    /// a tunnel, a cold receiver, a loose cable or a restart after a power cut on the real
    /// code paths. Given in a `file:` URI's query (`Configurator.makeGPSSource`):
    ///
    /// - `outage=FROM-TO[,FROM-TO…]`: the receiver falls silent. Cycles whose offset lies in
    ///   [FROM, TO) are withheld; after `silenceTimeout` without a cycle the sink hears
    ///   `silent`, as from a quiet serial port, so a fix is lost.
    /// - `invalid=FROM-TO[,…]`: the receiver talks but has no fix. Cycles in the window are
    ///   delivered as `.noFix(time)`, as the NMEA engine makes of a status-V RMC.
    /// - `unplug=AT-BACK[,…]`: the receiver is unplugged. At AT the sink hears
    ///   `closed("unplugged")`; cycles until BACK are withheld (lost, as with a real unplug);
    ///   at BACK it hears `opened(name)` and the replay goes on with the cycles due from then.
    /// - `skip=S`: the replay starts S seconds into the recording (a device restarted after a
    ///   power cut): cycles before offset S are decoded and dropped, the first one at or after
    ///   S is released at the start instant and later ones relative to it.
    ///
    /// Times are seconds (fractions allowed, to the nanosecond: `12`, `12.5`), as offsets
    /// from the recording's first timed cycle: scenario time when the replay starts at the
    /// beginning at speed 1. They stay recording offsets with `skip`, so a restarted device
    /// replaying the same recording sees the same world. A cycle's offset is its UTC time
    /// minus the first timed cycle's, the same offset the replay is paced by (a cycle without
    /// a time, or whose time goes backwards, has the offset of the cycle before it).
    ///
    /// Windows are half-open, [FROM, TO): FROM must be before TO, and neither negative. The
    /// windows of one kind must not overlap (each is then one plain event, and a mistake in a
    /// scenario is caught rather than guessed at); touching windows (`10-20,20-30`) are two
    /// events. Windows of different kinds may overlap; the stronger fault wins: an unplugged
    /// receiver sends nothing, a silent one sends no invalid cycles.
    public struct Faults: Hashable, Sendable, CustomStringConvertible {
        /// [from, to) in seconds of recording offset.
        public struct Window: Hashable, Sendable, CustomStringConvertible {
            public let from: Duration
            public let to: Duration

            public init(from: Duration, to: Duration) {
                self.from = from
                self.to = to
            }

            public func contains(_ offset: Duration) -> Bool {
                from <= offset && offset < to
            }

            /// `FROM-TO`, as written in a URI.
            public var description: String {
                "\(Faults.seconds(from))-\(Faults.seconds(to))"
            }
        }

        public private(set) var outages: [Window] = []
        public private(set) var invalid: [Window] = []
        public private(set) var unplugs: [Window] = []
        public private(set) var skip: Duration = .zero

        /// The query keys faults are given by.
        public static let keys = ["outage", "invalid", "unplug", "skip"]

        /// No faults: the recording as it was.
        public init() {}

        /// Checks every window (see the type's documentation) and sorts each kind by time.
        public init(
            outages: [Window] = [], invalid: [Window] = [], unplugs: [Window] = [], skip: Duration = .zero
        ) throws(FaultError) {
            self.outages = try Self.checked(outages, key: "outage")
            self.invalid = try Self.checked(invalid, key: "invalid")
            self.unplugs = try Self.checked(unplugs, key: "unplug")
            guard skip >= .zero else {
                throw FaultError(key: "skip", value: Self.seconds(skip), reason: "cannot be negative")
            }
            self.skip = skip
        }

        /// The faults given by `query`'s keys among `keys`; other keys are not looked at.
        public init(query: [String: String]) throws(FaultError) {
            func windows(_ key: String) throws(FaultError) -> [Window] {
                guard let raw = query[key] else { return [] }
                return try Self.parseWindows(raw, key: key)
            }
            var skip = Duration.zero
            if let raw = query["skip"] {
                skip = try Self.parseSeconds(raw, key: "skip", value: raw)
            }
            try self.init(
                outages: windows("outage"), invalid: windows("invalid"), unplugs: windows("unplug"), skip: skip)
        }

        public var isEmpty: Bool {
            outages.isEmpty && invalid.isEmpty && unplugs.isEmpty && skip == .zero
        }

        /// The query items that give these faults (`outage=10-20`, `skip=30`), in a fixed
        /// order; none for no faults.
        public var queryItems: [String] {
            var items: [String] = []
            for (key, list) in [("outage", outages), ("invalid", invalid), ("unplug", unplugs)] where !list.isEmpty {
                items.append("\(key)=" + list.map(\.description).joined(separator: ","))
            }
            if skip != .zero { items.append("skip=\(Self.seconds(skip))") }
            return items
        }

        public var description: String {
            isEmpty ? "no faults" : queryItems.joined(separator: "&")
        }

        func isSilent(at offset: Duration) -> Bool {
            outages.contains { $0.contains(offset) }
        }

        func isInvalid(at offset: Duration) -> Bool {
            invalid.contains { $0.contains(offset) }
        }

        // MARK: - Checking and parsing

        private static func checked(_ windows: [Window], key: String) throws(FaultError) -> [Window] {
            let value = windows.map(\.description).joined(separator: ",")
            for w in windows {
                guard w.from >= .zero, w.to >= .zero else {
                    throw FaultError(key: key, value: value, reason: "window \(w) has a negative time")
                }
                guard w.from < w.to else {
                    throw FaultError(key: key, value: value, reason: "window \(w) does not end after it starts")
                }
            }
            let sorted = windows.sorted { $0.from < $1.from }
            for (a, b) in zip(sorted, sorted.dropFirst()) where b.from < a.to {
                throw FaultError(key: key, value: value, reason: "windows \(a) and \(b) overlap")
            }
            return sorted
        }

        /// `FROM-TO[,FROM-TO…]`.
        static func parseWindows(_ raw: String, key: String) throws(FaultError) -> [Window] {
            var windows: [Window] = []
            for item in raw.split(separator: ",", omittingEmptySubsequences: false) {
                if item.hasPrefix("-") {
                    throw FaultError(key: key, value: raw, reason: "'\(item)' has a negative time")
                }
                let ends = item.split(separator: "-", omittingEmptySubsequences: false)
                guard ends.count == 2 else {
                    throw FaultError(
                        key: key, value: raw, reason: "'\(item)' is not a window FROM-TO in seconds (like 60-90.5)")
                }
                windows.append(Window(
                    from: try parseSeconds(ends[0], key: key, value: raw),
                    to: try parseSeconds(ends[1], key: key, value: raw)))
            }
            return windows
        }

        /// Whole or decimal seconds, to the nanosecond: `12`, `12.5`. Exact (no floating
        /// point), so `0.1` is 100 ms and a window's end is where it was written.
        static func parseSeconds(_ text: Substring, key: String, value: String) throws(FaultError) -> Duration {
            let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
            let whole = parts[0]
            let fraction = parts.count == 2 ? parts[1] : ""
            let isDigits = { (s: Substring) in !s.isEmpty && s.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
            if text.hasPrefix("-") {
                throw FaultError(key: key, value: value, reason: "'\(text)' is negative")
            }
            guard isDigits(whole), parts.count == 1 || isDigits(fraction) else {
                throw FaultError(
                    key: key, value: value, reason: "'\(text)' is not a number of seconds (like 12 or 12.5)")
            }
            guard fraction.count <= 9 else {
                throw FaultError(key: key, value: value, reason: "'\(text)' is finer than a nanosecond")
            }
            guard whole.count <= 9, let seconds = Int64(whole) else {
                throw FaultError(key: key, value: value, reason: "'\(text)' is too large (at most 999999999 seconds)")
            }
            let nanos = Int64(fraction + String(repeating: "0", count: 9 - fraction.count)) ?? 0
            return .nanoseconds(seconds * 1_000_000_000 + nanos)
        }

        static func parseSeconds(_ text: String, key: String, value: String) throws(FaultError) -> Duration {
            try parseSeconds(Substring(text), key: key, value: value)
        }

        /// `12`, `12.5`, `0.000000001`: seconds as written in a URI.
        static func seconds(_ duration: Duration) -> String {
            let ns = duration.nanoseconds
            let sign = ns < 0 ? "-" : ""
            let whole = abs(ns) / 1_000_000_000, fraction = abs(ns) % 1_000_000_000
            guard fraction != 0 else { return "\(sign)\(whole)" }
            var digits = String(fraction)
            digits = String(repeating: "0", count: 9 - digits.count) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            return "\(sign)\(whole).\(digits)"
        }
    }

    /// A fault that cannot be scripted as given: the query key, its value and the reason.
    public struct FaultError: Error, Hashable, Sendable, CustomStringConvertible {
        public var key: String
        public var value: String
        public var reason: String

        public init(key: String, value: String, reason: String) {
            self.key = key
            self.value = value
            self.reason = reason
        }

        public var description: String { "\(key)=\(value): \(reason)" }
    }
}
