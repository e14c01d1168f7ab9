import Faultline
import Foundation
import Yams

/// Reads one scenario file into a `Scenario`, rejecting anything it does not
/// understand with a one-line `FILE:LINE:` error (docs/scenarios.md).
public struct ScenarioLoader: Sendable {
    /// Requirement names a scenario may list in `requires`.
    public var requirements: RequirementRegistry

    /// Creates a loader that accepts the requirements `requirements` knows.
    public init(requirements: RequirementRegistry = .standard) {
        self.requirements = requirements
    }

    static let scenarioKeys = [
        "name", "description", "victim", "args", "inject", "mode", "env", "timeout", "memory_limit", "requires", "expect", "xfail", "variants",
    ]
    static let expectKeys = ["exit", "reports", "no_reports", "stderr_contains", "stdout_contains", "stderr_lacks"]
    static let exitKeys = ["code", "signal"]
    static let reportKeys = ["kind", "signal", "code", "thread", "frames", "match", "max_detection_ms"]

    /// Largest scenario file read: a scenario is a few lines of YAML.
    public static let maxFileBytes = 1 << 20

    /// Longest scenario name: it names a folder, with `-N` for repeats.
    public static let maxNameLength = 128

    /// The name a scenario file's path gives it: its path below the
    /// scenarios folder, without `.yaml`/`.yml`, `/` written as `.`
    /// (`crash/null-deref.yaml` is `crash.null-deref`).
    public static func name(forRelativePath relative: String) -> String {
        var base = relative
        for ext in [".yaml", ".yml"] where base.hasSuffix(ext) { base.removeLast(ext.count) }
        return base.split(separator: "/", omittingEmptySubsequences: true).joined(separator: ".")
    }

