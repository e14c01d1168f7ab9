import Foundation

/// Parses the durations and sizes scenario files use.
public enum Units {
    /// `250ms`, `2s`, `1.5s` or a plain number of seconds → seconds; nil when malformed.
    public static func seconds(_ text: String) -> Double? {
        let t = text.trimmingCharacters(in: .whitespaces)
        let (number, scale): (Substring, Double)
        if t.hasSuffix("ms") { (number, scale) = (t.dropLast(2), 0.001) }
        else if t.hasSuffix("s") { (number, scale) = (t.dropLast(), 1) }
        else { (number, scale) = (Substring(t), 1) }
        guard let n = Double(number.trimmingCharacters(in: .whitespaces)), n.isFinite, n >= 0 else { return nil }
        return n * scale
    }

    /// `64M`, `1G`, `512K` (powers of 1024) or a plain number of bytes → bytes; nil when malformed.
    public static func bytes(_ text: String) -> UInt64? {
        let t = text.trimmingCharacters(in: .whitespaces)
        guard let last = t.last else { return nil }
        let scale: UInt64
        switch last {
        case "K", "k": scale = 1 << 10
        case "M", "m": scale = 1 << 20
        case "G", "g": scale = 1 << 30
        default:
            return UInt64(t)
        }
        let number = t.dropLast().trimmingCharacters(in: .whitespaces)
        if let n = UInt64(number) {
            let (v, overflow) = n.multipliedReportingOverflow(by: scale)
            return overflow ? nil : v
        }
        guard let d = Double(number), d.isFinite, d >= 0, d * Double(scale) < 1.8e19 else { return nil }
        return UInt64(d * Double(scale))
    }

    /// `1.5s`, `250ms`, `30s` for printing.
    public static func describe(seconds: Double) -> String {
        if seconds < 1, seconds > 0 { return formatNumber((seconds * 1000).rounded()) + "ms" }
        return formatNumber((seconds * 100).rounded() / 100) + "s"
    }

    /// `0.34s`, `12.50s`: fixed two decimals, for tables and progress lines.
    public static func elapsed(_ seconds: Double) -> String {
        String(format: "%.2fs", seconds)
    }

    /// `64M`, `1G`, `512K` or bytes for printing.
    public static func describe(bytes: UInt64) -> String {
        for (unit, scale) in [("G", UInt64(1) << 30), ("M", UInt64(1) << 20), ("K", UInt64(1) << 10)]
        where bytes >= scale && bytes % scale == 0 {
            return "\(bytes / scale)\(unit)"
        }
        return "\(bytes)"
    }
}
