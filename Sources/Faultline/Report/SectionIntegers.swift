/// The section fields readers take as whole numbers (leak totals and
/// groups, growth figures, frame images and lines), checked as a report is
/// decoded: a value no `Int` holds (2^63, 1e300, -1 for a count, 1.5) is
/// a decoding error naming the field, never a trap in a formatter.
enum SectionIntegers {
    /// One checked field: a path of keys, `*` for any key, `[]` for every
    /// element, and whether it may be negative.
    struct Field {
        let path: [String]
        let signed: Bool
    }

    private static func fields(_ paths: [String], signed: Bool = false) -> [Field] {
        paths.map { Field(path: $0.split(separator: ".").map(String.init), signed: signed) }
    }

    /// Frame fields read as integers, below each stack.
    private static let frame = ["image", "symbol.line", "symbol.column"]

    /// Every checked field.
    static let all: [Field] = fields([
        "leak.totals.*.blocks", "leak.totals.*.bytes", "groups.[].count", "groups.[].bytes", "groups.[].indirect.bytes",
        "leak_growth.growth_bytes", "leak_growth.live_bytes", "leak_growth.snapshots",
    ] + frame.map { "groups.[].allocation_stack.[]." + $0 } + frame.map { "allocation_stack.[]." + $0 })

    /// Largest magnitude accepted: every integral Double below it converts
    /// to Int (2^63 itself does not).
    static let limit = 9_223_372_036_854_775_808.0

    /// The first bad field among `sections`, as its dotted path and why.
    static func firstProblem(in sections: [String: JSONValue]) -> (path: String, why: String)? {
        for field in all {
            guard let head = field.path.first, let value = sections[head] else { continue }
            if let found = check(value, Array(field.path.dropFirst()), at: head, signed: field.signed) { return found }
        }
        return nil
    }

    private static func check(_ value: JSONValue, _ rest: [String], at path: String, signed: Bool) -> (String, String)? {
        guard let step = rest.first else {
            guard case .number(let n) = value else { return nil }  // another type: the reader shows it as absent
            if n.rounded() != n { return (path, "\(n) is not a whole number") }
            if n >= limit || n <= -limit || (!signed && n < 0) {
                return (path, "\(n) is out of range (\(signed ? "-2^63" : "0") to 2^63-1)")
            }
            return nil
        }
        let next = Array(rest.dropFirst())
        switch (step, value) {
        case ("[]", .array(let items)):
            for (i, item) in items.enumerated() {
                if let found = check(item, next, at: "\(path)[\(i)]", signed: signed) { return found }
            }
        case ("*", .object(let o)):
            for key in o.keys.sorted() {
                if let item = o[key], let found = check(item, next, at: "\(path).\(key)", signed: signed) { return found }
            }
        case (_, .object(let o)):
            if let item = o[step] { return check(item, next, at: "\(path).\(step)", signed: signed) }
        default: break
        }
        return nil
    }
}
