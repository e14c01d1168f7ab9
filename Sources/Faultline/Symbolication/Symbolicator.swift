import Foundation

/// Resolves report frames to function, file and line, off the fault path,
/// with the toolchain's `llvm-symbolizer` (one batched process per report).
/// Swift names are demangled with `swift-demangle`, C++ names by the
/// symbolizer itself.
public struct Symbolicator: Sendable {
    /// Path of the symbolizer in use, nil when none was found.
    public let symbolizerPath: String?
    /// Path of `swift-demangle`, nil when none was found.
    public let demanglerPath: String?

    /// Finds the tools: `llvm-symbolizer` next to `swift` on PATH first (the
    /// toolchain's, which knows newer DWARF), then anywhere on PATH.
    public init(symbolizerPath: String? = nil) {
        self.symbolizerPath = symbolizerPath ?? ToolLocator.find("llvm-symbolizer", preferNextTo: "swift")
        self.demanglerPath = ToolLocator.find("swift-demangle", preferNextTo: "swift")
    }

    /// A copy of `report` with `symbol` filled in on every frame the tools
    /// could resolve. Frames past the first of each thread are return
    /// addresses, so the address looked up is one byte earlier (the call).
    public func symbolicate(_ report: Report) -> Report {
        guard let symbolizerPath, let images = report.images else { return report }
        var queries: [(image: String, offset: UInt64)] = []
        var index: [String: Int] = [:]
        func key(_ image: String, _ offset: UInt64) -> String { "\(image)#\(offset)" }
        for thread in report.allThreads {
            for (i, frame) in thread.frames.enumerated() {
                guard let img = frame.image, images.indices.contains(img), let off = frame.offset else { continue }
                let lookup = i == 0 ? off.value : off.value &- 1
                let k = key(images[img].path, lookup)
                if index[k] == nil {
                    index[k] = queries.count
                    queries.append((images[img].path, lookup))
                }
            }
        }
        let symbols = run(symbolizerPath, queries)
        var out = report
        func fill(_ thread: Report.ThreadInfo) -> Report.ThreadInfo {
            var t = thread
            for i in t.frames.indices {
                guard let img = t.frames[i].image, images.indices.contains(img), let off = t.frames[i].offset else { continue }
                let lookup = i == 0 ? off.value : off.value &- 1
                if let q = index[key(images[img].path, lookup)], q < symbols.count {
                    t.frames[i].symbol = symbols[q]
                }
            }
            return t
        }
        out.crashedThread = report.crashedThread.map(fill)
        out.threads = report.threads?.map(fill)
        return out
    }

    private struct SymbolizerLine: Decodable {
        struct Sym: Decodable {
            var FunctionName: String?
            var FileName: String?
            var Line: Int?
            var Column: Int?
        }
        var Symbol: [Sym]?
    }

    private func run(_ tool: String, _ queries: [(image: String, offset: UInt64)]) -> [Report.Symbol?] {
        guard !queries.isEmpty else { return [] }
        let input = queries.map { "\"\($0.image)\" 0x\(String($0.offset, radix: 16))" }.joined(separator: "\n") + "\n"
        guard let output = ToolLocator.run(tool, ["--output-style=JSON", "--inlines", "--demangle"], input: input) else {
            return Array(repeating: nil, count: queries.count)
        }
        let lines = output.split(separator: "\n", omittingEmptySubsequences: true)
        var result: [Report.Symbol?] = []
        var swiftNames: Set<String> = []
        for line in lines {
            guard let parsed = try? JSONDecoder().decode(SymbolizerLine.self, from: Data(line.utf8)),
                  let syms = parsed.Symbol, !syms.isEmpty
            else { result.append(nil); continue }
            let converted: [Report.Symbol] = syms.compactMap { s in
                guard let name = s.FunctionName, name != "??" else { return nil }
                if Self.isSwiftMangled(name) { swiftNames.insert(name) }
                return Report.Symbol(
                    function: name,
                    file: s.FileName.flatMap { $0.isEmpty || $0 == "??" ? nil : $0 },
                    line: s.Line.flatMap { $0 > 0 ? $0 : nil },
                    column: s.Column.flatMap { $0 > 0 ? $0 : nil },
                    inlined: nil)
            }
            // llvm-symbolizer lists inlined frames innermost first; the last
            // entry is the real (outermost) function of this address.
            guard var outer = converted.last else { result.append(nil); continue }
            if converted.count > 1 { outer.inlined = Array(converted.dropLast()) }
            result.append(outer)
        }
        while result.count < queries.count { result.append(nil) }
        let demangled = demangle(Array(swiftNames))
        guard !demangled.isEmpty else { return result }
        func fix(_ s: Report.Symbol) -> Report.Symbol {
            var s = s
            s.function = demangled[s.function] ?? s.function
            s.inlined = s.inlined?.map(fix)
            return s
        }
        return result.map { $0.map(fix) }
    }

    /// True for Swift mangled names (`$s…`, `$S…`, `_T0…`, `$e…`).
    public static func isSwiftMangled(_ name: String) -> Bool {
        name.hasPrefix("$s") || name.hasPrefix("$S") || name.hasPrefix("_T0") || name.hasPrefix("$e")
            || name.hasPrefix("_$s") || name.hasPrefix("_$S")
    }

    /// Demangles Swift names in one `swift-demangle` process.
    public func demangle(_ names: [String]) -> [String: String] {
        guard let demanglerPath, !names.isEmpty else { return [:] }
        guard let out = ToolLocator.run(demanglerPath, ["--simplified", "--compact"], input: names.joined(separator: "\n") + "\n")
        else { return [:] }
        let lines = out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var map: [String: String] = [:]
        for (i, name) in names.enumerated() where i < lines.count && !lines[i].isEmpty {
            map[name] = lines[i]
        }
        return map
    }
}
