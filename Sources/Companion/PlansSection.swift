import Coaching
import Configurator
import Foundation
import PacerCore
import Runtime
import Storage

/// `/plans`: the device's plan and today's workout (as `pacer plan active` and the device's
/// agenda say), the plans there are (stored by `pacer plan create --save`, uploaded, bundled),
/// a plan's workouts (as `pacer plan show`), a plan uploaded as YAML or generated from the
/// athlete profile, a plan made the device's, and a workout as a FIT workout file. Every
/// change goes through `PlanActions`, the command line's own checks and messages.
///
/// A plan is named in paths by where it comes from: `/plans/stored/3` (the store's plan 3),
/// `/plans/data/mine.yaml` (a file in the data folder's plans/, where uploads go),
/// `/plans/bundled/intervals` (the hardware_dir's plans).
public struct PlansSection: CompanionSection {
    public let device: any CompanionDevice
    /// The device's settings, read afresh (the hardware_dir's plans, the data folder).
    public let settings: @Sendable () throws -> Settings
    /// Now, for today's date, an activation's and a stored plan's time.
    public let now: @Sendable () -> UTCTimestamp

    public init(device: any CompanionDevice, settings: @escaping @Sendable () throws -> Settings,
                now: @escaping @Sendable () -> UTCTimestamp) {
        self.device = device
        self.settings = settings
        self.now = now
    }

    public var menu: (label: String, path: String)? { ("Plans", "/plans") }

    public var routes: [PageRoute] {
        [
            PageRoute(.get, "/plans") { request in try SectionPages.answer { try self.index(request) } },
            PageRoute(.get, "/plans/:source/:name") { request in try SectionPages.answer { try self.show(request) } },
            PageRoute(.get, "/plans/:source/:name/workout/:number/fit") { request in
                try SectionPages.answer { try self.fit(request) }
            },
            PageRoute(.post, "/plans/:source/:name/activate") { request in
                try SectionPages.answer { try self.activate(request) }
            },
            PageRoute(.post, "/plans/upload") { request in try SectionPages.answer { try self.upload(request) } },
            PageRoute(.post, "/plans/generate") { request in try SectionPages.answer { try self.generate(request) } },
        ]
    }

    // MARK: - Where plans are

    /// A plan as the page names it, with its file and text.
    struct PlanFile {
        var source: String
        var name: String
        /// The file to load or activate (a stored plan's only once written: `storedPlanPath`).
        var path: String?
        var text: String
        var storedID: Int64?

        var url: String { "/plans/\(source)/\(SectionPages.pathComponent(name))" }
        /// `stored-3`, `data-mine-yaml`, `bundled-intervals`: for element ids.
        var slug: String { SectionPages.slug("\(source)-\(name)") }
    }

    /// The data folder's plans/, absolute: the device finds an activated plan from any
    /// working directory (as `pacer plan activate` makes its paths absolute).
    func dataPlansFolder(_ s: Settings) -> String { SectionPages.absolute(s.dataDirectory) + "/plans" }

