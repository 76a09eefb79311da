import Configurator
import PacerCore
import Foundation
import HAL
import Runtime

/// The device's state, live (`/`): what `pacer ctl watch` greets with, refreshed once a second
/// by `/static/companion.js` from `GET /api/state`, and the buttons a runner has on the device
/// (start, pause, resume, lap, stop, waypoint), posted as `pacer ctl` sends them.
public struct StateSection: CompanionSection {
    let device: any CompanionDevice

    public init(device: any CompanionDevice) { self.device = device }

    public var menu: (label: String, path: String)? { ("State", "/") }

    /// The commands the page offers, by the path's name.
    static let commands: [(name: String, label: String, command: ControlCommand)] = [
        ("start", "Start", .start), ("pause", "Pause", .pause), ("resume", "Resume", .resume),
        ("lap", "Lap", .lap), ("stop", "Stop", .stop), ("waypoint", "Waypoint", .waypoint("")),
    ]

    public var routes: [PageRoute] {
        let device = self.device
        return [
            PageRoute(.get, "/", allowedDuringWorkout: true) { request in
                .page(title: "State", body: Self.page(device.snapshot(), csrf: request.csrfToken))
            },
            PageRoute(.get, "/api/state", allowedDuringWorkout: true) { _ in .json(device.snapshot().jsonLine) },
            // A form without the script: the answer shown on the state page.
            PageRoute(.post, "/command/:name", allowedDuringWorkout: true) { request in
                switch Self.command(request) {
                case .failure(let refusal): return .refused(status: 400, message: refusal.message)
                case .success(let command):
                    let reply = await device.send(command)
                    return .redirect(to: "/", notice: reply)
                }
            },
            // The script's: the answer as JSON.
            PageRoute(.post, "/api/command/:name", allowedDuringWorkout: true) { request in
                switch Self.command(request) {
                case .failure(let refusal): return .json((["error": .text(refusal.message)] as JSONObject).compact)
                case .success(let command):
                    let reply = await device.send(command)
                    return .json((["reply": .text(reply)] as JSONObject).compact)
                }
            },
        ]
    }

    struct Refusal: Error { var message: String }

    static func command(_ request: PageRequest) -> Result<ControlCommand, Refusal> {
        let name = request.parameters["name"] ?? ""
        guard let entry = commands.first(where: { $0.name == name }) else {
            return .failure(Refusal(message: "no command '\(name.prefix(40))' (\(commands.map(\.name).joined(separator: ", ")))"))
        }
        if case .waypoint = entry.command {
            let label = (request.form["label"] ?? "").trimmingCharacters(in: .whitespaces)
            guard label.count <= 60, !label.unicodeScalars.contains(where: { $0.value < 0x20 }) else {
                return .failure(Refusal(message: "label: at most 60 characters on one line"))
            }
            return .success(.waypoint(label))
        }
        return .success(entry.command)
    }

    /// The fields shown, by element id (the script fills the same ones from `/api/state`).
    static func fields(_ snapshot: DeviceSnapshot) -> [(id: String, label: String, value: String)] {
        func text(_ value: String?) -> String { value.flatMap { $0.isEmpty ? nil : $0 } ?? "–" }
        // Between workouts the line says it all; while one runs, the workout's figures (as the
        // JSON gives them: metres to a decimetre, seconds to a millisecond).
        let running = snapshot.workoutRunning ? snapshot.running : nil
        let coach = running?.coach
        let metres = coach.map { ($0.distance * 10).rounded() / 10 }
        let seconds = coach.map { Int(($0.elapsed.inSeconds * 1000).rounded() / 1000) }
        return [
            ("state", "State", text(snapshot.stateText)),
            ("plan", "Plan", text(running?.plan ?? snapshot.offer?.plan)),
            ("workout", "Workout", text(running?.workout ?? snapshot.offer?.workout)),
            ("phase", "Phase", text(coach.map { "\($0.phaseIndex + 1)/\($0.phaseCount)" })),
            ("distance", "Distance", text(metres.map { String(format: "%.2f km", $0 / 1000) })),
            ("elapsed", "Time", text(seconds.map { "\($0 / 60) min \($0 % 60) s" })),
            ("heart", "Heart rate", text(running?.heart.map { heartText($0) })),
            ("line", "Status", text(running == nil ? snapshot.line : nil)),
        ]
    }

    /// `148 bpm, zone 3 (over 146)`, `strap lost`, `strap searching`: what the script makes of
    /// the same JSON.
    static func heartText(_ h: HeartStatus) -> String {
        guard let bpm = h.bpm else { return "strap \(h.strap.rawValue)" }
        var text = "\(bpm) bpm" + (h.zone.map { (1...5).contains($0) ? ", zone \($0)" : $0 == 0 ? ", below zone 1" : ", above zone 5" } ?? "")
        switch (h.state, h.limit) {
        case (.high, .ceiling(let c)?): text += " (over \(c))"
        case (.high, .band(let r)?): text += " (over \(r.upperBound))"
        case (.low, .band(let r)?): text += " (under \(r.lowerBound))"
        default: break
        }
        return text
    }

    static func page(_ snapshot: DeviceSnapshot, csrf: String) -> String {
        var body = "<dl id=\"live\">"
        for field in fields(snapshot) {
            body += "<dt>\(CompanionHTML.escape(field.label))</dt><dd id=\"\(field.id)\">\(CompanionHTML.escape(field.value))</dd>"
        }
        // The buttons of the state the device is in (the style shows those alone: Start while it
        // waits; Pause, Lap, Stop and Waypoint while a workout runs; Resume, Stop and Waypoint paused).
        body += "</dl><div class=\"controls\" id=\"controls\" data-state=\"\(CompanionHTML.escape(snapshot.stateText))\">"
        for entry in commands {
            let content = entry.name == "waypoint"
                ? "<input type=\"text\" name=\"label\" id=\"waypoint-label\" maxlength=\"60\" placeholder=\"label\"/>" : ""
            body += CompanionHTML.form(action: "/command/\(entry.name)", csrf: csrf, content: content, button: entry.label,
                                       id: "command-\(entry.name)")
        }
        body += "</div><p>Answer: <span id=\"reply\"></span> · updated <span id=\"updated\">–</span></p>"
        body += "<details><summary>The status as the device gives it (JSON)</summary>"
            + "<pre id=\"raw\">\(CompanionHTML.escape(snapshot.jsonLine))</pre></details>"
        return body
    }
}

/// Every section of the page, in the menu's order: the one place the device builds them.
public enum CompanionSections {
    /// `settings`: the device's at power-on; `reload`: the settings read again (with the data
    /// folder's `device.yaml`), for the pages that show or change them; `settingsPath`: the
    /// settings file (`--config`), for the hardware check; `now`: the wall clock's time.
    public static func all(device: any CompanionDevice, settings: Settings,
                           reload: @escaping @Sendable () throws -> Settings, settingsPath: String?,
                           version: String, now: @escaping @Sendable () -> UTCTimestamp) -> [any CompanionSection] {
        var sections: [any CompanionSection] = [StateSection(device: device)]
        sections += RecordsSections.make(device: device, settings: settings, settingsPath: settingsPath,
                                         version: version, now: now)
        sections += [
            PlansSection(device: device, settings: reload, now: now),
            AthleteSection(device: device, now: now),
            DeviceSettingsSection(device: device, settings: reload),
        ] as [any CompanionSection]
        return sections
    }
}
