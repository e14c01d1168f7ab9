import Foundation

/// An external program that turns (file, address) pairs into function,
/// file and line, with inlined frames.
public enum SymbolizerTool: Sendable, Hashable, CustomStringConvertible {
    /// `llvm-symbolizer` at a path: one batch for all images, through a
    /// process kept open across reports.
    case llvmSymbolizer(String)
    /// GNU `addr2line` at a path: one process per image.
    case addr2line(String)

    /// The tool's path.
    public var path: String {
        switch self {
        case .llvmSymbolizer(let p), .addr2line(let p): return p
        }
    }

    public var description: String { path }

    /// The kind of tool at `path`, judged by its file name (`addr2line`,
    /// `x86_64-linux-gnu-addr2line` are addr2line; anything else is taken
    /// to speak llvm-symbolizer's protocol).
    public static func at(_ path: String) -> SymbolizerTool {
        (path as NSString).lastPathComponent.hasSuffix("addr2line") ? .addr2line(path) : .llvmSymbolizer(path)
    }

    /// One address to look up: `address` is a link-time virtual address in
    /// the ELF file at `file`, which had `identity` when the query was made
    /// (so an answer is never reused for a file rebuilt since).
    struct Query: Hashable {
        var file: String
        var address: UInt64
        var identity: FileIdentity?
    }

    /// Looks up every query; the result has one element per query (nil when
    /// unknown). Returns nil when the tool could not run at all, so the
    /// caller can try the next tool. Names are demangled for C++ only.
    /// `llvm-symbolizer` answers through `cache`'s open session when given,
    /// else through a process of its own.
    func lookup(_ queries: [Query], cache: SymbolCache? = nil) -> [Report.Symbol?]? {
        guard !queries.isEmpty else { return [] }
        switch self {
        case .llvmSymbolizer(let tool):
            return LLVMSymbolizerProtocol.lookup(tool, queries, session: cache?.session(forLLVMSymbolizer: tool))
        case .addr2line(let tool): return Addr2LineProtocol.lookup(tool, queries)
        }
    }
}

/// Builds a `Report.Symbol` from an innermost-first list of (function, file,
/// line, column) entries: the last is the real function at the address, the
/// others were inlined into it.
func makeSymbol(_ entries: [Report.Symbol]) -> Report.Symbol? {
    guard var outer = entries.last else { return nil }
    if entries.count > 1 { outer.inlined = Array(entries.dropLast()) }
    return outer
}

/// A function name, or nil for the tools' "unknown" spellings.
func cleanFunction(_ name: String?) -> String? {
    guard let name, !name.isEmpty, name != "??" else { return nil }
    return name
}

/// A source location, or nils when the tool has no line for it (a file
/// name without a line, like `Swift.o`, says nothing useful).
func cleanLocation(file: String?, line: Int?, column: Int?) -> (String?, Int?, Int?) {
    guard let file, !file.isEmpty, file != "??", let line, line > 0 else { return (nil, nil, nil) }
    return (file, line, column.flatMap { $0 > 0 ? $0 : nil })
}

/// llvm-symbolizer's JSON protocol: `"FILE" 0xADDR` per input line, one JSON
/// object per output line.
enum LLVMSymbolizerProtocol {
    private struct Line: Decodable {
        struct Sym: Decodable {
            var FunctionName: String?
            var FileName: String?
            var Line: Int?
            var Column: Int?
        }
        var Address: String?
        var Symbol: [Sym]?
    }

    /// The tool's arguments for JSON answers with inlined frames.
    static let arguments = ["--output-style=JSON", "--inlines", "--demangle"]

    /// Looks `queries` up with `tool`: through `session` when given (one
    /// process kept open across calls), else with a process of its own.
    static func lookup(_ tool: String, _ queries: [SymbolizerTool.Query], session: SymbolizerSession? = nil) -> [Report.Symbol?]? {
        // A path holding a double quote or a line break cannot be quoted in
        // the batch protocol; those images get one `--obj` run each.
        let batchable = queries.indices.filter { !queries[$0].file.contains("\"") && !queries[$0].file.contains("\n") }
        var result = [Report.Symbol?](repeating: nil, count: queries.count)
        if !batchable.isEmpty {
            let lines = batchable.map { "\"\(queries[$0].file)\" 0x\(String(queries[$0].address, radix: 16))" }
            let answers: [Substring]?
            if let session {
                let identities = batchable.reduce(into: [String: FileIdentity]()) { ids, i in
                    if let id = queries[i].identity { ids[queries[i].file] = id }
                }
                answers = session.ask(lines, identities: identities)?.map { Substring($0) }
            } else {
                answers = ToolLocator.run(tool, arguments, input: lines.joined(separator: "\n") + "\n").map(outputLines)
            }
            guard let answers else { return nil }
            let symbols = parse(lines: answers, expected: batchable.map { queries[$0].address })
            for (k, i) in batchable.enumerated() { result[i] = symbols[k] }
        }
        let odd = Dictionary(grouping: queries.indices.filter { !batchable.contains($0) }, by: { queries[$0].file })
        for (file, indices) in odd {
            let input = indices.map { "0x" + String(queries[$0].address, radix: 16) }.joined(separator: "\n") + "\n"
            guard let out = ToolLocator.run(tool, arguments + ["--obj=\(file)"], input: input)
            else { continue }
            let symbols = parse(out, expected: indices.map { queries[$0].address })
            for (k, i) in indices.enumerated() { result[i] = symbols[k] }
        }
        return result
    }

