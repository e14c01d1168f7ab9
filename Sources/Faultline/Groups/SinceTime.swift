import Foundation

/// `--since TIME`: an ISO-8601 instant (`2026-11-21T10:00:00Z`), a UTC date
/// (`2026-11-21`), or an age (`30m`, `24h`, `7d`) counted back from now.
public enum SinceTime {
    /// A value that is none of those.
    public struct ParseError: Error, CustomStringConvertible {
        /// What was given.
        public var value: String
        public var description: String {
            "--since \(value.debugDescription) is not a time; give 2026-11-21, 2026-11-21T10:00:00Z, or an age such as 30m, 24h, 7d"
        }
    }

    /// Milliseconds since the epoch for `text`, relative to `now`.
    public static func parse(_ text: String, now: Date = Date()) throws(ParseError) -> UInt64 {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400]
        if let unit = text.last, let scale = units[unit], let n = Double(text.dropLast()), n >= 0 {
            return UInt64(max(0, (now.timeIntervalSince1970 - n * scale) * 1000))
        }
        let full = ISO8601DateFormatter()
        full.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let plain = ISO8601DateFormatter()
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        day.timeZone = TimeZone(identifier: "UTC")
        for f in [full, plain, day] {
            if let d = f.date(from: text) { return UInt64(max(0, d.timeIntervalSince1970 * 1000)) }
        }
        throw ParseError(value: text)
    }
}
