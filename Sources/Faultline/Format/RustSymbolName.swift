/// Rust function names as Rust's own backtrace printer shows them
/// (`RUST_BACKTRACE=1`, rustc-demangle's `{:#}`), for the text form of a
/// report.
///
/// rustc's legacy mangling (`_ZN11rust_victim9panic_now17h16c85b743ba896e0E`,
/// still the default for a crate's own code) is an Itanium nested name, so
/// llvm-symbolizer demangles it as C++: every path element verbatim, Rust's
/// escapes left in (`_$LT$`, `$u7b$`, `..`), the hash as the last element
/// (`rust_victim::panic_now::h16c85b743ba896e0`) and LLVM's `.llvm.N`
/// suffix in parentheses. Such a name is recognised by that shape alone —
/// `::`-separated elements of the characters legacy mangling uses, the last
/// `h` and 16 hex digits, no parameter list — which is exactly what the
/// demangler makes of a `_ZN…17h<16 hex>E` symbol and of nothing else a
/// frame names (a C++ function keeps its parameter list:
/// `ns::h0123456789abcdef()`). v0 names (`_R…`) come out of llvm-symbolizer
/// already as Rust prints them (`core::ptr::drop_in_place::<…>`) and are
/// left alone, as is every other name.
public enum RustSymbolName {
    /// `name` as Rust's backtrace printer shows it when it is a legacy Rust
    /// name as llvm-symbolizer demangles it (escapes decoded, hash and
    /// `.llvm.` suffix dropped: `<std::sync::mpmc::Sender<T> as
    /// core::clone::Clone>::clone`); any other name unchanged.
    public static func display(_ name: String) -> String {
        guard let elements = legacyElements(name) else { return name }
        return elements.map(decode).joined(separator: "::")
    }

    /// The path elements of a legacy Rust name as the Itanium demangler
    /// writes it, hash and suffix left out; nil for any other name.
    static func legacyElements(_ name: String) -> [Substring]? {
        var text = Substring(name)
        // LLVM's `.llvm.N` (a symbol promoted by ThinLTO), which
        // rustc-demangle drops when N is hex digits and `@`.
        if let open = text.range(of: " (.llvm."), text.hasSuffix(")") {
            let digits = text[open.upperBound..<text.index(before: text.endIndex)]
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isNumber || ("A"..."F").contains($0) || $0 == "@") })
            else { return nil }
            text = text[..<open.lowerBound]
        }
        let elements = text.split(separator: "::", omittingEmptySubsequences: false)
        guard elements.count >= 2, let hash = elements.last, isHash(hash) else { return nil }
        let path = elements.dropLast()
        guard path.allSatisfy({ !$0.isEmpty && $0.allSatisfy(isLegacyCharacter) }) else { return nil }
        return Array(path)
    }

    /// `h` and the 16 lowercase hex digits rustc writes.
    private static func isHash(_ s: Substring) -> Bool {
        s.count == 17 && s.first == "h" && s.dropFirst().allSatisfy { $0.isASCII && ($0.isNumber || ("a"..."f").contains($0)) }
    }

    /// The characters a legacy-mangled path element holds: ASCII letters,
    /// digits, `_`, and the `$` and `.` of Rust's escapes.
    private static func isLegacyCharacter(_ c: Character) -> Bool {
        c.isASCII && (c.isLetter || c.isNumber || c == "_" || c == "$" || c == ".")
    }

    /// One path element decoded as rustc-demangle's legacy printer does: a
    /// leading `_` before `$` dropped, `..` is `::`, `$LT$` `<`, `$GT$` `>`,
    /// `$LP$` `(`, `$RP$` `)`, `$C$` `,`, `$SP$` `@`, `$BP$` `*`, `$RF$` `&`,
    /// `$uXX$` the character XX (hex); at an escape it does not know, the
    /// rest of the element is kept as written.
    static func decode(_ element: Substring) -> String {
        var rest = element.hasPrefix("_$") ? element.dropFirst() : element
        var out = ""
        while let first = rest.first {
            if first == "." {
                if rest.dropFirst().first == "." {
                    out += "::"
                    rest = rest.dropFirst(2)
                } else {
                    out += "."
                    rest = rest.dropFirst()
                }
            } else if first == "$" {
                guard let end = rest.dropFirst().firstIndex(of: "$"),
                      let decoded = unescape(rest[rest.index(after: rest.startIndex)..<end])
                else { break }
                out += decoded
                rest = rest[rest.index(after: end)...]
            } else {
                let stop = rest.firstIndex { $0 == "$" || $0 == "." } ?? rest.endIndex
                out += rest[..<stop]
                rest = rest[stop...]
            }
        }
        return out + rest
    }

    /// The text of one `$…$` escape (without its dollars), nil when unknown.
    private static func unescape(_ escape: Substring) -> String? {
        switch escape {
        case "SP": return "@"
        case "BP": return "*"
        case "RF": return "&"
        case "LT": return "<"
        case "GT": return ">"
        case "LP": return "("
        case "RP": return ")"
        case "C": return ","
        default:
            guard escape.first == "u", escape.count > 1,
                  escape.dropFirst().allSatisfy({ $0.isASCII && ($0.isNumber || ("a"..."f").contains($0)) }),
                  let value = UInt32(escape.dropFirst(), radix: 16), let scalar = Unicode.Scalar(value),
                  scalar.properties.generalCategory != .control  // Rust's char::is_control
            else { return nil }
            return String(Character(scalar))
        }
    }
}
