import Foundation

/// Resolves report frames to function, file and line, off the fault path.
///
/// Tools, in order of preference: the toolchain's `llvm-symbolizer` (next to
/// `swift` on PATH; it knows the newest DWARF), any `llvm-symbolizer` on
/// PATH, then GNU `addr2line`; the first that runs is used, in one batch per
/// report (addr2line: one process per image). `FAULTLINE_SYMBOLIZER` names a
/// tool to use instead, or `none`. Swift names are demangled with
/// `swift-demangle` (one batch), C++ names by the symbolizer.
///
/// A symbolicator and its copies remember every answer (`SymbolCache`) and
/// keep one `llvm-symbolizer` open, so symbolicating many reports from the
/// same program asks the tools only about frames not seen before.
///
/// Each image is verified by GNU build-id before its frames are looked up:
/// when the file at the image's path has changed since the report was
/// written, a debug file with the report's build-id under
/// `/usr/lib/debug/.build-id/` is used instead, and when there is none the
/// image's frames are left alone and a `SymbolicationWarning` says so.
///
/// A frame no image holds (JIT code) is named from the process's perf map
/// file, `/tmp/perf-<pid>.map`, when there is one that can be the
/// process's (`PerfMapFile`); its symbol has a function and `perfMap`.
public struct Symbolicator: Sendable {
    /// Path of the `llvm-symbolizer` in use, nil when none was found.
    public let symbolizerPath: String?
    /// Path of `swift-demangle`, nil when none was found.
    public let demanglerPath: String?
    /// The tools tried in order; the first that runs answers.
    public let tools: [SymbolizerTool]
    /// Directories searched for `.build-id/xx/rest.debug` files.
    public let debugFileDirectories: [String]
    /// Answers and open tools shared by this symbolicator's copies.
    let cache = SymbolCache()
    /// The last perf map read, shared by this symbolicator's copies.
    let perfMaps = PerfMapCache()
    /// The earliest time the reports' processes can have started, when
    /// known (`faultline exec`: when it started the program); a perf map
    /// file last written before it is a leftover and not read.
    public var earliestProcessStart: Date?
    /// Where perf map files are looked for (`/tmp`).
    public var perfMapDirectory = "/tmp"
    /// The rules the report's signature is computed by; given (not nil),
    /// a signature the report already holds is computed again.
    public var signatureRules: SignatureRules?

    /// What `symbolicateWithWarnings` produced.
    public struct Result: Sendable {
        /// The report with `symbol` filled in where the tools could.
        public var report: Report
        /// Why some frames were left alone, one per image (or one for the
        /// whole report when no tool ran).
        public var warnings: [SymbolicationWarning]
        /// The tool that answered, nil when none ran (or nothing to do).
        public var tool: SymbolizerTool?

        /// A result (`Result(report: r)` wraps a report left as is).
        public init(report: Report, warnings: [SymbolicationWarning] = [], tool: SymbolizerTool? = nil) {
            self.report = report
            self.warnings = warnings
            self.tool = tool
        }

        /// The warning about image `index`, if any.
        public func warning(forImage index: Int?) -> SymbolicationWarning? {
            guard let index else { return nil }
            return warnings.first { $0.imageIndex == index }
        }
    }

    /// Finds the tools: `symbolizerPath` when given (an `llvm-symbolizer`,
    /// or an `addr2line` judged by its name), else `FAULTLINE_SYMBOLIZER`
    /// (`none` disables symbolication), else the toolchain's
    /// `llvm-symbolizer`, one on PATH, and `addr2line`.
    public init(symbolizerPath: String? = nil) {
        let env = ProcessInfo.processInfo.environment["FAULTLINE_SYMBOLIZER"].flatMap { $0.isEmpty ? nil : $0 }
        var tools: [SymbolizerTool] = []
        if let chosen = symbolizerPath ?? env {
            if chosen != "none" { tools = [SymbolizerTool.at(chosen)] }
        } else {
            for candidate in [ToolLocator.find("llvm-symbolizer", preferNextTo: "swift"), ToolLocator.find("llvm-symbolizer")] {
                if let candidate, !tools.contains(.llvmSymbolizer(candidate)) { tools.append(.llvmSymbolizer(candidate)) }
            }
            if let a2l = ToolLocator.find("addr2line") { tools.append(.addr2line(a2l)) }
        }
        self.init(tools: tools)
    }

