import Coaching
import GRDB
import PacerCore

/// The athlete profile with the history of its changes (R12, R15).
///
/// **The profile.** Each change is a row of `athlete_profile` holding the whole profile as it
/// became, with `changed_at`: the current profile is the latest row, the history is every
/// row, and when a field last changed is read off consecutive rows. A set that changes nothing
/// stores nothing; a change dated before the latest stored one is refused (the history stays
/// in time order). The store refuses a profile whose `problems` are not empty, whoever calls.
public final class AthleteStore: DatabasePart {
    let database: PacerDatabase

    init(database: PacerDatabase) {
        self.database = database
    }

    /// Records `profile` as the athlete's, changed at `time`. Returns false, storing nothing,
    /// when it equals the current profile. Durations are kept to the millisecond.
    /// Throws `invalidAthlete` when the profile has problems, `athleteChangeOutOfOrder` when
    /// `time` is before the latest change.
    @discardableResult
    public func setAthlete(_ profile: AthleteProfile, at time: UTCTimestamp) throws -> Bool {
        let profile = Self.toMilliseconds(profile)
        let problems = profile.problems
        guard problems.isEmpty else {
            throw StorageError.invalidAthlete(problems.map(\.message).joined(separator: "; "))
        }
        return try write { db in
            if let latest = try Self.latestAthlete(db) {
                if latest.profile == profile { return false }
                guard latest.since <= time else {
                    throw StorageError.athleteChangeOutOfOrder(latest: latest.since, given: time)
                }
            }
            try db.execute(
                sql: """
                    INSERT INTO athlete_profile (changed_at, weight_kg, height_cm, weekly_frequency, has_raced,
                        has_run_marathon, best_race_distance_m, best_race_time_ms, best_marathon_ms,
                        max_hr, resting_hr, threshold_hr, age)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    time.millisecondsSince1970, profile.weight, profile.height, profile.weeklyFrequency,
                    profile.hasRaced, profile.hasRunMarathon, profile.bestRace?.distance,
                    profile.bestRace?.time.milliseconds, profile.bestMarathon?.milliseconds,
                    profile.heartRate.maximum, profile.heartRate.resting, profile.heartRate.threshold, profile.heartRate.age,
                ])
            return true
        }
    }

    /// The current profile and when it last changed; nil when none was ever set.
    public func athlete() throws -> (profile: AthleteProfile, since: UTCTimestamp)? {
        try read { db in try Self.latestAthlete(db) }
    }

    /// Every change, oldest first: the whole profile as it became, and when.
    public func athleteHistory() throws -> [(AthleteProfile, UTCTimestamp)] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM athlete_profile ORDER BY changed_at, id").map(Self.athleteRow)
        }
    }

    /// When each field of the current profile last changed; empty when there is no profile.
    public func athleteFieldsSince() throws -> [AthleteProfile.Field: UTCTimestamp] {
        Self.fieldsSince(try athleteHistory())
    }

    /// When each field last took its current value, from a history oldest first: every field
    /// dates from the first entry, then from each later entry that changed it.
    public static func fieldsSince(_ history: [(AthleteProfile, UTCTimestamp)]) -> [AthleteProfile.Field: UTCTimestamp] {
        var since: [AthleteProfile.Field: UTCTimestamp] = [:]
        var previous: AthleteProfile?
        for (profile, time) in history {
            let changed = previous.map { profile.fields(differingFrom: $0) } ?? AthleteProfile.Field.allCases
            for field in changed { since[field] = time }
            previous = profile
        }
        return since
    }

    static func latestAthlete(_ db: Database) throws -> (profile: AthleteProfile, since: UTCTimestamp)? {
        try Row.fetchOne(db, sql: "SELECT * FROM athlete_profile ORDER BY changed_at DESC, id DESC LIMIT 1")
            .map(athleteRow)
    }

    static func athleteRow(_ row: Row) throws -> (profile: AthleteProfile, since: UTCTimestamp) {
        var race: AthleteProfile.Mark?
        if let distance = row["best_race_distance_m"] as Double?, let time = row["best_race_time_ms"] as Int64? {
            race = AthleteProfile.Mark(distance: distance, time: .milliseconds(time))
        }
        let profile = AthleteProfile(
            weight: row["weight_kg"], height: row["height_cm"], weeklyFrequency: row["weekly_frequency"],
            hasRaced: row["has_raced"], hasRunMarathon: row["has_run_marathon"], bestRace: race,
            bestMarathon: (row["best_marathon_ms"] as Int64?).map { .milliseconds($0) },
            heartRate: HeartRateFigures(maximum: row["max_hr"], resting: row["resting_hr"],
                                        threshold: row["threshold_hr"], age: row["age"]))
        return (profile, UTCTimestamp(millisecondsSince1970: row["changed_at"]))
    }

    /// The profile with its durations truncated to the millisecond, as the table keeps them,
    /// so that setting the same profile again compares equal to what was stored.
    static func toMilliseconds(_ profile: AthleteProfile) -> AthleteProfile {
        var profile = profile
        if let race = profile.bestRace {
            profile.bestRace = AthleteProfile.Mark(distance: race.distance, time: .milliseconds(race.time.milliseconds))
        }
        profile.bestMarathon = profile.bestMarathon.map { .milliseconds($0.milliseconds) }
        return profile
    }
}
