import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import Testing
@testable import Companion

/// The password file cannot be turned against the device: nothing planted in the data folder
/// is followed or overwritten, and a hash others may read is refused with the fix.
@Suite("companion password file")
struct PasswordFileTests {
    /// Someone who can write the data folder plants a link where the password goes, to a file
    /// of the device's: setting the password refuses it, and the file stays as it was.
    @Test func aLinkPlantedAtThePasswordFileIsRefusedNotFollowed() throws {
        let folder = TemporaryDirectory()
        let victim = try folder.file("settings.yaml", "gps: none\n")
        let password = CompanionPassword(dataDirectory: folder.path)
        #expect(symlink(victim, password.path) == 0)
        #expect(throws: CompanionPassword.Failure.self) { try password.set("correct horse battery") }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "gps: none\n")
        let mode = try FileManager.default.attributesOfItem(atPath: victim)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue != 0o600, "the victim's mode is not changed either")
        #expect(!password.isSet)
    }

    /// The temporary file of the write before (`companion.passwd.new`) was opened without
    /// O_EXCL or O_NOFOLLOW: a link planted under that name was written through. Each write's
    /// temporary name is its own now, and created only where nothing is.
    @Test func aLinkPlantedAtTheOldTemporaryNameIsNotWrittenThrough() throws {
        let folder = TemporaryDirectory()
        let victim = try folder.file("victim", "mine\n")
        let password = CompanionPassword(dataDirectory: folder.path)
        #expect(symlink(victim, password.path + ".new") == 0)
        try password.set("correct horse battery")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "mine\n")
        #expect(password.verify("correct horse battery"))
        var info = stat()
        #expect(lstat(password.path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && info.st_mode & 0o777 == 0o600)
    }

    /// A hash file others may read (copied in with 0644, restored from a backup) is refused,
    /// saying how to fix it; the page then asks for a password rather than serving with it.
    @Test func aHashOthersMayReadIsRefusedWithTheFix() throws {
        let folder = TemporaryDirectory()
        let password = CompanionPassword(dataDirectory: folder.path)
        try password.set("correct horse battery")
        #expect(chmod(password.path, 0o644) == 0)
        #expect(throws: CompanionPassword.Failure("\(password.path): others may read it (mode 644): chmod 600 \(password.path)")) {
            _ = try password.storedHash()
        }
        #expect(!password.verify("correct horse battery"))
        #expect(chmod(password.path, 0o600) == 0)
        #expect(password.verify("correct horse battery"))
    }
}
