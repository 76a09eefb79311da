import Foundation
import TestSupport
import Testing

/// The documentation says what the program does: every ```console block in the README and
/// in docs/ is run and its output compared with what the page shows.
///
/// A block's lines starting with `$ ` are commands (run by bash, `pacer` being the built
/// one); the lines after each, up to the next command, are its output, standard error
/// included. A line `...` stands for any number of lines; trailing spaces do not count.
/// The blocks of a page run in order in one scratch folder that holds links to the
/// repository's Hardware/ and Scenarios/, so a page can make a data folder and use it in
/// its next block, as a reader following it would.
@Suite("The documentation, run", .serialized)
struct DocsEndToEndTests {
    struct Command {
        var page: String
        var line: Int
        var text: String
        var expected: [String]
    }

    static let pages: [String] = {
        let root = repositoryRoot
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: root + "/docs")) ?? []
        return ["README.md", "Hardware/README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }()

    static func commands(in page: String) throws -> [Command] {
        let text = try String(contentsOfFile: repositoryRoot + "/" + page, encoding: .utf8)
        var commands: [Command] = []
        var inBlock = false
        for (i, line) in text.components(separatedBy: "\n").enumerated() {
            if line.hasPrefix("```") {
                inBlock = !inBlock && line.trimmingCharacters(in: .whitespaces) == "```console"
                continue
            }
            guard inBlock else { continue }
            if line.hasPrefix("$ ") {
                commands.append(Command(page: page, line: i + 1, text: String(line.dropFirst(2)), expected: []))
            } else if !commands.isEmpty {
                commands[commands.count - 1].expected.append(line)
            }
        }
        return commands
    }

    /// Whether `actual` is what `expected` shows (`...` for any lines in between).
    static func matches(_ expected: [String], _ actual: [String]) -> Bool {
        func trim(_ s: String) -> String {
            var s = s
            while s.last == " " { s.removeLast() }
            return s
        }
        let e = expected.map(trim), a = actual.map(trim)
        func match(_ i: Int, _ j: Int) -> Bool {
            if i == e.count { return j == a.count }
            if e[i] == "..." { return (j...a.count).contains { match(i + 1, $0) } }
            return j < a.count && e[i] == a[j] && match(i + 1, j + 1)
        }
        return match(0, 0)
    }

    @Test func theMatcherTakesEllipsesAndRefusesADifference() {
        #expect(Self.matches(["a", "...", "d"], ["a", "b", "c", "d"]))
        #expect(Self.matches(["a", "..."], ["a"]))
        #expect(!Self.matches(["a", "d"], ["a", "b", "d"]))
        #expect(!Self.matches(["a", "...", "e"], ["a", "b", "d"]))
    }

    @Test func everyPageHasRunnableBlocksAndTheySayWhatHappens() throws {
        var total = 0
        for page in Self.pages {
            let commands = try Self.commands(in: page)
            guard !commands.isEmpty else { continue }
            let scratch = try makeTemporaryDirectory("docs")
            for folder in ["Hardware", "Scenarios"] {
                try FileManager.default.createSymbolicLink(atPath: "\(scratch)/\(folder)",
                                                           withDestinationPath: "\(repositoryRoot)/\(folder)")
            }
            let bin = (Pacer.executable as NSString).deletingLastPathComponent
            for command in commands {
                let run = try Program.run("/bin/bash", [
                    "-c", "unset PACER_CONFIG; export PATH='\(bin)':\"$PATH\"; cd '\(scratch)' && { \(command.text) ; } 2>&1",
                ])
                // NMEA lines end in CR LF: compared as lines, like the rest.
                var lines = run.stdout.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n")
                if lines.last == "" { lines.removeLast() }
                var expected = command.expected
                while expected.last?.isEmpty == true { expected.removeLast() }
                #expect(Self.matches(expected, lines),
                        "\(command.page):\(command.line): $ \(command.text)\n--- the page shows\n\(expected.joined(separator: "\n"))\n--- it printed\n\(lines.joined(separator: "\n"))")
                total += 1
            }
        }
        #expect(total >= 10, "only \(total) commands in the documentation are checked")
    }
}
