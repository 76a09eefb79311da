internal import CLibXML2

/// libxml2, opened when a GPX file is first read (`dlopen`), not linked into `pacer`.
///
/// Linked, it was loaded with ICU, liblzma and zlib before `main` by every command, about
/// 0.76 M instructions of dynamic linking at each start, for a parser only GPX import uses.
/// It is opened here once, by the SONAME of the headers built against
/// (`PACER_LIBXML2_SONAME`, shim.h), its functions filled into a table in C
/// (`pacer_xml_open`) that the shim's helpers call through; the Debian package still depends on
/// it by name (scripts/package-deb.sh). LinuxHardware's `DynamicLibrary` does the same for
/// libgps and libespeak-ng; Storage is below LinuxHardware, so it has its own, in C.
struct LibXML2: @unchecked Sendable {
    /// The functions, filled once and only read after (so the type may be shared).
    let functions: UnsafePointer<pacer_xml_library>

    /// Opened once, on first use; the error is kept and given again to every caller.
    static let loaded: Result<LibXML2, LibXML2Error> = open(PACER_LIBXML2_SONAME)

    /// Opens `soname`: the library, or why it could not be opened, in words that name it and
    /// say how to install it.
    static func open(_ soname: String) -> Result<LibXML2, LibXML2Error> {
        let table = UnsafeMutablePointer<pacer_xml_library>.allocate(capacity: 1)
        table.initialize(to: pacer_xml_library())
        if let reason = pacer_xml_open(soname, table) {
            table.deallocate()
            return .failure(LibXML2Error(soname: soname, reason: String(cString: reason)))
        }
        return .success(LibXML2(functions: UnsafePointer(table)))
    }
}

/// libxml2 could not be opened, or lacks a function: which, why, and how to install it (the
/// words of LinuxHardware's `DynamicLibraryError`).
struct LibXML2Error: Error, Equatable, Sendable, CustomStringConvertible {
    var soname: String
    var reason: String

    /// How the words begin.
    static let prefix = "cannot load "

    var description: String {
        "\(Self.prefix)\(soname) (\(reason)); install it: apt-get install \(PACER_LIBXML2_PACKAGE)"
    }
}

extension GPXReader {
    /// The SONAME of the libxml2 this build opens to read GPX (for `pacer version`).
    public static var xmlLibrary: String { PACER_LIBXML2_SONAME }
}
