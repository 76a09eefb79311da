import Testing
#if canImport(Glibc)
import Glibc
#endif

@testable import LinuxHardware

/// Libraries opened at first use: what a missing library or function says.
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
    @Test func libgpsLibasoundAndEspeakNgOpen() {
        #expect(LibGPS.problem == nil, "\(String(describing: LibGPS.problem))")
        #expect(LibASound.problem == nil, "\(String(describing: LibASound.problem))")
        #expect(LibESpeakNG.problem == nil, "\(String(describing: LibESpeakNG.problem))")
    }

    /// A board without libasound: the buzzer's error (its one warning, `hw check`'s problem)
    /// names the device, the library and how to install it; codes still read without it.
    @Test func noLibasoundIsSaidWithHowToInstallIt() {
        let problem = DynamicLibraryError(
            soname: "libasound.so.2", reason: "libasound.so.2: cannot open shared object file: No such file or directory",
            install: LibASound.install)
        let error = ALSAError.load(device: "plughw:1,0", problem)
        #expect(error.operation == .load)
        #expect(error.description == "no sound from ALSA device 'plughw:1,0': cannot load libasound.so.2 (libasound.so.2: cannot open shared object file: No such file or directory); install it: apt-get install libasound2 (Debian 13: libasound2t64)")
        #expect(LibASound.errorText(-EBUSY) == "Device or resource busy")
    }
}
