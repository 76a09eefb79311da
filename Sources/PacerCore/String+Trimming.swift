extension String {
    /// The string without leading and trailing whitespace (spaces, tabs, newlines) and NULs:
    /// a sysfs attribute's line, a sentence cut out of an utterance. Foundation-free, as
    /// PacerCore is.
    public func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0.isWhitespace || $0 == "\0" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(self[first...last])
    }
}
