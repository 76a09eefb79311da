import Testing

@testable import LinuxHardware

/// Libraries opened at first use (issue 27): what a missing library or function says.
@Suite("Libraries opened at first use")
struct DynamicLibraryTests {
    @Test func aMissingLibraryIsNamedWithHowToInstallIt() {
        let result = DynamicLibrary.open("libpacer-nonesuch.so.9", install: "install it: apt-get install nonesuch9")
        guard case .failure(let error) = result else {
            Issue.record("a library that is not there opened")
            return
        }
        #expect(error.soname == "libpacer-nonesuch.so.9")
        #expect(error.description.hasPrefix("cannot load libpacer-nonesuch.so.9 ("))
        #expect(error.description.contains("No such file"))
        #expect(error.description.hasSuffix("; install it: apt-get install nonesuch9"))
    }

    @Test func aMissingFunctionIsNamed() throws {
        let libm = try DynamicLibrary.open("libm.so.6", install: "glibc").get()
        typealias Unary = @convention(c) (Double) -> Double
        let cosine = try libm.function("cos", as: Unary.self)
        #expect(cosine(0) == 1)
        #expect(throws: DynamicLibraryError(soname: "libm.so.6", reason: "it has no function pacer_nonesuch", install: "glibc")) {
            _ = try libm.function("pacer_nonesuch", as: Unary.self)
        }
    }

    /// The libraries this build was made against open, with every function the adapters call.
    @Test func libgpsAndEspeakNgOpen() {
        #expect(LibGPS.problem == nil, "\(String(describing: LibGPS.problem))")
        #expect(LibESpeakNG.problem == nil, "\(String(describing: LibESpeakNG.problem))")
    }
}