    /// Uses exactly `tools`, in order.
    public init(tools: [SymbolizerTool], demanglerPath: String? = ToolLocator.find("swift-demangle", preferNextTo: "swift"),
                debugFileDirectories: [String] = ["/usr/lib/debug"]) {
        self.tools = tools
        self.symbolizerPath = tools.lazy.compactMap { if case .llvmSymbolizer(let p) = $0 { return p }; return nil }.first
        self.demanglerPath = demanglerPath
        self.debugFileDirectories = debugFileDirectories
    }

    /// A copy of `report` with `symbol` filled in on every frame the tools
    /// could resolve.
    public func symbolicate(_ report: Report) -> Report {
        symbolicateWithWarnings(report).report
    }

    /// Symbolicates every frame of every thread and every stack inside
    /// detector sections, and says which images could not be used. A frame
    /// whose `pc` is the interrupted instruction (frame 0 of a signal
    /// context) is looked up as is; a return address (every later frame,
    /// and frame 0 of a stack taken by calling code, which says
    /// `return_address: true`) one byte earlier, inside the call
    /// instruction, so file:line and inlining are the call's
    /// (`Report.Frame.isReturnAddress(at:)`).
    public func symbolicateWithWarnings(_ report: Report) -> Result {
        let images = report.images ?? []
        let resolver = ImageResolver(debugFileDirectories: debugFileDirectories)
        var resolutions: [Int: ImageResolver.Resolution] = [:]
        var identities: [Int: FileIdentity] = [:]
        var warnings: [SymbolicationWarning] = []
        var queries: [SymbolizerTool.Query] = []
        var queryIndex: [SymbolizerTool.Query: Int] = [:]

        /// The query for a frame, registering it on first sight.
        func query(for frame: Report.Frame, at position: Int) -> SymbolizerTool.Query? {
            guard let i = frame.image, images.indices.contains(i) else { return nil }
            let image = images[i]
            guard let offset = frame.offset?.value ?? image.loadBias.map({ frame.pc.value &- $0.value }) else { return nil }
            if resolutions[i] == nil {
                let r = resolver.resolve(image, index: i)
                resolutions[i] = r
                if case .skip(let w) = r { warnings.append(w) }
                if case .file(let file) = r { identities[i] = FileIdentity(path: file) }
            }
            guard case .file(let file)? = resolutions[i] else { return nil }
            let q = SymbolizerTool.Query(file: file, address: frame.isReturnAddress(at: position) ? offset &- 1 : offset,
                                         identity: identities[i])
            if queryIndex[q] == nil {
                queryIndex[q] = queries.count
                queries.append(q)
            }
            return q
        }

        for thread in report.allThreads {
            for (n, frame) in thread.frames.enumerated() { _ = query(for: frame, at: n) }
        }
        let sectionValues = Array(report.sections.values) + (report.user.map { [JSONValue.object($0)] } ?? [])
        for value in sectionValues {
            _ = SectionFrames.map(value) { o, n in
                if let f = SectionFrames.frame(o) { _ = query(for: f, at: n) }
                return o
            }
        }

        var (symbols, usedTool) = lookUp(queries)
        if !queries.isEmpty, usedTool == nil {
            warnings.append(SymbolicationWarning(imageIndex: nil, imagePath: nil, reason: .noSymbolizer))
        }
        symbols = demangleSwift(symbols)

        // Read on the first frame that no image holds, at most once.
        var perfMap: PerfMap??
        let perfMapPath = PerfMapFile.path(pid: report.process.pid, directory: perfMapDirectory)
        func jitSymbol(for frame: Report.Frame, at position: Int) -> Report.Symbol? {
            guard frame.image.map({ !images.indices.contains($0) }) ?? true else { return nil }
            if perfMap == nil {
                perfMap = .some(PerfMapFile.load(for: report, directory: perfMapDirectory,
                                                  earliestProcessStart: earliestProcessStart, cache: perfMaps))
            }
            // A return address is looked up inside its call, as for images.
            let pc = frame.isReturnAddress(at: position) ? frame.pc.value &- 1 : frame.pc.value
            guard let map = perfMap ?? nil, let name = map.name(at: pc) else { return nil }
            return Report.Symbol(function: name, perfMap: perfMapPath)
        }
        func symbol(for frame: Report.Frame, at position: Int) -> Report.Symbol? {
            guard let q = query(for: frame, at: position), let k = queryIndex[q], k < symbols.count else {
                return jitSymbol(for: frame, at: position)
            }
            return symbols[k]
        }
        func fill(_ thread: Report.ThreadInfo) -> Report.ThreadInfo {
            var t = thread
            for n in t.frames.indices {
                if let s = symbol(for: t.frames[n], at: n) { t.frames[n].symbol = s }
            }
            return t
        }
        func fillSection(_ value: JSONValue) -> JSONValue {
            SectionFrames.map(value) { o, n in
                guard let f = SectionFrames.frame(o), let s = symbol(for: f, at: n), let json = SectionFrames.json(s) else { return o }
                var o = o
                o["symbol"] = json
                return o
            }
        }

        var out = report
        out.crashedThread = report.crashedThread.map(fill)
        out.threads = report.threads?.map(fill)
        out.sections = report.sections.mapValues(fillSection)
        if let user = report.user, case .object(let filled) = fillSection(.object(user)) { out.user = filled }
        out.signature = signature(of: out, keeping: report.signature)
        return Result(report: out, warnings: warnings.sorted { ($0.imageIndex ?? -1) < ($1.imageIndex ?? -1) }, tool: usedTool)
    }

