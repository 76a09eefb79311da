import Foundation
import PacerCore

/// The comparison as a table, as JSON and as an SVG chart.
public enum ComparisonReport {
    static func fixed(_ v: Double, _ places: Int) -> String {
        guard v.isFinite else { return "-" }
        var out: [UInt8] = []
        out.appendFixed(v, places: places)  // trailing zeros kept, so columns line up
        return String(decoding: out, as: UTF8.self)
    }

    public static func table(_ rows: [ProfileComparison.Row]) -> String {
        let header = ["profile", "energy mAh", "avg mA", "runtime h", "GPS on %", "wakeups", "points",
                      "dist err %", "cues", "latency s (median/max)", "missed"]
        var lines = [header]
        for r in rows {
            let latency = r.medianLatency.map { "\(fixed($0, 1)) / \(fixed(r.maximumLatency ?? 0, 1))" } ?? "-"
            lines.append([r.profile, fixed(r.energyMilliampHours, 1), fixed(r.averageMilliamps, 1),
                          fixed(r.projectedRuntimeHours, 1), fixed(r.gpsOnPercent, 1), String(r.wakeups),
                          String(r.trackPoints), fixed(r.distanceErrorPercent, 2), String(r.cues), latency,
                          String(r.missed)])
        }
        let widths = header.indices.map { c in lines.map { $0[c].count }.max() ?? 0 }
        var out = lines.map { line in
            line.enumerated().map { c, cell in
                c == 0 ? cell.padding(toLength: widths[c], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[c] - cell.count) + cell
            }.joined(separator: "  ")
        }
        if let first = rows.first {
            out.append("")
            out.append("hardware \(first.hardware), battery \(fixed(first.batteryCapacityMilliampHours, 0)) mAh")
        }
        // The Wi-Fi radio off for the workout (low, medium), on a board with one: the saving,
        // already in the rows' energy. Nothing on a build without Wi-Fi.
        for r in rows where r.radioSavedMilliampHours > 0 {
            out.append(
                "\(r.profile): Wi-Fi off for \(fixed(r.radioOffSeconds / 60, 1)) min of the run, "
                    + "\(fixed(r.radioSavedMilliampHours, 1)) mAh saved (included above)")
        }
        // The heart-rate strap's radio (a scenario with `heart_rate:`): how long it scanned and
        // held the connection, and what that cost, already in the rows' energy. On a build
        // without Bluetooth figures the time is said and nothing is charged.
        for r in rows where r.bluetoothScanningSeconds + r.bluetoothConnectedSeconds > 0 {
            let charge = r.bluetoothMilliampHours > 0
                ? "\(fixed(r.bluetoothMilliampHours, 1)) mAh (included above)"
                : "no Bluetooth figure for build \(r.hardware), 0 mAh charged"
            out.append(
                "\(r.profile): Bluetooth (strap) connected \(fixed(r.bluetoothConnectedSeconds / 60, 1)) min, "
                    + "scanning \(fixed(r.bluetoothScanningSeconds / 60, 1)) min, \(charge)")
        }
        // Without the strap (`--no-strap`): what it cost the same profile, radio and wakeups.
        for r in rows {
            guard let extra = r.strapExtraMilliampHours else { continue }
            out.append(
                "\(r.profile): the strap costs \(extra >= 0 ? "+" : "")\(fixed(extra, 1)) mAh and \(r.strapExtraWakeups) wakeups "
                    + "over the run without it; runtime \(fixed(r.strapRuntimeHours ?? .nan, 1)) h with it, "
                    + "\(fixed(r.projectedRuntimeHours, 1)) h without")
        }
        // The anticipation (`--to-go`): its cues and what they cost over the same profile.
        for r in rows {
            guard let extra = r.toGoExtraMilliampHours else { continue }
            out.append(
                "\(r.profile): \(r.toGoCues) to-go cues and \(r.countdownCues) countdown ticks, "
                    + "\(extra >= 0 ? "+" : "")\(fixed(extra, 3)) mAh over the profile without them")
        }
        // Distance phases: how close to the true crossing each end was heard (a synthesized run).
        for r in rows {
            guard let worst = r.maximumEndError else { continue }
            let sorted = r.endErrors.map(abs).sorted()
            out.append(
                "\(r.profile): \(r.endErrors.count) distance ends heard within \(fixed(worst, 1)) m of the true crossing "
                    + "(median \(fixed(sorted[sorted.count / 2], 1)) m; late \(r.endErrors.filter { $0 > 0 }.count), "
                    + "early \(r.endErrors.filter { $0 <= 0 }.count))")
        }
        for r in rows {
            guard let speaker = r.speaker else { continue }
            let whose = r.speakerInBuild ? "the build's" : "not in build \(r.hardware)"
            out.append(
                "\(r.profile): \(fixed(r.speechSeconds, 1)) s of words, \(fixed(r.speechMilliampHours, 2)) mAh for the speaker "
                    + "(\(speaker), \(r.speakerFile ?? "-"), \(whose))")
        }
        return out.joined(separator: "\n") + "\n"
    }

