import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import Testing

/// The companion page as the board serves it: `pacer companion password --generate` prints a
/// password, `pacer device` with `companion: {listen: …}` serves the page, the printed password
/// logs in, a start from the page starts the workout and turns the page off, and the end of
/// the workout turns it on again.
@Suite("companion page, end to end", .serialized)
struct CompanionEndToEndTests {
    /// Polls `GET /health` until `up` (answered 200) or down (connection refused), for up to
    /// 30 s: the polls are tasks on the pool that every test shares, so on a loaded machine
    /// they come late, and a deadline that holds when the page is quick costs nothing.
    static func waitForHealth(port: Int, up: Bool) async -> Bool {
        let answered = await polled(within: .seconds(30), every: .milliseconds(100), {
            (try? await RawHTTP.send(port: port, "GET", "/health"))?.status == 200
        }, until: { $0 == up })
        return answered == up
    }

    @Test func aGeneratedPasswordLogsInAndThePageIsOffDuringTheWorkout() async throws {
        let folder = TemporaryDirectory()
        let data = folder.path + "/data"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let socket = "/tmp/pacer-companion-\(UUID().uuidString.prefix(8)).sock"
        defer { unlink(socket) }
        let generated = try await Pacer.runOffThePool(["companion", "password", "--generate", "--data-dir", data])
        #expect(generated.status == 0, "\(generated.stderr)")
        let line = generated.stdout.trimmingCharacters(in: .newlines)
        #expect(line.hasPrefix("companion password: "))
        let password = String(line.dropFirst("companion password: ".count))
        #expect(password.count == 14, "\(password)")
        let attributes = try FileManager.default.attributesOfItem(atPath: data + "/companion.passwd")
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let again = try await Pacer.runOffThePool(["companion", "password", "--generate", "--if-unset", "--data-dir", data])
        #expect(again.stdout.contains("a password is set already"), "the installers' call keeps it: \(again.stdout)")
        let activate = try await Pacer.runOffThePool(["plan", "activate", "easy-run", "--data-dir", data])
        #expect(activate.status == 0, "\(activate.stderr)")

        let port = try freeLoopbackPort()
        let settings = try folder.file("pacer.yaml", """
            gps: file:\(hardwareDirectory)/recordings/easy-run.nmea?pace=clock
            buzzer: "null"
            battery: sim?level=100
            profile: medium
            data_dir: \(data)
            hardware_dir: \(hardwareDirectory)
            companion: {listen: "127.0.0.1:\(port)"}

            """)
        let device = try Pacer.start(["device", "--config", settings, "--socket", socket])
        let pid = device.process.processIdentifier
        // A net against a hang only, never reached by a run that works: it takes 5 s alone,
        // and on two cores beside two builds its waits stretched it past an earlier 90 s.
        DispatchQueue.global().asyncAfter(deadline: .now() + 300) { if device.process.isRunning { kill(pid, SIGKILL) } }
        defer { if device.process.isRunning { kill(pid, SIGKILL) } }

        #expect(await Self.waitForHealth(port: port, up: true), "the page is on at power-on")
        let wrong = try await RawHTTP.send(port: port, "POST", "/login", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                           body: Array("password=not-the-one".utf8))
        #expect(wrong.status == 401)
        let login = try await RawHTTP.send(port: port, "POST", "/login", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                           body: Array("password=\(password)".utf8))
        #expect(login.status == 303, "\(login.text)")
        let cookie = try #require(login.header("set-cookie")?.split(separator: ";").first.map(String.init))

        // Ready (a fix from the recording, after the boot check): then a start from the page.
        let state = await polled(within: .seconds(30), every: .milliseconds(100), {
            (try? await RawHTTP.send(port: port, "GET", "/api/state", headers: [("Cookie", cookie)]))?.text ?? ""
        }, until: { $0.contains("\"state\":\"ready\"") })
        #expect(state.contains("\"state\":\"ready\""), "\(state)")
        // Issue 39, item 18: the workout the device offers, for the page's Plan and Workout.
        #expect(state.contains("\"plan\":\"Easy run\",\"workout\":\"1/1 Easy 40\""), "\(state)")
        let page = try await RawHTTP.send(port: port, "GET", "/", headers: [("Cookie", cookie)])
        #expect(page.text.contains("<dd id=\"workout\">1/1 Easy 40</dd>"), "\(page.text)")
        let csrf = try #require(page.text.range(of: "name=\"csrf\" value=\"").map { String(page.text[$0.upperBound...].prefix(64)) })
        let start = try await RawHTTP.send(port: port, "POST", "/command/start",
                                           headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Cookie", cookie)],
                                           body: Array("csrf=\(csrf)".utf8))
        #expect(start.status == 303, "\(start.text)")
        #expect(await Self.waitForHealth(port: port, up: false), "the page is off during the workout")
        let status = try await Pacer.runOffThePool(["ctl", "status", "--socket", socket])
        #expect(status.stdout.contains("phase 1/3 warm-up"), "the workout runs: \(status.stdout) \(status.stderr)")

        let stop = try await Pacer.runOffThePool(["ctl", "stop", "--socket", socket])
        #expect(stop.status == 0, "\(stop.stderr)")
        #expect(await Self.waitForHealth(port: port, up: true), "on again once the device waits")
        // The sessions live as long as the process: the runner is still logged in after the run.
        let after = try await RawHTTP.send(port: port, "GET", "/", headers: [("Cookie", cookie)])
        #expect(after.status == 200 && after.text.contains("<dd id=\"state\">ready</dd>"), "\(after.text)")

        kill(pid, SIGTERM)
        let out = try await offThePool { device.standardOutputData() }
        device.process.waitUntilExit()
        let journal = String(decoding: out.0, as: UTF8.self)
        #expect(device.process.terminationStatus == 0, "\(journal)\(String(decoding: out.1, as: UTF8.self))")
        #expect(journal.components(separatedBy: "companion: on http://127.0.0.1:\(port)\n").count == 3, "\(journal)")
        #expect(journal.contains("companion: off during the workout\n"), "\(journal)")
        #expect(await Self.waitForHealth(port: port, up: false), "closed with the device")
    }
}
