import Coaching
import PacerCore

/// The data folder's store, opened once: the database (`PacerDatabase`: the pool, the
/// folder's lock, the migrations) and the part over each thing stored, which a caller uses
/// directly: the activities (`activities`, the runtime's `ActivityLog`), the athlete's
/// profile (`athlete`), the plans (`plans`), the routes and the route chosen (`routes`), and
/// the exchange formats (`gpx`, `tcx`, `fit`). The parts share the one database; none of
/// them passes calls to another.
public final class PacerStore: Sendable {
    public let database: PacerDatabase
    public let activities: ActivityLogStore
    public let athlete: AthleteStore
    public let plans: PlanStore
    public let routes: RouteStore
    public let gpx: GPXExchange
    public let tcx: TCXExchange
    public let fit: FITExchange

    /// Opens `<directory>/pacer.sqlite`: for writing (the default), creating the folder and
    /// the database when needed, under the folder's lock; for reading, only when it exists.
    public convenience init(directory: String, access: PacerDatabase.Access = .write) throws {
        self.init(database: try PacerDatabase(directory: directory, access: access))
    }

    /// Opens (creating when needed) the database file at `path` and brings its schema up to
    /// date; `lock`: the folder's lock, kept as long as the store.
    public convenience init(path: String, lock: DataFolderLock? = nil) throws {
        self.init(database: try PacerDatabase(path: path, lock: lock))
    }

    public init(database: PacerDatabase) {
        self.database = database
        activities = ActivityLogStore(database: database)
        athlete = AthleteStore(database: database)
        plans = PlanStore(database: database)
        routes = RouteStore(database: database)
        gpx = GPXExchange(database: database)
        tcx = TCXExchange(database: database)
        fit = FITExchange(database: database)
    }
}
