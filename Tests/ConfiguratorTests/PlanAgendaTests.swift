import Coaching
import Configurator
import Foundation
import PacerCore
import Runtime
import Storage
import TestSupport
import Testing

/// Today's workout for the device (`pacer device`): the active plan, its first workout with
/// no completed activity, kept by the plan file's identity.
@Suite("The device's plan and progress")
struct PlanAgendaTests {
    static let may2 = CivilDate(year: 2026, month: 5, day: 2)!

    static func planText(name: String, deadline: String? = nil, workouts: Int = 3) -> String {
        var text = "name: \(name)\n" + (deadline.map { "deadline: \($0)\n" } ?? "") + "workouts:\n"
        for i in 1...workouts {
            text += "  - name: W\(i)\n    phases:\n      - {name: run, minutes: \(i), speed_kmh: [8, 11]}\n"
        }
        return text
    }

    func activate(_ text: String, as file: String, in dir: String, store: PacerStore) throws -> PlanKey {
        let path = "\(dir)/\(file)"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let key = PlanKey(contents: Array(text.utf8))
        try store.plans.setActivePlan(key, source: path, at: UTCTimestamp(date: Self.may2, millisecondOfDay: 0))
        return key
    }

    func complete(_ index: Int, of key: PlanKey, in store: PacerStore) throws {
        let id = try store.activities.begin(ActivityStart(name: "w", startedAt: nil, plan: "p", workout: "w", profile: "medium",
                                               planKey: key, workoutIndex: index))
        try store.activities.finish(id, end: .completed, endedAt: nil, activeTime: .seconds(60))
    }

    func offered(_ today: TodaysWorkout) -> (Int, Bool)? {
        if case .workout(_, _, let index, let again) = today { (index, again) } else { nil }
    }

