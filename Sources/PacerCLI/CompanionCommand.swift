import ArgumentParser
import Companion
import Foundation
import LinuxHardware

/// `pacer companion`: the companion page's setup.
struct CompanionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "companion", abstract: "Set up the companion page the device serves over Wi-Fi.",
        subcommands: [CompanionPasswordCommand.self])
}

/// `pacer companion password [--generate]`: the page's password, from standard input or made
/// at random and printed; only its hash is stored (`DATA_DIR/companion.passwd`, mode 0600).
struct CompanionPasswordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "password", abstract: "Set the companion page's password (read from standard input, or --generate).",
        discussion: """
            The password is read from standard input (its first line; at least \
            \(CompanionPassword.minimumLength) characters), or made at random with --generate and \
            printed once. Only its yescrypt hash is kept, in the data folder (companion.passwd, \
            readable by its owner only). A running device takes the new one at the next login; \
            pages already logged in stay so until they log out or 12 hours pass unused.
            """)

    @OptionGroup var store: StoreOptions

    @Flag(name: .long, help: "Make a random password and print it.")
    var generate = false

    @Flag(name: .long, help: "With --generate: only when none is set yet (for the installers).")
    var ifUnset = false

    func run() throws {
        let directory = try store.directory()
        let password = CompanionPassword(dataDirectory: directory)
        if ifUnset {
            guard generate else { throw ValidationError("--if-unset goes with --generate") }
            if password.isSet {
                print("companion: a password is set already (\(password.path))")
                return
            }
        }
        let chosen: String
        if generate {
            chosen = CompanionPassword.generate()
        } else {
            // At a terminal, read without echo: the password is never on the screen.
            guard let line = SecretInput.readLine(prompt: "New password for the companion page: ") else {
                throw CommandFailure(.usage, "password: nothing on standard input (type it, or use --generate)")
            }
            chosen = line
        }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isFolder), isFolder.boolValue else {
            throw CommandFailure(.cannotCreate, "\(directory): no such data folder")
        }
        do {
            try password.set(chosen)
        } catch {
            throw CommandFailure(generate ? .cannotCreate : .dataError, error.description)
        }
        if generate {
            print("companion password: \(chosen)")
        } else {
            print("companion: password set (\(password.path))")
        }
    }
}
