import Faultline
import Foundation
import Testing

/// The human-readable form of real reports.
@Suite struct ReportFormatterTests {
    private func formatted(_ command: String, swift: Bool = false) throws -> (text: String, report: Report) {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = swift ? try Victims.crashSwift(command, in: dir).path : try Victims.crashC(command, in: dir).path
        let result = Symbolicator().symbolicateWithWarnings(try ReportStore.load(path: path))
        return (ReportFormatter().format(result), result.report)
    }

    /// A crashing program's stderr is quoted in its report; the text form
    /// (exec and report show) must not pass the terminal escapes in it on
    /// (a title change, a screen clear, a carriage return overwriting the
    /// line). Tabs and line breaks stay.
    @Test func capturedStderrCannotDriveTheTerminal() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let faultline = try BuildProducts.path("faultline")
        // The shell writes `>&2` to fd 1 made a copy of fd 2 (dup2), then
        // puts fd 1 back: only the copy's bytes are stderr.
        let script = #"echo out-before; printf '\033]0;pwned\007\033[2Jcleared\r\tover\n\302\233Cnext\n' >&2; echo out-after; kill -SEGV $$"#
        let exec = try runProgram(faultline, ["exec", "--report-dir", dir, "--no-symbolicate", "--", "/bin/sh", "-c", script])
        #expect(exec.status == 128 + 11, "\(exec.stderr)")
        let shown = try runProgram(faultline, ["report", "show", "--no-symbolicate", try Victims.onlyReport(in: dir)])
        #expect(shown.status == 0)
        // The program's own output passes through exec as it wrote it; only
        // the report's quote of it is looked at.
        let quoted = try #require(exec.stderr.range(of: "faultline: report 1 of 1: ")).upperBound
        for (name, text) in [("exec", String(exec.stderr[quoted...])), ("report show", shown.stdout)] {
            let lines = text.split(separator: "\n").map(String.init)
            #expect(lines.contains("  | \\u{1B}]0;pwned\\u{7}\\u{1B}[2Jcleared\\r\tover"), "\(name): \(lines.prefix(6))")
            #expect(lines.contains("  | \\u{9B}Cnext"), "\(name): \(lines.prefix(6))")
            #expect(!text.contains("out-before") && !text.contains("out-after"), "\(name) quoted stdout as stderr")
            #expect(!text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || (0x7F...0x9F).contains($0.value) },
                    "\(name) printed a control character")
        }
        // The JSON form escapes them too, C1 included (Foundation's encoder
        // leaves those raw), and still decodes to the same text.
        let json = try runProgram(faultline, ["report", "show", "--json", "--no-symbolicate", try Victims.onlyReport(in: dir)])
        #expect(json.status == 0)
        #expect(json.stdout.contains(#"\u009bCnext"#), "\(json.stdout.prefix(400))")
        #expect(!json.stdout.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) },
                "report show --json printed a control character")
        let decoded = try JSONDecoderFactory.reports().decode(Report.self, from: Data(json.stdout.utf8))
        #expect(try JSONEncoderFactory.plain().encode(decoded).range(of: Data("\u{9B}Cnext".utf8)) != nil)
    }

    @Test func crashWithThreads() throws {
        let (text, report) = try formatted("crash-with-threads")
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "crash in victim-c (pid \(report.process.pid)) at \(report.time), report \(report.id)")
        // The victim stores an int through NULL: the page fault says write, the instruction 4 bytes.
        #expect(lines[1] == "signal: SIGSEGV (11), SEGV_MAPERR: address not mapped, at address 0x0, WRITE of size 4")
        #expect(report.signal?.access?.type == "write" && report.signal?.access?.size == 4 && report.signal?.access?.typeFrom == "error_code")
        let crashed = try #require(lines.firstIndex { $0.hasPrefix("crashed thread \(report.process.pid) \"victim-c\" (main):") })
        #expect(lines[crashed + 1].hasPrefix("  #0  "))
        #expect(lines[crashed + 1].contains("victim_null_deref at "))
        let store = try Victims.line(containing: "[null-deref store]", in: Victims.source("victim-c/main.c"))
        #expect(lines[crashed + 1].contains("main.c:\(store)"))
        #expect(lines[crashed + 1].hasSuffix("(victim-c)"))
        for n in 0..<3 { #expect(lines.contains { $0.hasPrefix("thread ") && $0.hasSuffix("\"idler-\(n)\":") }) }
        #expect(lines.contains { $0.contains("idle_thread at ") })
        #expect(lines.contains { $0.hasPrefix("registers (thread ") })
        #expect(lines.contains { $0.contains("rip ") && $0.contains("rsp ") } || lines.contains { $0.contains("pc ") })
        let exeImage = try #require(report.images?.first { $0.path == report.process.executable })
        #expect(lines.contains { $0.contains(exeImage.buildId ?? "?") && $0.hasSuffix(exeImage.path) })
    }

    @Test func deadlockSaysWhoWaitsForWhomUnderTheHeader() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try Victims.hang("rwlock-cycle", in: dir)
        let report = try ReportStore.load(path: try Victims.onlyReport(in: dir))
        let cycle = try #require(report.sections["deadlock"]?["cycle"]?.arrayValue)
        try #require(cycle.count == 2)
        let main = report.process.pid
        let worker = try #require(cycle[1]["tid"]?.integerValue)
        let rwlock = try #require(cycle[0]["waits_for"]?["address"]?.stringValue)
        let mutex = try #require(cycle[1]["waits_for"]?["address"]?.stringValue)
        let lines = ReportFormatter().format(report).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[1].hasPrefix("deadlock: a cycle of 2 threads (inferred mode, blocked "))
        #expect(lines[1].hasSuffix(" ms); the process was aborted"))
        #expect(lines[2] == "  \"victim-hang\" (main, tid \(main)) waits for rwlock \(rwlock) held by \"rw-worker\" (tid \(worker))")
        #expect(lines[3] == "  \"rw-worker\" (tid \(worker)) waits for mutex \(mutex) (normal) held by \"victim-hang\" (tid \(main))")
    }

    @Test func hangSaysHowLongAndWhatTheMainThreadWaitsFor() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try Victims.hang("rwlock-held", in: dir, environment: ["FAULTLINE_DEADLOCK_THRESHOLD_MS": "3000"])
        let reports = try ReportStore.list(directory: dir).compactMap(\.report)
        let hang = try #require(reports.first { $0.kind == "hang" })
        let waits = try #require(hang.sections["hang"]?["thread"]?["waits_for"])
        let writer = try #require(waits["owner_tid"]?.integerValue)
        let ms = try #require(hang.sections["hang"]?["duration_ms"]?.integerValue)
        let line = ReportFormatter().format(hang).split(separator: "\n").map(String.init)[1]
        #expect(line.hasPrefix("hang: the main thread \"victim-hang\" (tid \(hang.process.pid)) has not responded for \(ms) ms (threshold 2000 ms, inferred mode, "))
        #expect(line.hasSuffix(" ms on the CPU); it waits for rwlock \(waits["address"]?.stringValue ?? "?") held by \"rw-writer\" (tid \(writer))"))
    }

    @Test func useAfterFreeVerdictFollowsTheSignal() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let report = try ReportStore.load(path: try Victims.heap("read-after-free-list", in: dir).path)
        let m = try #require(report.sections["memory_error"])
        let block = try #require(m["block"])
        let reg = try #require(m["pattern_in"]?.stringValue)
        let via = try #require(m["found_via"]?.stringValue)
        let address = try #require(block["address"]?.stringValue)
        let lines = ReportFormatter().format(report).split(separator: "\n").map(String.init)
        #expect(lines[1].hasPrefix("signal: SIGSEGV (11), "))
        #expect(lines[2] == "use after free: a value holds the 0x55 pattern freed blocks are scribbled with (\(reg) = 0x5555555555555555); "
            + "\(via) points at offset 0 of a quarantined 48-byte block at \(address), "
            + "allocated by thread \(report.process.pid), freed by thread \(report.process.pid)")
        // The block's stacks as AddressSanitizer titles them, not the memory_error tree.
        #expect(lines.contains("freed by thread \(report.process.pid) here:"), "\(lines)")
        #expect(lines.contains("previously allocated by thread \(report.process.pid) here:"), "\(lines)")
        #expect(!lines.contains("memory_error:") && !lines.contains { $0.hasSuffix("allocation_stack:") }, "\(lines)")
    }

    @Test func doubleFreeVerdictIsTheSecondLine() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let report = try ReportStore.load(path: try Victims.heap("double-free", in: dir).path)
        let pointer = try #require(report.sections["double_free"]?["pointer"]?.stringValue)
        let lines = ReportFormatter().format(report).split(separator: "\n").map(String.init)
        #expect(lines[1] == "double free: free(\(pointer)) of a block already freed — a quarantined 40-byte block at \(pointer), "
            + "allocated by thread \(report.process.pid), freed by thread \(report.process.pid)")
        // `report list`'s summary: the same sentence, up to the block's details.
        #expect(ReportSummary.oneLine(report) == "double free: free(\(pointer)) of a block already freed")
    }

    /// A double free reads like AddressSanitizer's: the second free's
    /// thread, then the first free and the allocation, each over its stack;
    /// the sections the headline and those stacks show are not dumped again.
    @Test func doubleFreeShowsTheBlocksHistoryAsAddressSanitizerDoes() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let report = Symbolicator().symbolicateWithWarnings(try ReportStore.load(path: try Victims.heap("double-free", in: dir).path)).report
        let pid = report.process.pid
        let lines = ReportFormatter().format(report).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let second = try #require(lines.firstIndex { $0.hasPrefix("second free by thread \(pid) \"victim-heap\" (main):") }, "\(lines)")
        let first = try #require(lines.firstIndex(of: "first freed by thread \(pid) here:"), "\(lines)")
        let allocated = try #require(lines.firstIndex(of: "previously allocated by thread \(pid) here:"), "\(lines)")
        #expect(second < first && first < allocated)
        #expect(lines[second + 1].contains("victim_free_again at "), "\(lines[second + 1])")
        #expect(lines[first + 1].contains("victim_free_once at "), "\(lines[first + 1])")
        #expect(lines[allocated + 1].contains("victim_alloc_buffer at "), "\(lines[allocated + 1])")
        for raw in ["allocation_stack:", "free_stack:", "second_free_stack:", "block:", "double_free:", "  pointer:", "  state:"] {
            #expect(!lines.contains { $0.hasPrefix(raw) }, "\(raw) printed as a tree")
        }
    }

    /// A field the headline and the stacks do not show is still printed,
    /// under its section's name; a second-free stack that is not the
    /// reported thread's frames is not hidden.
    @Test func heapFieldsNothingShowsAreStillPrinted() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let frame = #"{"pc": "0x1000", "return_address": true}"#
        let json = #"{"schema": "faultline.report", "schema_version": 1, "id": "91c1981659bb0cbd", "kind": "double_free", "detector": "malloc_shim", "time": "2026-11-22T22:39:56.489Z", "time_unix_ms": 1795401596489, "process": {"pid": 31324, "name": "victim-heap"}, "crashed_thread": {"tid": 31324, "main": true, "frames": [{"pc": "0x2000"}]}, "double_free": {"operation": "free", "pointer": "0x7f173bc00330", "hint": "new field"}, "block": {"address": "0x7f173bc00330", "size": 40, "state": "quarantined", "allocated_by_tid": 31324, "freed_by_tid": 31324, "arena": 3}, "allocation_stack": ["# + frame + #"], "free_stack": ["# + frame + #"], "second_free_stack": [{"pc": "0x3000"}]}"#
        try json.write(toFile: "\(dir)/a.json", atomically: true, encoding: .utf8)
        let lines = ReportFormatter().format(try ReportStore.load(path: "\(dir)/a.json")).split(separator: "\n").map(String.init)
        #expect(lines.contains("double_free:") && lines.contains("  hint: new field"), "\(lines)")
        #expect(!lines.contains("  pointer: 0x7f173bc00330"), "\(lines)")
        #expect(lines.contains("block:") && lines.contains("  arena: 3") && !lines.contains("  size: 40"), "\(lines)")
        #expect(lines.contains("second_free_stack:"), "\(lines)")
        #expect(lines.contains("first freed by thread 31324 here:") && lines.contains("previously allocated by thread 31324 here:"))
        #expect(!lines.contains("allocation_stack:") && !lines.contains("free_stack:"))
    }

    /// The malloc shim's alloc_dealloc_mismatch, as it writes it
    /// (docs/malloc-shim.md): which release met which allocation, and the block.
    @Test func allocDeallocMismatchVerdictIsTheSecondLine() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let json = #"{"schema": "faultline.report", "schema_version": 1, "id": "7507f63483b04310", "kind": "alloc_dealloc_mismatch", "detector": "malloc_shim", "time": "2026-11-22T18:25:14.151Z", "time_unix_ms": 1795371914151, "process": {"pid": 13413, "name": "victim-cxx"}, "alloc_dealloc_mismatch": {"allocation": "operator new[]", "deallocation": "operator delete", "pointer": "0x7f0545000330"}, "block": {"address": "0x7f0545000330", "size": 40, "state": "live", "allocated_by_tid": 13413}}"#
        try json.write(toFile: "\(dir)/a.json", atomically: true, encoding: .utf8)
        let report = try ReportStore.load(path: "\(dir)/a.json")
        let lines = ReportFormatter().format(report).split(separator: "\n").map(String.init)
        #expect(lines[1] == "alloc-dealloc mismatch: operator delete(0x7f0545000330) of a block allocated with operator new[] — a live 40-byte block at 0x7f0545000330, allocated by thread 13413")
        #expect(ReportSite(report) == nil)  // no frames: no site
    }

    /// The malloc shim's new_delete_type_mismatch, as it writes it
    /// (docs/malloc-shim.md): what the delete was given that does not fit.
    @Test func newDeleteTypeMismatchVerdictIsTheSecondLine() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let head = #"{"schema": "faultline.report", "schema_version": 1, "id": "d0cc23e4e85fd7f0", "kind": "new_delete_type_mismatch", "detector": "malloc_shim", "time": "2026-11-22T20:05:55.131Z", "time_unix_ms": 1795377955131, "process": {"pid": 20183, "name": "victim-cxx"}, "#
        let size = #""new_delete_type_mismatch": {"deallocation": "operator delete", "pointer": "0x7f2a84600330", "allocation": "operator new", "allocated_size": 40, "deallocated_size": 4, "allocated_alignment": 0, "deallocated_alignment": 0}, "block": {"address": "0x7f2a84600330", "size": 40, "state": "live", "allocated_by_tid": 20183}}"#
        let align = #""new_delete_type_mismatch": {"deallocation": "operator delete[]", "pointer": "0x5613439eb7c0", "allocation": "operator new[]", "allocated_size": 64, "deallocated_size": 64, "allocated_alignment": 64, "deallocated_alignment": 0}, "block": {"address": "0x5613439eb7c0", "size": 64, "state": "live", "allocated_by_tid": 20183}}"#
        let reverse = #""new_delete_type_mismatch": {"deallocation": "operator delete", "pointer": "0x7f035fe00300", "allocation": "operator new", "allocated_size": 32, "allocated_alignment": 0, "deallocated_alignment": 32}, "block": {"address": "0x7f035fe00300", "size": 32, "state": "live", "allocated_by_tid": 20183}}"#
        var second: [String] = []
        for (i, body) in [size, align, reverse].enumerated() {
            try (head + body).write(toFile: "\(dir)/\(i).json", atomically: true, encoding: .utf8)
            second.append(ReportFormatter().format(try ReportStore.load(path: "\(dir)/\(i).json")).split(separator: "\n").map(String.init)[1])
        }
        #expect(second[0] == "new-delete type mismatch: operator delete(0x7f2a84600330) given size 4 of a block allocated with operator new — a live 40-byte block at 0x7f2a84600330, allocated by thread 20183")
        #expect(second[1] == "new-delete type mismatch: operator delete[](0x5613439eb7c0) given the default alignment of a block allocated with operator new[] aligned to 64 — a live 64-byte block at 0x5613439eb7c0, allocated by thread 20183")
        #expect(second[2] == "new-delete type mismatch: operator delete(0x7f035fe00300) given alignment 32 of a block allocated with operator new (default alignment) — a live 32-byte block at 0x7f035fe00300, allocated by thread 20183")
    }

    @Test func uncaughtExceptionIsTheSecondLine() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let report = try ReportStore.load(path: try Victims.cxx("future", in: dir).path)
        let thrower = try #require(report.sections["exception"]?["throw_tid"]?.integerValue)
        #expect(thrower != Int64(report.process.pid))
        let lines = ReportFormatter().format(report).split(separator: "\n").map(String.init)
        #expect(lines[1] == "uncaught C++ exception std::runtime_error: \"task failed on a worker thread\", thrown on thread \(thrower)")
    }

    /// A nested exception's stacks are titled by what they are: the throw
    /// and each nested throw with its type and message; the `exception`
    /// fields the headline and titles show are not dumped again; the hook
    /// that took the stack is frame 0, named plainly.
    @Test func exceptionStacksAreTitledByWhatThrewThem() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let report = Symbolicator().symbolicateWithWarnings(try ReportStore.load(path: try Victims.cxx("nested", in: dir).path)).report
        let pid = report.process.pid
        let lines = ReportFormatter().format(report).split(separator: "\n").map(String.init)
        let thrown = try #require(lines.firstIndex(of: "thrown by thread \(pid) here:"), "\(lines)")
        let nested = try #require(lines.firstIndex(of: "nested std::runtime_error: \"disk read failed\", thrown by thread \(pid) here:"), "\(lines)")
        #expect(thrown < nested)
        #expect(lines[(thrown + 1)...].prefix(4).contains { $0.contains("throw_with_nested") }, "\(lines)")
        #expect(lines[(nested + 1)...].prefix(4).contains { $0.contains("throw_inner_cause() at ") }, "\(lines)")
        // Frame 0, the agent's hook, by its name alone: not its inlined
        // helpers or Faultline's source lines.
        for title in [thrown, nested] {
            #expect(lines[title + 1].hasPrefix("  #0  0x") && lines[title + 1].hasSuffix("  __cxa_throw  (libFaultlineAgentPreload.so)"), "\(lines)")
        }
        #expect(!lines.contains { $0.contains("cxx_throw_hooks.cpp") }, "\(lines)")
        for raw in ["throw_stack:", "  type_mangled:", "  message:", "  nested:", "  throw_tid:"] {
            #expect(!lines.contains { $0.hasPrefix(raw) }, "\(raw) printed as a tree")
        }
        #expect(lines.contains("exception:") && lines.contains("  throw_unwinder: libunwind"), "\(lines)")
    }

    /// A stack overflow is named on the signal line and in the one-line
    /// summary; a null dereference is not.
    @Test func stackOverflowIsNamed() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let overflow = try ReportStore.load(path: try Victims.crashC("stack-overflow", in: dir + "/o").path)
        let lines = ReportFormatter().format(overflow).split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("signal: SIGSEGV (11), SEGV_MAPERR") && $0.hasSuffix(": stack overflow") }, "\(lines)")
        #expect(ReportSummary.oneLine(overflow).hasSuffix("; stack overflow"))
        let null = try ReportStore.load(path: try Victims.crashC("null-deref", in: dir + "/n").path)
        #expect(!ReportFormatter().format(null).contains("stack overflow"))
        #expect(!ReportSummary.oneLine(null).contains("stack overflow"))
    }

    /// A fault a later handler of the program caught and re-raised: the
    /// signal line and the summary say what it caught.
    @Test func reraisedFaultIsNamed() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let report = try ReportStore.load(path: try Victims.crashC("reraise-from-handler", in: dir).path)
        let lines = ReportFormatter().format(report).split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("signal: SIGSEGV (11), SI_TKILL") && $0.hasSuffix("; re-raised by the program's handler, which caught SEGV_MAPERR: address not mapped, at address 0x0") }, "\(lines)")
        #expect(ReportSummary.oneLine(report) == "SIGSEGV SI_TKILL; re-raised SEGV_MAPERR at 0x0")
    }

    /// The kernel's signal frame between a handler and the code it
    /// interrupted is printed as gdb prints it.
    @Test func signalFrameIsNamedAsGdbNamesIt() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let report = Symbolicator().symbolicateWithWarnings(try ReportStore.load(path: try Victims.crashC("fault-in-signal-handler", in: dir).path)).report
        let lines = ReportFormatter().format(report).split(separator: "\n").map(String.init)
        let handler = try #require(lines.firstIndex { $0.contains(" fault_on_usr1 ") }, "\(lines)")
        #expect(lines[handler + 1].hasSuffix("  <signal handler called>  (libc.so.6)"), "\(lines)")
    }

    /// A thread the program started runs through the agent's thread-start
    /// trampoline: that frame, outside the innermost run of Faultline's
    /// frames, is printed by its name alone, with no Faultline source line;
    /// the JSON keeps the line.
    @Test func faultlineFramesUnderTheProgramsAreNamedPlainly() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let report = Symbolicator().symbolicateWithWarnings(try ReportStore.load(path: try Victims.cxx("future", in: dir).path)).report
        let lines = ReportFormatter().format(report).split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasSuffix("  run_with_altstack  (libFaultlineAgentPreload.so)") }, "\(lines)")
        #expect(!lines.contains { $0.contains("altstack.c") }, "\(lines)")
        let json = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
        #expect(json.contains("altstack.c"), "the report itself keeps the frame's source line")
    }

    /// A stack the report holds twice is printed once: the reported
    /// thread again among all threads, and a deadlock cycle's frames of a
    /// thread printed above; a copy that differs is still printed.
    @Test func repeatedStacksArePrintedOnce() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func frames(_ pcs: [String]) -> String { "[" + pcs.map { #"{"pc": "\#($0)"}"# }.joined(separator: ", ") + "]" }
        let json = #"{"schema": "faultline.report", "schema_version": 1, "id": "2e5f57395465d5ed", "kind": "deadlock", "detector": "hang", "time": "2026-11-22T23:00:32.576Z", "time_unix_ms": 1795388432576, "process": {"pid": 5, "name": "v"}, "crashed_thread": {"tid": 5, "main": true, "frames": "#
            + frames(["0x1000", "0x2000"]) + #"}, "threads": [{"tid": 5, "name": "v", "frames": "# + frames(["0x1000", "0x2000"])
            + #"}, {"tid": 6, "name": "w", "frames": "# + frames(["0x3000"]) + #"}, {"tid": 7, "name": "x", "frames": "# + frames(["0x4000"])
            + #"}], "deadlock": {"cycle": [{"tid": 5, "frames": "# + frames(["0x1000", "0x2000"]) + #"}, {"tid": 6, "frames": "# + frames(["0x3000"])
            + #"}, {"tid": 7, "frames": "# + frames(["0x5000"]) + "}]}}"
        try json.write(toFile: "\(dir)/a.json", atomically: true, encoding: .utf8)
        let lines = ReportFormatter().format(try ReportStore.load(path: "\(dir)/a.json")).split(separator: "\n").map(String.init)
        #expect(!lines.contains { $0.hasPrefix("thread 5 ") }, "\(lines)")
        #expect(lines.contains("thread 6 \"w\":") && lines.contains("thread 7 \"x\":"), "\(lines)")
        #expect(lines.contains("      frames: same as thread 5 above") && lines.contains("      frames: same as thread 6 above"), "\(lines)")
        #expect(lines.filter { $0 == "      frames:" }.count == 1, "thread 7's cycle stack differs from its printed one: \(lines)")
    }

    /// An oom_kill report as the cgroup tracker writes it (docs/memory-limits.md),
    /// with and without the killed process's last breadcrumb.
    @Test func oomKillSaysWhoWasKilledAgainstWhichLimit() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let base = #"{"schema": "faultline.report", "schema_version": 1, "id": "54cee45ef39f8ffe", "kind": "oom_kill", "detector": "memory", "time": "2026-11-21T23:41:41.231Z", "time_unix_ms": 1795304501231, "process": {"pid": 19681, "ppid": 19631, "name": "victim-oom"}, "limit_bytes": 67108864, "peak_bytes": 66060288, "evidence": {"started_process": "killed by the kernel's OOM killer", "limit_hits": 23}"#
        let withCrumb = base + #", "last_breadcrumb": {"threshold_percent": 95, "usage_bytes": 63963136}}"#
        try withCrumb.write(toFile: "\(dir)/a.json", atomically: true, encoding: .utf8)
        try (base + "}").write(toFile: "\(dir)/b.json", atomically: true, encoding: .utf8)
        let a = ReportFormatter().format(try ReportStore.load(path: "\(dir)/a.json")).split(separator: "\n").map(String.init)
        let b = ReportFormatter().format(try ReportStore.load(path: "\(dir)/b.json")).split(separator: "\n").map(String.init)
        let killed = "OOM kill: victim-oom (pid 19681) killed by the kernel's OOM killer; limit 64.0 MiB, peak 63.0 MiB (limit hit 23 times)"
        #expect(a[1] == killed + "; last breadcrumb at 95% (61.0 MiB)")
        #expect(b[1] == killed + "; no breadcrumb from its memory monitor")
    }

    /// The memory monitor's heaviest allocation stacks read like leak groups
    /// (size, blocks, "allocated at:" over the stack, heaviest first), in a
    /// memory warning and in an OOM kill's last breadcrumb, whose other
    /// fields are still printed.
    @Test func topStacksReadLikeLeakGroups() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let stacks = #"[{"live_bytes": 100800, "live_blocks": 105, "frames": [{"pc": "0x1000", "return_address": true}]}, {"live_bytes": 38797349, "live_blocks": 37, "frames": [{"pc": "0x2000", "return_address": true}]}]"#
        let head = #"{"schema": "faultline.report", "schema_version": 1, "id": "df80c0b892e057fa", "detector": "memory", "time": "2026-11-22T22:49:34.946Z", "time_unix_ms": 1795387774946, "process": {"pid": 3649, "name": "python3"}, "#
        let warning = head + #""kind": "memory_warning", "memory": {"usage_bytes": 52424704, "limit_bytes": 52428800, "percent": 99}, "warning_number": 1, "top_stacks": "# + stacks + "}"
        let kill = head + #""kind": "oom_kill", "limit_bytes": 52428800, "last_breadcrumb": {"threshold_percent": 75, "usage_bytes": 42389504, "top_stacks": "# + stacks + "}}"
        for (name, json) in [("w", warning), ("k", kill)] {
            try json.write(toFile: "\(dir)/\(name).json", atomically: true, encoding: .utf8)
            let lines = ReportFormatter().format(try ReportStore.load(path: "\(dir)/\(name).json")).split(separator: "\n").map(String.init)
            let title = try #require(lines.firstIndex { $0.hasPrefix("heaviest allocation stacks (live heap ") }, "\(lines)")
            #expect(lines[title + 1] == "37.0 MiB live in 37 block(s), allocated at:", "\(lines)")
            #expect(lines[title + 2].hasPrefix("  #0  0x"), "\(lines)")
            #expect(lines[title + 3] == "100800 bytes live in 105 block(s), allocated at:", "\(lines)")
            #expect(!lines.contains { $0.hasSuffix("top_stacks:") || $0.contains("live_bytes:") }, "\(lines)")
        }
        let k = ReportFormatter().format(try ReportStore.load(path: "\(dir)/k.json")).split(separator: "\n").map(String.init)
        #expect(k.contains("last_breadcrumb:") && k.contains("  threshold_percent: 75"), "\(k)")
    }

    /// A number too big for 64 bits in a damaged report is left out of the
    /// headline; converting it would trap and take `report show` down.
    @Test func headlineSkipsNumbersThatDoNotFit() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let json = #"{"schema": "faultline.report", "schema_version": 1, "id": "54cee45ef39f8ffe", "kind": "oom_kill", "detector": "memory", "time": "2026-11-21T23:41:41.231Z", "time_unix_ms": 1795304501231, "process": {"pid": 19681, "name": "victim-oom"}, "evidence": {"started_process": "killed by the kernel's OOM killer", "limit_hits": 1e300}}"#
        try json.write(toFile: "\(dir)/a.json", atomically: true, encoding: .utf8)
        let lines = ReportFormatter().format(try ReportStore.load(path: "\(dir)/a.json")).split(separator: "\n").map(String.init)
        #expect(lines[1] == "OOM kill: victim-oom (pid 19681) killed by the kernel's OOM killer; no breadcrumb from its memory monitor")
    }

    @Test func threadsThatDidNotAnswerAreNamedAsSuch() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var report = try ReportStore.load(path: try Victims.crashC("crash-with-threads", in: dir).path)
        // One of the program's own threads (the agent's are listed as such).
        let i = try #require(report.threads!.firstIndex { $0.name?.hasPrefix("idler-") == true })
        report.threads![i].captured = false
        report.threads![i].frames = []
        let text = ReportFormatter().format(report)
        #expect(text.contains("thread \(report.threads![i].tid) \"\(report.threads![i].name!)\":\n  (did not answer the stack request in time; no stack)"))
    }

    @Test func agentThreadsAreListedButNotSampled() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let report = try ReportStore.load(path: try Victims.crashC("crash-with-threads", in: dir).path)
        // Every detector is on by default: the hang watchdog thread exists.
        let agentThreads = (report.threads ?? []).filter { $0.name?.hasPrefix("faultline-") == true }
        #expect(!agentThreads.isEmpty)
        for t in agentThreads {
            #expect(t.agent == true)
            #expect(t.frames.isEmpty)
        }
        #expect(report.threads?.allSatisfy { ($0.main == true) == ($0.tid == report.process.pid) } == true)
        let text = ReportFormatter().format(report)
        // One line for all of them, not a title and a placeholder each.
        let own = agentThreads.map { "\($0.tid) \"\($0.name!)\"" }.joined(separator: ", ")
        #expect(text.contains("\n\nFaultline's own threads (not sampled): \(own)\n"), "\(text)")
        #expect(!text.contains("thread \(agentThreads[0].tid) "), "\(text)")
    }

    @Test func deepRecursionIsCollapsed() throws {
        let (text, report) = try formatted("stack-overflow")
        #expect(report.signal?.name == "SIGSEGV")
        let collapsed = text.split(separator: "\n").filter { $0.contains("more frames of victim_recurse") }
        #expect(collapsed.count >= 1, "\(text)")
        if let omitted = report.crashedThread?.framesOmitted {
            #expect(text.contains("… \(omitted) frames not kept by the agent"))
        }
        #expect(text.split(separator: "\n").count < 80)
    }

    @Test func recrashSaysWhatTheHandlerWasDoing() throws {
        let (text, report) = try formatted("crash-in-handler")
        let recrash = try #require(report.recrash)
        let bytes = try #require(recrash.partialBytes)
        #expect(text.contains("recrash: the crash handler itself faulted while \(recrash.stage) ("))
        #expect(text.contains("; first attempt kept \(bytes) bytes"))
        // Its crashed-thread frames are salvaged from the partial text.
        #expect(text.contains("first attempt's crashed thread"))
    }

    @Test func swiftFatalErrorAndStderrTail() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let victim = try BuildProducts.path("victim-swift")
        _ = try runProgram(victim, ["force-unwrap-nil"], environment: ["FAULTLINE_REPORT_DIR": dir, "FAULTLINE_CAPTURE_STDERR": "1"])
        let report = try ReportStore.load(path: try Victims.onlyReport(in: dir))
        let result = Symbolicator().symbolicateWithWarnings(report)
        let text = ReportFormatter().format(result)
        #expect(text.contains("Swift fatal error: "))
        #expect(text.contains("Unexpectedly found nil while unwrapping an Optional value"))
        #expect(text.contains("  | victim: force-unwrapping nil"))
        var short = ReportFormatter.Options()
        short.stderrLines = 2
        let tailLines = (report.stderrTail ?? "").split(separator: "\n").count
        #expect(ReportFormatter(options: short).format(result).contains("stderr (last 2 of \(tailLines) lines):\n"))
    }

    @Test func unknownSectionsAreShownAsATreeWithTheirStacksSymbolicated() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var report = try ReportStore.load(path: try Victims.crashC("null-deref", in: dir).path)
        // A detector this build has never heard of, with a stack of its own.
        let frames = try JSONDecoder().decode(JSONValue.self, from: JSONEncoderFactory.plain().encode(report.crashedThread!.frames))
        report.sections["future_watchdog"] = .object([
            "blocked_ms": .number(2500), "reason": .string("main thread stuck"),
            "culprit": .object(["frames": frames, "samples": .number(40)]),
        ])
        let result = Symbolicator().symbolicateWithWarnings(report)
        let culprit = result.report.sections["future_watchdog"]?["culprit"]?["frames"]?.arrayValue ?? []
        #expect(culprit.first?["symbol"]?["function"]?.stringValue == "victim_null_deref")
        let text = ReportFormatter().format(result)
        #expect(text.contains("\nfuture_watchdog:\n  blocked_ms: 2500\n  culprit:\n    frames:\n      #0  "))
        #expect(text.contains("  reason: main thread stuck"))
        let inSection = text.components(separatedBy: "future_watchdog:")[1]
        #expect(inSection.contains("victim_null_deref at "))
    }
}
