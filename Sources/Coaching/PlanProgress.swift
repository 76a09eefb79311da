import PacerCore

/// A plan's identity, by which its progress is kept, so that two plans with one name keep
/// their own: `plan:HASH`, the hash being FNV-1a (64 bits) of the plan file's bytes (a
/// bundled plan, a generated one, the runner's). A plan file that changes is a new plan,
/// with progress of its own.
public struct PlanKey: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init?(rawValue: String) {
        guard rawValue.hasPrefix("plan:"), rawValue.count == 21,
              rawValue.dropFirst(5).allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else { return nil }
        self.rawValue = rawValue
    }

    /// The identity of the plan file with these bytes.
    public init(contents bytes: some Sequence<UInt8>) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            hash ^= UInt64(b)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        rawValue = "plan:" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    public var description: String { rawValue }
}

/// Which workout of a plan comes next (R4, R14).
public enum NextWorkout: Hashable, Sendable {
    /// The first workout not completed yet (index from 0).
    case workout(Int)
    /// Every workout has a completed activity.
    case allDone
    /// The plan's deadline has passed.
    case expired(deadline: CivilDate)
}

extension TrainingPlan {
    /// The first workout without a completed activity (`done`: the indices that have one), if
    /// the plan may still be followed on `today`.
    public func nextWorkout(done: Set<Int>, on today: CivilDate) -> NextWorkout {
        if let deadline, hasExpired(on: today) { return .expired(deadline: deadline) }
        guard let index = workouts.indices.first(where: { !done.contains($0) }) else { return .allDone }
        return .workout(index)
    }
}
