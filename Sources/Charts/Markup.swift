/// Text from data (activity and waypoint names, file names) made safe for XML and HTML: the
/// five characters with a meaning in markup are written as references, and characters XML
/// forbids (the C0 controls other than tab and newlines) are dropped, so the SVG stays valid
/// XML whatever a GPX file called its points.
public enum Markup {
    /// For element text and attribute values (quoted with `"`) alike.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                // XML 1.0's Char: no C0 controls but the three above, no U+FFFE/U+FFFF.
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A number for an SVG coordinate or length: one decimal, no exponent, `-0` written `0`.
    public static func number(_ value: Double) -> String {
        let v = value.isFinite ? value : 0
        let tenths = Int64((v * 10).rounded(.toNearestOrAwayFromZero))
        if tenths == 0 { return "0" }
        let sign = tenths < 0 ? "-" : ""
        let units = abs(tenths)
        return units % 10 == 0 ? "\(sign)\(units / 10)" : "\(sign)\(units / 10).\(units % 10)"
    }
}
