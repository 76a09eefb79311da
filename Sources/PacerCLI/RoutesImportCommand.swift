import ArgumentParser
import Companion
import Storage

extension RoutesCommand {
    /// `pacer routes import FILE.gpx` or `--from-activity ID` (R19, R23).
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import a route to follow: a GPX file, or a recorded activity (--from-activity).",
            discussion: """
                A GPX file is read as `pacer activities import FILE --as route` reads it (its \
                <rte> points, else its track as one line, and its waypoints; a broken file is \
                refused with the line and the reason). --from-activity ID makes a route of a past \
                run: its track points in order and its waypoints, so that it can be run again \
                with `pacer run --route` or `pacer device --route`.
                """)

        @Argument(help: "The GPX file (or give --from-activity).")
        var file: String?

        @Option(name: .customLong("from-activity"), help: "A recorded activity's id (pacer activities list) to make a route of.")
        var activity: Int64?

        @Option(name: .long, help: "The name to give it (default: the file's name for it, or the activity's name).")
        var name: String?

        @OptionGroup var store: StoreOptions

        func validate() throws {
            guard (file == nil) != (activity == nil) else {
                throw ValidationError("give a GPX file or --from-activity ID, one of the two")
            }
        }

        func run() throws {
            let opened = try store.open(writing: true)
            let result: ImportResult
            if let activity {
                result = try opened.routes.importRoute(fromActivity: try opened.activities.activity(activity), name: name)
            } else {
                result = try opened.gpx.importGPX(file: file!, as: .route, name: name)
            }
            printLines(ImportSummary.lines(result, from: activity.map { "from activity #\($0)" }))
        }
    }
}
