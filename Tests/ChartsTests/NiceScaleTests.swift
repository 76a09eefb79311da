@testable import Charts
import Testing

/// Round ticks: 1, 2 or 5 × 10ⁿ apart, the axis's ends on ticks, every value inside.
@Suite("Nice scales")
struct NiceScaleTests {
    @Test func theBatteryChartsLatencyAxisEndsOnRoundNumbers() {
        // Not 59 × 1.15 = 67.9 ticked at 17.0, 33.9, 50.9, 67.9: round numbers, the top on a tick.
        let scale = NiceScale(low: 0, high: 59, ticks: 5)
        #expect(scale.ticks == [0, 10, 20, 30, 40, 50, 60])
        #expect(scale.ticks.map(scale.label) == ["0", "10", "20", "30", "40", "50", "60"])
    }

    @Test(arguments: [
        (0.0, 1.0, [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]),
        (0.0, 63.0, [0.0, 20, 40, 60, 80]),
        (-5.71, 0.82, [-6.0, -4, -2, 0, 2]),
        (3.2, 7.9, [3.0, 4, 5, 6, 7, 8]),
        (0.0, 0.03, [0.0, 0.005, 0.01, 0.015, 0.02, 0.025, 0.03]),
        (0.0, 105.0, [0.0, 20, 40, 60, 80, 100, 120]),
    ])
    func ticksAreRound(low: Double, high: Double, expected: [Double]) {
        let scale = NiceScale(low: low, high: high, ticks: 5)
        #expect(scale.ticks == expected)
        #expect(scale.lower <= low && scale.upper >= high)
    }

    @Test func negativeTicksAreWrittenWithAMinusSign() {
        let scale = NiceScale(low: -5.71, high: 0.82, ticks: 5)
        #expect(scale.ticks.map(scale.label) == ["\u{2212}6", "\u{2212}4", "\u{2212}2", "0", "2"])
        let fine = NiceScale(low: -0.3, high: 0.3, ticks: 3)
        #expect(fine.ticks.map(fine.label) == ["\u{2212}0.4", "\u{2212}0.2", "0.0", "0.2", "0.4"])
    }

    @Test func aFlatRangeIsWidenedToTheMinimumSpan() {
        // 12.3 to 12.5 m of altitude: at least 10 m tall, round, around the values.
        let scale = NiceScale(low: 12.3, high: 12.5, ticks: 4, minimumSpan: 10)
        #expect(scale.upper - scale.lower >= 10)
        #expect(scale.lower <= 12.3 && scale.upper >= 12.5)
        #expect(scale.ticks.allSatisfy { ($0 / scale.step).rounded() * scale.step == $0 })
        // A single value is not a zero-height axis.
        let one = NiceScale(low: 7, high: 7, ticks: 5)
        #expect(one.upper > one.lower)
    }

    @Test func timeAxesStepInMinutesPeopleUse() {
        let short = NiceScale(low: 0, high: 13, ticks: 10, steps: SpeedChart.minuteSteps)
        #expect(short.step == 2 && short.upper == 14)
        let long = NiceScale(low: 0, high: 240, ticks: 10, steps: SpeedChart.minuteSteps)
        #expect(long.step == 30 && long.upper == 240)
        #expect(SpeedChart.timeLabel(90, hours: true) == "1:30")
        #expect(SpeedChart.timeLabel(12, hours: false) == "12")
    }

    @Test func roundNumbersUpAndDown() {
        #expect(NiceScale.round(0.37) == 0.5)
        #expect(NiceScale.round(3) == 5)
        #expect(NiceScale.round(200) == 200)
        #expect(NiceScale.roundDown(0.37) == 0.2)
        #expect(NiceScale.roundDown(780) == 500)
        #expect(NiceScale.roundDown(1000) == 1000)
    }
}
