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

    @Test func formsDecodeThroughHummingbirdsDecoder() throws {
        func form(_ text: String) -> String {
            do {
                return "\(try BodyDecoding.decode(Array(text.utf8), contentType: "application/x-www-form-urlencoded").form.sorted { $0.key < $1.key })"
            } catch {
                return error.description
            }
        }
        #expect(form("a=1&b=two+words&c=%C3%A9t%C3%A9") == "\([("a", "1"), ("b", "two words"), ("c", "été")].map { (key: $0.0, value: $0.1) })")
        #expect(form("x=%zz").hasPrefix("form: "), "a broken escape is refused: \(form("x=%zz"))")
        #expect(form("a=1&a=2").hasPrefix("form: "), "a name given twice is refused: \(form("a=1&a=2"))")
        #expect(form((0...64).map { "f\($0)=1" }.joined(separator: "&")) == "form: more than 64 fields")
        #expect(throws: BodyDecoding.Failure("the body's Content-Type 'text/plain' is not a form (application/x-www-form-urlencoded or multipart/form-data)")) {
            try BodyDecoding.decode(Array("a=1".utf8), contentType: "text/plain")
        }
        #expect(throws: BodyDecoding.Failure("multipart: the Content-Type has no boundary")) {
            try BodyDecoding.decode(Array("a=1".utf8), contentType: "multipart/form-data")
        }
        #expect(BodyDecoding.parameter("filename", of: "form-data; name=\"file\"; filename=\"a b.gpx\"") == "a b.gpx")
    }

    /// A part's header name with a byte over 127 (the fuzzer's find: MultipartKit 4.7.1 traps
    /// on one) is refused with the reason, wherever the part stands; the same bytes in a
    /// header's value or in a file are taken.
    @Test func aHeaderNameThatIsNotASCIIIsRefusedNotATrap() throws {
        func body(_ name: [UInt8], value: [UInt8] = Array("form-data; name=\"a\"".utf8), content: [UInt8] = Array("1".utf8)) -> [UInt8] {
            Array("preamble\r\n--XX\r\n".utf8) + name + Array(": ".utf8) + value + Array("\r\n\r\n".utf8) + content
                + Array("\r\n--XX--\r\n".utf8)
        }
        let refused = BodyDecoding.Failure("multipart: a part's header name holds a byte that is not ASCII")
        #expect(throws: refused) { try BodyDecoding.multipart(body(Array("Content-Dispositio".utf8) + [0x92, 0xBC]), boundary: "XX") }
        #expect(throws: refused) { try BodyDecoding.multipart(body([0xFF]), boundary: "XX") }
        let second = Array("--XX\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--XX\r\nX\u{E9}: y\r\n\r\n2\r\n--XX--\r\n".utf8)
        #expect(throws: refused) { try BodyDecoding.multipart(second, boundary: "XX") }
        // A lone LF is part of a header's value; the header after it is still a header.
        let loneLF = Array("--XX\r\nContent-Type: text/plain; x=JS\t\n\r\nnt\u{E9}nt: x\r\n\r\n1\r\n--XX--\r\n".utf8)
        #expect(throws: refused) { try BodyDecoding.multipart(loneLF, boundary: "XX") }
        let fine = try BodyDecoding.multipart(
            body(Array("Content-Disposition".utf8), value: Array("form-data; name=\"a\"; filename=\"\u{E9}.fit\"".utf8),
                 content: [0xFF, 0x3A, 0x92]),
            boundary: "XX")
        #expect(fine.uploads["a"] != nil, "a file's bytes and a header's value may be anything")
    }

    @Test func multipartRefusesWhatIsBrokenWithTheReason() {
        func parse(_ text: String, _ boundary: String = "B") -> String {
            do {
                let (fields, uploads) = try BodyDecoding.multipart(Array(text.utf8), boundary: boundary)
                return "fields \(fields.sorted { $0.key < $1.key }) uploads \(uploads.keys.sorted())"
            } catch {
                return error.description
            }
        }
        #expect(parse("--B\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx\r\n--B--\r\n") == "fields [(key: \"a\", value: \"x\")] uploads []")
        #expect(parse("--B\r\nContent-Disposition: form-data; name=\"f\"; filename=\"r.fit\"\r\n\r\n\r\u{0}\r\n--\r\n--B--")
                == "fields [] uploads [\"f\"]", "a file's bytes may look like a boundary's start")
        #expect(parse("nothing") == "multipart: no part starts with the boundary")
        #expect(parse("--B\r\nContent-Type: text/plain\r\n\r\nx\r\n--B--") == "multipart: part 1 has no Content-Disposition: form-data; name=\"…\"")
        #expect(parse("--B\r\nContent-Disposition: form-data; name=\"a\"") == "multipart: part 1 is not closed by the boundary")
        #expect(parse("--B\r\nX\r\n\r\nx\r\n--B--") == "multipart: part 1 is not well formed (its headers or its boundary)")
        #expect(parse("", "") == "multipart: the boundary must be 1 to 70 characters")
        let many = (0...64).map { "--B\r\nContent-Disposition: form-data; name=\"f\($0)\"\r\n\r\nx\r\n" }.joined() + "--B--"
        #expect(parse(many) == "multipart: more than 64 parts")
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
        #expect(plain.companion.connectionsPerAddress == 16)
        let wide = try Settings.load(file: "s.yaml", text: base + "companion: {listen: \"0.0.0.0:80\", connections_per_address: 64}\n")
        #expect(wide.companion.connectionsPerAddress == 64)
        for bad in ["0", "257", "1.5", "0x10"] {
            let said = refusal("companion: {listen: \"0.0.0.0:80\", connections_per_address: \(bad)}\n")
            #expect(said.contains("s.yaml:7: companion.connections_per_address"), "\(bad): \(said)")
        }
    }

    @Test func theBoardsSettingsServeThePageOnPort8080() throws {
        let board = try Settings.load(path: hardwareDirectory + "/config/board.yaml")
        #expect(board.companion.host == "0.0.0.0" && board.companion.port == 8080 && !board.companion.duringWorkout)
    }
}
