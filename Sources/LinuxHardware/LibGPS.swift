import CGPS
#if canImport(Glibc)
import Glibc
#endif

/// libgps's functions, opened at first use (see `DynamicLibrary`). The functions below have
/// the names and signatures of the header's, so the gpsd source reads as a libgps client does;
/// they call through the pointers the library gave.
struct LibGPS: Sendable {
    /// How to install the library, for the error a missing one gives.
    static let install = "install gpsd's client library, the package that holds \(PACER_LIBGPS_SONAME) (apt-cache search --names-only '^libgps[0-9]')"

    let open: pacer_gps_open_f
    let close: pacer_gps_close_f
    let stream: pacer_gps_stream_f
    let unpack: pacer_gps_unpack_f
    let errstr: pacer_gps_errstr_f

    /// Opened once, on first use; the error is kept and given again to every caller.
    static let loaded: Result<LibGPS, DynamicLibraryError> = DynamicLibrary
        .open(PACER_LIBGPS_SONAME, install: install)
        .flatMap { library in Result { () throws(DynamicLibraryError) in try LibGPS(library) } }

    /// Why libgps cannot be used, or nil when it can.
    static var problem: DynamicLibraryError? {
        if case .failure(let error) = loaded { return error }
        return nil
    }

    private init(_ library: DynamicLibrary) throws(DynamicLibraryError) {
        open = try library.function("gps_open", as: pacer_gps_open_f.self)
        close = try library.function("gps_close", as: pacer_gps_close_f.self)
        stream = try library.function("gps_stream", as: pacer_gps_stream_f.self)
        unpack = try library.function("gps_unpack", as: pacer_gps_unpack_f.self)
        errstr = try library.function("gps_errstr", as: pacer_gps_errstr_f.self)
    }

    /// The library, for a caller that checked `problem` first.
    static var functions: LibGPS {
        switch loaded {
        case .success(let library): return library
        case .failure(let error): preconditionFailure("libgps used without checking LibGPS.problem: \(error)")
        }
    }
}

// The header's functions, through the opened library. Callers check `LibGPS.problem` before the
// first `gps_open`.
func gps_open(_ host: UnsafePointer<CChar>!, _ port: UnsafePointer<CChar>!,
              _ data: UnsafeMutablePointer<gps_data_t>!) -> Int32 {
    LibGPS.functions.open(host, port, data)
}

func gps_close(_ data: UnsafeMutablePointer<gps_data_t>!) -> Int32 {
    LibGPS.functions.close(data)
}

/// Starts or stops the watch for every device gpsd has (the header's third argument, a device
/// path, differs in type between gpsd versions and is always NULL here: `pacer_gps_stream`).
func gps_stream(_ data: UnsafeMutablePointer<gps_data_t>!, _ flags: UInt32) -> Int32 {
    pacer_gps_stream(LibGPS.functions.stream, data, flags)
}

/// A whole JSON line into `data` (gpsd 3.22's header takes a `char *`, later ones a
/// `const char *`: a mutable pointer is passed either way).
@discardableResult
func gps_unpack(_ line: UnsafeMutablePointer<CChar>!, _ data: UnsafeMutablePointer<gps_data_t>!) -> Int32 {
    LibGPS.functions.unpack(line, data)
}

func gps_errstr(_ code: Int32) -> UnsafePointer<CChar>! {
    LibGPS.functions.errstr(code)
}
