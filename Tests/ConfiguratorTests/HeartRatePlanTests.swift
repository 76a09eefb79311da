import Coaching
import Configurator
import Foundation
import PacerCore
import Testing

/// A plan's heart-rate keys: a zone or a bpm band as the target, a ceiling beside a pace band.
@Suite("Heart-rate phases in plan files")
struct HeartRatePlanTests {
    static func plan(_ phases: String) -> String {
        """
        name: HR
        workouts:
          - name: w
            phases:
        \(phases)
        """
    }

    @Test func zonesBandsAndCeilingsLoadAndWriteBack() throws {
        let text = Self.plan("""
                  - {name: warm-up, minutes: 10, hr_zone: 2}
                  - {name: steady, km: 5, hr_bpm: [150, 158]}
                  - {name: easy, minutes: 30, speed_kmh: [9, 10.5], hr_max_bpm: 150}
                  - {name: long, minutes: 60, pace_min_per_km: ["6:40", "6:00"], hr_max_zone: 2}
            """)
        let plan = try PlanLoader.load(file: "hr.yaml", text: text)
        let p = plan.workouts[0].phases
        #expect(p[0].target == .heartRate(.zone(2)))
        #expect(p[0].speedBand == nil)
        #expect(p[1].target == .heartRate(.bpm(minimum: 150, maximum: 158)))
        #expect(p[2].speedBand != nil && p[2].heartRateCeiling == .bpm(150))
        #expect(p[3].heartRateCeiling == .zoneTop(2))
        #expect(p.allSatisfy { $0.usesHeartRate })
        let back = try PlanLoader.load(file: "back.yaml", text: PlanWriter.text(plan))
        #expect(back == plan)
        // `plan show` gets a heart-rate column.
        let shown = PlanRendering.render(plan, today: CivilDate(year: 2026, month: 6, day: 1)!)
        #expect(shown.contains("Heart rate"))
        #expect(shown.contains("zone 2"))
        #expect(shown.contains("≤ top of zone 2"))
        #expect(shown.contains("by heart rate"))
    }

    @Test(arguments: [
        ("- {name: a, minutes: 10, hr_zone: 6}", "hr_zone", "from 1 to 5"),
        ("- {name: a, minutes: 10, hr_zone: 2.5}", "hr_zone", "whole number from 1 to 5"),
        ("- {name: a, minutes: 10, hr_bpm: [160, 150]}", "hr_bpm", "the lower rate comes first"),
        ("- {name: a, minutes: 10, hr_bpm: [150, 152]}", "hr_bpm", "at least 4 bpm"),
        ("- {name: a, minutes: 10, hr_bpm: [20, 150]}", "hr_bpm", "from 60 to 230"),
        ("- {name: a, minutes: 10, speed_kmh: [9, 10], hr_zone: 2}", "hr_zone", "a pace or a heart rate, not both"),
        ("- {name: a, minutes: 10, hr_zone: 2, hr_max_bpm: 150}", "hr_max_bpm", "one heart-rate target or ceiling"),
        ("- {name: a, minutes: 10, hr_max_bpm: 300}", "hr_max_bpm", "got 300"),
    ])
    func brokenHeartRateKeysAreRefused(phase: String, key: String, reason: String) {
        let error = #expect(throws: DataFileError.self) {
            try PlanLoader.load(file: "hr.yaml", text: Self.plan("      " + phase))
        }
        #expect(error?.file == "hr.yaml")
        #expect(error?.line == 5, "\(String(describing: error))")
        #expect(error?.key?.hasSuffix(key) == true, "\(String(describing: error))")
        #expect(error?.reason.contains(reason) == true, "\(String(describing: error))")
    }

    /// `pacer plan create --hr-cap`: easy running under the top of zone 2, the efforts by pace
    /// alone; refused for an athlete without zones.
    @Test func theGeneratorCapsEasyRunningByHeartRate() throws {
        var athlete = AthleteProfile(weight: 70, height: 176, weeklyFrequency: 4, hasRaced: true, hasRunMarathon: false,
                                     bestRace: .init(distance: 10_000, time: .seconds(50 * 60)))
        let start = CivilDate(year: 2026, month: 12, day: 1)!
        let goal = try GoalCatalog.goal("10km-in-47:00")
        #expect(throws: PlanActionError.self) {
            try PlanActions.generate(profile: athlete, goal: goal, asGiven: "10km-in-47:00", start: start, deadline: nil, heartRateCap: true)
        }
        athlete.heartRate = HeartRateFigures(maximum: 188, resting: 52)
        let (plan, header) = try PlanActions.generate(profile: athlete, goal: goal, asGiven: "10km-in-47:00", start: start,
                                                      deadline: nil, heartRateCap: true)
        let phases = plan.workouts.flatMap(\.phases)
        let easy = phases.filter { $0.name == "easy" || $0.name == "long easy" }
        #expect(!easy.isEmpty)
        #expect(easy.allSatisfy { $0.heartRateCeiling == .zoneTop(2) })
        #expect(phases.filter { $0.heartRateCeiling != nil }.count == easy.count)
        #expect(header.last?.contains("--hr-cap") == true)
        // The same plan without the cap, phase for phase but for the ceilings.
        let plain = try PlanActions.generate(profile: athlete, goal: goal, asGiven: "10km-in-47:00", start: start, deadline: nil).plan
        var uncapped = plan
        for w in uncapped.workouts.indices {
            for p in uncapped.workouts[w].phases.indices { uncapped.workouts[w].phases[p].heartRateCeiling = nil }
        }
        #expect(uncapped == plain)
        #expect(try PlanLoader.load(file: "capped.yaml", text: PlanWriter.text(plan)) == plan)
    }
}