    /// Why `name` cannot name a scenario (it names its artifacts folder),
    /// or nil: ASCII letters, digits, `.`, `_`, `-`; no empty, `.` or `..`
    /// part between dots; at most `maxNameLength` characters.
    public static func nameProblem(_ name: String) -> String? {
        guard name.utf8.allSatisfy({ b in (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7a) || b == 0x2e || b == 0x5f || b == 0x2d }) else {
            return "may only use letters, digits, '.', '_' and '-' (it names a folder)"
        }
        guard name.utf8.count <= maxNameLength else { return "is longer than \(maxNameLength) characters (it names a folder)" }
        guard !name.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) else {
            return "may not start or end with '.' nor hold '..' (it names a folder inside the run's)"
        }
        return nil
    }

    /// Loads the file at `path`, which must hold one scenario (no
    /// `variants:`); see `loadAll` for the general case.
    public func load(path: String, displayPath: String? = nil, pathName: String? = nil) throws(ScenarioLoadError) -> Scenario {
        try Self.single(try loadAll(path: path, displayPath: displayPath, pathName: pathName), file: displayPath ?? path)
    }

    /// Loads the file at `path`: one scenario, or one per entry of its
    /// `variants:` list. Errors name it as `displayPath` (default `path`).
    /// `pathName` is the name its path gives it (see
    /// `name(forRelativePath:)`): the name when the file has none, and a
    /// `name:` that differs from it is an error.
    public func loadAll(path: String, displayPath: String? = nil, pathName: String? = nil) throws(ScenarioLoadError) -> [Scenario] {
        let shown = displayPath ?? path
        let text = try Self.readText(path, shown: shown)
        return try parseAll(yaml: text, file: shown, directory: (path as NSString).deletingLastPathComponent, pathName: pathName)
    }

    /// Parses scenario YAML holding one scenario (no `variants:`). `file` is
    /// used in errors; `directory` resolves a victim given as a relative
    /// path; `pathName` as in `loadAll`.
    public func parse(yaml: String, file: String, directory: String = ".", pathName: String? = nil) throws(ScenarioLoadError) -> Scenario {
        try Self.single(try parseAll(yaml: yaml, file: file, directory: directory, pathName: pathName), file: file)
    }

    /// Parses scenario YAML into its scenarios: one, or one per variant
    /// (`BASE[VARIANT]`, in the order listed), arguments as in `parse`.
    public func parseAll(yaml: String, file: String, directory: String = ".", pathName: String? = nil) throws(ScenarioLoadError) -> [Scenario] {
        let r = YAMLNodeReader(file: file)
        let (body, variants) = try Self.splitVariants(try Self.compose(yaml, r), r)
        guard let variants else {
            return [try scenario(from: body, r, directory: directory, pathName: pathName, variant: nil)]
        }
        var out: [Scenario] = []
        for v in variants {
            do throws(ScenarioLoadError) {
                out.append(try scenario(from: try v.substitute(body, r), r, directory: directory, pathName: pathName, variant: v))
            } catch {
                // The same line serves every variant: say which one failed.
                throw ScenarioLoadError(error.location, error.message + " (in variant '\(v.name)', line \(v.source.line))")
            }
        }
        return out
    }

    private static func single(_ scenarios: [Scenario], file: String) throws(ScenarioLoadError) -> Scenario {
        guard scenarios.count == 1, let only = scenarios.first else {
            throw ScenarioLoadError(SourceLocation(file: file, line: scenarios.first?.source.line ?? 1),
                "holds \(scenarios.count) variants where one scenario was expected; load it with loadAll/parseAll")
        }
        return only
    }

    /// The file's text, or a one-line error saying why it is not a scenario file.
    private static func readText(_ path: String, shown: String) throws(ScenarioLoadError) -> String {
        let data: Data
        do throws(RegularFile.ReadError) {
            data = try RegularFile.read(path, limit: Self.maxFileBytes)
        } catch {
            let why: String
            switch error {
            case .directory:
                why = "a folder named like a scenario file; rename it so it does not end in .yaml or .yml (scenario files are the files that do)"
            case .notRegular:
                why = "not a regular file (a FIFO, socket or device); scenario files are plain files, move it out of the scenarios folder"
            case .tooLarge(let size):
                why = "\(size) bytes is larger than any scenario file (\(Self.maxFileBytes >> 20) MiB); it is not one, move it out of the scenarios folder"
            case .system(let code):
                why = "cannot read the file (\(String(cString: strerror(code)))); check that it exists and is readable"
            }
            throw ScenarioLoadError(SourceLocation(file: shown, line: 1), why)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ScenarioLoadError(SourceLocation(file: shown, line: 1), "not UTF-8 text; save it as UTF-8")
        }
        return text
    }

    /// The YAML document's root node; syntax errors as one line.
    private static func compose(_ yaml: String, _ r: YAMLNodeReader) throws(ScenarioLoadError) -> Node {
        do {
            guard let node = try Yams.compose(yaml: yaml) else {
                throw ScenarioLoadError(SourceLocation(file: r.file, line: 1), "empty scenario file; it needs at least name, victim and expect")
            }
            return node
        } catch let e as ScenarioLoadError {
            throw e
        } catch let e as YamlError {
            throw Self.describe(e, file: r.file)
        } catch {
            throw ScenarioLoadError(SourceLocation(file: r.file, line: 1), "not valid YAML (\(error)); fix the syntax")
        }
    }

    /// The root without its `variants:` entry, and that entry's variants
    /// (nil when the file has none).
    private static func splitVariants(_ root: Node, _ r: YAMLNodeReader) throws(ScenarioLoadError) -> (Node, [ScenarioVariant]?) {
        guard case .mapping(let m) = root else { return (root, nil) }
        var rest: [(Node, Node)] = []
        var variants: [ScenarioVariant]?
        for (k, v) in m {
            if case .scalar(let key) = k, key.string == "variants" {
                variants = try ScenarioVariant.parseList(v, r)
            } else {
                rest.append((k, v))
            }
        }
        return (.mapping(Node.Mapping(rest, m.tag, m.style, m.mark)), variants)
    }

    /// What the scenario's keys say before the required ones are checked.
    private struct Draft {
        var scenario: Scenario
        var name: String?
        var victim: String?
        var expectNode: Node?
    }

    /// One scenario from a (substituted) root mapping.
    private func scenario(from root: Node, _ r: YAMLNodeReader, directory: String, pathName: String?,
                          variant: ScenarioVariant?) throws(ScenarioLoadError) -> Scenario {
        var d = Draft(scenario: Scenario(name: "", source: r.location(root), victim: ""))
        for (key, keyNode, value) in try r.mapping(root, "the scenario", allowed: Self.scenarioKeys) {
            try apply(key, keyNode, value, to: &d, r, pathName: pathName)
        }
        var scenario = d.scenario
        scenario.name = try Self.finalName(d.name, pathName: pathName, variant: variant, r, root)
        if let variant { scenario.source = variant.source }
        guard let victim = d.victim else {
            throw ScenarioLoadError(r.location(root), "scenario '\(scenario.name)' has no victim; add victim: PROGRAM (a built product, an absolute path or a program on PATH)")
        }
        guard let expectNode = d.expectNode else {
            throw ScenarioLoadError(r.location(root), "scenario '\(scenario.name)' has no expect; say what must happen (exit, reports, no_reports, stderr_contains…)")
        }
        scenario.victim = Self.resolveVictim(victim, directory: directory)
        scenario.requires = impliedRequirements(scenario)
        scenario.expect = try parseExpect(expectNode, r)
        return scenario
    }

    /// The `name:` given, else the path's; `BASE[VARIANT]` for a variant.
    private static func finalName(_ given: String?, pathName: String?, variant: ScenarioVariant?,
                                  _ r: YAMLNodeReader, _ root: Node) throws(ScenarioLoadError) -> String {
        var base = given
        if base == nil, let pathName {
            if let problem = nameProblem(pathName) {
                throw ScenarioLoadError(r.location(root), "the name '\(pathName)' its path gives it \(problem); rename the file or folder")
            }
            base = pathName
        }
        guard let base else {
            throw ScenarioLoadError(r.location(root), "no name; add e.g. name: crash.null-deref (unique in the suite)")
        }
        guard let variant else { return base }
        let full = ScenarioVariant.scenarioName(base: base, variant: variant.name)
        guard full.utf8.count <= maxNameLength else {
            throw ScenarioLoadError(variant.source, "scenario name '\(full)' is longer than \(maxNameLength) characters (it names a folder); shorten the variant's name")
        }
        return full
    }

    /// A victim path relative to the scenario file, made absolute: the
    /// victim starts in its artifacts folder, where a path relative to
    /// `--scenarios Scenarios` names nothing.
    private static func resolveVictim(_ victim: String, directory: String) -> String {
        guard victim.contains("/") && !victim.hasPrefix("/") else { return victim }
        let base = directory.hasPrefix("/")
            ? directory : (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(directory)
        return ((base as NSString).appendingPathComponent(victim) as NSString).standardizingPath
    }

    /// Reads one top-level key into the draft.
    private func apply(_ key: String, _ keyNode: Node, _ value: Node, to d: inout Draft, _ r: YAMLNodeReader,
                       pathName: String?) throws(ScenarioLoadError) {
        switch key {
        case "name":
            let n = try r.nonEmptyString(value, "name")
            if let problem = Self.nameProblem(n) { throw r.error(value, "name '\(n)' \(problem); rename it") }
            if let pathName, n != pathName {
                throw r.error(value, "name '\(n)' differs from '\(pathName)', the name the file's path gives it; "
                    + "drop the name line or rename one of them")
            }
            d.name = n
            d.scenario.source = r.location(keyNode)
        case "description":
            d.scenario.description = try r.string(value, "description")
        case "victim":
            d.victim = try r.nonEmptyString(value, "victim")
        case "args":
            d.scenario.args = try r.stringList(value, "args", example: "[null-deref]").map(\.0)
        case "inject":
            d.scenario.inject = try r.stringList(value, "inject", example: "[crash]").map { (text, node) throws(ScenarioLoadError) in
                guard let det = Detector(rawValue: text) else {
                    throw r.error(node, "unknown detector '\(text)' in inject; use one of: \(Detector.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                return det
            }
        case "mode":
            let m = try r.string(value, "mode")
            guard let mode = InjectionMode(rawValue: m) else {
                throw r.error(value, "mode must be preload or linked, found '\(m)'")
            }
            d.scenario.mode = mode
        case "env":
            for (k, kNode, v) in try r.freeMapping(value, "env") {
                guard !k.isEmpty, !k.contains("=") else {
                    throw r.error(kNode, "environment variable name '\(k)' is not valid; use NAME: value")
                }
                d.scenario.env[k] = try r.string(v, "env.\(k)")
            }
        case "timeout":
            d.scenario.timeout = try Self.parseTimeout(value, r)
        case "memory_limit":
            let t = try r.string(value, "memory_limit")
            guard let b = Units.bytes(t), b > 0 else {
                throw r.error(value, "memory_limit '\(t)' is not a size; write e.g. 64M, 1G, 512K or a number of bytes")
            }
            d.scenario.memoryLimit = b
        case "requires":
            d.scenario.requires = try r.stringList(value, "requires", example: "[root]").map { (text, node) throws(ScenarioLoadError) in
                if let problem = requirements.validate(text) { throw r.error(node, problem) }
                return text
            }
        case "expect":
            d.expectNode = value
        case "xfail":
            d.scenario.xfail = try r.nonEmptyString(value, "xfail")
        default:
            break
        }
    }

    private static func parseTimeout(_ value: Node, _ r: YAMLNodeReader) throws(ScenarioLoadError) -> Double {
        let t = try r.string(value, "timeout")
        guard let s = Units.seconds(t), s > 0 else {
            throw r.error(value, "timeout '\(t)' is not a duration; write e.g. 250ms, 2s, 1.5s or a number of seconds")
        }
        // Below a millisecond the victim was killed at once and the
        // verdict read "expected to end within 0ms".
        guard s >= 0.001 else {
            throw r.error(value, "timeout '\(t)' is shorter than 1ms, too short for any victim; write e.g. 250ms or 2s")
        }
        return s
    }

    /// `requires` plus what the scenario's own keys need: a `memory_limit`
    /// needs a memory cgroup, so without one the scenario SKIPs with that
    /// reason instead of failing to create it (unless it already asks for
    /// a cgroup, or this loader's registry has no such requirement).
    func impliedRequirements(_ scenario: Scenario) -> [String] {
        var requires = scenario.requires
        let cgroup = ["cgroup-memory", "cgroup-v1-memory"]
        if scenario.memoryLimit != nil, !requires.contains(where: cgroup.contains), requirements.validate(cgroup[0]) == nil {
            requires.append(cgroup[0])
        }
        return requires
    }

    private func parseExpect(_ node: Node, _ r: YAMLNodeReader) throws(ScenarioLoadError) -> ScenarioExpectation {
        var e = ScenarioExpectation()
        var noReports: (Bool, Node)?
        let entries = try r.mapping(node, "expect", allowed: Self.expectKeys)
        if entries.isEmpty {
            throw r.error(node, "expect is empty; say what must happen (exit, reports, no_reports, stderr_contains…)")
        }
        for (key, _, value) in entries {
            switch key {
            case "exit": e.exit = try parseExit(value, r)
            case "reports":
                guard case .sequence(let items) = value else {
                    throw r.error(value, "reports must be a list of report expectations (- kind: crash …), found \(r.kind(of: value))")
                }
                var list: [ReportExpectation] = []
                for item in items { list.append(try parseReport(item, r)) }
                e.reports = list
            case "no_reports": noReports = (try r.bool(value, "no_reports"), value)
            case "stderr_contains": e.stderrContains = try r.stringList(value, "stderr_contains", example: "[\"victim: …\"]").map(\.0)
            case "stdout_contains": e.stdoutContains = try r.stringList(value, "stdout_contains", example: "[\"…\"]").map(\.0)
            case "stderr_lacks": e.stderrLacks = try r.stringList(value, "stderr_lacks", example: "[\"did not end\"]").map(\.0)
            default: break
            }
        }
        if let (flag, flagNode) = noReports, flag {
            if let reports = e.reports, !reports.isEmpty {
                throw r.error(flagNode, "no_reports: true contradicts the reports listed; keep one of them")
            }
            e.reports = []
        }
        // `no_reports: false` and empty lists are keys that check nothing:
        // such a scenario passed whatever the victim did.
        if e.exit == nil && e.reports == nil && e.stderrContains.isEmpty && e.stdoutContains.isEmpty && e.stderrLacks.isEmpty {
            throw r.error(node, "expect checks nothing (no_reports: false and empty lists check nothing); say what must happen (exit, reports, no_reports: true, stderr_contains…)")
        }
        return e
    }

    private func parseExit(_ node: Node, _ r: YAMLNodeReader) throws(ScenarioLoadError) -> ExitExpectation {
        let entries = try r.mapping(node, "exit", allowed: Self.exitKeys)
        guard entries.count == 1, let (key, _, value) = entries.first else {
            throw r.error(node, "exit needs exactly one of {code: N} or {signal: NAME}")
        }
        let text = try r.string(value, "exit.\(key)")
        if key == "code" {
            guard r.isPlain(value), let c = Int32(text), (0...255).contains(c) else {
                throw r.error(value, "exit code must be a number from 0 to 255, found '\(text)'")
            }
            return .code(c)
        }
        guard let n = SignalNames.number(of: text) else {
            throw r.error(value, "unknown signal '\(text)'; write a name such as SIGSEGV or SIGABRT")
        }
        return .signal(n)
    }

    private func parseReport(_ node: Node, _ r: YAMLNodeReader) throws(ScenarioLoadError) -> ReportExpectation {
        var e = ReportExpectation(source: r.location(node))
        for (key, _, value) in try r.mapping(node, "a report expectation", allowed: Self.reportKeys) {
            switch key {
            case "kind": e.kind = try r.nonEmptyString(value, "kind")
            case "signal":
                let text = try r.nonEmptyString(value, "signal")
                guard let canonical = SignalNames.canonical(text) else {
                    throw r.error(value, "unknown signal '\(text)'; write a name such as SIGSEGV or SIGABRT")
                }
                e.signal = canonical
            case "code": e.code = try r.nonEmptyString(value, "code")
            case "thread": e.thread = try r.nonEmptyString(value, "thread")
            case "frames": e.frames = try r.stringList(value, "frames", example: "[victim_null_deref]").map(\.0)
            case "match":
                for (path, pathNode, expected) in try r.freeMapping(value, "match") {
                    e.match.append(try parsePathMatch(path, pathNode, expected, r))
                }
            case "max_detection_ms":
                let n = try r.number(value, "max_detection_ms")
                guard n > 0 else { throw r.error(value, "max_detection_ms must be above 0, found \(formatNumber(n))") }
                e.maxDetectionMs = n
            default: break
            }
        }
        return e
    }

    private func parsePathMatch(_ path: String, _ pathNode: Node, _ value: Node, _ r: YAMLNodeReader) throws(ScenarioLoadError) -> PathMatch {
        switch JSONPath.parse(path) {
        case .failure(let e): throw r.error(pathNode, "\(e) in match; write a dotted path such as recrash.stage or threads[0].name")
        case .success(let p): return PathMatch(path: p, expected: try parseMatchValue(value, r))
        }
    }

    private func parseMatchValue(_ node: Node, _ r: YAMLNodeReader) throws(ScenarioLoadError) -> MatchValue {
        switch node {
        case .scalar(let s):
            if r.isNull(node) { return .null }
            guard r.isPlain(node) else { return .string(s.string) }
            switch s.string {
            case "true", "True", "TRUE": return .bool(true)
            case "false", "False", "FALSE": return .bool(false)
            default: break
            }
            if let d = Double(s.string), d.isFinite, s.string.first.map({ $0.isNumber || $0 == "-" || $0 == "+" }) == true {
                return .number(d)
            }
            // A plain `$…` is a value only the run knows; a quoted one is text.
            if s.string.hasPrefix("$") {
                guard s.string == MatchValue.victimPidSpelling else {
                    throw r.error(node, "unknown value '\(s.string)' in match; the one value a run fills in is "
                        + "\(MatchValue.victimPidSpelling) (the pid of the process the runner started); "
                        + "to match the text, quote it: \"\(s.string)\"")
                }
                return .victimPid
            }
            return .string(s.string)
        case .sequence(let items):
            var out: [MatchValue] = []
            for item in items { out.append(try parseMatchValue(item, r)) }
            return .contains(out)
        case .mapping:
            var out: [PathMatch] = []
            for (path, pathNode, value) in try r.freeMapping(node, "a match element") {
                out.append(try parsePathMatch(path, pathNode, value, r))
            }
            return .object(out)
        default:
            throw r.error(node, "aliases are not supported in scenarios; write the value out")
        }
    }

    /// One line for a YAML syntax error.
    static func describe(_ e: YamlError, file: String) -> ScenarioLoadError {
        func at(_ mark: Mark) -> SourceLocation { SourceLocation(file: file, line: mark.line) }
        switch e {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
             .composer(let context, let problem, let mark, _):
            let ctx = context.map { c in
                " (\(c.text)" + (c.mark.line != mark.line ? " that starts on line \(c.mark.line)" : "") + ")"
            } ?? ""
            return ScenarioLoadError(at(mark), "YAML syntax error: \(problem)\(ctx); fix the syntax")
        case .duplicatedKeysInMapping(let duplicates, let context):
            return ScenarioLoadError(at(context.mark), "duplicate key \(duplicates.map { "'\($0)'" }.joined(separator: ", ")) (first given on this line); keep one")
        default:
            let line = "\(e)".split(separator: "\n").first.map(String.init) ?? "\(e)"
            return ScenarioLoadError(SourceLocation(file: file, line: 1), "not valid YAML (\(line)); fix the syntax")
        }
    }
}
