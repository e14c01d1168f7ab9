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
        var out = Data(capacity: json.count)
        var bytes = json.makeIterator()
        var pending: UInt8? = nil
        while let byte = pending ?? bytes.next() {
            pending = nil
            if byte == 0x7F {
                out.append(contentsOf: Array("\\u007f".utf8))
            } else if byte == 0xC2, let next = bytes.next() {
                if (0x80...0x9F).contains(next) {
                    out.append(contentsOf: Array(String(format: "\\u%04x", Int(next)).utf8))
                } else {
                    out.append(byte)
                    pending = next
                }
            } else {
                out.append(byte)
            }
        }
        return out
    }
}