    /// The signature of symbolicated `report`; `stored` (the file's, from
    /// the machine that ran the program, where every image was there to
    /// read) wins unless rules were given or it lacked symbols this one has.
    private func signature(of report: Report, keeping stored: ReportSignature?) -> ReportSignature {
        let fresh = SignatureBuilder(rules: signatureRules ?? .standard).signature(of: report)
        guard let stored, signatureRules == nil else { return fresh }
        return !stored.symbolicated && fresh.symbolicated ? fresh : stored
    }

    /// One symbol per query, remembered ones from the cache and the rest
    /// from the first tool that runs; and the tool that answered (nil when
    /// some query was left because no tool ran).
    private func lookUp(_ queries: [SymbolizerTool.Query]) -> ([Report.Symbol?], SymbolizerTool?) {
        let known = cache.answers(for: queries)
        var symbols = known.map { $0?.symbol }
        let usedTool = known.lazy.compactMap { $0?.tool }.first
        let missing = queries.indices.filter { known[$0] == nil }
        guard !missing.isEmpty else { return (symbols, usedTool) }
        let asked = missing.map { queries[$0] }
        for tool in tools {
            guard let found = tool.lookup(asked, cache: cache) else { continue }
            cache.store(found, for: asked, by: tool)
            for (k, i) in missing.enumerated() where k < found.count { symbols[i] = found[k] }
            return (symbols, usedTool ?? tool)
        }
        return (symbols, nil)
    }

    /// `symbols` with Swift mangled names (also inside inlined frames)
    /// replaced by their demangled forms.
    private func demangleSwift(_ symbols: [Report.Symbol?]) -> [Report.Symbol?] {
        var names: Set<String> = []
        func collect(_ s: Report.Symbol) {
            if Self.isSwiftMangled(s.function) { names.insert(s.function) }
            s.inlined?.forEach(collect)
        }
        symbols.forEach { $0.map(collect) }
        var demangled = cache.demangled(Array(names))
        let asked = names.filter { demangled[$0] == nil }.sorted()
        if !asked.isEmpty {
            // A name the demangler leaves out is remembered as itself, so it
            // is not asked about again.
            var fresh = demangle(asked)
            for name in asked where fresh[name] == nil { fresh[name] = name }
            cache.storeDemangled(fresh)
            demangled.merge(fresh) { _, new in new }
        }
        guard !demangled.isEmpty else { return symbols }
        func fix(_ s: Report.Symbol) -> Report.Symbol {
            var s = s
            s.function = demangled[s.function] ?? s.function
            s.inlined = s.inlined?.map(fix)
            return s
        }
        return symbols.map { $0.map(fix) }
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
