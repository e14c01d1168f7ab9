import Foundation

/// The self-contained HTML report: per metric a horizontal bar chart
/// (inline SVG; bar = median, error mark = p10 to p90) and the raw numbers
/// in a table, with the machine and the run time at the top. No scripts,
/// no external files.
public enum BenchHTML {
    /// Width of the configuration labels, the bar area and the value column.
    static let labelWidth = 300.0, barWidth = 380.0, valueWidth = 200.0, rowHeight = 24.0

    /// The whole page; with `detect`, the detection matrix first.
    public static func render(_ report: BenchReport, detect: DetectMatrix? = nil) -> String {
        let m = report.machine
        var body = """
            <h1>faultline bench</h1>
            <p>\(escape(report.startedAt)) · \(report.quick ? "quick run" : "full run") · \(escape(report.build)) build ·
            \(String(format: "%.0f", report.elapsedSeconds)) s</p>
            <p>Machine: \(m.cpus) CPUs, \(escape(m.cpuModel)), Linux \(escape(m.kernel)), load \(m.loadAtStart.map { String(format: "%.2f", $0) }.joined(separator: " ")) at start,
            \(m.loadAtEnd.map { String(format: "%.2f", $0) }.joined(separator: " ")) at end.</p>
            <p>Bars are medians; the error marks span p10 to p90. Ratios are against the baseline measured in the same run.</p>

            """
        if let detect { body += DetectHTML.section(detect) }
        var group = ""
        for metric in report.metrics {
            if metric.group != group {
                group = metric.group
                body += "<h2>\(escape(group))</h2>\n"
            }
            body += "<h3>\(escape(metric.title))\(metric.unit.isEmpty ? "" : " [\(escape(metric.unit))]")</h3>\n"
            body += chart(metric) + "\n" + table(metric) + "\n"
        }
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>faultline bench</title>
            <style>
            body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; max-width: 1000px; }
            table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
            td, th { border: 1px solid #ccc; padding: 2px 8px; text-align: right; }
            td:first-child, th:first-child, td.note { text-align: left; }
            td.note { color: #666; }
            svg text { font: 12px system-ui, sans-serif; }
            </style></head><body>
            \(body)</body></html>

            """
    }

    /// One metric's bar chart.
    static func chart(_ metric: BenchMetric) -> String {
        let ok = metric.entries.compactMap { e in e.status == .ok ? e.summary : nil }
        let top = max(ok.map { max($0.p90, $0.median) }.max() ?? 1, 1e-12)
        let positive = ok.map { min($0.p10, $0.median) }.filter { $0 > 0 }
        // A log scale when the medians span more than 50x (peers vs the
        // shim); a long p90 tail alone keeps the linear scale.
        let medians = ok.map(\.median).filter { $0 > 0 }
        let log = medians.count > 1 && medians.max()! / medians.min()! > 50
        let floor = (positive.min() ?? top) / 2
        func x(_ v: Double) -> Double {
            if log { return barWidth * max(0, Foundation.log10(max(v, floor) / floor) / Foundation.log10(top / floor)) }
            return barWidth * max(0, v) / top
        }
        let height = rowHeight * Double(metric.entries.count) + 20
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(labelWidth + barWidth + valueWidth))\" height=\"\(Int(height))\">\n"
        for (i, e) in metric.entries.enumerated() {
            let y = Double(i) * rowHeight
            let mid = y + rowHeight / 2
            svg += "<text x=\"\(fmt(labelWidth - 6))\" y=\"\(fmt(mid + 4))\" text-anchor=\"end\">\(escape(e.label))</text>\n"
            guard e.status == .ok, let s = e.summary else {
                svg += "<text class=\"status\" x=\"\(fmt(labelWidth + 4))\" y=\"\(fmt(mid + 4))\" fill=\"#a00\">\(escape(e.status.rawValue)): \(escape(String((e.note ?? "").prefix(70))))</text>\n"
                continue
            }
            let color = e.config == metric.baseline ? "#888" : "#3a6ea5"
            svg += "<rect class=\"bar\" x=\"\(fmt(labelWidth))\" y=\"\(fmt(y + 4))\" width=\"\(fmt(max(1, x(s.median))))\" height=\"\(fmt(rowHeight - 8))\" fill=\"\(color)\"><title>median \(BenchFormat.number(s.median))</title></rect>\n"
            let x10 = labelWidth + x(s.p10), x90 = labelWidth + x(s.p90)
            svg += "<path class=\"err\" d=\"M\(fmt(x10)) \(fmt(mid))H\(fmt(x90))M\(fmt(x10)) \(fmt(mid - 5))V\(fmt(mid + 5))M\(fmt(x90)) \(fmt(mid - 5))V\(fmt(mid + 5))\" stroke=\"#000\" stroke-width=\"1.5\" fill=\"none\"/>\n"
            let ratio = e.ratio.map { "  (\(BenchFormat.number($0.median))x)" } ?? ""
            svg += "<text x=\"\(fmt(labelWidth + barWidth + 8))\" y=\"\(fmt(mid + 4))\">\(BenchFormat.number(s.median)) \(escape(metric.unit))\(ratio)</text>\n"
        }
        svg += "<text x=\"\(fmt(labelWidth))\" y=\"\(fmt(height - 4))\" fill=\"#666\">\(log ? "log scale" : "linear scale from 0"), up to \(BenchFormat.number(top)) \(escape(metric.unit))</text>\n"
        return svg + "</svg>"
    }

    /// One metric's raw numbers.
    static func table(_ metric: BenchMetric) -> String {
        var t = "<table><tr><th>configuration</th><th>status</th><th>median</th><th>p10</th><th>p90</th><th>n</th><th>x \(escape(metric.baseline ?? "-"))</th><th>samples</th><th>note</th></tr>\n"
        for e in metric.entries {
            let s = e.summary
            let samples = e.samples.prefix(12).map(BenchFormat.number).joined(separator: " ") + (e.samples.count > 12 ? " …" : "")
            t += "<tr><td>\(escape(e.label))</td><td>\(e.status.rawValue)</td><td>\(s.map { BenchFormat.number($0.median) } ?? "-")</td>"
            t += "<td>\(s.map { BenchFormat.number($0.p10) } ?? "-")</td><td>\(s.map { BenchFormat.number($0.p90) } ?? "-")</td><td>\(s?.count ?? 0)</td>"
            t += "<td>\(escape(BenchFormat.ratio(e.ratio)))</td><td class=\"note\">\(escape(samples))</td><td class=\"note\">\(escape(e.note ?? ""))</td></tr>\n"
        }
        return t + "</table>"
    }

    static func fmt(_ v: Double) -> String { String(format: "%.1f", v) }

    /// Text made safe for HTML and SVG.
    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
