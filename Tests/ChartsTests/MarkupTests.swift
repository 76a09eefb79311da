@testable import Charts
import Testing

@Suite("Markup and label widths")
struct MarkupTests {
    @Test func textFromDataIsEscapedForXMLAndHTML() {
        #expect(Markup.escape("<script>alert(\"x\")</script> & 'Co'")
            == "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;Co&#39;")
        // Characters XML forbids are dropped; tabs, newlines and the rest of Unicode stay.
        #expect(Markup.escape("a\u{0}b\u{1B}c\td\ne é ★") == "abc\td\ne é ★")
    }

    @Test func numbersHaveOneDecimalAndNoNegativeZero() {
        #expect(Markup.number(12) == "12")
        #expect(Markup.number(12.345) == "12.3")
        #expect(Markup.number(-0.04) == "0")
        #expect(Markup.number(-3.25) == "-3.3")
        #expect(Markup.number(.nan) == "0")
    }

    @Test func labelsAreMeasuredInDejaVuSansAdvances() {
        // Digits are 0.636 em: "63" at 11 px is 14 px wide.
        #expect(abs(TextMetrics.width("63", size: 11) - 2 * 0.636 * 11) < 1e-9)
        // A character outside ASCII counts a full em: never narrower than it draws.
        #expect(TextMetrics.width("é", size: 10) == 10)
        #expect(TextMetrics.width("W", size: 12, bold: true) > TextMetrics.width("W", size: 12))
    }

    @Test func anSVGIsWellFormedWhateverItsText() throws {
        var svg = SVG(width: 100, height: 50)
        svg.text("<b>&</b>", x: 1, y: 2)
        svg.element("path", [("d", "M0 0"), ("data-name", "\"quoted\"")])
        let text = svg.render(title: "a < b & c", id: "x")
        #expect(text.contains("&lt;b&gt;&amp;&lt;/b&gt;"))
        #expect(text.contains("data-name=\"&quot;quoted&quot;\""))
        #expect(text.contains("<title>a &lt; b &amp; c</title>"))
        try expectWellFormed(text)
    }
}
