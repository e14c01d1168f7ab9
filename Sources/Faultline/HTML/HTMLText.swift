/// Text made safe to put in an HTML page or an inline SVG: `&`, `<`, `>`,
/// `"` and `'` as entities, so a frame named `operator<<` or a thread
/// named `<script>` stays text in an element and in an attribute, and
/// control characters written as visible escapes (`\u{1B}`, as the text
/// form does: `OneLine`), which HTML would otherwise drop or reject.
enum HTMLText {
    /// `text` escaped for element content and quoted attribute values.
    static func escaped(_ text: String) -> String {
        let visible = OneLine.escaped(text, keepingTabs: true)
        guard visible.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 }) else {
            return visible
        }
        var out = ""
        out.reserveCapacity(visible.utf8.count + 16)
        for ch in visible.unicodeScalars {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }

    /// At most `limit` characters of `text`, the cut marked with `…`.
    static func clipped(_ text: String, to limit: Int) -> String {
        guard limit > 0 else { return "" }
        guard text.count > limit else { return text }
        return limit == 1 ? "…" : String(text.prefix(limit - 1)) + "…"
    }

    /// `%.1f` without Foundation's formatter cost, for SVG coordinates.
    static func number(_ v: Double) -> String {
        guard v.isFinite else { return "0" }
        let tenths = (v * 10).rounded()
        let whole = Int64(tenths / 10), frac = Int64(abs(tenths.truncatingRemainder(dividingBy: 10)))
        return frac == 0 ? "\(tenths < 0 && whole == 0 ? "-" : "")\(whole)" : "\(tenths < 0 && whole == 0 ? "-" : "")\(whole).\(frac)"
    }

    /// `48 bytes`, `12.0 KiB`, `64.0 MiB`, `1.5 GiB`.
    static func bytes(_ n: Double) -> String {
        if n < 1024 { return "\(Int64(n)) bytes" }
        let units = ["KiB", "MiB", "GiB", "TiB"]
        var v = n / 1024, u = 0
        while v >= 1024 && u < units.count - 1 { v /= 1024; u += 1 }
        return "\(number(v)) \(units[u])"
    }
}
