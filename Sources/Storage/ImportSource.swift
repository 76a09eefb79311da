import GRDB

extension GPXExchange {
    /// Names what an import came from (its `source`), when the file read was a copy: a file
    /// uploaded to the companion page is read from a temporary folder, and stored as
    /// coming from the name the browser gave it.
    public func setSource(_ source: String, of result: ImportResult) throws {
        let table = result.kind == .route ? "routes" : "activities"
        try write { db in
            try db.execute(sql: "UPDATE \(table) SET source = ? WHERE id = ?", arguments: [source, result.id])
        }
    }
}
