import Foundation
import Storage

/// What the activities, routes and health sections share: an error turned into the page's
/// refusal (the same words as the command line's), ids from the path, small HTML pieces.
enum SectionSupport {
    /// A refusal with the error's own words: 404 for nothing such, 400 for a bad field or
    /// file, 503 for a data folder that cannot be used.
    static func refusal(_ error: any Error) -> PageResponse {
        if let storage = error as? StorageError {
            switch storage {
            case .unknownActivity, .unknownRoute, .unknownPlan: return .refused(status: 404, message: "\(storage)")
            case .cannotOpen, .busy, .noDatabase, .database: return .refused(status: 503, message: "\(storage)")
            case .alreadyImported: return .refused(status: 409, message: "\(storage)")
            default: return .refused(status: 400, message: "\(storage)")
            }
        }
        return .refused(status: 400, message: "\(error)")
    }

    /// Runs `body`, answering with its refusal when it throws.
    static func answer(_ body: () async throws -> PageResponse) async -> PageResponse {
        do {
            return try await body()
        } catch {
            return refusal(error)
        }
    }

    /// The `id` capture as a stored row's id; nil when it is not one.
    static func id(_ request: PageRequest) -> Int64? {
        guard let text = request.parameters["id"], let id = Int64(text), id > 0 else { return nil }
        return id
    }

    static func notAnID(_ request: PageRequest, _ what: String) -> PageResponse {
        .refused(status: 404, message: "no \(what) '\(request.parameters["id"] ?? "")': an id is a number (see the list)")
    }

    static func esc(_ text: String) -> String { CompanionHTML.escape(text) }

    /// A table with `id`, its header cells and rows of already escaped cells. Each cell carries
    /// its column's name (`data-label`): on a phone's width the rows are stacked, a cell a line
    /// with its name before it, so no column is cut off (CompanionAssets.css).
    static func table(id: String, header: [String], rows: [[String]], rowClass: String? = nil) -> String {
        var s = "<table id=\"\(esc(id))\" class=\"stack\"><thead><tr>"
        s += header.map { "<th>\(esc($0))</th>" }.joined()
        s += "</tr></thead><tbody>"
        for row in rows {
            s += rowClass.map { "<tr class=\"\(esc($0))\">" } ?? "<tr>"
            s += row.enumerated().map { i, cell in
                let label = i < header.count ? header[i] : ""
                return label.isEmpty ? "<td>\(cell)</td>" : "<td data-label=\"\(esc(label))\">\(cell)</td>"
            }.joined()
            s += "</tr>"
        }
        return s + "</tbody></table>"
    }

    /// A definition list of figures, each `<dt>` label and `<dd>` value (values escaped here).
    static func figures(id: String, _ items: [(String, String)]) -> String {
        "<dl id=\"\(esc(id))\">" + items.map { "<dt>\(esc($0.0))</dt><dd>\(esc($0.1))</dd>" }.joined() + "</dl>"
    }

    /// A file field and an optional name field, as the upload forms have them.
    static func uploadFields(accept: String) -> String {
        "<label>File <input type=\"file\" name=\"file\" accept=\"\(esc(accept))\" required/></label> "
            + "<label>Name <input type=\"text\" name=\"name\" placeholder=\"the file's name for it\"/></label> "
    }

    /// The upload of a form: its `file` field; refused naming the field when there is none.
    static func upload(_ request: PageRequest) throws -> Upload {
        guard let upload = request.uploads["file"], !upload.bytes.isEmpty else {
            throw ChoiceError("file", "choose a GPX or FIT file to upload (the form's file field was empty)")
        }
        return upload
    }

    /// The form's `name`, trimmed; nil when empty (the file's own name is used).
    static func name(_ request: PageRequest) -> String? {
        let name = request.form["name"]?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        return name.isEmpty ? nil : name
    }

    /// Bytes written by `body` to a file in a private temporary folder (for the store's
    /// writers that write a path: a share), read back and removed.
    static func bytes(named name: String, _ body: (String) throws -> Void) throws -> [UInt8] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pacer-share-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/" + name
        try body(path)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StorageError.file(path: name, reason: "the file written could not be read back")
        }
        return [UInt8](data)
    }
}