    /// One symbol per expected address; a line whose `Address` disagrees
    /// with the query (the tool skipped or added a line) yields nil rather
    /// than a wrong name.
    static func parse(_ output: String, expected: [UInt64]) -> [Report.Symbol?] {
        parse(lines: outputLines(output), expected: expected)
    }

    /// The tool's answer lines in `output`.
    private static func outputLines(_ output: String) -> [Substring] {
        output.split(separator: "\n", omittingEmptySubsequences: true)
    }

    /// One symbol per expected address from one answer line each, as in
    /// `parse(_:expected:)`.
    static func parse(lines: [Substring], expected: [UInt64]) -> [Report.Symbol?] {
        var result: [Report.Symbol?] = []
        for (k, address) in expected.enumerated() {
            guard k < lines.count, let parsed = try? JSONDecoder().decode(Line.self, from: Data(lines[k].utf8)) else {
                result.append(nil); continue
            }
            if let a = parsed.Address.flatMap(Address.init(hex:)), a.value != address { result.append(nil); continue }
            let entries: [Report.Symbol] = (parsed.Symbol ?? []).compactMap { s in
                guard let name = cleanFunction(s.FunctionName) else { return nil }
                let (file, line, column) = cleanLocation(file: s.FileName, line: s.Line, column: s.Column)
                return Report.Symbol(function: name, file: file, line: line, column: column, inlined: nil)
            }
            result.append(makeSymbol(entries))
        }
        return result
    }
}

/// GNU addr2line: `addr2line -a -f -C -i -e FILE`, addresses on stdin; each
/// address echoed, then a function line and a `file:line` line per frame
/// (innermost first with `-i`).
enum Addr2LineProtocol {
    static func lookup(_ tool: String, _ queries: [SymbolizerTool.Query]) -> [Report.Symbol?]? {
        var result = [Report.Symbol?](repeating: nil, count: queries.count)
        var ranAny = false
        for (file, indices) in Dictionary(grouping: queries.indices, by: { queries[$0].file }) {
            let input = indices.map { "0x" + String(queries[$0].address, radix: 16) }.joined(separator: "\n") + "\n"
            guard let out = ToolLocator.run(tool, ["-a", "-f", "-C", "-i", "-e", file], input: input) else { continue }
            ranAny = true
            let records = parse(out)
            for i in indices { result[i] = records[queries[i].address] ?? nil }
        }
        return ranAny ? result : nil
    }

    /// Symbols by address from addr2line's `-a -f -i` output.
    static func parse(_ output: String) -> [UInt64: Report.Symbol?] {
        var records: [UInt64: Report.Symbol?] = [:]
        var current: UInt64?
        var entries: [Report.Symbol] = []
        var pendingFunction: String?
        func flush() {
            if let current { records[current] = makeSymbol(entries) }
            entries = []
            pendingFunction = nil
        }
        for raw in output.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(raw)
            if pendingFunction == nil, line.hasPrefix("0x"), let a = Address(hex: line) {
                flush()
                current = a.value
                continue
            }
            if let function = pendingFunction {
                pendingFunction = nil
                guard let name = cleanFunction(function) else { continue }
                let (file, number) = splitLocation(line)
                let (f, l, _) = cleanLocation(file: file, line: number, column: nil)
                entries.append(Report.Symbol(function: name, file: f, line: l, column: nil, inlined: nil))
            } else if current != nil, !line.isEmpty {
                pendingFunction = line
            }
        }
        flush()
        return records
    }

    /// `/src/a.c:12 (discriminator 2)` -> ("/src/a.c", 12); `??:0` -> ("??", 0).
    static func splitLocation(_ text: String) -> (String?, Int?) {
        var s = text
        if let r = s.range(of: " (discriminator") { s = String(s[..<r.lowerBound]) }
        guard let colon = s.lastIndex(of: ":") else { return (s, nil) }
        return (String(s[..<colon]), Int(s[s.index(after: colon)...]))
    }
}
