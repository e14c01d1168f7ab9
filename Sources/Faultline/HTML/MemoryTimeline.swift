/// A memory-limit event as inline SVG: an `oom_kill`'s usage over time
/// against the limit (the breadcrumbs its memory monitor left at each
/// threshold, then the cgroup's peak at the kill, marked), or a
/// `memory_warning`'s usage as one bar against its limit. The limit is a
/// red line across.
struct MemoryTimeline {
    /// One point of usage.
    struct Point {
        var timeMs: Double
        var bytes: Double
        var label: String
    }

    var limit: Double?
    var points: [Point] = []
    /// When the process was killed, and the peak then.
    var kill: Point?

    /// The timeline of an `oom_kill` or `memory_warning`; nil for other
    /// reports, or when the report holds no usage at all.
    init?(_ r: Report) {
        let s = r.sections
        switch r.kind {
        case "oom_kill":
            limit = s["limit_bytes"]?.numberValue
            var crumbs = s["breadcrumbs"]?.arrayValue ?? []
            if let last = s["last_breadcrumb"], !crumbs.contains(where: { $0["time_unix_ms"] == last["time_unix_ms"] && $0["usage_bytes"] == last["usage_bytes"] }) {
                crumbs.append(last)
            }
            for b in crumbs {
                guard let t = b["time_unix_ms"]?.numberValue, let used = b["usage_bytes"]?.numberValue else { continue }
                let pct = b["threshold_percent"]?.integerValue.map { "\($0)%" } ?? ""
                points.append(Point(timeMs: t, bytes: used, label: pct))
                if limit == nil { limit = b["limit_bytes"]?.numberValue }
            }
            points.sort { $0.timeMs < $1.timeMs }
            let peak = s["peak_bytes"]?.numberValue ?? limit ?? points.last?.bytes
            if let peak { kill = Point(timeMs: Double(r.timeUnixMs), bytes: peak, label: "OOM kill") }
        case "memory_warning":
            guard let m = s["memory"], let used = m["usage_bytes"]?.numberValue else { return nil }
            limit = m["limit_bytes"]?.numberValue
            points = [Point(timeMs: Double(r.timeUnixMs), bytes: used, label: m["percent"]?.integerValue.map { "\($0)%" } ?? "")]
        default:
            return nil
        }
        if points.isEmpty && kill == nil { return nil }
    }

    static let width = 900.0, height = 260.0
    static let left = 80.0, right = 20.0, top = 20.0, bottom = 40.0

    /// The SVG element.
    func render() -> String {
        let all = points + (kill.map { [$0] } ?? [])
        let top = max(limit ?? 0, all.map(\.bytes).max() ?? 0) * 1.08
        guard top > 0 else { return "" }
        let plotW = Self.width - Self.left - Self.right, plotH = Self.height - Self.top - Self.bottom
        let t0 = all.map(\.timeMs).min() ?? 0, t1 = all.map(\.timeMs).max() ?? 0
        let span = max(t1 - t0, 1)
        func x(_ t: Double) -> Double { all.count == 1 ? Self.left + plotW / 2 : Self.left + (t - t0) / span * plotW }
        func y(_ b: Double) -> Double { Self.top + plotH * (1 - b / top) }
        var out = "<svg class=\"memory\" xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(Self.width))\" height=\"\(Int(Self.height))\" role=\"img\">\n"
        // Axes, with the byte scale at 0, a half and the top.
        out += "<path class=\"axis\" d=\"M\(n(Self.left)) \(n(Self.top))V\(n(Self.top + plotH))H\(n(Self.left + plotW))\"/>\n"
        let scale = limit ?? top / 1.08
        for v in [0, scale / 4, scale / 2, scale * 3 / 4, scale] {
            out += "<text class=\"tick\" x=\"\(n(Self.left - 6))\" y=\"\(n(y(v) + 4))\" text-anchor=\"end\">\(HTMLText.escaped(HTMLText.bytes(v)))</text>\n"
        }
        if all.count > 1 {
            out += "<text class=\"tick\" x=\"\(n(Self.left))\" y=\"\(n(Self.height - 12))\">0 ms</text>"
            out += "<text class=\"tick\" x=\"\(n(Self.left + plotW))\" y=\"\(n(Self.height - 12))\" text-anchor=\"end\">+\(Int64(span)) ms</text>\n"
        }
        if let limit {
            out += "<g class=\"limit\"><line class=\"limit\" x1=\"\(n(Self.left))\" y1=\"\(n(y(limit)))\" x2=\"\(n(Self.left + plotW))\" y2=\"\(n(y(limit)))\"/>"
            out += "<text x=\"\(n(Self.left + 4))\" y=\"\(n(y(limit) - 5))\">limit \(HTMLText.escaped(HTMLText.bytes(limit)))</text></g>\n"
        }
        if all.count == 1, let p = all.first {
            // One reading: a bar up to it.
            out += "<g class=\"usage\"><title>\(HTMLText.escaped(HTMLText.bytes(p.bytes))) used</title><rect x=\"\(n(x(p.timeMs) - 40))\" y=\"\(n(y(p.bytes)))\" width=\"80\" height=\"\(n(Self.top + plotH - y(p.bytes)))\"/></g>\n"
            out += "<text class=\"crumb\" x=\"\(n(x(p.timeMs) + 46))\" y=\"\(n(y(p.bytes) + 12))\">\(HTMLText.escaped(HTMLText.bytes(p.bytes) + (p.label.isEmpty ? "" : " (\(p.label))")))</text>\n"
        } else {
            let line = all.map { "\(n(x($0.timeMs))),\(n(y($0.bytes)))" }.joined(separator: " ")
            out += "<polyline class=\"usage\" points=\"\(line)\"/>\n"
        }
        if all.count > 1 {
            for p in points {
                out += "<g class=\"crumb\"><title>breadcrumb \(HTMLText.escaped(p.label)): \(HTMLText.escaped(HTMLText.bytes(p.bytes))) at +\(Int64(p.timeMs - t0)) ms</title>"
                out += "<circle cx=\"\(n(x(p.timeMs)))\" cy=\"\(n(y(p.bytes)))\" r=\"4\"/>"
                out += "<text x=\"\(n(x(p.timeMs) + 6))\" y=\"\(n(y(p.bytes) + 14))\">\(HTMLText.escaped(p.label))</text></g>\n"
            }
        }
        if let k = kill {
            let kx = x(k.timeMs)
            out += "<g class=\"kill\"><title>OOM kill at +\(Int64(k.timeMs - t0)) ms, peak \(HTMLText.escaped(HTMLText.bytes(k.bytes)))</title>"
            out += "<line x1=\"\(n(kx))\" y1=\"\(n(Self.top))\" x2=\"\(n(kx))\" y2=\"\(n(Self.top + plotH))\"/>"
            out += "<path d=\"M\(n(kx - 6)) \(n(y(k.bytes) - 6))l12 12m0 -12l-12 12\"/>"
            out += "<text x=\"\(n(kx - 6))\" y=\"\(n(Self.top + plotH + 14))\" text-anchor=\"end\">OOM kill</text></g>\n"
        }
        return out + "</svg>\n"
    }

    private func n(_ v: Double) -> String { HTMLText.number(v) }
}
