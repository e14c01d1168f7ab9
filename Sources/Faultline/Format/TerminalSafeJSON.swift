import Foundation

/// JSON meant for a terminal. Foundation's encoder escapes C0 controls but
/// writes DEL and the C1 controls (U+0080…U+009F) raw, and a UTF-8 terminal
/// acts on C1 ones: U+009B is CSI, so a program's captured stderr quoted in
/// a report could still move the cursor or clear the screen through
/// `report show --json`.
public enum TerminalSafeJSON {
    /// `json` with DEL and every C1 control written as a `\u00XX` escape.
    /// These bytes can only occur inside JSON strings (everything structural
    /// is ASCII), where the escape means the same character, so the
    /// document decodes to the same value.
    public static func escapingControls(_ json: Data) -> Data {
        guard json.contains(0x7F) || json.contains(0xC2) else { return json }
        let bytes = [UInt8](json)
        var out = Data(capacity: bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x7F {
                out.append(contentsOf: Array("\\u007f".utf8))
            } else if bytes[i] == 0xC2, i + 1 < bytes.count, (0x80...0x9F).contains(bytes[i + 1]) {
                out.append(contentsOf: Array(String(format: "\\u%04x", Int(bytes[i + 1])).utf8))
                i += 1  // the two bytes of one UTF-8 character
            } else {
                out.append(bytes[i])
            }
            i += 1
        }
        return out
    }
}
