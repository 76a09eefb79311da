import Foundation
import TestSupport
import Testing

/// docs/reference.md's table of commands against the program itself (issue 39, item 17:
/// `activities export --fit` and five of `battery compare`'s options were missing). The
/// command tree is ArgumentParser's own (`pacer --experimental-dump-help`); every command
/// without subcommands must have a row (`| \`pacer WORD …` whose first cell names it), and
/// every long option of it must be in its rows, but those many commands take, which the page
/// says once under the table.
@Suite("docs/reference.md against the commands")
struct ReferenceDocsTests {
    static let common: Set<String> = ["--config", "--data-dir", "--socket", "--timeout", "--help", "--version"]

    /// (command words, long options) of every command without subcommands.
    static func commands() throws -> [(path: [String], options: [String])] {
        let run = try Pacer.run(["--experimental-dump-help"])
        try #require(run.status == 0, "\(run.stderr)")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        var found: [(path: [String], options: [String])] = []
        func walk(_ command: [String: Any], _ path: [String]) {
            let subcommands = command["subcommands"] as? [[String: Any]] ?? []
            if !path.isEmpty, subcommands.isEmpty, path != ["help"] {
                let options = (command["arguments"] as? [[String: Any]] ?? []).flatMap { argument in
                    (argument["names"] as? [[String: Any]] ?? []).compactMap { name in
                        name["kind"] as? String == "long" ? (name["name"] as? String).map { "--" + $0 } : nil
                    }
                }
                found.append((path, options))
            }
            for sub in subcommands { walk(sub, path + [sub["commandName"] as? String ?? "?"]) }
        }
        walk(try #require(root["command"] as? [String: Any]), [])
        return found
    }

    @Test func everyCommandAndOptionIsInTheTable() throws {
        let page = try String(contentsOfFile: repositoryRoot + "/docs/reference.md", encoding: .utf8)
        let rows = page.components(separatedBy: "\n").filter { $0.hasPrefix("| `pacer ") }
        let commands = try Self.commands()
        #expect(commands.count > 40, "\(commands.count) commands")
        for (path, options) in commands {
            let matched = rows.filter { row in
                let first = row.range(of: "` |").map { String(row[row.index(row.startIndex, offsetBy: 3)..<$0.lowerBound]) } ?? row
                guard first.hasPrefix("pacer \(path[0])") || first.contains("`pacer \(path[0])") else { return false }
                let words = first.split(whereSeparator: { !($0.isLetter || $0 == "-") }).map(String.init)
                return words.contains(path[path.count - 1])
            }
            #expect(!matched.isEmpty, "pacer \(path.joined(separator: " ")) has no row in docs/reference.md")
            let text = matched.joined(separator: " ")
            for option in options where !Self.common.contains(option) {
                // The option as a whole word: --out is not --outage.
                let pattern = NSRegularExpression.escapedPattern(for: option) + "(?![a-z-])"
                #expect(text.range(of: pattern, options: .regularExpression) != nil,
                        "pacer \(path.joined(separator: " ")) \(option) is not in docs/reference.md")
            }
        }
        // Those many commands take are said once.
        for option in Self.common {
            #expect(page.contains("`\(option)"), "\(option) is not said in docs/reference.md")
        }
    }
}
