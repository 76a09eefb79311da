import Configurator
import Foundation
import TestSupport
import Testing
@testable import Companion

@Suite("companion parts")
struct CompanionPartsTests {
    @Test func thePasswordIsKeptAsAYescryptHashReadableByItsOwnerOnly() throws {
        let folder = TemporaryDirectory()
        let password = CompanionPassword(dataDirectory: folder.path)
        #expect(!password.isSet && !password.verify("anything at all"))
        try password.set("correct horse battery")
        let stored = try #require(try password.storedHash())
        #expect(stored.hasPrefix("$y$"), "\(stored)")
        #expect(!stored.contains("correct"))
        let attributes = try FileManager.default.attributesOfItem(atPath: password.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(password.verify("correct horse battery"))
        #expect(!password.verify("correct horse batter"))
        #expect(!password.verify(""))
        // A new salt each time.
        #expect(try CompanionPassword.hash("correct horse battery") != CompanionPassword.hash("correct horse battery"))
        #expect(throws: CompanionPassword.Failure("password: 5 characters is too short (at least 8)")) {
            try password.set("short")
        }
        #expect(throws: CompanionPassword.Failure("password: has a control character (a tab or newline inside it?)")) {
            try password.set("tab\there please")
        }
        let generated = CompanionPassword.generate()
        #expect(generated.count == 14 && generated.split(separator: "-").count == 3)
        try password.set(generated)
        #expect(password.verify(generated) && !password.verify("correct horse battery"))
    }

    @Test func formsQueriesAndCookiesDecode() throws {
        #expect(try FormDecoding.urlEncoded(Substring("a=1&b=two+words&c=%C3%A9t%C3%A9&a=2&d")) == ["a": "1", "b": "two words", "c": "été", "d": ""])
        #expect(throws: FormDecoding.Failure("form: field 'x' is not valid percent-encoded UTF-8")) {
            try FormDecoding.urlEncoded(Substring("x=%zz"))
        }
        #expect(throws: FormDecoding.Failure("form: field 'x' is not valid percent-encoded UTF-8")) {
            try FormDecoding.urlEncoded(Substring("x=%ff"))
        }
        let many = (0...64).map { "f\($0)=1" }.joined(separator: "&")
        #expect(throws: FormDecoding.Failure("query: more than 64 fields")) { try FormDecoding.urlEncoded(Substring(many), what: "query") }
        #expect(FormDecoding.cookies("a=1; pacer_session=abc; b=\"q\"") == ["a": "1", "pacer_session": "abc", "b": "q"])
        #expect(FormDecoding.parameter("boundary", of: "multipart/form-data; boundary=\"a b\"") == "a b")
        #expect(FormDecoding.mediaType(" Multipart/Form-Data ; boundary=x") == "multipart/form-data")
    }

    @Test func multipartRefusesWhatIsBrokenWithTheReason() {
        func parse(_ text: String, _ boundary: String = "B") -> String {
            do {
                let (fields, uploads) = try FormDecoding.multipart(Array(text.utf8), boundary: boundary)
                return "fields \(fields.sorted { $0.key < $1.key }) uploads \(uploads.keys.sorted())"
            } catch {
                return error.description
            }
        }
        #expect(parse("--B\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx\r\n--B--\r\n") == "fields [(key: \"a\", value: \"x\")] uploads []")
        #expect(parse("nothing") == "multipart: no part starts with the boundary")
        #expect(parse("--B\r\nContent-Type: text/plain\r\n\r\nx\r\n--B--") == "multipart: part 1 has no Content-Disposition: form-data; name=\"…\"")
        #expect(parse("--B\r\nContent-Disposition: form-data; name=\"a\"") == "multipart: part 1 has no end to its headers")
        #expect(parse("--B\r\nX\r\n\r\nx\r\n--B--") == "multipart: part 1 has a header line without ':'")
        #expect(parse("", "") == "multipart: the boundary must be 1 to 70 characters")
    }

    @Test func theCompanionSettingsBlockIsReadWithTheFilesErrors() throws {
        let base = """
            gps: none
            buzzer: "null"
            battery: sim
            profile: medium
            data_dir: /tmp/x
            hardware_dir: /tmp/h

            """
        var plain = try Settings.load(file: "s.yaml", text: base)
        #expect(plain.companion.listen == nil && !plain.companion.duringWorkout)
        #expect(plain.companion.passwordFile == "/tmp/x/companion.passwd")
        plain.dataDirectory = "/var/lib/pacer"
        #expect(plain.companion.passwordFile == "/var/lib/pacer/companion.passwd", "moved with --data-dir")
        let on = try Settings.load(file: "s.yaml", text: base + "companion: {listen: 0.0.0.0:8080, during_workout: on}\n")
        #expect(on.companion.host == "0.0.0.0" && on.companion.port == 8080 && on.companion.duringWorkout)
        let none = try Settings.load(file: "s.yaml", text: base + "companion:\n  listen: none\n  during_workout: off\n")
        #expect(none.companion.listen == nil)
        let v6 = try Settings.load(file: "s.yaml", text: base + "companion: {listen: \"[::]:80\"}\n")
        #expect(v6.companion.host == "::" && v6.companion.port == 80)
        func refusal(_ block: String) -> String {
            do {
                _ = try Settings.load(file: "s.yaml", text: base + block)
                return "taken"
            } catch {
                return "\(error)"
            }
        }
        #expect(refusal("companion: {listen: 8080}\n").contains("s.yaml:7: companion.listen: '8080' is not HOST:PORT"), "\(refusal("companion: {listen: 8080}\n"))")
        #expect(refusal("companion: {listen: \"0.0.0.0:99999\"}\n").contains("companion.listen: '99999' is not a port from 0 to 65535"))
        #expect(refusal("companion: {listen: \"0.0.0.0:80\", during_workout: maybe}\n").contains("companion.during_workout: 'maybe' is not one of off, on"))
        #expect(refusal("companion: {listen: \"0.0.0.0:80\", port: 3}\n").contains("port"))
    }

    @Test func theBoardsSettingsServeThePageOnPort8080() throws {
        let board = try Settings.load(path: hardwareDirectory + "/config/board.yaml")
        #expect(board.companion.host == "0.0.0.0" && board.companion.port == 8080 && !board.companion.duringWorkout)
    }
}
