import Synchronization

/// The companion's time: seconds on a monotonic clock from any origin. The device gives the
/// system's; tests give one they move by hand.
public typealias CompanionClock = @Sendable () -> Double

/// Logged-in browsers: a session is a random 256-bit id (the `pacer_session` cookie) with its
/// own CSRF token; kept in memory only (a restart logs everyone out), dropped after
/// `idleLimit` without a request, at most `capacity` (the least recently used dropped first).
public final class CompanionSessions: Sendable {
    public static let idleLimit: Double = 12 * 3600
    public static let capacity = 16

    public struct Session: Sendable, Equatable {
        public var id: String
        public var csrf: String
        public var lastUsed: Double
        /// The notice a redirect left, shown by the next page, once.
        public var notice: String?
    }

    private let clock: CompanionClock
    private let sessions = Mutex<[String: Session]>([:])

    public init(clock: @escaping CompanionClock) { self.clock = clock }

    /// A new session (the oldest dropped when there are `capacity` already).
    public func open() -> Session {
        let now = clock()
        let session = Session(id: Self.randomToken(), csrf: Self.randomToken(), lastUsed: now)
        sessions.withLock { all in
            all = all.filter { now - $0.value.lastUsed <= Self.idleLimit }
            while all.count >= Self.capacity, let oldest = all.min(by: { $0.value.lastUsed < $1.value.lastUsed }) {
                all[oldest.key] = nil
            }
            all[session.id] = session
        }
        return session
    }

    /// The session of a cookie's id, touched (nil when unknown or expired, which drops it).
    public func use(_ id: String) -> Session? {
        let now = clock()
        return sessions.withLock { all -> Session? in
            guard var session = all[id] else { return nil }
            guard now - session.lastUsed <= Self.idleLimit else {
                all[id] = nil
                return nil
            }
            session.lastUsed = now
            all[id] = session
            return session
        }
    }

    public func close(_ id: String) { sessions.withLock { $0[id] = nil } }

    public func setNotice(_ notice: String?, for id: String) {
        sessions.withLock { $0[id]?.notice = notice }
    }

    /// The pending notice, cleared.
    public func takeNotice(for id: String) -> String? {
        sessions.withLock { all in
            defer { all[id]?.notice = nil }
            return all[id]?.notice
        }
    }

    public var count: Int { sessions.withLock { $0.count } }

    /// 256 random bits from the system's generator (getrandom), as 64 hex digits.
    public static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        var text = ""
        for _ in 0..<4 {
            let word = generator.next() as UInt64
            let hex = String(word, radix: 16)
            text += String(repeating: "0", count: 16 - hex.count) + hex
        }
        return text
    }

    /// A token as `randomToken` makes them: the only cookie value looked up.
    public static func isWellFormed(_ token: String) -> Bool {
        token.utf8.count == 64 && token.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}

/// Failed logins, by address and in all: after `freeFailures` from one address, that address
/// waits `baseDelay` seconds, doubled at every further failure up to `maximumDelay`; over
/// `globalLimit` failures from anywhere within `globalWindow`, every login waits (a
/// neighbour with many addresses).
public final class LoginLimiter: Sendable {
    public static let freeFailures = 5
    public static let baseDelay: Double = 30
    public static let maximumDelay: Double = 15 * 60
    public static let globalLimit = 50
    public static let globalWindow: Double = 10 * 60
    static let trackedAddresses = 1024

    struct Record { var failures: Int; var last: Double }
    struct State { var byAddress: [String: Record] = [:]; var recent: [Double] = [] }

    private let clock: CompanionClock
    private let state = Mutex(State())

    public init(clock: @escaping CompanionClock) { self.clock = clock }

    /// Seconds `address` must wait before its next try, nil when it may try now.
    public func wait(for address: String) -> Double? {
        let now = clock()
        return state.withLock { s -> Double? in
            s.recent.removeAll { now - $0 > Self.globalWindow }
            var wait: Double = 0
            if s.recent.count >= Self.globalLimit, let oldest = s.recent.first {
                wait = oldest + Self.globalWindow - now
            }
            if let record = s.byAddress[address], record.failures >= Self.freeFailures {
                let delay = min(Self.maximumDelay, Self.baseDelay * Double(1 << min(record.failures - Self.freeFailures, 20)))
                wait = max(wait, record.last + delay - now)
            }
            return wait > 0 ? wait : nil
        }
    }

    public func failed(from address: String) {
        let now = clock()
        state.withLock { s in
            var record = s.byAddress[address] ?? Record(failures: 0, last: now)
            record.failures += 1
            record.last = now
            s.byAddress[address] = record
            s.recent.append(now)
            if s.byAddress.count > Self.trackedAddresses,
               let oldest = s.byAddress.min(by: { $0.value.last < $1.value.last }) {
                s.byAddress[oldest.key] = nil
            }
        }
    }

    public func succeeded(from address: String) { state.withLock { $0.byAddress[address] = nil } }
}