    /// The plan `source`/`name` names, or the reason there is none (404).
    func plan(source: String, name: String) throws -> PlanFile {
        let s = try settings()
        switch source {
        case "stored":
            guard let id = Int64(name), id > 0 else {
                throw SectionRefusal(404, "no stored plan '\(name)': stored plans are numbered from 1 (`pacer plan list`)")
            }
            let stored = try device.store().plans.plan(id: id)
            return PlanFile(source: source, name: name, path: nil, text: stored.yaml, storedID: id)
        case "data", "bundled":
            let folder = source == "data" ? dataPlansFolder(s) : SectionPages.absolute(PlanLoader.directory(hardwareDir: s.hardwareDirectory))
            // A name in the folder (`intervals.yaml`, or `intervals` as the command line takes it),
            // never a path.
            let path = [name, "\(name).yaml"].map { "\(folder)/\($0)" }.first { FileManager.default.fileExists(atPath: $0) }
            guard SectionPages.isPlainFileName(name), let path else {
                throw SectionRefusal(404, "no plan named '\(name)' in \(folder)")
            }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw SectionRefusal(404, "\(path): cannot be read")
            }
            return PlanFile(source: source, name: name, path: path, text: try YAMLMapping.text(of: data, file: path))
        default:
            throw SectionRefusal(404, "no plans from '\(source)' (stored, data or bundled)")
        }
    }

    func load(_ file: PlanFile) throws -> TrainingPlan {
        try PlanLoader.load(file: file.path ?? "stored plan #\(file.storedID ?? 0)", text: file.text)
    }

    /// The plan files of a folder, by name (nothing when there is no folder).
    func files(in folder: String) -> [String] {
        ((try? PlanLoader.available(plansDir: folder)) ?? []).map { ($0 as NSString).lastPathComponent }
    }

    // MARK: - Pages

    func index(_ request: PageRequest) throws -> PageResponse {
        let s = try settings()
        let store = try device.store()
        let today = now().date
        var body = "<section id=\"today\"><h2>Today</h2>"
        let active = try store.plans.activePlan()
        switch PlanAgenda(plans: store.plans).today(on: today) {
        case .workout(let plan, let key, let index, let again):
            let workout = plan.workouts[index]
            body += "<p id=\"active-plan\">The device's plan: <strong>\(SectionPages.h(plan.name))</strong>"
            if let active { body += " (\(SectionPages.h(active.source)))" }
            body += "</p>"
            if let key {
                let done = try store.plans.workoutsDone(plan: key)
                body += "<p id=\"progress\">\(SectionPages.h(PlanActions.progressLine(plan, done: done, today: today)))</p>"
            }
            body += "<p id=\"todays-workout\">Today's workout: \(index + 1), <strong>\(SectionPages.h(workout.name))</strong>"
            body += " (\(workout.phases.count) phases, \(PlanRendering.minutes(workout.phases.reduce(.zero) { $0 + $1.duration })) min)"
            body += again ? ": every workout is done, so the plan starts over." : "."
            body += "</p>"
        case .expired(let name, let deadline):
            body += "<p id=\"active-plan\">The device's plan: <strong>\(SectionPages.h(name))</strong></p>"
            body += "<p id=\"todays-workout\">Expired: its deadline was \(deadline); its workouts cannot be started.</p>"
        case .unavailable(let reason):
            body += "<p id=\"todays-workout\">\(SectionPages.h(reason.replacingOccurrences(of: "`pacer plan activate PLAN`", with: "activate one below")))</p>"
        }
        body += "</section>"

        let stored = try store.plans.plans()
        body += "<section id=\"stored-plans\"><h2>Stored plans</h2>"
        if stored.isEmpty {
            body += "<p>None yet: generate one below.</p>"
        } else {
            body += "<table><tr><th>#</th><th>Plan</th><th>Goal</th><th>Deadline</th><th>Done</th><th></th></tr>"
            for p in stored {
                let file = PlanFile(source: "stored", name: "\(p.id)", text: p.yaml, storedID: p.id)
                let done = (try? store.plans.workoutsDone(plan: PlanKey(contents: p.yaml.utf8)).count) ?? 0
                let deadline = p.deadline.map { "\($0)\($0 < today ? " (expired)" : "")" } ?? "none"
                body += "<tr><td>\(p.id)</td><td>\(SectionPages.link(file.url, p.name))</td><td>\(SectionPages.h(p.goal.name))</td>"
                body += "<td>\(SectionPages.h(deadline))</td><td>\(done)/\(p.workoutCount)</td>"
                body += "<td>\(activateForm(file, request))</td></tr>"
            }
            body += "</table>"
        }
        body += "</section>"

        for (source, title, folder) in [("data", "Uploaded plans", dataPlansFolder(s)),
                                        ("bundled", "Bundled plans", SectionPages.absolute(PlanLoader.directory(hardwareDir: s.hardwareDirectory)))] {
            body += "<section id=\"\(source)-plans\"><h2>\(title)</h2>"
            // A plan the store holds is listed there, not again as its file.
            let storedTexts = Set(stored.map { Data($0.yaml.utf8) })
            let names = files(in: folder).filter {
                source != "data" || !storedTexts.contains(FileManager.default.contents(atPath: "\(folder)/\($0)") ?? Data())
            }
            if names.isEmpty { body += "<p>None.</p>" }
            body += "<ul>"
            for name in names {
                let file = PlanFile(source: source, name: name, path: "\(folder)/\(name)", text: "")
                let plan = Result { () throws(DataFileError) -> TrainingPlan in try PlanLoader.load(path: "\(folder)/\(name)") }
                switch plan {
                case .success(let p):
                    body += "<li>\(SectionPages.link(file.url, p.name)) (\(SectionPages.h(name)), \(p.workouts.count) workouts, "
                        + "\(SectionPages.h(PlanRendering.deadline(p, today: today)))) \(activateForm(file, request))</li>"
                case .failure(let error):
                    body += "<li>\(SectionPages.h(name)): <span class=\"error\">\(SectionPages.h(error.description))</span></li>"
                }
            }
            body += "</ul></section>"
        }

        body += "<section id=\"upload\"><h2>Upload a plan</h2>"
        body += "<p>A plan file (YAML, the format of the bundled plans); it is checked as <code>pacer plan show</code> checks it.</p>"
        body += CompanionHTML.form(action: "/plans/upload", csrf: request.csrfToken, upload: true,
                                   content: "<input type=\"file\" name=\"plan\" id=\"plan-file\" accept=\".yaml,.yml\" required/>",
                                   button: "Upload", id: "plan-upload")
        body += "</section>"

        body += "<section id=\"generate\"><h2>Generate a plan from the athlete profile</h2>"
        body += "<p>As <code>pacer plan create --save</code>: a goal of <code>pacer plan goals</code> ("
            + GoalCatalog.entries.map { SectionPages.h($0.key) }.joined(separator: ", ")
            + ") or of your own (\(SectionPages.h(GoalCatalog.syntax))); start default today, deadline default "
            + "\(PlanGenerator.defaultWeeks) weeks later.</p>"
        body += CompanionHTML.form(action: "/plans/generate", csrf: request.csrfToken, content: """
            <label>Goal <input name="goal" id="goal" required/></label> \
            <label>Start <input name="start" id="start" placeholder="YYYY-MM-DD"/></label> \
            <label>Deadline <input name="deadline" id="deadline" placeholder="YYYY-MM-DD"/></label>
            """, button: "Generate", id: "plan-generate")
        body += "</section>"
        return .page(title: "Plans", body: body)
    }

    func activateForm(_ file: PlanFile, _ request: PageRequest) -> String {
        SectionPages.form(action: file.url + "/activate", request, button: "Activate", id: "activate-\(file.slug)")
    }

    func show(_ request: PageRequest) throws -> PageResponse {
        let file = try plan(source: request.parameters["source"] ?? "", name: request.parameters["name"] ?? "")
        let plan = try load(file)
        var body = "<pre id=\"plan\">\(SectionPages.h(PlanRendering.render(plan, today: now().date)))</pre>"
        body += "<h2>Workouts as FIT workout files</h2><ul id=\"fit-workouts\">"
        for (i, workout) in plan.workouts.enumerated() {
            body += "<li><a id=\"fit-\(i + 1)\" href=\"\(SectionPages.h(file.url))/workout/\(i + 1)/fit\">"
                + "\(i + 1). \(SectionPages.h(workout.name)) (FIT)</a></li>"
        }
        body += "</ul>"
        body += activateForm(file, request)
        return .page(title: plan.name, body: body)
    }

    func fit(_ request: PageRequest) throws -> PageResponse {
        let file = try plan(source: request.parameters["source"] ?? "", name: request.parameters["name"] ?? "")
        let plan = try load(file)
        let text = request.parameters["number"] ?? ""
        guard let number = Int(text) else {
            throw SectionRefusal(400, "--workout '\(text)' is not a number: the workout's number in the plan, from 1")
        }
        let (workout, bytes) = try PlanActions.fitWorkout(plan, path: file.path ?? "stored plan #\(file.storedID ?? 0)",
                                                          number: number, at: now())
        let name = SectionPages.slug(workout.name.isEmpty ? plan.name : "\(plan.name)-\(number)-\(workout.name)")
        return .download(filename: "\(name).fit", contentType: ShareFormat.fit.mediaType, bytes: bytes)
    }

    // MARK: - Changes

    func activate(_ request: PageRequest) throws -> PageResponse {
        try SectionPages.refuseDuringWorkout(device)
        let file = try plan(source: request.parameters["source"] ?? "", name: request.parameters["name"] ?? "")
        let store = try device.store()
        let data = SectionPages.absolute(try settings().dataDirectory)
        let path: String
        if let id = file.storedID {
            path = try PlanActions.storedPlanPath(id, in: store.plans, dataFolder: data)
        } else {
            path = file.path ?? ""
        }
        let (plan, key, activities, copy) = try PlanActions.activate(path: path, dataFolder: data, in: { store }, at: now())
        device.planChanged()
        let line = PlanActions.progressLine(plan, done: try activities.plans.workoutsDone(plan: key), today: now().date)
        return .redirect(to: "/plans", notice: "The device's plan is now '\(plan.name)' (\(path), \(key)), copied to \(copy). \(line)")
    }

    func upload(_ request: PageRequest) throws -> PageResponse {
        try SectionPages.refuseDuringWorkout(device)
        guard let upload = request.uploads["plan"] else {
            throw SectionRefusal(400, "plan: no file was sent: choose a plan file (YAML)")
        }
        // The name the browser gave, as a name only: never a path.
        let name = (upload.filename as NSString).lastPathComponent
        guard SectionPages.isPlainFileName(name), name.hasSuffix(".yaml") || name.hasSuffix(".yml") else {
            throw SectionRefusal(400, "\(upload.filename): a plan file's name ends in .yaml (letters, digits, - _ . only)")
        }
        guard upload.bytes.count <= YAMLMapping.maximumFileSize else {
            throw SectionRefusal(400, "\(name): \(upload.bytes.count) bytes; a plan file has at most \(YAMLMapping.maximumFileSize)")
        }
        let text = try YAMLMapping.text(of: Data(upload.bytes), file: name)
        let plan = try PlanLoader.load(file: name, text: text)
        let folder = dataPlansFolder(try settings())
        let path = "\(folder)/\(name)"
        let taken = SectionRefusal(409, "\(name): a different plan of this name is there already (plans/\(name)): "
            + "rename the file to upload it as a new plan")
        if let existing = FileManager.default.contents(atPath: path) {
            guard existing == Data(upload.bytes) else { throw taken }
        } else {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            do {
                // Never over a plan another upload wrote a moment ago: that one was first.
                try OutputFile.write(path, text: text, as: .new(mode: 0o644))
            } catch {
                guard error == .exists(path: path) else { throw error }
                guard FileManager.default.contents(atPath: path) == Data(upload.bytes) else { throw taken }
            }
        }
        return .redirect(to: "/plans/data/\(SectionPages.pathComponent(name))",
                         notice: "Uploaded plan '\(plan.name)' (\(plan.workouts.count) workouts) as plans/\(name).")
    }

    func generate(_ request: PageRequest) throws -> PageResponse {
        try SectionPages.refuseDuringWorkout(device)
        let goalText = SectionPages.field(request, "goal") ?? ""
        guard !goalText.isEmpty else { throw SectionRefusal(400, "--goal: give a goal (`pacer plan goals`)") }
        let goal = try PlanActions.goal(goalText)
        let start = try SectionPages.field(request, "start").map { try PlanActions.date($0, option: "--start") } ?? now().date
        let deadline = try SectionPages.field(request, "deadline").map { try PlanActions.date($0, option: "--deadline") }
        let store = try device.store()
        guard let profile = try store.athlete.athlete()?.profile else {
            throw SectionRefusal(400, "the athlete's --weight, --height, --frequency are needed to generate a plan (kg, cm, "
                + "days a week): set the athlete profile first (/athlete, `pacer profile set`)")
        }
        let generated = try PlanActions.generate(profile: profile, goal: goal, asGiven: goalText, start: start, deadline: deadline)
        let (path, id) = try PlanActions.save(generated, goal: goal, asGiven: goalText, start: start, in: store.plans,
                                              dataFolder: SectionPages.absolute(try settings().dataDirectory), at: now())
        return .redirect(to: "/plans/stored/\(id)",
                         notice: "Wrote plan '\(generated.plan.name)' (\(generated.plan.workouts.count) workouts, deadline "
                            + "\(generated.plan.deadline.map { "\($0)" } ?? "none")) to \(path); stored as plan \(id).")
    }
}

