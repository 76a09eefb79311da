import Configurator
import Foundation
import Testing

/// A data file's bytes as text: UTF-8 or a refusal naming the line and the byte offset.
@Suite("Data file bytes")
struct DataFileTextTests {
    func refusal(_ bytes: [UInt8]) -> String? {
        do {
            _ = try YAMLMapping.text(of: Data(bytes), file: "f.yaml")
            return nil
        } catch {
            return error.description
        }
    }

    @Test func utf8IsText() throws {
        #expect(try YAMLMapping.text(of: Data("name: Café 🏃\n".utf8), file: "f.yaml") == "name: Café 🏃\n")
        #expect(try YAMLMapping.text(of: Data(), file: "f.yaml") == "")
    }

    @Test func aStrayByteIsNamedWhereverItIs() {
        #expect(refusal([0xFF]) == "f.yaml:1: byte offset 0 (0xFF): not UTF-8 text (save the file as UTF-8)")
        // A lone continuation byte on line 2.
        #expect(refusal(Array("a: 1\nb: ".utf8) + [0x80]) == "f.yaml:2: byte offset 8 (0x80): not UTF-8 text (save the file as UTF-8)")
        // A sequence cut off at the end of the file (é is C3 A9).
        #expect(refusal(Array("name: caf".utf8) + [0xC3]) == "f.yaml:1: byte offset 9 (0xC3): not UTF-8 text (save the file as UTF-8)")
        // Latin-1 é in a file saved by an old editor.
        #expect(refusal(Array("name: caf".utf8) + [0xE9, 0x0A]) == "f.yaml:1: byte offset 9 (0xE9): not UTF-8 text (save the file as UTF-8)")
    }
}
