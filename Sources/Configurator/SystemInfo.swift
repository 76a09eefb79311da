import LinuxHardware

/// What the firmware was built against, for `pacer version` and bug reports.
public enum SystemInfo {
    public static var libgpsAPI: String { SystemLibraries.libgpsAPI }
    public static var alsa: String { SystemLibraries.alsa }
    public static var openedWhenUsed: [String] { SystemLibraries.openedWhenUsed }
}
