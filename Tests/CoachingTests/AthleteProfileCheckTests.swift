import Coaching
import PacerCore
import Testing

/// The athlete profile's plausibility checks and the text forms `pacer profile set` reads.
@Suite("AthleteProfile checks")
struct AthleteProfileCheckTests {
    /// The race-time bound is under every men's world record it is checked against, so that
    /// no real mark is refused; and not far under (within 12 %), so that it still refuses
    /// impossible ones.
    @Test(arguments: [
        (1000.0, 131.96),  // Ngeny 1999
        (1500.0, 206.00),  // El Guerrouj 1998
        (1609.344, 223.13),  // the mile, El Guerrouj 1999
        (5000.0, 755.36),  // Cheptegei 2020
        (10_000.0, 1571.00),  // Cheptegei 2020
        (Goal.marathonDistance, 7235.0),  // Kiptum 2023, 2:00:35
    ])
    func raceBoundIsUnderTheWorldRecord(distance: Double, record: Double) {
        let bound = AthleteProfile.fastestPlausibleTime(forDistance: distance).inSeconds
        #expect(bound <= record)
        #expect(bound > record * 0.88, "\(bound) s for \(distance) m")
        let mark = AthleteProfile.Mark(distance: distance, time: .milliseconds(Int64(record * 1000)))
        #expect(AthleteProfile.problem(mark) == nil)
    }

    @Test func raceMarksOutsideTheBoundsAreRefused() {
        #expect(AthleteProfile.plausibleRaceTimes(forDistance: 10_000) == .seconds(1515)...(.seconds(18_000)))
        #expect(AthleteProfile.problem(.init(distance: 10_000, time: .seconds(48 * 60 + 30))) == nil)
        #expect(AthleteProfile.problem(.init(distance: 10_000, time: .seconds(1514)))?.contains("world record") == true)
        #expect(AthleteProfile.problem(.init(distance: 10_000, time: .seconds(18_001)))?.contains("2 km/h") == true)
        #expect(AthleteProfile.problem(.init(distance: 999, time: .seconds(300)))?.contains("1 to 100 km") == true)
        #expect(AthleteProfile.problem(.init(distance: 100_001, time: .seconds(40_000))) != nil)
        #expect(AthleteProfile.problem(.init(distance: .nan, time: .seconds(3000))) != nil)
        #expect(AthleteProfile.problem(.init(distance: 5000, time: .zero)) != nil)
    }

    @Test func problemsNameTheFieldAndTheRange() {
        let good = AthleteProfile(weight: 70, height: 175, weeklyFrequency: 3, hasRaced: false, hasRunMarathon: false)
        #expect(good.problems.isEmpty)
        var bad = good
        bad.weight = 300
        bad.weeklyFrequency = 0
        bad.bestMarathon = .seconds(3 * 3600)
        #expect(bad.problems.map(\.field) == [.weight, .weeklyFrequency, .bestMarathon])
        #expect(bad.problems[0].message == "weight 300 kg is outside 30 to 250 kg")
        #expect(bad.problems[1].message == "weekly frequency 0 days is outside 1 to 7 days a week")
        #expect(bad.problems[2].message == "a best marathon needs 'marathon: yes'")
        var fast = good
        fast.hasRunMarathon = true
        fast.bestMarathon = .seconds(7199)
        #expect(fast.problems.map(\.message) == ["a marathon in 1:59:59 is outside 2:00:00 to 8:00:00"])
    }

    @Test func fieldsDiffering() {
        let a = AthleteProfile(weight: 70, height: 175, weeklyFrequency: 3, hasRaced: false, hasRunMarathon: false)
        var b = a
        #expect(b.fields(differingFrom: a).isEmpty)
        b.hasRaced = true
        b.bestRace = .init(distance: 5000, time: .seconds(1500))
        b.weight = 71
        #expect(b.fields(differingFrom: a) == [.weight, .hasRaced, .bestRace])
    }

    @Test func clockTexts() {
        #expect(AthleteProfile.parseClock("48:30") == .seconds(2910))
        #expect(AthleteProfile.parseClock("1:45:00") == .seconds(6300))
        #expect(AthleteProfile.parseClock("01:45:00") == .seconds(6300))
        #expect(AthleteProfile.parseClock("90:00") == .seconds(5400))
        #expect(AthleteProfile.parseClock("0:59") == .seconds(59))
        #expect(AthleteProfile.parseClock("22:10.5") == .milliseconds(1_330_500))
        #expect(AthleteProfile.parseClock("3:26.00") == .seconds(206))
        for bad in ["", "48", "48:3", "48:60", "1:60:00", "1:5:00", ":30", "48:", "1:45:00:00", "0:00", "-1:00",
                    "48:30.", "48:30.1234", "4 8:30", "48:3O", "1h45", "+48:30"] {
            #expect(AthleteProfile.parseClock(bad) == nil, "\(bad)")
        }
        #expect(AthleteProfile.clock(.seconds(2910)) == "48:30")
        #expect(AthleteProfile.clock(.seconds(6300)) == "1:45:00")
        #expect(AthleteProfile.clock(.seconds(59)) == "0:59")
        #expect(AthleteProfile.clock(.milliseconds(1_330_500)) == "22:10.5")
        #expect(AthleteProfile.clock(.milliseconds(1_330_050)) == "22:10.05")
    }

    @Test func distanceAndMarkTexts() {
        #expect(AthleteProfile.parseDistance("10km") == 10_000)
        #expect(AthleteProfile.parseDistance("21.1km") == 21_100)
        #expect(AthleteProfile.parseDistance("5000m") == 5000)
        for bad in ["", "km", "10", "10k", "10 km", "10mi", "-5km", "0km", "1e3m", "nanm", "infkm", "1.2.3km"] {
            #expect(AthleteProfile.parseDistance(bad) == nil, "\(bad)")
        }
        #expect(AthleteProfile.parseMark("10km@48:30") == .init(distance: 10_000, time: .seconds(2910)))
        #expect(AthleteProfile.parseMark("21.1km@1:45:00") == .init(distance: 21_100, time: .seconds(6300)))
        for bad in ["10km", "@48:30", "10km@", "10km@48:30@1", "10km48:30"] {
            #expect(AthleteProfile.parseMark(bad) == nil, "\(bad)")
        }
        #expect(AthleteProfile.kilometres(42_195) == "42.195")
        #expect(AthleteProfile.kilometres(10_000) == "10")
        #expect(AthleteProfile.number(70.5) == "70.5")
    }
}
