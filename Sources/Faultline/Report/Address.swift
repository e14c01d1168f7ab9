/// A 64-bit address or offset, stored in reports as a `"0x…"` hex string so
/// no JSON parser rounds it.
public struct Address: Codable, Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The numeric value.
    public var value: UInt64

    /// Wraps a value.
    public init(_ value: UInt64) { self.value = value }

    /// Parses `"0x1f"` (or plain hex); nil when malformed.
    public init?(hex: String) {
        let digits = hex.hasPrefix("0x") || hex.hasPrefix("0X") ? String(hex.dropFirst(2)) : hex
        guard !digits.isEmpty, let v = UInt64(digits, radix: 16) else { return nil }
        value = v
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let n = try? c.decode(UInt64.self) { value = n; return }
        let s = try c.decode(String.self)
        guard let a = Address(hex: s) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "'\(s)' is not a hex address")
        }
        self = a
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }

    /// `"0x…"`.
    public var description: String { "0x" + String(value, radix: 16) }

    public static func < (a: Address, b: Address) -> Bool { a.value < b.value }
}
