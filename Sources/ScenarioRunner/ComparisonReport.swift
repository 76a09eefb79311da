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
        return out.joined(separator: "\n") + "\n"
    }

    public static func json(_ rows: [ProfileComparison.Row]) -> String {
        var out: [UInt8] = []
        JSONTree.array(rows.map { r in
            .object([
                ("profile", .text(r.profile)), ("hardware", .text(r.hardware)),
                ("energy_mah", .number(r.energyMilliampHours, 3)), ("average_ma", .number(r.averageMilliamps, 2)),
                ("projected_runtime_h", .number(r.projectedRuntimeHours, 2)), ("gps_on_percent", .number(r.gpsOnPercent, 1)),
                ("wakeups", .int(r.wakeups)), ("track_points", .int(r.trackPoints)),
                ("distance_error_percent", .number(r.distanceErrorPercent, 2)), ("cues", .int(r.cues)),
                ("latency_median_s", r.medianLatency.map { .number($0, 1) } ?? .null),
                ("latency_max_s", r.maximumLatency.map { .number($0, 1) } ?? .null),
                ("departures_missed", .int(r.missed)),
            ])
        }).render(into: &out, indent: 0)
        return String(decoding: out, as: UTF8.self) + "\n"
    }

    /// Two panels, one mark per profile: energy against the worst alert latency, and
    /// energy against the distance error.
    public static func svg(_ rows: [ProfileComparison.Row], title: String) -> String {
        let width = 760.0, height = 340.0, panel = 300.0, top = 50.0, left = 70.0, gap = 90.0
        let energies = rows.map(\.energyMilliampHours)
        let maxEnergy = max(energies.max() ?? 1, 1) * 1.15
        let maxLatency = max(rows.compactMap(\.maximumLatency).max() ?? 1, 1) * 1.15
        let maxError = max(rows.map { abs($0.distanceErrorPercent) }.max() ?? 1, 0.5) * 1.15
        var s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" "
        s += "font-family=\"sans-serif\" font-size=\"12\">\n"
        s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        s += "<text x=\"\(Int(left))\" y=\"24\" font-size=\"15\">\(escape(title))</text>\n"
        let colours = ["#d62728", "#ff7f0e", "#2ca02c", "#1f77b4", "#9467bd", "#8c564b"]
        for (p, (label, value, maximum)) in [
            ("worst alert latency (s)", { (r: ProfileComparison.Row) in r.maximumLatency }, maxLatency),
            ("distance error (%)", { (r: ProfileComparison.Row) in Optional(abs(r.distanceErrorPercent)) }, maxError),
        ].enumerated() {
            let x0 = left + Double(p) * (panel + gap), y0 = top + 230
            s += "<line x1=\"\(x0)\" y1=\"\(y0)\" x2=\"\(x0 + panel)\" y2=\"\(y0)\" stroke=\"black\"/>\n"
            s += "<line x1=\"\(x0)\" y1=\"\(y0)\" x2=\"\(x0)\" y2=\"\(top)\" stroke=\"black\"/>\n"
            s += "<text x=\"\(x0 + panel / 2)\" y=\"\(y0 + 32)\" text-anchor=\"middle\">energy used (mAh)</text>\n"
            s += "<text x=\"\(x0 - 48)\" y=\"\(top + 115)\" text-anchor=\"middle\" transform=\"rotate(-90 \(x0 - 48) \(top + 115))\">\(label)</text>\n"
            for k in 0...4 {
                let fx = Double(k) / 4
                s += "<text x=\"\(x0 + fx * panel)\" y=\"\(y0 + 15)\" text-anchor=\"middle\">\(fixed(maxEnergy * fx, 0))</text>\n"
                s += "<text x=\"\(x0 - 6)\" y=\"\(y0 - fx * 230 + 4)\" text-anchor=\"end\">\(fixed(maximum * fx, 1))</text>\n"
            }
            for (i, r) in rows.enumerated() {
                guard let v = value(r) else { continue }
                let x = x0 + r.energyMilliampHours / maxEnergy * panel
                let y = y0 - v / maximum * 230
                let colour = colours[i % colours.count]
                s += "<circle cx=\"\(fixed(x, 1))\" cy=\"\(fixed(y, 1))\" r=\"6\" fill=\"\(colour)\"/>\n"
                s += "<text x=\"\(fixed(x + 9, 1))\" y=\"\(fixed(y - 8, 1))\" fill=\"\(colour)\">\(escape(r.profile))</text>\n"
            }
        }
        return s + "</svg>\n"
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
