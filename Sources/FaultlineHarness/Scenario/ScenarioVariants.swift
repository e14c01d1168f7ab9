import Yams

/// One entry of a scenario file's `variants:` list: the file's case run one
/// more way. Its scenario is named `BASE[NAME]` and every `${VAR}` in the
/// file's text values is replaced by this entry's value (docs/scenarios.md,
/// "Variants").
struct ScenarioVariant: Sendable, Equatable {
    /// The name in brackets after the file's name; also `${variant}`.
    var name: String
    /// Variable name -> value, `variant` included.
    var values: [String: String]
    /// The entry's line: a duplicate scenario name is reported there.
    var source: SourceLocation

    /// The variable every variant defines: its own name.
    static let nameVariable = "variant"

    /// The scenario name of variant `variant` of the file named `base`.
    static func scenarioName(base: String, variant: String) -> String { "\(base)[\(variant)]" }

    /// Reads a `variants:` value: a non-empty list whose entries are either
    /// a name (`- bsd_signal`) or a mapping with `name` and variables
    /// (`- {name: sigignore, reads: SIG_IGN}`).
    static func parseList(_ node: Node, _ r: YAMLNodeReader) throws(ScenarioLoadError) -> [ScenarioVariant] {
        guard case .sequence(let items) = node else {
            throw r.error(node, "variants must be a list of variant names or {name: …, VAR: value} mappings, found \(r.kind(of: node))")
        }
        guard !items.isEmpty else {
            throw r.error(node, "variants is empty; list at least one variant, or drop the key")
        }
        var variants: [ScenarioVariant] = []
        var lineOf: [String: Int] = [:]
        for item in items {
            let v = try parseEntry(item, r)
            if let first = lineOf[v.name] {
                throw r.error(item, "variant '\(v.name)' is listed twice (first on line \(first)); rename or drop one")
            }
            lineOf[v.name] = v.source.line
            variants.append(v)
        }
        return variants
    }

    private static func parseEntry(_ item: Node, _ r: YAMLNodeReader) throws(ScenarioLoadError) -> ScenarioVariant {
        switch item {
        case .scalar:
            let name = try r.nonEmptyString(item, "a variant name")
            try checkName(name, item, r)
            return ScenarioVariant(name: name, values: [nameVariable: name], source: r.location(item))
        case .mapping:
            var name: String?
            var values: [String: String] = [:]
            for (key, keyNode, value) in try r.freeMapping(item, "a variant") {
                if key == "name" {
                    let n = try r.nonEmptyString(value, "a variant's name")
                    try checkName(n, value, r)
                    name = n
                    continue
                }
                guard key != nameVariable else {
                    throw r.error(keyNode, "'\(nameVariable)' is the variant's own name (${\(nameVariable)}); give it with name: and call the variable something else")
                }
                guard isVariableName(key) else {
                    throw r.error(keyNode, "variable name '\(key)' in a variant may only use letters, digits and '_' (not first); rename it")
                }
                values[key] = try r.string(value, "variable \(key)")
            }
            guard let name else {
                throw r.error(item, "a variant given as a mapping needs name: (the text in brackets after the file's name)")
            }
            values[nameVariable] = name
            return ScenarioVariant(name: name, values: values, source: r.location(item))
        default:
            throw r.error(item, "each variant must be a name or a {name: …, VAR: value} mapping, found \(r.kind(of: item))")
        }
    }

    /// Variant names share the scenario name's alphabet, since both name
    /// the artifacts folder.
    private static func checkName(_ name: String, _ node: Node, _ r: YAMLNodeReader) throws(ScenarioLoadError) {
        let ok = name.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7a) || b == 0x2e || b == 0x5f || b == 0x2d
        }
        guard ok else {
            throw r.error(node, "variant name '\(name)' may only use letters, digits, '.', '_' and '-' (it names a folder); rename it")
        }
    }

    private static func isVariableName(_ key: String) -> Bool {
        guard let first = key.utf8.first, !(first >= 0x30 && first <= 0x39) else { return false }
        return key.utf8.allSatisfy { b in (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7a) || b == 0x5f }
    }

    /// `node` with `${VAR}` replaced by this variant's values in every scalar
    /// value (keys stay as written), `$${` written as a literal `${`. A
    /// scalar keeps its style, so a plain `${count}` that becomes `3` is a
    /// number. An undefined `${X}` is an error at its line: left as text it
    /// would pass the literal to the victim or look for it in a report.
    func substitute(_ node: Node, _ r: YAMLNodeReader) throws(ScenarioLoadError) -> Node {
        switch node {
        case .scalar(var s):
            s.string = try expand(s.string, node, r)
            return .scalar(s)
        case .mapping(let m):
            var pairs: [(Node, Node)] = []
            for (k, v) in m { pairs.append((k, try substitute(v, r))) }
            return .mapping(Node.Mapping(pairs, m.tag, m.style, m.mark))
        case .sequence(let q):
            var nodes: [Node] = []
            for item in q { nodes.append(try substitute(item, r)) }
            return .sequence(Node.Sequence(nodes, q.tag, q.style, q.mark))
        default:
            return node
        }
    }

    private func expand(_ text: String, _ node: Node, _ r: YAMLNodeReader) throws(ScenarioLoadError) -> String {
        guard text.contains("${") else { return text }
        var out = ""
        var rest = Substring(text)
        while let open = rest.range(of: "${") {
            // `$${` is the escape for a literal `${` (a shell line in args).
            if open.lowerBound > rest.startIndex, rest[rest.index(before: open.lowerBound)] == "$" {
                out += rest[..<rest.index(before: open.lowerBound)] + "${"
                rest = rest[open.upperBound...]
                continue
            }
            out += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].firstIndex(of: "}") else {
                throw r.error(node, "'${' without a closing '}' in '\(text)'; write ${VAR}, or $${ for a literal ${")
            }
            let variable = String(rest[open.upperBound..<close])
            guard let value = values[variable] else {
                let known = values.keys.sorted().map { "${\($0)}" }.joined(separator: ", ")
                throw r.error(node, "${\(variable)} is not defined in variant '\(name)' (line \(source.line)); "
                    + "define it there, or write $${\(variable)} for the literal text (defined: \(known))")
            }
            out += value
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }
}
