import CGPS
#if canImport(Glibc)
import Glibc
#endif

/// libgps's functions, opened at first use (see `DynamicLibrary`): `open`, `close`, `unpack`,
/// `errstr` are the header's `gps_open`, ... with the header's own signatures (which differ
/// between gpsd versions: `gps_unpack` takes a `char *` in API 11, a `const char *` later).
/// The gpsd source calls them through `LibGPS.functions` once `LibGPS.problem` is nil; a call
/// of the header's function by its own name would not link, libgps not being linked.
struct LibGPS: OpenedLibrary {
    /// How to install the library, for the error a missing one gives.
    static let install = "install gpsd's client library, the package that holds \(PACER_LIBGPS_SONAME) (apt-cache search --names-only '^libgps[0-9]')"

    let open: pacer_gps_open_f
    let close: pacer_gps_close_f
    private let streamFunction: pacer_gps_stream_f
    let unpack: pacer_gps_unpack_f
    let errstr: pacer_gps_errstr_f

    /// Opened once, on first use; the error is kept and given again to every caller.
    static let loaded = opening(PACER_LIBGPS_SONAME, install: install, LibGPS.init)


    private init(_ library: DynamicLibrary) throws(DynamicLibraryError) {
        open = try library.function("gps_open", as: pacer_gps_open_f.self)
        close = try library.function("gps_close", as: pacer_gps_close_f.self)
        streamFunction = try library.function("gps_stream", as: pacer_gps_stream_f.self)
        unpack = try library.function("gps_unpack", as: pacer_gps_unpack_f.self)
        errstr = try library.function("gps_errstr", as: pacer_gps_errstr_f.self)
    }
}

extension LibGPS {
    /// `gps_stream(data, flags, NULL)`: starts or stops the watch for every device gpsd has
    /// (the device argument is a `void *` in API 11, a `const char *` in 14 and 16, so the
    /// call is made in C, `pacer_gps_stream`).
    func stream(_ data: UnsafeMutablePointer<gps_data_t>, _ flags: UInt32) -> Int32 {
        pacer_gps_stream(streamFunction, data, flags)
    }
}
