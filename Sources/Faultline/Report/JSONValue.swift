/// Any JSON value. Reports keep the sections of detectors this build does
/// not model (and user data) as `JSONValue`, so nothing is lost on a round
/// trip and detectors can add sections without changing `Report`.
public enum JSONValue: Codable, Hashable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        // Each failed attempt throws an error that records its coding path,
        // the costly part, so the kinds reports hold most (strings: pcs and
        // offsets) come first: the decoder never converts between the kinds,
        // so the order changes no value, only how many attempts fail.
        // A value that cannot be decoded deep inside fails as it did when
        // objects came last (the same error, at the same path).
        if c.decodeNil() { self = .null }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let n = try? c.decode(Double.self) { self = .number(n) }
        else if let o = try Self.objectIfOne(c, at: decoder) { self = .object(o) }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    /// The object at `c`; nil when the value is of another kind. An error
    /// inside the object (deeper than `decoder`) is thrown.
    private static func objectIfOne(_ c: SingleValueDecodingContainer, at decoder: Decoder) throws -> [String: JSONValue]? {
        do {
            return try c.decode([String: JSONValue].self)
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.count <= decoder.codingPath.count {
            return nil
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .number(let n): try c.encode(n)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }

    /// The member `key` of an object, else nil.
    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    /// The string, else nil.
    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    /// The number, else nil.
    public var numberValue: Double? { if case .number(let n) = self { return n }; return nil }
    /// The number without its fraction, else nil; nil too when it does not
    /// fit in 64 bits (a corrupt report's 1e300 must not trap).
    public var integerValue: Int64? {
        guard case .number(let n) = self, n.isFinite, n > -9.2e18, n < 9.2e18 else { return nil }
        return Int64(n)
    }
    /// The number as an `Int` when it is whole and fits, else nil.
    public var intValue: Int? { integerValue.map { Int($0) } }
    /// The boolean, else nil.
    public var boolValue: Bool? { if case .bool(let b) = self { return b }; return nil }
    /// The elements, else nil.
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a }; return nil }

    /// Decodes this value as `T` (for typed views of detector sections).
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let data = try JSONEncoderFactory.plain().encode(self)
        return try JSONDecoderFactory.reports().decode(T.self, from: data)
    }
}
