/// Keeps an error line one line whatever paths or values it quotes: a file
/// name with a newline (legal on Linux) or a scenario name with a NUL
/// otherwise split the message or hid part of it.
public enum OneLine {
    /// `text` with every control character written as an escape: `\n`,
    /// `\r`, `\t`, `\0`, else `\u{1B}` (Swift's notation). Other text,
    /// non-ASCII letters included, is unchanged.
    public static func escaped(_ text: String) -> String { escaped(text, keepingTabs: false) }

    /// `escaped(text)`, except that with `keepingTabs` a tab stays a tab
    /// (text a program wrote, shown as it laid it out).
    public static func escaped(_ text: String, keepingTabs: Bool) -> String {
        guard text.unicodeScalars.contains(where: { isControl($0) && !(keepingTabs && $0 == "\t") }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\t" where keepingTabs: out.unicodeScalars.append(scalar)
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\0": out += "\\0"
            case _ where isControl(scalar): out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// C0 and C1 controls and DEL.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
