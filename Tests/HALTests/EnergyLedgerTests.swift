import HAL
import PacerCore
import Simulation
import Testing

/// The energy integration on hand-built state timelines whose answers are worked out by hand.
/// The model's round numbers make the arithmetic checkable: a 3.7 V cell behind a perfect
/// regulator (efficiency 1) feeding 3.7 V parts, so a part's milliamps are the battery's.
@Suite("Energy ledger")
struct EnergyLedgerTests {
    static func model(efficiency: Double = 1, suspend: Double? = nil, resume: Duration? = nil) -> HardwareModel {
        HardwareModel(
            name: "test", summary: "round numbers",
            board: .init(name: "board", supplyVolts: 3.7, idleMilliamps: 100, busyMilliamps: 400,
                         busyPerWakeup: .milliseconds(100), suspendMilliamps: suspend, resume: resume),
            gps: .init(name: "gps", supplyVolts: 3.7,
                       milliamps: [.acquiring: 40, .tracking: 30, .powerSave: 10, .backup: 0.1, .off: 0],
                       hotStart: .seconds(1), commands: .none),
            buzzer: .init(name: "piezo", supplyVolts: 3.7, soundingMilliamps: 36),
            battery: .init(name: "cell", capacityMilliampHours: 1000, volts: 3.7, converterEfficiency: efficiency))
    }

    static func at(_ seconds: Double) -> Instant { Instant(nanoseconds: Int64(seconds * 1e9)) }

    @Test func oneHourIdleAndTrackingIsTheSumOfTheCurrents() {
        var l = EnergyLedger(model: Self.model(), start: Self.at(0), gps: .tracking)
        l.settle(at: Self.at(3600))
        #expect(abs(l.boardMilliampHours - 100) < 1e-9)
        #expect(abs(l.gpsMilliampHours - 30) < 1e-9)
        #expect(abs(l.averageMilliamps - 130) < 1e-9)
        #expect(abs(l.projectedRuntimeHours - 1000.0 / 130) < 1e-9)
        #expect(l.gpsTime[.tracking] == .seconds(3600))
    }

    @Test func gpsStatesAreChargedForTheirOwnTime() {
        // 10 s acquiring, 50 s tracking, 540 s backup, then 3000 s power-save.
        var l = EnergyLedger(model: Self.model(), start: Self.at(0), gps: .acquiring)
        l.gps(.tracking, at: Self.at(10))
        l.gps(.backup, at: Self.at(60))
        l.gps(.powerSave, at: Self.at(600))
        l.settle(at: Self.at(3600))
        let charge: Double = 40.0 * 10 + 30.0 * 50 + 0.1 * 540 + 10.0 * 3000
        let expected = charge / 3600
        #expect(abs(l.gpsMilliampHours - expected) < 1e-9)
        #expect(l.gpsTime == [.acquiring: .seconds(10), .tracking: .seconds(50), .backup: .seconds(540), .powerSave: .seconds(3000)])
    }

    @Test func eachWakeupAddsItsBusyTime() {
        var l = EnergyLedger(model: Self.model(), start: Self.at(0), gps: .off)
        for s in 0..<3600 { l.wakeup(at: Self.at(Double(s))) }
        l.settle(at: Self.at(3600))
        // 3600 wakeups x 0.1 s x (400 - 100) mA = 30 mAh on top of 100 mAh idle.
        #expect(l.wakeups == 3600)
        #expect(abs(l.boardMilliampHours - 130) < 1e-9)
    }

    @Test func speechCostsTheAmplifierAndItsRenderingOnlyWhileWordsAreSaid() {
        var model = Self.model()
        model.speaker = .init(name: "amp", supplyVolts: 3.7, speakingMilliamps: 150, renderCPUShare: 0.5)
        var l = EnergyLedger(model: model, start: Self.at(0), gps: .off)
        let before = l.totalMilliampHours
        // 36 s of words: 150 mA for the amplifier, and half of (400 - 100) mA for rendering.
        l.speaker(speaking: .seconds(36), at: Self.at(10))
        #expect(l.speakingTime == .seconds(36))
        #expect(abs(l.speakerMilliampHours - (150.0 + 150.0) * 36 / 3600) < 1e-9)
        #expect(abs(l.totalMilliampHours - before - l.speakerMilliampHours - l.boardMilliampHours) < 1e-9)
    }

    /// A speaker with a standby current draws it all the time; while speaking, its speaking
    /// current instead (not on top).
    @Test func aSpeakersStandbyCurrentIsChargedAllTheTime() {
        var model = Self.model()
        model.speaker = .init(name: "usb", supplyVolts: 3.7, speakingMilliamps: 40, standbyMilliamps: 20, renderCPUShare: 0)
        var l = EnergyLedger(model: model, start: Self.at(0), gps: .off)
        l.settle(at: Self.at(1800))
        #expect(abs(l.speakerMilliampHours - 10) < 1e-9)
        l.speaker(speaking: .seconds(360), at: Self.at(1800))
        l.settle(at: Self.at(3600))
        // An hour at 20 mA, and 360 s at 40 - 20 mA more.
        #expect(abs(l.speakerMilliampHours - (20 + 20.0 * 360 / 3600)) < 1e-9)
    }