/// A page's refusal with its HTTP status, thrown inside a handler (`SectionPages.answer`
/// makes it, and the layers' own errors, a `.refused`).
struct SectionRefusal: Error {
    var status: Int
    var message: String

    init(_ status: Int, _ message: String) {
        self.status = status
        self.message = message
    }
}

/// What the plans, athlete and settings pages share.
enum SectionPages {
    static func h(_ text: String) -> String { CompanionHTML.escape(text) }
    static func link(_ path: String, _ text: String) -> String { CompanionHTML.link(path, text) }

    /// A handler's answer, its refusals as `.refused` with the command line's message:
    /// 400 for a bad value or file, 404 for nothing such, 409 for a workout running.
    static func answer(_ body: () throws -> PageResponse) throws -> PageResponse {
        do {
            return try body()
        } catch let refusal as SectionRefusal {
            return .refused(status: refusal.status, message: refusal.message)
        } catch let error as PlanActionError {
            let status = switch error.kind {
            case .invalid, .usage: 400
            case .noInput: 404
            case .cannotCreate: 409
            }
            return .refused(status: status, message: error.message)
        } catch let error as ProfileInputError {
            return .refused(status: 400, message: error.message)
        } catch let error as DataFileError {
            return .refused(status: error.isUnreadable ? 404 : 400, message: error.description)
        } catch let error as StorageError {
            switch error {
            case .unknownPlan, .unknownActivity, .unknownRoute: return .refused(status: 404, message: "\(error)")
            case .busy: return .refused(status: 409, message: "\(error)")
            default: return .refused(status: 500, message: "\(error)")
            }
        }
    }