    public static func json(_ rows: [ProfileComparison.Row]) -> String {
        var out: [UInt8] = []
        JSONValue.array(rows.map { r in
            var fields: [(String, JSONValue)] = [
                ("profile", .text(r.profile)), ("hardware", .text(r.hardware)),
                ("energy_mah", .number(r.energyMilliampHours, places: 3)), ("average_ma", .number(r.averageMilliamps, places: 2)),
                ("projected_runtime_h", .number(r.projectedRuntimeHours, places: 2)), ("gps_on_percent", .number(r.gpsOnPercent, places: 1)),
                ("wakeups", .int(r.wakeups)), ("track_points", .int(r.trackPoints)),
                ("distance_error_percent", .number(r.distanceErrorPercent, places: 2)), ("cues", .int(r.cues)),
                ("latency_median_s", r.medianLatency.map { .number($0, places: 1) } ?? .null),
                ("latency_max_s", r.maximumLatency.map { .number($0, places: 1) } ?? .null),
                ("departures_missed", .int(r.missed)),
            ]
            if let extra = r.toGoExtraMilliampHours {
                fields.append(("to_go_cues", .int(r.toGoCues)))
                fields.append(("countdown_cues", .int(r.countdownCues)))
                fields.append(("to_go_extra_mah", .number(extra, places: 4)))
            }
            if !r.endErrors.isEmpty {
                fields.append(("distance_end_errors_m", .array(r.endErrors.map { .number($0, places: 1) })))
            }
            if r.radioSavedMilliampHours > 0 {
                fields.append(("radio_off_s", .number(r.radioOffSeconds, places: 1)))
                fields.append(("radio_saved_mah", .number(r.radioSavedMilliampHours, places: 3)))
            }
            if r.bluetoothScanningSeconds + r.bluetoothConnectedSeconds > 0 {
                fields.append(("bluetooth_mah", .number(r.bluetoothMilliampHours, places: 3)))
                fields.append(("bluetooth_scanning_s", .number(r.bluetoothScanningSeconds, places: 1)))
                fields.append(("bluetooth_connected_s", .number(r.bluetoothConnectedSeconds, places: 1)))
            }
            if let extra = r.strapExtraMilliampHours {
                fields.append(("strap_extra_mah", .number(extra, places: 3)))
                fields.append(("strap_extra_wakeups", .int(r.strapExtraWakeups)))
            }
            // A speech row: the words and the speaker charged for them.
            if let speaker = r.speaker {
                fields.append(("speech_s", .number(r.speechSeconds, places: 1)))
                fields.append(("speaker_mah", .number(r.speechMilliampHours, places: 3)))
                fields.append(("speaker", .text(speaker)))
                fields.append(("speaker_file", .text(r.speakerFile ?? "")))
                fields.append(("speaker_in_build", .bool(r.speakerInBuild)))
            }
            return .object(JSONObject(fields))
        }).writeIndented(to: &out)
        return String(decoding: out, as: UTF8.self) + "\n"
    }

    /// Two panels, one mark per profile: energy against the worst alert latency, and
    /// energy against the signed distance error; the heading names the build and each
    /// profile's runtime (`ComparisonChart`).
    public static func svg(_ rows: [ProfileComparison.Row], title: String) -> String {
        ComparisonChart.svg(rows, title: title)
    }
}