    /// A build without a speaker counts the seconds of words and charges nothing for them.
    @Test func wordsOnABuildWithoutASpeakerCostNothing() {
        var l = EnergyLedger(model: Self.model(), start: Self.at(0), gps: .off)
        #expect(l.model.speaker == nil)
        l.speaker(speaking: .seconds(36), at: Self.at(10))
        l.settle(at: Self.at(3600))
        #expect(l.speakingTime == .seconds(36))
        #expect(l.speakerMilliampHours == 0)
        #expect(abs(l.totalMilliampHours - 100) < 1e-9)
    }

    @Test func theBuzzerCostsOnlyWhileItSounds() {
        var l = EnergyLedger(model: Self.model(), start: Self.at(0), gps: .off)
        for s in stride(from: 0.0, to: 3600, by: 10) { l.buzzer(sounding: .milliseconds(500), at: Self.at(s)) }
        l.settle(at: Self.at(3600))
        // 360 cues x 0.5 s x 36 mA = 1.8 mAh.
        #expect(abs(l.buzzerMilliampHours - 1.8) < 1e-9)
        #expect(l.buzzerTime == .seconds(180))
    }

    @Test func theRegulatorsLossAndTheVoltagesAreCounted() {
        // A 5 V board at 100 mA from a 3.7 V cell through an 80 % boost converter:
        // 100 x 5 / (3.7 x 0.8) = 168.92 mA at the cell.
        var model = Self.model(efficiency: 0.8)
        model.board.supplyVolts = 5
        var l = EnergyLedger(model: model, start: Self.at(0), gps: .off)
        l.settle(at: Self.at(3600))
        #expect(abs(l.boardMilliampHours - 500 / 2.96) < 1e-9)
    }

    @Test func aBoardThatMaySuspendSleepsThroughLongGapsOnly() {
        // Wakeups every 60 s for an hour; 0.1 s busy each, 0.5 s to resume, 2 mA suspended.
        var l = EnergyLedger(model: Self.model(suspend: 2, resume: .milliseconds(500)), start: Self.at(0), gps: .off)
        l.boardMaySuspend(true, at: Self.at(0))
        for s in stride(from: 0.0, through: 3600, by: 60) { l.wakeup(at: Self.at(s)) }
        // 61 wakeups; 60 gaps of 60 s, each: 0.1 s busy (the wakeup before), 0.5 s resuming
        // (busy), 59.4 s suspended. Idle all hour, plus 300 mA more while busy or resuming,
        // less 98 mA while suspended.
        let idle: Double = 100 * 3600
        let busy: Double = 61 * 0.1 * 300
        let resuming: Double = 60 * 0.5 * 300
        let asleep: Double = 60 * 59.4 * 98
        let expected = (idle + busy + resuming - asleep) / 3600
        #expect(abs(l.boardMilliampHours - expected) < 1e-9)
        #expect(l.suspendedTime == .milliseconds(3_564_000))
        // Gaps shorter than the resume time are idled through, not slept.
        var short = EnergyLedger(model: Self.model(suspend: 2, resume: .milliseconds(500)), start: Self.at(0), gps: .off)
        short.boardMaySuspend(true, at: Self.at(0))
        for s in stride(from: 0.0, through: 10, by: 0.5) { short.wakeup(at: Self.at(s)) }
        #expect(short.suspendedTime == .zero)
    }

    @Test func aBoardThatCannotSuspendIdlesEvenWhenAllowed() {
        var l = EnergyLedger(model: Self.model(), start: Self.at(0), gps: .off)
        l.boardMaySuspend(true, at: Self.at(0))
        for s in stride(from: 0.0, through: 3600, by: 60) { l.wakeup(at: Self.at(s)) }
        #expect(l.suspendedTime == .zero)
        #expect(abs(l.boardMilliampHours - (100 + 61 * 0.1 * 300 / 3600)) < 1e-9)
    }

    @Test func theRadioOffTakesItsCurrentOutOfTheBoardsIdle() {
        var m = Self.model()
        m.board.wifiIdleMilliamps = 20
        // An hour: the radio on for 15 min, off for 30, on again for 15.
        var on = EnergyLedger(model: m, start: Self.at(0), gps: .off)
        on.settle(at: Self.at(3600))
        var l = EnergyLedger(model: m, start: Self.at(0), gps: .off)
        l.radio(blocked: true, at: Self.at(900))
        #expect(l.radioBlocked)
        l.radio(blocked: false, at: Self.at(2700))
        l.settle(at: Self.at(3600))
        #expect(abs(on.boardMilliampHours - 100) < 1e-9)
        #expect(abs(l.boardMilliampHours - (100 - 20 * 0.5)) < 1e-9)
        #expect(abs(l.radioSavedMilliampHours - 10) < 1e-9)
        #expect(l.radioOffTime == .seconds(1800))
        #expect(abs(on.totalMilliampHours - l.totalMilliampHours - 10) < 1e-9)
    }

