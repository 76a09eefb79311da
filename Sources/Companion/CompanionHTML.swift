import Charts

/// The pieces every companion page writes its HTML with: text escaped, and forms that carry
/// the session's CSRF token (a change without it is refused by the server).
public enum CompanionHTML {
    public static func escape(_ text: String) -> String { Markup.escape(text) }

    /// A POST form to `action` with the CSRF token, `content` (its fields) and a submit button.
    /// `upload`: multipart, for a file field.
    public static func form(action: String, csrf: String, upload: Bool = false, content: String = "",
                            button: String, id: String? = nil) -> String {
        var s = "<form method=\"post\" action=\"\(escape(action))\""
        if upload { s += " enctype=\"multipart/form-data\"" }
        if let id { s += " id=\"\(escape(id))\"" }
        s += ">"
        s += "<input type=\"hidden\" name=\"csrf\" value=\"\(escape(csrf))\"/>"
        s += content
        s += "<button type=\"submit\">\(escape(button))</button></form>"
        return s
    }

    /// A link.
    public static func link(_ path: String, _ text: String) -> String {
        "<a href=\"\(escape(path))\">\(escape(text))</a>"
    }
}
