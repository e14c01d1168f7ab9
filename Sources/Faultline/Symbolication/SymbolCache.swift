import Foundation

/// What one `Symbolicator` (and every copy of it) remembers across reports:
/// the answer for each (file as it is now, address), Swift names already
/// demangled, and one open `llvm-symbolizer` per tool path.
///
/// A run that writes a thousand reports from the same few sites then asks
/// the tools once, not a thousand times (1000 double-free reports took 111 s
/// to print under `faultline exec`, one symbolizer process and one libc
/// debug-info parse per report). Answers are keyed by the file's identity
/// (`FileIdentity`), so a file rebuilt between two reports is looked up
/// again. Safe to use from several threads.
final class SymbolCache: @unchecked Sendable {
    /// A looked-up answer and the tool that gave it (nil symbol: the tool
    /// knew nothing at that address).
    struct Answer {
        var symbol: Report.Symbol?
        var tool: SymbolizerTool
    }

    private let lock = NSLock()
    private var answers: [SymbolizerTool.Query: Answer] = [:]
    private var demangled: [String: String] = [:]
    private var sessions: [String: SymbolizerSession] = [:]

    /// The remembered answer for each query (nil where none is).
    func answers(for queries: [SymbolizerTool.Query]) -> [Answer?] {
        lock.lock()
        defer { lock.unlock() }
        return queries.map { answers[$0] }
    }

    /// Remembers `symbols[i]` as `tool`'s answer for `queries[i]`.
    func store(_ symbols: [Report.Symbol?], for queries: [SymbolizerTool.Query], by tool: SymbolizerTool) {
        lock.lock()
        defer { lock.unlock() }
        for (q, s) in zip(queries, symbols) { answers[q] = Answer(symbol: s, tool: tool) }
    }

    /// The remembered demangled form of each of `names` that has one.
    func demangled(_ names: [String]) -> [String: String] {
        lock.lock()
        defer { lock.unlock() }
        return names.reduce(into: [:]) { out, name in if let d = demangled[name] { out[name] = d } }
    }

    /// Remembers demangled names.
    func storeDemangled(_ map: [String: String]) {
        lock.lock()
        defer { lock.unlock() }
        demangled.merge(map) { _, new in new }
    }

    /// The open `llvm-symbolizer` session for `tool`, made on first use.
    func session(forLLVMSymbolizer tool: String) -> SymbolizerSession {
        lock.lock()
        defer { lock.unlock() }
        if let s = sessions[tool] { return s }
        let s = SymbolizerSession(tool: tool, arguments: LLVMSymbolizerProtocol.arguments)
        sessions[tool] = s
        return s
    }
}
