import Foundation
import HAL
import Simulation
import Testing

@Suite("Simulated battery", .timeLimit(.minutes(1)))
struct SimulatedBatteryTests {
    @Test func startsFullByDefault() {
        let battery = SimulatedBattery(capacityMilliampHours: 2000)
        #expect(battery.percent == 100)
        #expect(battery.remainingMilliampHours == 2000)
        #expect(battery.read() == BatteryReading(percent: 100, charging: false))
        #expect(!battery.isEmpty)
    }

    @Test func startsAtTheGivenLevel() {
        let battery = SimulatedBattery(capacityMilliampHours: 1200, startPercent: 50)
        #expect(battery.remainingMilliampHours == 600)
        #expect(battery.percent == 50)
        #expect(battery.startPercent == 50)
    }

    @Test func drainLowersTheLevel() {
        let battery = SimulatedBattery(capacityMilliampHours: 2000)
        battery.drain(milliampHours: 500)
        #expect(battery.remainingMilliampHours == 1500)
        #expect(battery.percent == 75)
        battery.drain(milliampHours: 0)
        #expect(battery.percent == 75)
        battery.drain(milliampHours: 0.5)
        #expect(abs(battery.percent - 74.975) < 1e-9)
        #expect(battery.read()?.charging == false)
    }

    @Test func neverGoesBelowEmpty() {
        let battery = SimulatedBattery(capacityMilliampHours: 100, startPercent: 10)
        battery.drain(milliampHours: 25)
        #expect(battery.remainingMilliampHours == 0)
        #expect(battery.percent == 0)
        #expect(battery.isEmpty)
        #expect(battery.read() == BatteryReading(percent: 0, charging: false))
    }

    @Test func nameCarriesTheCapacity() {
        #expect(SimulatedBattery(capacityMilliampHours: 2000).name == "sim:battery?capacity=2000")
        #expect(SimulatedBattery(capacityMilliampHours: 1500.5).name == "sim:battery?capacity=1500.5")
        // The name parses as a device URI, like every other part's.
        let uri = try? DeviceURI(parsing: SimulatedBattery(capacityMilliampHours: 2000).name)
        #expect(uri?.scheme == "sim")
        #expect(uri?.query["capacity"] == "2000")
    }

    @Test func isABatteryGauge() {
        let gauge: any BatteryGauge = SimulatedBattery(capacityMilliampHours: 1000, startPercent: 80)
        #expect(gauge.read()?.percent == 80)
    }

    /// Drains from many threads at once lose nothing: 8 threads x 1000 drains of 0.25 mAh.
    @Test func drainIsThreadSafe() {
        let battery = SimulatedBattery(capacityMilliampHours: 5000)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<1000 {
                battery.drain(milliampHours: 0.25)
                _ = battery.read()
            }
        }
        #expect(battery.remainingMilliampHours == 3000)
        #expect(battery.percent == 60)
    }
}
