import Testing

@testable import Storage

/// libxml2, opened when a GPX file is first read (issue 27): what a missing library or
/// function says, and what a GPX import makes of it.
@Suite("libxml2 opened at first use")
struct LibXML2Tests {
    @Test func aMissingLibraryIsNamedWithHowToInstallIt() {
        guard case .failure(let error) = LibXML2.open("libpacer-nonesuch.so.9") else {
            Issue.record("a library that is not there opened")
            return
        }
        #expect(error.soname == "libpacer-nonesuch.so.9")
        #expect(error.description.hasPrefix("cannot load libpacer-nonesuch.so.9 ("))
        #expect(error.description.contains("No such file"))
        #expect(error.description.contains("; install it: apt-get install libxml2"))
    }

    @Test func aLibraryWithoutTheFunctionsIsRefusedNamingOne() {
        guard case .failure(let error) = LibXML2.open("libm.so.6") else {
            Issue.record("libm opened as libxml2")
            return
        }
        #expect(error.reason.contains("xmlCreatePushParserCtxt"), "\(error)")
    }

    /// The library this build was made against opens, with every function the reader calls.
    @Test func theLibraryBuiltAgainstOpens() throws {
        _ = try LibXML2.loaded.get()
    }

    /// A GPX file read without the library: its words, and not a file's fault.
    @Test func aMissingLibraryIsNotTheFilesFault() {
        let missing = LibXML2Error(soname: "libxml2.so.2", reason: "libxml2.so.2: cannot open shared object file")
        let error = GPXError(file: "run.gpx", line: nil, reason: missing.description)
        #expect(error.isLibraryMissing)
        #expect(!error.isUnreadable)
        #expect(!GPXError(file: "run.gpx", line: 3, reason: "not well-formed XML: a '<' or '>' is missing").isLibraryMissing)
        #expect(error.description.hasPrefix("run.gpx: cannot load libxml2.so.2 ("))
    }
}
