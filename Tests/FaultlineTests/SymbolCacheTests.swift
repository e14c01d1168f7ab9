@testable import Faultline
import Foundation
import Testing

/// The symbolicator's memory across reports: one open `llvm-symbolizer`,
/// answers reused until the file they came from changes. The tool is the
/// real one, behind a wrapper script that logs each start.
@Suite struct SymbolCacheTests {
    /// A script named `llvm-symbolizer` in `dir` that appends a line to
    /// `dir/starts` each time it starts, then runs the real tool with its
    /// input copied to `dir/queries`.
    private func countingSymbolizer(in dir: String) throws -> (tool: String, starts: () -> Int, queries: () -> Int) {
        let real = try #require(ToolLocator.find("llvm-symbolizer", preferNextTo: "swift") ?? ToolLocator.find("llvm-symbolizer"),
                                "no llvm-symbolizer next to swift or on PATH")
        let bin = "\(dir)/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let tool = "\(bin)/llvm-symbolizer"
        try writeScript("#!/bin/sh\necho start >> '\(dir)/starts'\ntee -a '\(dir)/queries' | '\(real)' \"$@\"\n", to: tool)
        func lines(_ name: String) -> Int {
            (try? String(contentsOfFile: "\(dir)/\(name)", encoding: .utf8))?.split(separator: "\n").count ?? 0
        }
        return (tool, { lines("starts") }, { lines("queries") })
    }

    /// Function, file and line of every crashed-thread frame.
    private func frames(_ r: Symbolicator.Result) -> [String] {
        r.report.crashedThread?.frames.map { f in
            "\(f.symbol?.function ?? "?") \(f.symbol?.file ?? "?"):\(f.symbol?.line ?? 0)"
        } ?? []
    }

    @Test func manyReportsStartTheToolOnceAndGetTheSameAnswers() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (tool, starts, queries) = try countingSymbolizer(in: dir)
        let report = try SymbolicatorTests.nullDerefReport("\(dir)")
        let s = Symbolicator(tools: [.llvmSymbolizer(tool)])
        let first = s.symbolicateWithWarnings(report)
        #expect(first.report.crashedThread?.frames.first?.symbol?.function == "victim_null_deref")
        #expect(first.tool == .llvmSymbolizer(tool))
        let asked = queries()
        #expect(asked > 0)
        for _ in 0..<5 {
            let again = s.symbolicateWithWarnings(report)
            #expect(frames(again) == frames(first))
            #expect(again.tool == .llvmSymbolizer(tool))
        }
        #expect(starts() == 1)
        // Every later answer came from the cache.
        #expect(queries() == asked)
        // A new symbolicator starts its own tool.
        _ = Symbolicator(tools: [.llvmSymbolizer(tool)]).symbolicate(report)
        #expect(starts() == 2)
    }

    @Test func aFileChangedOnDiskIsLookedUpAgainInANewProcess() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (tool, starts, _) = try countingSymbolizer(in: dir)
        var report = try SymbolicatorTests.nullDerefReport(dir)
        let index = try #require(report.crashedThread?.frames.first?.image)
        // A copy of the victim at a path of its own; the same build-id.
        let copy = "\(dir)/victim-c"
        try FileManager.default.copyItem(atPath: report.images![index].path, toPath: copy)
        report.images![index].path = copy
        let s = Symbolicator(tools: [.llvmSymbolizer(tool)])
        let before = try #require(s.symbolicate(report).crashedThread?.frames.first?.symbol)
        #expect(before.function == "victim_null_deref")
        #expect(before.file?.hasSuffix("main.c") == true)

        // The same binary without its debug information: strip keeps the
        // build-id note, so only the file's identity says it changed.
        let stripped = "\(dir)/victim-c.stripped"
        let strip = try runProgram("/usr/bin/strip", ["--strip-debug", "-o", stripped, copy])
        #expect(strip.status == 0, "\(strip.stderr)")
        #expect(ELFBuildID.read(path: stripped) == ELFBuildID.read(path: copy))
        #expect(rename(stripped, copy) == 0)
        let after = s.symbolicate(report).crashedThread?.frames.first?.symbol
        #expect(after?.file == nil, "a stale answer was reused: \(String(describing: after))")
        #expect(starts() == 2)
    }

    @Test func aToolThatDiesMidSessionFallsThroughToTheNext() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let dying = "\(dir)/llvm-symbolizer"
        try writeScript("#!/bin/sh\nread line\nexit 3\n", to: dying)
        let real = try #require(Symbolicator().tools.first)
        let s = Symbolicator(tools: [.llvmSymbolizer(dying), real])
        let report = try SymbolicatorTests.nullDerefReport(dir)
        for _ in 0..<2 {
            let r = s.symbolicateWithWarnings(report)
            #expect(r.report.crashedThread?.frames.first?.symbol?.function == "victim_null_deref")
            #expect(r.warnings.isEmpty, "\(r.warnings)")
        }
    }

    @Test func aSessionThatNeverAnswersTimesOutAndStartsAgain() throws {
        let session = SymbolizerSession(tool: "/bin/sleep", arguments: ["30"], timeout: 0.3)
        #expect(session.ask(["\"/bin/true\" 0x10"], identities: [:]) == nil)
        #expect(session.ask(["\"/bin/true\" 0x10"], identities: [:]) == nil)
    }

    @Test func threadsShareOneSymbolicator() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let report = try SymbolicatorTests.nullDerefReport(dir)
        let s = Symbolicator()
        let names = LockedNames()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            names.append(s.symbolicate(report).crashedThread?.frames.first?.symbol?.function ?? "?")
        }
        #expect(names.all == Array(repeating: "victim_null_deref", count: 8))
    }
}

/// Names collected from several threads.
private final class LockedNames: @unchecked Sendable {
    private let lock = NSLock()
    private var names: [String] = []
    func append(_ name: String) { lock.lock(); names.append(name); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return names }
}
