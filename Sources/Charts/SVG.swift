/// An SVG picture built element by element: every attribute value and every text is escaped
/// (`Markup.escape`), every number written with one decimal at most, so the same figures give
/// the same bytes and the result is always well-formed XML.
public struct SVG: Sendable {
    public var width: Double
    public var height: Double
    private var body: [String] = []

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// `<name a="v" …/>`, or with `text` between its tags.
    public mutating func element(_ name: String, _ attributes: [(String, String)], text: String? = nil) {
        var s = "<\(name)"
        for (key, value) in attributes { s += " \(key)=\"\(Markup.escape(value))\"" }
        if let text {
            s += ">\(Markup.escape(text))</\(name)>"
        } else {
            s += "/>"
        }
        body.append(s)
    }

    /// Opens a group (`<g …>`); close it with `close()`.
    public mutating func group(_ attributes: [(String, String)]) {
        var s = "<g"
        for (key, value) in attributes { s += " \(key)=\"\(Markup.escape(value))\"" }
        body.append(s + ">")
    }

    public mutating func close() { body.append("</g>") }

    public enum Anchor: String, Sendable { case start, middle, end }

    public mutating func text(
        _ text: String, x: Double, y: Double, size: Double = 12, anchor: Anchor = .start, bold: Bool = false,
        fill: String = "#222", extra: [(String, String)] = []
    ) {
        var attributes = [("x", Markup.number(x)), ("y", Markup.number(y))]
        if size != 12 { attributes.append(("font-size", Markup.number(size))) }
        if anchor != .start { attributes.append(("text-anchor", anchor.rawValue)) }
        if bold { attributes.append(("font-weight", "bold")) }
        if fill != "#222" { attributes.append(("fill", fill)) }
        element("text", attributes + extra, text: text)
    }

    public mutating func line(
        _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String = "#222", width: Double = 1,
        dash: String? = nil
    ) {
        var attributes = [("x1", Markup.number(x1)), ("y1", Markup.number(y1)), ("x2", Markup.number(x2)),
                          ("y2", Markup.number(y2)), ("stroke", stroke)]
        if width != 1 { attributes.append(("stroke-width", Markup.number(width))) }
        if let dash { attributes.append(("stroke-dasharray", dash)) }
        element("line", attributes)
    }

    public mutating func rect(
        x: Double, y: Double, width: Double, height: Double, fill: String, extra: [(String, String)] = []
    ) {
        element("rect", [("x", Markup.number(x)), ("y", Markup.number(y)), ("width", Markup.number(max(0, width))),
                         ("height", Markup.number(max(0, height))), ("fill", fill)] + extra)
    }

    public mutating func circle(cx: Double, cy: Double, r: Double, fill: String, extra: [(String, String)] = []) {
        element("circle", [("cx", Markup.number(cx)), ("cy", Markup.number(cy)), ("r", Markup.number(r)),
                           ("fill", fill)] + extra)
    }

    /// A path through `points` (`M x y L x y …`); empty when there are none.
    public static func pathData(_ points: [(x: Double, y: Double)], closed: Bool = false) -> String {
        var d = ""
        for (i, p) in points.enumerated() {
            d += (i == 0 ? "M" : " L") + Markup.number(p.x) + " " + Markup.number(p.y)
        }
        return closed && !d.isEmpty ? d + " Z" : d
    }

    /// The picture: `title` is its accessible name (`<title>`, which a browser also shows
    /// on hovering), `id` names it in a page.
    public func render(title: String, id: String? = nil) -> String {
        var s = "<svg xmlns=\"http://www.w3.org/2000/svg\""
        if let id { s += " id=\"\(Markup.escape(id))\"" }
        s += " width=\"\(Markup.number(width))\" height=\"\(Markup.number(height))\""
        s += " viewBox=\"0 0 \(Markup.number(width)) \(Markup.number(height))\" role=\"img\""
        s += " font-family=\"\(Markup.escape(TextMetrics.fontFamily))\" font-size=\"12\">\n"
        s += "<title>\(Markup.escape(title))</title>\n"
        s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        for line in body { s += line + "\n" }
        return s + "</svg>\n"
    }
}

