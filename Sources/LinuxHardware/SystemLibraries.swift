import CALSA
import CESpeak
import CGPS
import CSDBus

/// Versions of the system libraries the Linux adapters are built against, for `pacer version`
/// and bug reports.
public enum SystemLibraries {
    /// gpsd's client API version (major.minor) from `gps.h`.
    public static var libgpsAPI: String {
        "\(GPSD_API_MAJOR_VERSION).\(GPSD_API_MINOR_VERSION)"
    }

    /// The libraries opened when first used rather than linked (`DynamicLibrary`): their
    /// SONAMEs, as this build opens them.
    public static var openedWhenUsed: [String] {
        [PACER_LIBGPS_SONAME, PACER_LIBASOUND_SONAME, PACER_LIBESPEAK_NG_SONAME, PACER_LIBSYSTEMD_SONAME]
    }

    /// The version of the libasound this machine has (opening it, as a sound would), or why
    /// there is none.
    public static var alsa: String {
        switch LibASound.loaded {
        case .success(let asound): return asound.version().map { String(cString: $0) } ?? "unknown"
        case .failure(let problem): return "not available: \(problem)"
        }
    }
}