    @Test func aBoardWithoutWiFiSavesNothingAndARadioNeverSwitchedChangesNothing() {
        var l = EnergyLedger(model: Self.model(), start: Self.at(0), gps: .tracking)
        l.radio(blocked: true, at: Self.at(0))
        l.settle(at: Self.at(3600))
        #expect(abs(l.boardMilliampHours - 100) < 1e-9)
        #expect(l.radioSavedMilliampHours == 0)
        #expect(l.radioOffTime == .seconds(3600))
    }

    /// A board at 5 V with a Bluetooth radio (20 mA scanning, 10 mA connected) on a 3.7 V
    /// cell behind a 90 % converter: each milliamp at the board is 5 / (3.7 x 0.9) at the cell.
    static func bluetoothModel(scanning: Double = 20, connected: Double = 10) -> HardwareModel {
        var m = model(efficiency: 0.9)
        m.board.supplyVolts = 5
        m.board.bluetoothScanningMilliamps = scanning
        m.board.bluetoothConnectedMilliamps = connected
        return m
    }

    @Test func theStrapsRadioIsChargedItsStatesCurrentForExactlyItsTime() {
        // An hour: off for 5 min, scanning for 10, connected for 30, off again for 15.
        let m = Self.bluetoothModel()
        var quiet = EnergyLedger(model: m, start: Self.at(0), gps: .off)
        quiet.settle(at: Self.at(3600))
        var l = EnergyLedger(model: m, start: Self.at(0), gps: .off)
        l.bluetooth(.scanning, at: Self.at(300))
        #expect(l.bluetoothState == .scanning)
        l.bluetooth(.connected, at: Self.at(900))
        l.bluetooth(.off, at: Self.at(2700))
        l.settle(at: Self.at(3600))
        // By hand: 20 mA x 5 V / (3.7 V x 0.9) = 30.03 mA at the cell for 1/6 h = 5.005 mAh;
        // 10 mA the same way = 15.015 mA for 1/2 h = 7.508 mAh.
        let scanning = 20.0 * 5 / (3.7 * 0.9) * (600.0 / 3600)
        let connected = 10.0 * 5 / (3.7 * 0.9) * (1800.0 / 3600)
        #expect(abs(scanning - 5.005005) < 1e-6 && abs(connected - 7.507508) < 1e-6)
        #expect(abs(l.bluetoothMilliampHours - (scanning + connected)) < 1e-9)
        #expect(l.bluetoothTime == [.scanning: .seconds(600), .connected: .seconds(1800)])
        // Its own part of the total, on top of the board's idle, which is unchanged.
        #expect(abs(l.boardMilliampHours - quiet.boardMilliampHours) < 1e-9)
        #expect(abs(l.totalMilliampHours - quiet.totalMilliampHours - (scanning + connected)) < 1e-9)
    }

    @Test func theRadioOffCostsNothing() {
        let m = Self.bluetoothModel()
        var quiet = EnergyLedger(model: m, start: Self.at(0), gps: .tracking)
        quiet.settle(at: Self.at(3600))
        var l = EnergyLedger(model: m, start: Self.at(0), gps: .tracking)
        l.bluetooth(.off, at: Self.at(0))
        l.bluetooth(.off, at: Self.at(1800))
        l.settle(at: Self.at(3600))
        #expect(l.bluetoothMilliampHours == 0)
        #expect(l.bluetoothTime.isEmpty)
        #expect(abs(l.totalMilliampHours - quiet.totalMilliampHours) < 1e-9)
    }

    @Test func aBuildWithoutBluetoothFiguresChargesNothingButCountsTheTime() {
        let m = Self.bluetoothModel(scanning: 0, connected: 0)
        var quiet = EnergyLedger(model: m, start: Self.at(0), gps: .off)
        quiet.settle(at: Self.at(3600))
        var l = EnergyLedger(model: m, start: Self.at(0), gps: .off)
        l.bluetooth(.scanning, at: Self.at(0))
        l.bluetooth(.connected, at: Self.at(60))
        l.settle(at: Self.at(3600))
        #expect(l.bluetoothMilliampHours == 0)
        #expect(l.bluetoothTime == [.scanning: .seconds(60), .connected: .seconds(3540)])
        #expect(abs(l.totalMilliampHours - quiet.totalMilliampHours) < 1e-9)
    }

    /// The simulated battery's supply hears the radio too, and drains by it.
    @Test func theSimulatedSupplyDrainsTheBatteryByTheRadio() {
        let m = Self.bluetoothModel()
        let battery = SimulatedBattery(capacityMilliampHours: 1000)
        let supply = SimulatedPowerSupply(model: m, battery: battery, start: Self.at(0))
        supply.gps(.off, at: Self.at(0))
        supply.bluetooth(.connected, at: Self.at(0))
        supply.settle(at: Self.at(1800))
        let connected = 10.0 * 5 / (3.7 * 0.9) * 0.5
        #expect(abs(supply.account.bluetoothMilliampHours - connected) < 1e-9)
        #expect(abs((1000 - battery.remainingMilliampHours) - supply.account.totalMilliampHours) < 1e-9)
    }
}
