import Coaching
import Configurator
import Foundation
import PacerCore
import Storage
import Testing
import TestSupport
@testable import Companion

@Suite struct PlansSectionTests {
    @Test func theIndexSaysThereIsNoPlanAndOffersTheBundledOnes() async throws {
        let f = try PagesFixture()
        let page = try await callRoute(f.plans, .get, "/plans")
        #expect(page.body.contains("<section id=\"today\">"))
        #expect(page.body.contains("no plan"), "\(page.body)")
        #expect(page.body.contains("button type=\"submit\" id=\"activate-bundled-intervals-yaml\""))
        #expect(page.body.contains("id=\"plan-upload\"") && page.body.contains("enctype=\"multipart/form-data\""))
        #expect(page.body.contains("id=\"plan-generate\""))
        #expect(page.body.contains("value=\"token-123\""), "every form carries the CSRF token")
    }

    @Test func activatingABundledPlanMakesItTheDevicesAndShowsTodaysWorkout() async throws {
        let f = try PagesFixture()
        let answer = try await callRoute(f.plans, .post, "/plans/bundled/intervals.yaml/activate")
        let redirect = try #require(answer.redirect, "\(answer)")
        #expect(redirect.to == "/plans")
        #expect(redirect.notice?.hasPrefix("The device's plan is now 'Intervals'") == true, "\(redirect)")
        #expect(redirect.notice?.contains("0/1 workouts done; next: workout 1, 6 x 2 min") == true, "\(redirect)")
        let active = try #require(try f.device.activities.plans.activePlan())
        // The device's own copy, in its data folder, named by the plan's key.
        let copy = f.data + "/plans/activated/\(active.key.rawValue.dropFirst(5)).yaml"
        #expect(active.source == copy)
        #expect(FileManager.default.contents(atPath: copy) == FileManager.default.contents(atPath: hardwareDirectory + "/plans/intervals.yaml"))
        #expect(redirect.notice?.contains("(\(hardwareDirectory)/plans/intervals.yaml, \(active.key)), copied to \(copy).") == true,
                "\(redirect)")
        #expect(f.device.plansChanged.withLock { $0 } == 1, "the device is told, so it offers the new plan at once")
        let page = try await callRoute(f.plans, .get, "/plans")
        #expect(page.body.contains("<p id=\"todays-workout\">Today's workout: 1, <strong>6 x 2 min</strong>"), "\(page.body)")
        #expect(page.body.contains("<p id=\"progress\">0/1 workouts done"))
    }

    @Test func aBrokenUploadIsRefusedWithItsFileLineAndKeyAsTheLoaderSaysIt() async throws {
        let f = try PagesFixture()
        let text = "name: Mine\nworkouts:\n  - name: one\n    phases:\n      - name: run\n        minutes: 5\n        speeed_kmh: [9, 10]\n"
        let answer = try await callRoute(f.plans, .post, "/plans/upload",
                                    uploads: ["plan": Upload(filename: "mine.yaml", bytes: Array(text.utf8))])
        let refusal = try #require(answer.refusal, "\(answer)")
        #expect(refusal.status == 400)
        var expected = ""
        do { _ = try PlanLoader.load(file: "mine.yaml", text: text) } catch { expected = error.description }
        #expect(refusal.message == expected)
        #expect(refusal.message.hasPrefix("mine.yaml:7: "), "\(refusal.message)")
        #expect(!FileManager.default.fileExists(atPath: f.data + "/plans/mine.yaml"))
    }

    @Test func anUploadIsKeptUnderItsNameOnlyAndNeverReplacedByAnother() async throws {
        let f = try PagesFixture()
        let yaml = try String(contentsOfFile: hardwareDirectory + "/plans/tempo.yaml", encoding: .utf8)
        let answer = try await callRoute(f.plans, .post, "/plans/upload",
                                    uploads: ["plan": Upload(filename: "../../escape.yaml", bytes: Array(yaml.utf8))])
        #expect(answer.redirect?.to == "/plans/data/escape.yaml", "\(answer)")
        #expect(FileManager.default.contents(atPath: f.data + "/plans/escape.yaml") == Data(yaml.utf8))
        #expect(!FileManager.default.fileExists(atPath: f.folder.path + "/escape.yaml"))
        let shown = try await callRoute(f.plans, .get, "/plans/data/escape.yaml")
        #expect(shown.body.contains(CompanionHTML.escape(PlanRendering.render(try PlanLoader.load(file: "x", text: yaml),
                                                                              today: PagesFixture.now.date))))
        let other = try await callRoute(f.plans, .post, "/plans/upload",
                                   uploads: ["plan": Upload(filename: "escape.yaml", bytes: Array((yaml + "\n# changed\n").utf8))])
        #expect(other.refusal?.status == 409, "\(other)")
        #expect(FileManager.default.contents(atPath: f.data + "/plans/escape.yaml") == Data(yaml.utf8))
        let badName = try await callRoute(f.plans, .post, "/plans/upload",
                                     uploads: ["plan": Upload(filename: "plan.txt", bytes: Array(yaml.utf8))])
        #expect(badName.refusal?.message.hasPrefix("plan.txt: a plan file's name ends in .yaml") == true, "\(badName)")
        let missing = try await callRoute(f.plans, .get, "/plans/data/..%2Fpacer.sqlite")
        #expect(missing.refusal?.status == 404, "\(missing)")
    }

    @Test func aPlanIsGeneratedFromTheStoredProfileAndActivatedByItsId() async throws {
        let f = try PagesFixture()
        let refused = try await callRoute(f.plans, .post, "/plans/generate", form: ["goal": "5k"])
        #expect(refused.refusal?.status == 400)
        #expect(refused.refusal?.message.contains("set the athlete profile first") == true, "\(refused)")
        let badGoal = try await callRoute(f.plans, .post, "/plans/generate", form: ["goal": "moon"])
        var expected = ""
        do { _ = try GoalCatalog.goal("moon") } catch { expected = error.description }
        #expect(badGoal.refusal?.message == expected)
        let badDate = try await callRoute(f.plans, .post, "/plans/generate", form: ["goal": "5k", "deadline": "2026-02-30"])
        #expect(badDate.refusal?.message == "--deadline 2026-02-30 is not a day of the calendar", "\(badDate)")

        _ = try await callRoute(f.athlete, .post, "/athlete", form: ["weight": "70", "height": "178", "frequency": "3"])
        let made = try await callRoute(f.plans, .post, "/plans/generate", form: ["goal": "5k", "start": "2026-06-01"])
        #expect(made.redirect?.to == "/plans/stored/1", "\(made)")
        let stored = try f.device.activities.plans.plans()
        #expect(stored.count == 1)
        let expectedPlan = try PlanActions.generate(
            profile: try #require(try f.device.activities.athlete.athlete()).profile, goal: try PlanActions.goal("5k"),
            asGiven: "5k", start: PagesFixture.now.date, deadline: nil)
        #expect(stored.first?.yaml == PlanWriter.text(expectedPlan.plan, header: expectedPlan.header))
        #expect(FileManager.default.fileExists(atPath: f.data + "/plans/5k-from-2026-06-01.yaml"))

        let shown = try await callRoute(f.plans, .get, "/plans/stored/1")
        #expect(shown.body.contains("id=\"fit-1\""))
        let activated = try await callRoute(f.plans, .post, "/plans/stored/1/activate")
        #expect(activated.redirect?.notice?.contains(f.data + "/plans/5k-from-2026-06-01.yaml") == true, "\(activated)")
        let source = try #require(try f.device.activities.plans.activePlan()?.source)
        #expect(source.hasPrefix(f.data + "/plans/activated/"), "\(source)")
        #expect(FileManager.default.contents(atPath: source) == FileManager.default.contents(atPath: f.data + "/plans/5k-from-2026-06-01.yaml"))
        let index = try await callRoute(f.plans, .get, "/plans")
        #expect(index.body.contains("id=\"activate-stored-1\""))
        #expect(!index.body.contains("id=\"activate-data-5k-from-2026-06-01-yaml\""), "a stored plan is listed once")
        #expect(index.body.contains("Today's workout: 1,"), "\(index.body)")
        let unknown = try await callRoute(f.plans, .get, "/plans/stored/9")
        #expect(unknown.refusal?.status == 404, "\(unknown)")
    }

    @Test func aWorkoutDownloadsAsTheFITWorkoutFileTheCommandWrites() async throws {
        let f = try PagesFixture()
        let answer = try await callRoute(f.plans, .get, "/plans/bundled/intervals.yaml/workout/1/fit")
        guard case .download(let name, let type, let bytes) = answer else {
            Issue.record("not a download: \(answer)")
            return
        }
        #expect(name == "intervals-1-6-x-2-min.fit")
        #expect(type == "application/vnd.ant.fit")
        let plan = try PlanLoader.load(path: hardwareDirectory + "/plans/intervals.yaml")
        #expect(bytes == FITWriter.workout(plan.workouts[0], name: plan.workouts[0].name, createdAt: PagesFixture.now))
        #expect(Array(bytes[8..<12]) == Array(".FIT".utf8))
        let none = try await callRoute(f.plans, .get, "/plans/bundled/intervals.yaml/workout/4/fit")
        #expect(none.refusal?.status == 400)
        #expect(none.refusal?.message == "\(hardwareDirectory)/plans/intervals.yaml: the plan has 1 workout(s); --workout 4 is not one")
    }

    @Test func nothingChangesWhileAWorkoutRuns() async throws {
        let f = try PagesFixture()
        f.device.running.withLock { $0 = true }
        let answer = try await callRoute(f.plans, .post, "/plans/bundled/intervals.yaml/activate")
        #expect(answer.refusal?.status == 409, "\(answer)")
        #expect(try f.device.activities.plans.activePlan() == nil)
        let page = try await callRoute(f.plans, .get, "/plans")
        #expect(page.body.contains("id=\"today\""), "reading is allowed")
    }
}
