import ArgumentParser
import Coaching
import Configurator
#if canImport(Glibc)
import Glibc
#endif
import LinuxHardware
import ScenarioRunner
import Simulation
import Storage

/// Exit statuses by `sysexits.h`, what scripts and systemd read of a failure. docs/reference.md
/// lists them.
enum ExitStatus: Int32, CaseIterable {
    /// The command line is wrong: an unknown option, a bad value (with the usage text).
    case usage = 64
    /// A data file or input is not right: a broken plan, profile, scenario or GPX file, an
    /// expired plan, an impossible import.
    case dataError = 65
    /// An input does not exist: a file, a plan's name, an activity's or route's id, a data
    /// folder without a database.
    case noInput = 66
    /// A part or service is not there: no GPS fix, a part missing at `hw check`, no device
    /// on the control socket.
    case unavailable = 69
    /// An output cannot be written: a GPX, SVG or recording file, a database that cannot be
    /// created.
    case cannotCreate = 73
    /// A read or write failed on the way: the track could not all be stored.
    case ioError = 74
    /// Busy, try again: another Pacer holds the data folder or the control socket; the
    /// device did not answer in time.
    case temporary = 75
    /// This user may not: a data folder or control socket of group pacer's for a user outside
    /// it (the error says how to join), a folder another user owns.
    case noPermission = 77
    /// The settings are wrong: a broken or missing settings file, a part that cannot be
    /// configured, no plan for the device.
    case config = 78

    /// The status for an error from the layers below; nil for the command line's own
    /// (ArgumentParser's usage errors, help, `ExitCode`), which keep theirs.
    static func of(_ error: any Error) -> ExitStatus? {
        switch error {
        case let failure as CommandFailure: return failure.status
        case let error as StorageError:
            switch error {
            case .busy: return .temporary
            case .unknownActivity, .unknownRoute, .unknownPlan, .noDatabase: return .noInput
            case .cannotOpen, .file, .exists: return .cannotCreate
            case .database, .writeFailed: return .ioError
            case .notRecording, .invalidPoint, .invalidPlan, .invalidAthlete, .athleteChangeOutOfOrder, .tooFewPoints,
                 .alreadyImported:
                return .dataError
            }
        case let error as DataFileError: return error.isUnreadable ? .noInput : .dataError
        case let error as GPXError: return error.isUnreadable ? .noInput : error.isLibraryMissing ? .unavailable : .dataError
        case let error as FITError: return error.offset == nil && (error.reason == "no such file"
            || error.reason.hasPrefix("cannot read") || error.reason.hasPrefix("is a folder")) ? .noInput : .dataError
        // A recording given as the GPS (`--source file:run.nmea`) that cannot be opened.
        case let error as RecordingError: return [ENOENT, ENOTDIR, EISDIR, EACCES].contains(error.errno) ? .noInput : nil
        case is DataFolderAccessError: return .noPermission
        case let error as ConfigurationError: return error.cause.flatMap(of) ?? .config
        case is PlanStartError, is PlanGeneratorError, is ScenarioError: return .dataError
        case let error as ShareError: return error.isUsage ? .usage : .dataError
        case let error as ControlSocketError:
            return error.reason.contains("already running") ? .temporary : .cannotCreate
        case let error as ControlClientError:
            switch error {
            case .noServer: return .unavailable
            case .permissionDenied: return .noPermission
            case .timedOut: return .temporary
            case .invalidCommand: return .usage
            case .failed: return .unavailable
            }
        default: return nil
        }
    }
}

/// A command that could not do its work for a reason other than its command line: it exits
/// with `status`, saying `message`, without the usage text (which is for usage errors).
struct CommandFailure: Error, CustomStringConvertible {
    var status: ExitStatus
    var message: String

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    /// An error from below, with its status (`ExitStatus.of`; a data error when it has
    /// none), and what it was about in front.
    init(_ error: any Error, _ context: String? = nil) {
        let text = String(describing: error)
        self.init(ExitStatus.of(error) ?? .dataError, context.map { "\($0): \(text)" } ?? text)
    }

    /// Settings that cannot be used.
    static func config(_ error: any Error) -> CommandFailure {
        CommandFailure(.config, String(describing: error))
    }

    var description: String { message }
}
