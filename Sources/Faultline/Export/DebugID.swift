/// Sentry's debug id of an ELF file from its GNU build id: the first 16
/// bytes read as a little-endian GUID (the first three fields byte-swapped),
/// zero-padded when the build id is shorter, as Sentry's symbolic derives it.
public enum DebugID {
    /// `build id hex` → `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`; nil when it is not hex.
    public static func fromBuildID(_ hex: String) -> String? {
        let chars = Array(hex.lowercased())
        guard chars.count >= 2, chars.count % 2 == 0, chars.allSatisfy(\.isHexDigit) else { return nil }
        var bytes: [UInt8] = stride(from: 0, to: chars.count, by: 2).map { UInt8(String(chars[$0...$0 + 1]), radix: 16)! }
        bytes = Array(bytes.prefix(16)) + Array(repeating: 0, count: max(0, 16 - bytes.count))
        let ordered = bytes[0..<4].reversed() + bytes[4..<6].reversed() + bytes[6..<8].reversed() + Array(bytes[8..<16])
        let h = ordered.map { b -> String in let s = String(b, radix: 16); return s.count == 1 ? "0" + s : s }
        return [h[0..<4], h[4..<6], h[6..<8], h[8..<10], h[10..<16]].map { $0.joined() }.joined(separator: "-")
    }
}
