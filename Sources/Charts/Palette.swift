/// The colours the report uses, one meaning each, told apart by people with the common
/// red-green colour blindness (blue, green and orange differ in lightness too).
public enum Palette {
    public static func colour(_ pace: PaceClass) -> String {
        switch pace {
        case .slow: "#1f6fc5"
        case .inBand: "#2b9348"
        case .fast: "#e8590c"
        case .unbanded: "#5f3dc4"
        }
    }

    public static func meaning(_ pace: PaceClass) -> String {
        switch pace {
        case .slow: "slower than the band"
        case .inBand: "in the band"
        case .fast: "faster than the band"
        case .unbanded: "no band"
        }
    }

    public static let band = "#2b9348"
    public static let start = "#2b9348"
    public static let end = "#212529"
    public static let waypoint = "#a61e4d"
    public static let text = "#222"
    public static let muted = "#666"
    public static let terrainFill = "#e6d9bf"
    public static let terrainLine = "#8a6a2f"
}