extension SVG {
    /// The texts of a picture this type wrote that reach past its edges, said with their
    /// extent ("`63` spans 753…767 of 760"): a check that no label is cut. It follows
    /// `<g transform="translate(x y)">` groups and each text's anchor and size, and measures
    /// with `TextMetrics`.
    public static func overflowingTexts(_ svg: String) -> [String] {
        // Without Foundation: a plain search for the few strings needed.
        func find(_ needle: String, in hay: Substring, last: Bool = false) -> Range<Substring.Index>? {
            let n = Array(needle)
            var found: Range<Substring.Index>?
            var i = hay.startIndex
            while i < hay.endIndex {
                var j = i, k = 0
                while k < n.count, j < hay.endIndex, hay[j] == n[k] {
                    j = hay.index(after: j)
                    k += 1
                }
                if k == n.count {
                    found = i..<j
                    if !last { return found }
                }
                i = hay.index(after: i)
            }
            return found
        }
        func attribute(_ name: String, in line: Substring) -> String? {
            guard let start = find(" \(name)=\"", in: line) else { return nil }
            let rest = line[start.upperBound...]
            return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
        }
        func unescape(_ s: Substring) -> String {
            var out = ""
            var rest = s
            while let amp = rest.firstIndex(of: "&") {
                out += rest[..<amp]
                let tail = rest[amp...]
                let entities = [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&amp;", "&")]
                if let (entity, char) = entities.first(where: { tail.hasPrefix($0.0) }) {
                    out += char
                    rest = tail.dropFirst(entity.count)
                } else {
                    out += "&"
                    rest = tail.dropFirst()
                }
            }
            return out + rest
        }
        var width = 0.0, height = 0.0
        var offsets: [(Double, Double)] = [(0, 0)]
        var problems: [String] = []
        for line in svg.split(separator: "\n") {
            if line.hasPrefix("<svg") {
                width = Double(attribute("width", in: line) ?? "") ?? 0
                height = Double(attribute("height", in: line) ?? "") ?? 0
            } else if line.hasPrefix("<g") {
                var offset = offsets[offsets.count - 1]
                if let t = attribute("transform", in: line), t.hasPrefix("translate(") {
                    let numbers = t.dropFirst("translate(".count).dropLast().split(separator: " ").compactMap { Double($0) }
                    if numbers.count == 2 { offset = (offset.0 + numbers[0], offset.1 + numbers[1]) }
                }
                offsets.append(offset)
            } else if line.hasPrefix("</g>") {
                offsets.removeLast()
            } else if line.hasPrefix("<text"), let open = line.firstIndex(of: ">"),
                      let close = find("</text>", in: line, last: true) {
                let text = unescape(line[line.index(after: open)..<close.lowerBound])
                let size = Double(attribute("font-size", in: line) ?? "") ?? 12
                let w = TextMetrics.width(text, size: size, bold: attribute("font-weight", in: line) == "bold")
                let x = (Double(attribute("x", in: line) ?? "") ?? 0) + offsets[offsets.count - 1].0
                let y = (Double(attribute("y", in: line) ?? "") ?? 0) + offsets[offsets.count - 1].1
                let x0 = switch attribute("text-anchor", in: line) {
                case "middle": x - w / 2
                case "end": x - w
                default: x
                }
                if x0 < -0.5 || x0 + w > width + 0.5 || y - size * 0.8 < -0.5 || y + size * 0.25 > height + 0.5 {
                    problems.append("`\(text)` spans \(Markup.number(x0))…\(Markup.number(x0 + w)) across, "
                        + "\(Markup.number(y - size * 0.8))…\(Markup.number(y + size * 0.25)) down, of \(Markup.number(width)) × \(Markup.number(height))")
                }
            }
        }
        return problems
    }
}
