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

    /// Heart-rate zones by `HeartRateZones.zone(of:)`'s numbering (0 below zone 1, 6 above
    /// zone 5): cool to hot and light to dark, so the order reads without the hue; the bands
    /// behind the line are these at a fifth of their strength.
    public static func heartRateZone(_ n: Int) -> String {
        ["#ced4da", "#74c0fc", "#1c7ed6", "#40c057", "#f59f00", "#e03131", "#862e2e"][max(0, min(6, n))]
    }

    /// The heart-rate line: near black, readable over every zone's band.
    public static let heartRate = "#343a40"
}