    /// A POST form whose button has the id `id` (`button#activate-stored-1`), the form
    /// `form-` and the id.
    static func form(action: String, _ request: PageRequest, content: String = "", button: String, id: String) -> String {
        CompanionHTML.form(action: action, csrf: request.csrfToken, content: content, button: button, id: "form-\(id)")
            .replacingOccurrences(of: "<button type=\"submit\">", with: "<button type=\"submit\" id=\"\(h(id))\">")
    }

    /// The page changes nothing while a workout runs (the server refuses too).
    static func refuseDuringWorkout(_ device: any CompanionDevice) throws {
        if device.workoutRunning {
            throw SectionRefusal(409, "a workout is running: this can be changed when it has ended")
        }
    }

    /// A form field, trimmed; nil when absent or empty (an empty field changes nothing).
    static func field(_ request: PageRequest, _ name: String) -> String? {
        guard let value = request.form[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else {
            return nil
        }
        return value
    }

    /// `path` made absolute against the working directory.
    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    /// A file name without a folder: letters, digits, `-`, `_`, `.`, not starting with a dot.
    static func isPlainFileName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 100 && !name.hasPrefix(".")
            && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ".") }
    }

    /// `name` for a URL's path (the plain names above need no escaping; anything else is encoded).
    static func pathComponent(_ name: String) -> String {
        name.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-_."))) ?? name
    }

    /// `text` for an element id or a file name: lower-case letters, digits and `-`.
    static func slug(_ text: String) -> String {
        var out = ""
        for c in text.lowercased() {
            if c.isASCII && (c.isLetter || c.isNumber) { out.append(c) } else if !out.hasSuffix("-") { out.append("-") }
        }
        while out.hasSuffix("-") { out.removeLast() }
        return out.isEmpty ? "plan" : out
    }
}
