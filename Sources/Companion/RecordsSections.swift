import Configurator
import Foundation
import PacerCore

/// The activities, routes and health sections as `pacer device` serves them, built from the
/// device's settings: the server (or the device command) adds them to its sections.
public enum RecordsSections {
    /// `settingsPath`: the settings file the device was started with (the hardware check
    /// reads its parts, as `pacer hw check --config` would; nil: the board's defaults).
    /// `now`: the wall clock, for the time a route choice is stored with.
    public static func make(device: any CompanionDevice, settings: Settings, settingsPath: String?, version: String,
                            now: @escaping @Sendable () -> UTCTimestamp) -> [any CompanionSection] {
        let zones = settings.privacyZones
        return [
            ActivitiesSection(device: device, version: version, privacyZones: { zones }),
            RoutesSection(device: device, now: now),
            HealthSection(device: device, dataDirectory: settings.dataDirectory, batterySetting: settings.battery.text) {
                try HardwareCheck.configuration(settingsPath: settingsPath)
            },
        ]
    }
}
