import Foundation
import Coaching
import Logging
import PacerCore
import Runtime
import Storage
import Synchronization

/// The device's store as the device meets it from power-on: its activity log and its
/// agenda (the plan and its progress).
///
/// Opened at power-on when it can be. When it cannot (a full card, a card Linux remounted
/// read-only, a folder this user may not use) the device does not exit: a unit that
/// restarts it every few seconds would coach nothing and say nothing. It stays up, and the
/// agenda is unavailable with the reason, so the device gives the `fault` cue at power-on
/// with the reason in the journal, and refuses a start with it (`ctl start` says why). The
/// store is opened again at every later question (a start pressed, the next offer): a card
/// freed or remounted read-write over SSH needs no restart. Another Pacer holding the
/// folder is not this case: that is a setup to fix, refused at once (`DataFolderLock`).
public final class DeviceStorage: ActivityLog, WorkoutAgenda {
    private let settings: Settings
    private let logger: Logger
    private let opened = Mutex<PacerStore?>(nil)
    /// The plan last offered, kept for a data folder removed under the device.
    private let planMemory = PlanAgenda.Memory()

    /// Opens the store in `settings`' data folder when it can; `problem` says why not.
    /// Throws only when another writer holds the folder.
    public init(settings: Settings, logger: Logger) throws(ConfigurationError) {
        self.settings = settings
        self.logger = logger
        do {
            _ = try store()
        } catch {
            if case .busy? = error.cause as? StorageError { throw error }
            logger.error("storage: \(error): the device stays up and opens it again at the next start")
        }
    }

    /// The store, opened now when it was not (activities a power cut left unfinished are
    /// closed first, as at every power-on).
    public func store() throws(ConfigurationError) -> PacerStore {
        try opened.withLock { opened throws(ConfigurationError) -> PacerStore in
            if let opened { return opened }
            let store = try Configurator.makeActivityStore(settings)
            let recovered: [Int64]
            do {
                recovered = try store.activities.recoverUnfinished()
            } catch {
                throw ConfigurationError("recovering unfinished activities: \(error)", cause: error)
            }
            for id in recovered {
                logger.notice("recovered unfinished activity \(id) (stored as recovered with every committed point)")
            }
            opened = store
            return store
        }
    }

    /// The store when it is open (nil while the data folder cannot be used).
    public var openStore: PacerStore? { opened.withLock { $0 } }

    // MARK: WorkoutAgenda

    public func today(on date: CivilDate) -> TodaysWorkout {
        let wasOpen = openStore != nil
        let store: PacerStore
        do {
            store = try self.store()
        } catch {
            return .unavailable("the data folder cannot be used, so nothing could be stored: \(error)")
        }
        if !wasOpen { logger.notice("storage works now: \(settings.dataDirectory) is open") }
        return PlanAgenda(plans: store.plans, memory: planMemory).today(on: date)
    }

    /// The route chosen for the next workout (`RouteStore.chosenFollowedRoute`).
    public func chosenRoute() throws -> FollowedRoute? {
        try store().routes.chosenFollowedRoute()
    }

    /// The profile and announcements of the data folder's `device.yaml` (the companion page,
    /// `pacer settings set`) over the settings, read again at each start; nil without one,
    /// or when it cannot be used (the journal says why; the workout keeps what it had).
    public func workoutSettings() -> WorkoutSettings? {
        let path = DeviceOverlay.path(dataDirectory: settings.dataDirectory)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            let chosen = try DeviceOverlay.load(dataDirectory: settings.dataDirectory)
                .applied(to: settings, file: path, keepProfile: settings.profileFromCommandLine)
            var profile = try PowerProfileLoader.load(name: chosen.profile, hardwareDir: chosen.hardwareDirectory)
            var chain = try PowerProfileLoader.stepDownChain(from: profile, hardwareDir: chosen.hardwareDirectory)
            if let anticipation = settings.anticipation {
                profile.anticipation = anticipation
                for name in chain.keys { chain[name]?.anticipation = anticipation }
            }
            return WorkoutSettings(profile: profile, profiles: chain, speech: chosen.speech)
        } catch {
            logger.error("\(path): \(error): the workout starts with the settings it had")
            return nil
        }
    }

    // MARK: ActivityLog (a workout starts only with the store open: `begin` opens it)

    public func begin(_ start: ActivityStart) throws -> Int64 {
        try store().activities.begin(start)
    }

    private var log: ActivityLogStore {
        get throws {
            guard let store = openStore else { throw StorageError.database("the data folder is not open") }
            return store.activities
        }
    }

    public func append(_ point: TrackPoint, to activity: Int64) throws { try log.append(point, to: activity) }
    @discardableResult
    public func add(_ waypoint: Waypoint, to activity: Int64) throws -> Int { try log.add(waypoint, to: activity) }
    public func revise(_ waypoint: Waypoint, number: Int, of activity: Int64) throws {
        try log.revise(waypoint, number: number, of: activity)
    }
    public func add(_ cue: CueRecord, to activity: Int64) throws { try log.add(cue, to: activity) }
    public func add(_ result: PhaseResult, to activity: Int64) throws { try log.add(result, to: activity) }
    public func add(_ lap: LapMark, number: Int, to activity: Int64) throws { try log.add(lap, number: number, to: activity) }
    public func update(_ totals: ActivityTotals, for activity: Int64) throws { try log.update(totals, for: activity) }
    public func commit() throws { try log.commit() }
    public func finish(_ activity: Int64, end: ActivityEnd, endedAt: UTCTimestamp?, activeTime: Duration) throws {
        try log.finish(activity, end: end, endedAt: endedAt, activeTime: activeTime)
    }
    public var uncommitted: (waiting: Int, dropped: Int) { openStore?.activities.uncommitted ?? (0, 0) }
}
