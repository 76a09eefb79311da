#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A shared library opened when it is first needed (`dlopen`), not linked into `pacer`.
///
/// Every library `pacer` links is loaded, with all the libraries it needs in turn, before
/// `main` runs, by every command. libgps and libespeak-ng bring dozens of libraries with them
/// (PulseAudio and X11 among them), and their dynamic linking at each start, for a receiver and
/// a voice that only `pacer device`, `gps` commands and `hw check` use (docs/measured.md).
/// They are opened here instead, once, by their SONAME, the one the headers were built against
/// (the `PACER_…_SONAME` macros of the system-library modules); the Debian package still depends
/// on them by name (scripts/package-deb.sh).
struct DynamicLibrary: @unchecked Sendable {
    /// The SONAME opened.
    let soname: String
    /// How to install it, for an error.
    let install: String
    private let handle: UnsafeMutableRawPointer

    /// Opens `soname`: the library, or why it could not be opened, in words that name the
    /// library and say how to install it (`install`).
    static func open(_ soname: String, install: String) -> Result<DynamicLibrary, DynamicLibraryError> {
        _ = dlerror()
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "dlopen failed"
            return .failure(DynamicLibraryError(soname: soname, reason: reason, install: install))
        }
        return .success(DynamicLibrary(soname: soname, install: install, handle: handle))
    }

    /// The function `name` as `type` (a `@convention(c)` function type, from the header's
    /// `pacer_…_f` typedefs so that the signature is the header's); an error naming it when the
    /// library has no such symbol.
    func function<F>(_ name: String, as type: F.Type) throws(DynamicLibraryError) -> F {
        _ = dlerror()
        guard let symbol = dlsym(handle, name) else {
            throw DynamicLibraryError(soname: soname, reason: "it has no function \(name)", install: install)
        }
        return unsafeBitCast(symbol, to: type)
    }
}

/// A library that could not be opened, or lacks a function: which, why, and how to install it.
struct DynamicLibraryError: Error, Equatable, Sendable, CustomStringConvertible {
    var soname: String
    var reason: String
    var install: String

    var description: String {
        "cannot load \(soname) (\(reason)); \(install)"
    }
}

/// A library's function table, opened once at first use (`LibGPS`, `LibASound`, `LibESpeakNG`): what each
/// gives is its `loaded` result; why it cannot be used and the table itself are the same for all.
protocol OpenedLibrary: Sendable {
    /// Opened once, on first use; the error is kept and given again to every caller.
    static var loaded: Result<Self, DynamicLibraryError> { get }
}

extension OpenedLibrary {
    /// `soname` opened and its table made by `table` (the type's initialiser, which looks up
    /// each function), or why not: what a `loaded` is.
    static func opening(
        _ soname: String, install: String, _ table: (DynamicLibrary) throws(DynamicLibraryError) -> Self
    ) -> Result<Self, DynamicLibraryError> {
        DynamicLibrary.open(soname, install: install).flatMap { library in
            Result { () throws(DynamicLibraryError) in try table(library) }
        }
    }

    /// Why the library cannot be used, or nil when it can.
    static var problem: DynamicLibraryError? {
        if case .failure(let error) = loaded { return error }
        return nil
    }

    /// The library, for a caller that checked `problem` first.
    static var functions: Self {
        switch loaded {
        case .success(let library): return library
        case .failure(let error): preconditionFailure("\(error.soname) used without checking \(Self.self).problem: \(error)")
        }
    }
}
