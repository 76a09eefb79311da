import Coaching
import Configurator
import Foundation
import PacerCore
import Storage

/// `/athlete`: the athlete profile (R12, R15) as `pacer profile show` gives it, and a form
/// that changes it as `pacer profile set` does: the same parsing, ranges and messages
/// (`AthleteProfileChanges`), an empty field keeping the stored value.
public struct AthleteSection: CompanionSection {
    public let device: any CompanionDevice
    /// Now, for the change's time.
    public let now: @Sendable () -> UTCTimestamp

    public init(device: any CompanionDevice, now: @escaping @Sendable () -> UTCTimestamp) {
        self.device = device
        self.now = now
    }

    public var menu: (label: String, path: String)? { ("Athlete", "/athlete") }

    public var routes: [PageRoute] {
        [
            PageRoute(.get, "/athlete") { request in try SectionPages.answer { try self.show(request) } },
            PageRoute(.post, "/athlete") { request in try SectionPages.answer { try self.set(request) } },
        ]
    }

    /// The form's fields, each with the option of `pacer profile set` it stands for.
    static let fields: [(name: String, label: String, hint: String)] = [
        ("weight", "Weight (kg)", "30 to 250"),
        ("height", "Height (cm)", "120 to 230"),
        ("frequency", "Training days a week", "1 to 7"),
        ("best_race", "Best race", "DISTANCE@TIME, like 10km@48:30"),
        ("best_marathon", "Best marathon", "H:MM:SS, 2:00:00 to 8:00:00"),
    ]

    func show(_ request: PageRequest) throws -> PageResponse {
        let store = try device.store()
        var body = ""
        let current = try store.athlete.athlete()
        if let current {
            let since = AthleteStore.fieldsSince(try store.athlete.athleteHistory())
            body += "<table id=\"athlete-profile\">"
            for field in AthleteProfile.Field.allCases {
                body += "<tr id=\"athlete-\(field.rawValue)\"><th>\(SectionPages.h(field.label))</th>"
                    + "<td>\(SectionPages.h(field.shown(of: current.profile)))</td>"
                    + "<td>\(since[field].map { "since " + SectionPages.h(ActivityFormat.dateTime($0, zone: .utc)) } ?? "")</td></tr>"
            }
            body += "<tr><th>BMI</th><td>\(ActivityFormat.fixed(current.profile.bodyMassIndex, places: 1)) kg/m2</td><td></td></tr>"
            body += "</table>"
        } else {
            body += "<p id=\"athlete-profile\">No athlete profile yet: the first change needs weight, height and training days a week.</p>"
        }
        var content = ""
        for f in Self.fields {
            content += "<label>\(SectionPages.h(f.label)) <input name=\"\(f.name)\" id=\"athlete-field-\(f.name)\" "
                + "placeholder=\"\(SectionPages.h(f.hint))\"/></label><br/>"
        }
        for (name, label) in [("raced", "Has raced"), ("marathon", "Has run a marathon")] {
            content += "<label>\(label) <select name=\"\(name)\" id=\"athlete-field-\(name)\">"
                + "<option value=\"\">unchanged</option><option value=\"yes\">yes</option><option value=\"no\">no</option>"
                + "</select></label><br/>"
        }
        body += "<h2>Change</h2><p>Only the fields given change, as with <code>pacer profile set</code>.</p>"
        body += SectionPages.form(action: "/athlete", request, content: content, button: "Save", id: "athlete-save")
        return .page(title: "Athlete profile", body: body)
    }

    func set(_ request: PageRequest) throws -> PageResponse {
        try SectionPages.refuseDuringWorkout(device)
        func yesNo(_ name: String, option: String) throws -> Bool? {
            switch SectionPages.field(request, name)?.lowercased() {
            case nil: return nil
            case "yes": return true
            case "no": return false
            case let other?: throw SectionRefusal(400, "\(option) '\(other)': expected yes or no")
            }
        }
        let changes = try AthleteProfileChanges.parse(
            weight: SectionPages.field(request, "weight"), height: SectionPages.field(request, "height"),
            frequency: SectionPages.field(request, "frequency"), raced: yesNo("raced", option: "--raced"),
            marathon: yesNo("marathon", option: "--marathon"), bestRace: SectionPages.field(request, "best_race"),
            bestMarathon: SectionPages.field(request, "best_marathon"))
        let store = try device.store()
        let current = try store.athlete.athlete()
        let profile = try changes.applied(to: current?.profile)
        let time = now()
        let notice: String
        if try store.athlete.setAthlete(profile, at: time) {
            if let current {
                let changed = profile.fields(differingFrom: current.profile).map(\.label)
                notice = "Athlete profile changed: \(changed.joined(separator: ", "))."
            } else {
                notice = "Athlete profile set."
            }
        } else {
            notice = "Athlete profile unchanged: it already has these values."
        }
        return .redirect(to: "/athlete", notice: notice)
    }
}
