/// How wide a label is drawn, so charts leave room for it instead of clipping it.
///
/// The widths are DejaVu Sans's advances (the font the report and the charts ask for first,
/// and Debian's default sans-serif), in thousandths of an em, for printable ASCII; any other
/// character counts a full em, wider than most. Other sans-serif fonts (Liberation Sans,
/// Arial, Helvetica) are narrower, so a label measured here fits in them too.
public enum TextMetrics {
    /// The font family every chart asks for.
    public static let fontFamily = "DejaVu Sans, Verdana, sans-serif"

    /// U+0020 to U+007E.
    static let advances: [Int] = [
        318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636, 636, 636, 636, 636,
        636, 636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295, 656,
        557, 863, 748, 787, 603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390, 838, 500, 500, 613,
        635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612, 635, 635, 411, 521, 392, 634, 592, 818,
        592, 592, 525, 636, 337, 636, 838,
    ]

    /// Pixels `text` takes at `size` pixels; bold is about a tenth wider.
    public static func width(_ text: String, size: Double, bold: Bool = false) -> Double {
        var thousandths = 0
        for scalar in text.unicodeScalars {
            let v = Int(scalar.value)
            thousandths += (0x20...0x7E).contains(v) ? advances[v - 0x20] : 1000
        }
        return Double(thousandths) / 1000 * size * (bold ? 1.1 : 1)
    }
}