    /// `pacer plan activate` of a file elsewhere (a temporary folder): the device's plan is its
    /// copy in the data folder's plans/activated, so the agenda still offers its workout when
    /// the file is gone; the copy's folders take the data folder's mode (group pacer's).
    @Test func anActivatedPlanIsOfferedWhenItsFileIsGone() throws {
        let dir = try makeTemporaryDirectory()
        let data = "\(dir)/data"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o750])
        let store = try PacerStore(directory: data)
        try FileManager.default.createDirectory(atPath: "\(dir)/elsewhere", withIntermediateDirectories: false)
        let file = "\(dir)/elsewhere/base.yaml"
        let text = Self.planText(name: "Base")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let time = UTCTimestamp(date: Self.may2, millisecondOfDay: 0)
        let activated = try PlanActions.activate(path: file, dataFolder: data, in: { store }, at: time)
        #expect(activated.key == PlanKey(contents: Array(text.utf8)))
        #expect(activated.copy == "\(data)/plans/activated/\(activated.key.rawValue.dropFirst(5)).yaml")
        #expect(try store.plans.activePlan()?.source == activated.copy)
        for folder in ["\(data)/plans", "\(data)/plans/activated"] {
            let mode = (try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? NSNumber)?.intValue
            #expect(mode == 0o750, "\(folder)")
        }
        try FileManager.default.removeItem(atPath: "\(dir)/elsewhere")
        let agenda = PlanAgenda(plans: store.plans)
        guard case .workout(let plan, let key, 0, false) = agenda.today(on: Self.may2) else {
            Issue.record("not offered: \(agenda.today(on: Self.may2))")
            return
        }
        #expect(plan.name == "Base" && key == activated.key)
        // Activated again (the same text, from another file): the same copy, nothing else.
        try text.write(toFile: "\(dir)/again.yaml", atomically: true, encoding: .utf8)
        let again = try PlanActions.activate(path: "\(dir)/again.yaml", dataFolder: data, in: { store }, at: time)
        #expect(again.copy == activated.copy)
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(data)/plans/activated").count == 1)
        // The copy itself removed under a running device (its data folder removed): the
        // device's agenda goes on with the plan it read; a fresh one cannot read it.
        let memory = PlanAgenda.Memory()
        #expect(offered(PlanAgenda(plans: store.plans, memory: memory).today(on: Self.may2))! == (0, false))
        try FileManager.default.removeItem(atPath: activated.copy)
        #expect(offered(PlanAgenda(plans: store.plans, memory: memory).today(on: Self.may2))! == (0, false))
        guard case .unavailable(let reason) = agenda.today(on: Self.may2) else {
            Issue.record("offered without its file or a memory")
            return
        }
        #expect(reason.contains("cannot be read"), "\(reason)")
    }

    @Test func theFirstWorkoutNotCompletedIsOfferedAndAPlanDoneStartsAgain() throws {
        let dir = try makeTemporaryDirectory()
        let store = try PacerStore(directory: dir)
        let agenda = PlanAgenda(plans: store.plans)
        if case .unavailable(let reason) = agenda.today(on: Self.may2) {
            #expect(reason.contains("pacer plan activate"), "\(reason)")
        } else {
            Issue.record("no plan, yet offered")
        }
        let key = try activate(Self.planText(name: "Base"), as: "base.yaml", in: dir, store: store)
        #expect(offered(agenda.today(on: Self.may2))! == (0, false))
        try complete(0, of: key, in: store)
        try complete(2, of: key, in: store)
        #expect(offered(agenda.today(on: Self.may2))! == (1, false))
        // A stopped workout is not a completed one.
        let stopped = try store.activities.begin(ActivityStart(name: "w", startedAt: nil, plan: "p", workout: "w", profile: "m",
                                                    planKey: key, workoutIndex: 1))
        try store.activities.finish(stopped, end: .stopped, endedAt: nil, activeTime: .seconds(10))
        #expect(offered(agenda.today(on: Self.may2))! == (1, false))
        try complete(1, of: key, in: store)
        #expect(offered(agenda.today(on: Self.may2))! == (0, true))
    }

    /// Two plans with one name are two plans: progress goes by the file's identity.
    @Test func progressBelongsToThePlanNotItsName() throws {
        let dir = try makeTemporaryDirectory()
        let store = try PacerStore(directory: dir)
        let agenda = PlanAgenda(plans: store.plans)
        let first = try activate(Self.planText(name: "Same"), as: "a.yaml", in: dir, store: store)
        try complete(0, of: first, in: store)
        #expect(offered(agenda.today(on: Self.may2))! == (1, false))
        _ = try activate(Self.planText(name: "Same", workouts: 4), as: "b.yaml", in: dir, store: store)
        #expect(offered(agenda.today(on: Self.may2))! == (0, false))
    }

    @Test func anExpiredBrokenOrVanishedPlanIsNotOffered() throws {
        let dir = try makeTemporaryDirectory()
        let store = try PacerStore(directory: dir)
        let agenda = PlanAgenda(plans: store.plans)
        _ = try activate(Self.planText(name: "Race", deadline: "2026-05-01"), as: "race.yaml", in: dir, store: store)
        #expect(agenda.today(on: Self.may2) == .expired(plan: "Race", deadline: CivilDate(year: 2026, month: 5, day: 1)!))
        #expect(offered(agenda.today(on: CivilDate(year: 2026, month: 5, day: 1)!))! == (0, false))
        _ = try activate("name: Broken\nworkouts: 3\n", as: "broken.yaml", in: dir, store: store)
        guard case .unavailable(let broken) = agenda.today(on: Self.may2) else { Issue.record("broken plan offered"); return }
        #expect(broken.contains("broken.yaml") && broken.contains("workouts"), "\(broken)")
        try FileManager.default.removeItem(atPath: "\(dir)/broken.yaml")
        guard case .unavailable(let gone) = agenda.today(on: Self.may2) else { Issue.record("vanished plan offered"); return }
        #expect(gone.contains("cannot be read") && gone.contains("activate it again"), "\(gone)")
    }
}
