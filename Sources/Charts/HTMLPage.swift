/// A report as one self-contained HTML page: its style inline, its pictures inline SVG, no
/// script, no font, no image and no link to fetch, and a Content-Security-Policy that forbids
/// fetching anything, so the page shows the same offline as online and leaks nothing. It is
/// also well-formed XML (void elements closed, no named entities but XML's), so `xmllint`
/// checks the whole page, pictures included.
public enum HTMLPage {
    public static func document(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8"/>
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'"/>
        <meta name="viewport" content="width=device-width, initial-scale=1"/>
        <title>\(Markup.escape(title))</title>
        <style>
        \(css)
        </style>
        </head>
        <body>
        <main>
        \(body)
        </main>
        </body>
        </html>

        """
    }

    static let css = """
        body { margin: 0; background: #f1f3f5; color: #212529; font: 15px/1.45 DejaVu Sans, Verdana, sans-serif; }
        main { max-width: 980px; margin: 0 auto; padding: 18px 10px 30px; background: #fff; }
        h1 { font-size: 22px; margin: 4px 0 2px; overflow-wrap: anywhere; }
        h2 { font-size: 17px; margin: 26px 0 8px; padding-bottom: 3px; border-bottom: 1px solid #dee2e6; }
        p.meta { margin: 0 0 12px; color: #495057; font-size: 14px; overflow-wrap: anywhere; }
        dl.figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(180px, 1fr)); gap: 8px; margin: 0; }
        dl.figures div { background: #f8f9fa; border: 1px solid #e9ecef; border-radius: 6px; padding: 6px 10px; }
        dt { font-size: 12px; color: #495057; }
        dd { margin: 0; font-size: 18px; font-weight: bold; }
        dd small { display: block; font-size: 12px; font-weight: normal; color: #495057; }
        figure { margin: 0; }
        figure svg { display: block; max-width: 100%; height: auto; }
        figcaption, p.note { font-size: 13px; color: #495057; margin-top: 4px; }
        div.table { max-width: 100%; overflow-x: auto; }
        table { border-collapse: collapse; font-size: 14px; }
        th, td { padding: 3px 10px; border-bottom: 1px solid #e9ecef; text-align: left; }
        td { white-space: nowrap; }
        td.t { white-space: normal; overflow-wrap: anywhere; min-width: 9em; }
        td.p { white-space: normal; min-width: 12em; }
        th { background: #f8f9fa; font-size: 13px; }
        td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
        footer { margin-top: 28px; font-size: 12px; color: #868e96; }
        """

    /// A header row and the rows; `numeric` columns are right-aligned. A figure, a time or a
    /// date stays on one line; `prose` columns (a sentence) wrap between words; `names` are
    /// the columns of free text from data (a waypoint's name): only there may an unbroken
    /// string break anywhere, so a long one takes the room left and no other word is broken.
    /// A table wider than the page (on a phone) scrolls within its own box.
    public static func table(_ header: [String], _ rows: [[String]], numeric: Set<Int> = [],
                             names: Set<Int> = [], prose: Set<Int> = []) -> String {
        var s = "<div class=\"table\"><table>\n<thead><tr>"
        for (i, h) in header.enumerated() {
            s += numeric.contains(i) ? "<th class=\"n\">" : "<th>"
            s += Markup.escape(h) + "</th>"
        }
        s += "</tr></thead>\n<tbody>\n"
        for row in rows {
            s += "<tr>"
            for (i, cell) in row.enumerated() {
                s += (numeric.contains(i) ? "<td class=\"n\">" : names.contains(i) ? "<td class=\"t\">"
                      : prose.contains(i) ? "<td class=\"p\">" : "<td>")
                    + Markup.escape(cell) + "</td>"
            }
            s += "</tr>\n"
        }
        return s + "</tbody>\n</table></div>\n"
    }

    /// The headline figures, each a name, a value and an optional note.
    public static func figures(_ items: [(name: String, value: String, note: String?)]) -> String {
        var s = "<dl class=\"figures\">\n"
        for item in items {
            s += "<div><dt>\(Markup.escape(item.name))</dt><dd>\(Markup.escape(item.value))"
            if let note = item.note { s += " <small>\(Markup.escape(note))</small>" }
            s += "</dd></div>\n"
        }
        return s + "</dl>\n"
    }

    public static func section(_ heading: String, _ content: String) -> String {
        "<section>\n<h2>\(Markup.escape(heading))</h2>\n\(content)</section>\n"
    }

    public static func figure(_ svg: String, caption: String) -> String {
        "<figure>\n\(svg)<figcaption>\(Markup.escape(caption))</figcaption>\n</figure>\n"
    }

    public static func paragraph(_ text: String, `class`: String? = nil) -> String {
        (`class`.map { "<p class=\"\($0)\">" } ?? "<p>") + Markup.escape(text) + "</p>\n"
    }
}
