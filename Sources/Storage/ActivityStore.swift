import Coaching
import PacerCore

/// The data folder's store as one value: it opens the database (`PacerDatabase`) and hands out
/// the parts, each over what it stores: the activities (`ActivityLogStore`, the runtime's
/// `ActivityLog`), the athlete profile (`AthleteStore`), the plans (`PlanStore`), the routes
/// (`RouteStore`), and GPX in and out (`GPXExchange`). Its methods only pass a call to the
/// part that answers it, so a caller can hold the store and use any part.
public final class ActivityStore: ActivityLog, Sendable {
    /// The database file's name inside the data folder.
    public static let fileName = PacerDatabase.fileName
    public typealias Access = PacerDatabase.Access

    public let database: PacerDatabase
    public let activityLog: ActivityLogStore
    public let athleteStore: AthleteStore
    public let planStore: PlanStore
    public let routeStore: RouteStore
    public let gpxExchange: GPXExchange

    /// Opens `<directory>/pacer.sqlite`: for writing (the default), creating the folder and
    /// the database when needed, under the folder's lock; for reading, only when it exists.
    public convenience init(directory: String, access: Access = .write) throws {
        self.init(database: try PacerDatabase(directory: directory, access: access))
    }

    /// Opens (creating when needed) the database file at `path` and brings its schema up to
    /// date; `lock`: the folder's lock, kept as long as the store.
    public convenience init(path: String, lock: DataFolderLock? = nil) throws {
        self.init(database: try PacerDatabase(path: path, lock: lock))
    }

    public init(database: PacerDatabase) {
        self.database = database
        activityLog = ActivityLogStore(database: database)
        athleteStore = AthleteStore(database: database)
        planStore = PlanStore(database: database)
        routeStore = RouteStore(database: database)
        gpxExchange = GPXExchange(database: database)
    }

    public var path: String { database.path }

    /// Closes the database; the store must not be used afterwards. Buffered items that were
    /// not committed are dropped, as a power cut would drop them.
    public func close() throws { try database.close() }

    public func durability() throws -> (journalMode: String, synchronous: Int) { try database.durability() }

    public func rowCounts() throws -> [String: Int] { try database.rowCounts() }

    // MARK: - Activities (ActivityLogStore)

    public static let maximumPendingPoints = ActivityLogStore.maximumPendingPoints

    public func begin(_ start: ActivityStart) throws -> Int64 { try activityLog.begin(start) }
    public func append(_ point: TrackPoint, to activity: Int64) throws { try activityLog.append(point, to: activity) }
    @discardableResult
    public func add(_ waypoint: Waypoint, to activity: Int64) throws -> Int { try activityLog.add(waypoint, to: activity) }
    public func revise(_ waypoint: Waypoint, number: Int, of activity: Int64) throws {
        try activityLog.revise(waypoint, number: number, of: activity)
    }
    public func add(_ cue: CueRecord, to activity: Int64) throws { try activityLog.add(cue, to: activity) }
    public func add(_ result: PhaseResult, to activity: Int64) throws { try activityLog.add(result, to: activity) }
    public func update(_ totals: ActivityTotals, for activity: Int64) throws {
        try activityLog.update(totals, for: activity)
    }
    public func commit() throws { try activityLog.commit() }
    public var uncommitted: (waiting: Int, dropped: Int) { activityLog.uncommitted }
    public func finish(_ activity: Int64, end: ActivityEnd, endedAt: UTCTimestamp?, activeTime: Duration) throws {
        try activityLog.finish(activity, end: end, endedAt: endedAt, activeTime: activeTime)
    }
    public func discard(_ activity: Int64) throws { try activityLog.discard(activity) }
    public func recoverUnfinished() throws -> [Int64] { try activityLog.recoverUnfinished() }

    public func activities() throws -> [ActivitySummary] { try activityLog.activities() }
    public func activity(_ id: Int64) throws -> ActivityDetail { try activityLog.activity(id) }
    public func overallStatistics() throws -> OverallStatistics { try activityLog.overallStatistics() }

    // MARK: - The athlete (AthleteStore)

    @discardableResult
    public func setAthlete(_ profile: AthleteProfile, at time: UTCTimestamp) throws -> Bool {
        try athleteStore.setAthlete(profile, at: time)
    }
    public func athlete() throws -> (profile: AthleteProfile, since: UTCTimestamp)? { try athleteStore.athlete() }
    public func athleteHistory() throws -> [(AthleteProfile, UTCTimestamp)] { try athleteStore.athleteHistory() }
    public func athleteFieldsSince() throws -> [AthleteProfile.Field: UTCTimestamp] {
        try athleteStore.athleteFieldsSince()
    }
    public static func fieldsSince(_ history: [(AthleteProfile, UTCTimestamp)]) -> [AthleteProfile.Field: UTCTimestamp] {
        AthleteStore.fieldsSince(history)
    }

    // MARK: - Plans (PlanStore)

