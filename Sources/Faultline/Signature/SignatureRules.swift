import Foundation

/// Which frames a signature skips, in the spirit of Socorro's skip lists:
/// frames that say nothing about the bug (Faultline's own, `abort`,
/// `raise`, `__cxa_throw`, the allocator) are passed over so that the
/// signature names the program's code. The format is documented in
/// docs/export.md ("Signatures"); `standard` is `DefaultSignatureRules.text`.
///
/// One rule a line, `#` starts a comment:
///
///     skip   PATTERN [in IMAGE]   frame left out of the signature
///     prefix PATTERN [in IMAGE]   frame kept, but not counted: the signature goes on past it
///     image  IMAGE                every frame of this image left out
///
/// PATTERN matches the whole function name, IMAGE the image's file name;
/// `*` matches any run of characters; PATTERN `*` alone matches every
/// frame, `?` alone only a frame with no symbol. The first rule that matches decides;
/// a frame no rule matches is significant.
public struct SignatureRules: Sendable, Hashable {
    /// What a rule does with the frames it matches.
    public enum Action: String, Sendable, Hashable {
        case skip, prefix
    }

    /// One parsed rule.
    public struct Rule: Sendable, Hashable {
        /// What happens to a matching frame.
        public var action: Action
        /// Glob on the function name; nil matches any frame (an `image` rule).
        public var function: String?
        /// Glob on the image's file name; nil matches any image.
        public var image: String?
    }

    /// A rule file that does not parse: names the file, line and text.
    public struct ParseError: Error, CustomStringConvertible, Sendable {
        /// The file (or `built-in rules`).
        public var source: String
        /// 1-based line number.
        public var line: Int
        /// The offending line.
        public var text: String

        public var description: String {
            "\(source):\(line): not a signature rule: \(text.debugDescription); write `skip PATTERN [in IMAGE]`, `prefix PATTERN [in IMAGE]` or `image IMAGE`"
        }
    }

    /// The rules, in order.
    public var rules: [Rule]

    /// Significant frames a signature names at most (prefix frames aside).
    public var significantFrames = 3

    /// The rules shipped with Faultline.
    public static let standard: SignatureRules = {
        do { return try SignatureRules(parsing: DefaultSignatureRules.text, source: "built-in rules") }
        catch { fatalError("\(error)") }
    }()

    /// Rules read from `text`; `source` names it in errors.
    public init(parsing text: String, source: String) throws(ParseError) {
        rules = []
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard let verb = words.first else { continue }
            let bad = ParseError(source: source, line: n + 1, text: String(raw))
            switch verb {
            case "image":
                guard words.count == 2 else { throw bad }
                rules.append(Rule(action: .skip, function: nil, image: words[1]))
            case "skip", "prefix":
                // The pattern may hold spaces (`operator new(unsigned long)`):
                // everything up to a final `in IMAGE`.
                var rest = Array(words.dropFirst())
                var image: String?
                if rest.count >= 3, rest[rest.count - 2] == "in" {
                    image = rest.removeLast()
                    rest.removeLast()
                }
                guard !rest.isEmpty else { throw bad }
                rules.append(Rule(action: Action(rawValue: verb)!, function: rest.joined(separator: " "), image: image))
            default:
                throw bad
            }
        }
    }

    /// The standard rules followed by the ones in the file at `path`
    /// (a user's additions come after, so they only decide frames the
    /// standard rules leave significant). Throws a one-line error.
    public static func standard(extendedWith path: String) throws -> SignatureRules {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) }
        catch { throw SignatureRulesFileError(path: path, reason: (error as NSError).localizedDescription) }
        var rules = standard
        rules.rules += try SignatureRules(parsing: text, source: path).rules
        return rules
    }

    /// What the rules say about a frame of `function` (nil: unsymbolicated)
    /// in the image whose file name is `image`; nil when it is significant.
    public func action(function: String?, image: String?) -> Action? {
        for rule in rules {
            if let pattern = rule.image {
                guard let image, Self.glob(pattern, matches: image) else { continue }
            }
            // `*` takes every frame, `?` only one with no symbol.
            if let pattern = rule.function, pattern != "*" {
                if pattern == "?" { guard function == nil else { continue } }
                else { guard let function, Self.glob(pattern, matches: function) else { continue } }
            }
            return rule.action
        }
        return nil
    }

    /// `*`-glob match of the whole of `text`.
    static func glob(_ pattern: String, matches text: String) -> Bool {
        let p = Array(pattern.utf8), t = Array(text.utf8)
        var pi = 0, ti = 0, star = -1, mark = 0
        while ti < t.count {
            if pi < p.count, p[pi] == UInt8(ascii: "*") {
                star = pi; mark = ti; pi += 1
            } else if pi < p.count, p[pi] == t[ti] {
                pi += 1; ti += 1
            } else if star >= 0 {
                pi = star + 1; mark += 1; ti = mark
            } else {
                return false
            }
        }
        while pi < p.count, p[pi] == UInt8(ascii: "*") { pi += 1 }
        return pi == p.count
    }
}

/// A signature rule file that cannot be read.
public struct SignatureRulesFileError: Error, CustomStringConvertible {
    /// The file.
    public var path: String
    /// Why.
    public var reason: String
    public var description: String { "cannot read signature rules \(path): \(reason); check the path" }
}
