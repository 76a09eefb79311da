import Configurator
import Foundation
import Coaching
import Storage

/// A mistake in what the runner chose, named by the option the command line gives it
/// (`--include: …`, `--tcx: …`): the command turns it into its usage error, the page shows
/// it as it is, so both say the same.
public struct ChoiceError: Error, Hashable, Sendable, CustomStringConvertible {
    public var option: String
    public var reason: String

    public init(_ option: String, _ reason: String) {
        self.option = option
        self.reason = reason
    }

    public var description: String { "\(option): \(reason)" }
}

/// What `pacer activities share` and the companion's share both decide from the runner's
/// choice: the items, the distance hidden round the ends, the format's own limits.
public enum ShareRequest {
    /// The choice from `--include LIST` (nil: the track alone) and `--hide-within DISTANCE`,
    /// with the settings' places; refused as the command refuses it.
    public static func choice(include: String?, hideWithin: String?, zones: [PrivacyZone]) throws(ChoiceError) -> ShareChoice {
        var choice = ShareChoice(zones: zones)
        if let include {
            do { choice.items = try ShareItem.parse(list: include) } catch { throw ChoiceError("--include", "\(error)") }
        }
        if let hideWithin {
            let metres: Double
            do { metres = try ShareChoice.distance(parsing: hideWithin) } catch { throw ChoiceError("--hide-within", "\(error)") }
            guard Settings.privacyRadius.contains(metres) else {
                throw ChoiceError("--hide-within", Settings.privacyRadius.refusal(of: metres, written: hideWithin))
            }
            choice.hideWithin = metres
        }
        do { try choice.check() } catch { throw ChoiceError("--include", "\(error)") }
        return choice
    }

    /// What a TCX or FIT share cannot carry, refused before anything is read: no track, no
    /// times (each point needs one), waypoints (neither has a place for them).
    public static func checkLapShare(_ choice: ShareChoice, _ format: ShareFormat) throws(ChoiceError) {
        do { try choice.checkLapShare(format) } catch { throw ChoiceError("--\(format.rawValue)", "\(error)") }
    }
}

/// What an import says: what it stored, what it dropped or left out, and the notes.
public enum ImportSummary {
    public static func lines(_ result: ImportResult, from source: String? = nil) -> [String] {
        let what = result.kind == .route ? "route" : "activity"
        var lines = ["Imported \(what) #\(result.id) \"\(result.name)\": \(ActivityFormat.kilometres(result.distance)) km, "
                     + "\(result.pointCount) points, \(result.waypointCount) waypoints" + (source.map { " (\($0))" } ?? "")]
        if result.droppedPoints > 0 {
            lines.append("Dropped \(result.droppedPoints) of the file's \(result.pointsRead) points as GPS glitches "
                         + "(out of line with the track, and it comes back).")
        }
        if result.droppedElevations > 0 {
            let count = result.droppedElevations == 1 ? "1 elevation" : "\(result.droppedElevations) elevations"
            lines.append("Left out \(count) no runner meets (the points are kept).")
        }
        lines.append(contentsOf: result.notes.map { "  \($0)" })
        if result.notesLeftOut > 0 { lines.append("  and \(result.notesLeftOut) more like these") }
        if let notKept = notKept(result) { lines.append(notKept) }
        return lines
    }

    /// What the file held that Pacer does not keep, with the counts and why: heart rate on a
    /// route (an activity keeps it, when in Garmin's TrackPointExtension or a FIT record),
    /// and cadence.
    public static func notKept(_ result: ImportResult) -> String? {
        func points(_ n: Int) -> String { n == 1 ? "1 point" : "\(n) points" }
        var parts: [String] = [], why: [String] = []
        if result.heartRatesNotKept > 0 {
            parts.append("the heart rate of \(points(result.heartRatesNotKept))")
            why.append(result.kind == .route ? "a route keeps no heart rate"
                : "heart rate is read from Garmin's TrackPointExtension only")
        }
        if result.cadencesNotKept > 0 {
            parts.append("the cadence of \(points(result.cadencesNotKept))")
            why.append("Pacer records no cadence")
        }
        guard !parts.isEmpty else { return nil }
        return "Not kept: \(parts.joined(separator: " and ")) in the file (\(why.joined(separator: "; ")))."
    }

    /// `pacer activities import`'s lines: the summary with what the file became said second.
    public static func importLines(_ result: ImportResult) -> [String] {
        var lines = lines(result)
        // What it became, said: a route is not in `activities list`.
        lines.insert(result.kind == .route
            ? "Stored as route #\(result.id), to follow (pacer routes list; pacer run --route \(result.id)), not as an "
                + "activity: --as activity keeps a past run among the activities."
            : "Stored as activity #\(result.id), a past run (pacer activities list).", at: 1)
        return lines
    }
}

/// Imports of a GPX or FIT file, for the command line (a path) and the companion (an
/// upload's bytes): the same readers, the same plausibility checks, the same messages.
public enum FileImport {
    /// Imports `path` as `kind`: a FIT file (named .fit, or with FIT's signature) with the
    /// FIT reader, anything else as GPX.
    /// `again`: a run the store has already is imported anyway (else refused).
    public static func importFile(_ path: String, as kind: ImportKind, name: String?,
                                  into store: PacerStore, again: Bool = false) throws -> ImportResult {
        FITReader.looksLikeFIT(path: path)
            ? try store.fit.importFIT(file: path, as: kind, name: name, again: again)
            : try store.gpx.importGPX(file: path, as: kind, name: name, again: again)
    }

    /// The name an upload is known by in messages and as the import's source: the last part
    /// of the name the browser gave, never a path; `upload.gpx` when it gave none usable.
    public static func uploadName(_ filename: String) -> String {
        let last = filename.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        let clean = String(last.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init))
        return clean.isEmpty || clean == "." || clean == ".." ? "upload.gpx" : clean
    }

    /// Imports an uploaded file: its bytes are written to a private temporary folder under
    /// the upload's name (so a `.fit` name picks the FIT reader, as on the command line) and
    /// imported from there; messages, notes and the stored source name the upload, not the
    /// temporary copy. The copy is removed.
    public static func importUpload(_ upload: Upload, as kind: ImportKind, name: String?,
                                    into store: PacerStore, again: Bool = false) throws -> ImportResult {
        let shown = uploadName(upload.filename)
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("pacer-upload-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/" + shown
        guard FileManager.default.createFile(atPath: path, contents: Data(upload.bytes)) else {
            throw StorageError.file(path: shown, reason: "the upload could not be stored for reading")
        }
        var result: ImportResult
        do {
            result = try importFile(path, as: kind, name: name, into: store, again: again)
        } catch var error as GPXError {
            error.file = shown
            throw error
        } catch var error as FITError {
            error.file = shown
            throw error
        } catch StorageError.alreadyImported(_, let activity, let started, let distance) {
            throw StorageError.alreadyImported(path: shown, activity: activity, started: started, distance: distance)
        } catch {
            throw UploadError(description: "\(error)".replacingOccurrences(of: path, with: shown))
        }
        result.notes = result.notes.map { note in
            var note = note
            note.file = shown
            return note
        }
        try store.gpx.setSource(shown, of: result)
        return result
    }
}

/// An error met importing an upload, with the upload's name in place of its temporary copy's.
public struct UploadError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String
}