    public func storePlan(name: String, goal: Goal, deadline: CivilDate?, yaml: String, workouts: Int,
                          createdAt: UTCTimestamp) throws -> Int64 {
        try planStore.storePlan(name: name, goal: goal, deadline: deadline, yaml: yaml, workouts: workouts,
                                createdAt: createdAt)
    }
    public func plans() throws -> [StoredPlan] { try planStore.plans() }
    public func plan(id: Int64) throws -> StoredPlan { try planStore.plan(id: id) }
    public func workoutsDone(plan key: PlanKey) throws -> Set<Int> { try planStore.workoutsDone(plan: key) }
    public func activePlan() throws -> (key: PlanKey, source: String)? { try planStore.activePlan() }
    public func setActivePlan(_ key: PlanKey, source: String, at time: UTCTimestamp) throws {
        try planStore.setActivePlan(key, source: source, at: time)
    }

    // MARK: - Routes (RouteStore)

    public func routes() throws -> [RouteSummary] { try routeStore.routes() }
    public func route(_ id: Int64) throws -> RouteDetail { try routeStore.route(id) }
    public func followedRoute(_ id: Int64) throws -> FollowedRoute { try routeStore.followedRoute(id) }
    /// Makes a route of activity `id` (`RouteStore.importRoute(fromActivity:name:)`).
    public func importRoute(fromActivity id: Int64, name: String? = nil) throws -> GPXImportResult {
        try routeStore.importRoute(fromActivity: try activityLog.activity(id), name: name)
    }

    // MARK: - GPX (GPXExchange)

    public func gpx(activity id: Int64, options: GPXExportOptions = .all) throws -> [UInt8] {
        try gpxExchange.gpx(activity: id, options: options)
    }
    @discardableResult
    public func exportGPX(activity id: Int64, to path: String, options: GPXExportOptions = .all) throws -> GPXExportReport {
        try gpxExchange.exportGPX(activity: id, to: path, options: options)
    }
    @discardableResult
    public func exportGPX(activity id: Int64, options: GPXExportOptions = .all,
                          to write: ([UInt8]) throws -> Void) throws -> GPXExportReport {
        try gpxExchange.exportGPX(activity: id, options: options, to: write)
    }
    public func exportGPX(route id: Int64, to path: String, options: GPXExportOptions = .all) throws {
        try gpxExchange.exportGPX(route: id, to: path, options: options)
    }
    public func exportGPX(route id: Int64, options: GPXExportOptions = .all, to write: ([UInt8]) throws -> Void) throws {
        try gpxExchange.exportGPX(route: id, options: options, to: write)
    }
    public func importGPX(file path: String, as kind: GPXImportKind, name: String? = nil,
                          rules: GPXPlausibility = .standard) throws -> GPXImportResult {
        try gpxExchange.importGPX(file: path, as: kind, name: name, rules: rules)
    }
    /// Several activities in one document (`GPXExchange.writeGPX(_:name:time:options:to:)`).
    public static func writeGPX(_ details: [ActivityDetail], name: String?, time: UTCTimestamp?,
                                options: GPXExportOptions = .all, to write: ([UInt8]) throws -> Void) throws {
        try GPXExchange.writeGPX(details, name: name, time: time, options: options, to: write)
    }
    @discardableResult
    public func share(activity id: Int64, to path: String, choice: ShareChoice,
                      secret: ShareSecret? = nil) throws -> ShareReport {
        try gpxExchange.share(activity: id, to: path, choice: choice, secret: secret)
    }
    /// The circles a share hides (`PrivacyCircle`), for checks.
    public func privacyCircles(activity id: Int64, choice: ShareChoice, secret: ShareSecret? = nil) throws -> [PrivacyCircle] {
        var options = choice.options
        options.secret = secret
        return try gpxExchange.privacyCircles(activity: id, options: options)
    }
    /// The device's share secret (`ShareSecret`).
    public func shareSecret() throws -> ShareSecret { try gpxExchange.shareSecret() }

    // MARK: - FIT (FITWriter, FITReader)

    /// Imports a FIT file as a route or a past activity (`GPXExchange.importFIT`).
    public func importFIT(file path: String, as kind: GPXImportKind, name: String? = nil,
                          rules: GPXPlausibility = .standard) throws -> GPXImportResult {
        try gpxExchange.importFIT(file: path, as: kind, name: name, rules: rules)
    }

    /// The activity as a FIT activity file (`FITWriter.activity(_:utcOffset:)`): its laps
    /// (the phases), its timer's pauses and the device's distance on every record.
    public func fit(activity id: Int64, utcOffset: Int64 = 0) throws -> [UInt8] {
        FITWriter.activity(try activityLog.activity(id), utcOffset: utcOffset)
    }

    /// Writes the activity as FIT to `path` through `OutputFile` (replaced only once complete).
    /// Returns the file's size in bytes.
    @discardableResult
    public func exportFIT(activity id: Int64, to path: String, utcOffset: Int64 = 0) throws -> Int {
        let bytes = try fit(activity: id, utcOffset: utcOffset)
        try OutputFile.write(path) { write in try write(bytes) }
        return bytes.count
    }
}
