import Coaching
import Configurator
import Foundation
import HAL
import PacerCore

/// `/settings`: the power profile the device uses and its announcements. The settings file
/// (`/etc/pacer/pacer.yaml`) is the installer's; what the page changes goes into the data
/// folder's `device.yaml` (`DeviceOverlay`), read right after it and over it, checked by the
/// same loaders (and refused with their messages) before it is written, the same function
/// `pacer settings set` calls. The device reads it when it starts.
public struct DeviceSettingsSection: CompanionSection {
    public let device: any CompanionDevice
    /// The device's settings, read afresh (with the overlay applied).
    public let settings: @Sendable () throws -> Settings

    public init(device: any CompanionDevice, settings: @escaping @Sendable () throws -> Settings) {
        self.device = device
        self.settings = settings
    }

    public var menu: (label: String, path: String)? { ("Settings", "/settings") }

    public var routes: [PageRoute] {
        [
            PageRoute(.get, "/settings") { request in try SectionPages.answer { try self.show(request) } },
            PageRoute(.post, "/settings/profile") { request in try SectionPages.answer { try self.setProfile(request) } },
            PageRoute(.post, "/settings/speech") { request in try SectionPages.answer { try self.setSpeech(request) } },
        ]
    }

    static let takesEffect = DeviceOverlay.takesEffect

    /// What a profile does, in a line.
    static func describe(_ p: PowerProfile) -> String {
        var parts = ["a position every \(AthleteProfile.number(p.positionInterval.inSeconds)) s",
                     "an alert every \(AthleteProfile.number(p.alertInterval.inSeconds)) s while off pace",
                     "GPS \(p.gpsMode.rawValue)",
                     p.wifiOffDuringWorkout ? "Wi-Fi off during a workout" : "Wi-Fi on",
                     p.boardSuspend ? "board suspends between fixes" : "board awake"]
        if let step = p.stepDown { parts.append("steps down to \(step.to) below \(AthleteProfile.number(step.percent)) %") }
        return parts.joined(separator: ", ")
    }

    func show(_ request: PageRequest) throws -> PageResponse {
        let s = try settings()
        let overlay = DeviceOverlay.path(dataDirectory: s.dataDirectory)
        var body = "<p>The settings file is \(SectionPages.h(s.source)); what is changed here is kept in "
            + "\(SectionPages.h(overlay)), read after it and over it. \(Self.takesEffect)</p>"
        body += "<section id=\"power-profile\"><h2>Power profile</h2>"
        body += "<p id=\"current-profile\">Now: <strong>\(SectionPages.h(s.profile))</strong></p><table>"
        for name in try PowerProfileLoader.available(hardwareDir: s.hardwareDirectory) {
            body += "<tr id=\"profile-\(SectionPages.slug(name))\"><th>\(SectionPages.h(name))</th>"
            do {
                let p = try PowerProfileLoader.load(name: name, hardwareDir: s.hardwareDirectory)
                body += "<td>\(SectionPages.h(p.summary))<br/><small>\(SectionPages.h(Self.describe(p)))</small></td>"
            } catch {
                body += "<td class=\"error\">\(SectionPages.h(error.description))</td>"
            }
            body += "<td>"
            if name != s.profile {
                body += SectionPages.form(action: "/settings/profile", request,
                                          content: "<input type=\"hidden\" name=\"profile\" value=\"\(SectionPages.h(name))\"/>",
                                          button: "Use \(name)", id: "use-profile-\(SectionPages.slug(name))")
            }
            body += "</td></tr>"
        }
        body += "</table></section>"

        let sp = s.speech
        func select(_ name: String, _ options: [String], _ current: String) -> String {
            "<select name=\"\(name)\" id=\"speech-\(name)\">" + options.map {
                "<option value=\"\(SectionPages.h($0))\"\($0 == current ? " selected" : "")>\(SectionPages.h($0))</option>"
            }.joined() + "</select>"
        }
        let yesNo = ["yes", "no"]
        var content = ""
        content += "<label>Speech \(select("enabled", yesNo, sp.enabled ? "yes" : "no"))</label><br/>"
        content += "<label>Language \(select("language", DeviceOverlay.languages(hardwareDir: s.hardwareDirectory), sp.language))</label><br/>"
        content += "<label>Split every (m, 0: none) <input name=\"split_m\" id=\"speech-split_m\" value=\""
            + "\(sp.splitEvery.map { AthleteProfile.number($0) } ?? "")\"/></label><br/>"
        content += "<label>Phases announced \(select("phases", yesNo, sp.phases ? "yes" : "no"))</label><br/>"
        content += "<label>Finish announced \(select("finish", yesNo, sp.finish ? "yes" : "no"))</label><br/>"
        content += "<label>Pace cues \(select("pace_cues", SpeechSettings.PaceCues.allCases.map(\.rawValue), sp.paceCues.rawValue))</label><br/>"
        content += "<label>Alerts \(select("alerts", SpeechSettings.Alerts.allCases.map(\.rawValue), sp.alerts.rawValue))</label><br/>"
        body += "<section id=\"announcements\"><h2>Announcements</h2>"
        body += "<p>As the settings' <code>speech:</code> block (docs/speech.md); these apply under every power profile.</p>"
        body += SectionPages.form(action: "/settings/speech", request, content: content, button: "Save", id: "speech-save")
        body += "</section>"
        return .page(title: "Settings", body: body)
    }

    func setProfile(_ request: PageRequest) throws -> PageResponse {
        try SectionPages.refuseDuringWorkout(device)
        guard let name = SectionPages.field(request, "profile") else {
            throw SectionRefusal(400, "profile: choose a power profile")
        }
        let result = try Self.set([("profile", name)], over: try settings())
        return .redirect(to: "/settings", notice: "The power profile is now \(result.profile). \(Self.takesEffect)")
    }

    /// `DeviceOverlay.set`, its refusals naming the data folder's file by its name: the
    /// board's path (`/var/lib/pacer/device.yaml`) says nothing to a runner on a phone.
    static func set(_ changes: [(key: String, value: String)], over settings: Settings) throws -> Settings {
        do {
            return try DeviceOverlay.set(changes, over: settings)
        } catch var error {
            if error.file == DeviceOverlay.path(dataDirectory: settings.dataDirectory) { error.file = DeviceOverlay.fileName }
            throw error
        }
    }

    func setSpeech(_ request: PageRequest) throws -> PageResponse {
        try SectionPages.refuseDuringWorkout(device)
        var changes: [(key: String, value: String)] = []
        for key in DeviceOverlay.speechKeys {
            if let value = SectionPages.field(request, key) { changes.append(("speech.\(key)", value)) }
        }
        guard !changes.isEmpty else { throw SectionRefusal(400, "speech: nothing to set") }
        let result = try Self.set(changes, over: try settings())
        let silent = DeviceOverlay.silentSpeech(result).map { " " + $0 } ?? ""
        return .redirect(to: "/settings", notice: "Announcements saved. \(Self.takesEffect)\(silent)")
    }
}
