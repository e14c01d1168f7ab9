import Foundation

/// The decoder every report reader uses (snake_case keys).
public enum JSONDecoderFactory {
    /// A decoder for report files.
    public static func reports() -> JSONDecoder {
        let d = JSONDecoder()
        d.keyDecodingStrategy = .convertFromSnakeCase
        return d
    }
}

/// The encoders for writing reports and results.
public enum JSONEncoderFactory {
    /// Compact, snake_case keys.
    public static func plain() -> JSONEncoder {
        let e = JSONEncoder()
        e.keyEncodingStrategy = .convertToSnakeCase
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }

    /// Indented, snake_case keys, for people.
    public static func pretty() -> JSONEncoder {
        let e = plain()
        e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return e
    }
}
