import LinuxHardware
import Storage

/// What the firmware was built against, for `pacer version` and bug reports.
public enum SystemInfo {
    public static var libgpsAPI: String { SystemLibraries.libgpsAPI }
    public static var alsa: String { SystemLibraries.alsa }
    /// The libraries opened when first used rather than linked: the Linux adapters' and the
    /// GPX reader's libxml2.
    public static var openedWhenUsed: [String] { SystemLibraries.openedWhenUsed + [GPXReader.xmlLibrary] }
}
