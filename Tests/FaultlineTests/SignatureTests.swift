@testable import Faultline
import Foundation
import Testing

/// Signatures: the rules, the builder on hand-made reports, and real
/// crashes run through `faultline exec` and grouped by `report groups`.
@Suite struct SignatureTests {
    /// A report with one image and the given crashed-thread frames
    /// (`function` nil: no symbol), loaded at `base`.
    static func report(kind: String = "crash", signal: String = "SIGSEGV", base: UInt64 = 0x5555_0000_0000,
                       frames: [(offset: UInt64, function: String?, image: Int)]) throws -> Report {
        let images = [["path": "/opt/app/bin/victim", "base": "0x\(String(base, radix: 16))", "size": 65536, "load_bias": "0x\(String(base, radix: 16))"],
                      ["path": "/lib/x86_64-linux-gnu/libc.so.6", "base": "0x7f0000000000", "size": 2_000_000, "load_bias": "0x7f0000000000"]] as [[String: Any]]
        let f: [[String: Any]] = frames.map { fr in
            let b: UInt64 = fr.image == 0 ? base : 0x7f00_0000_0000
            var o: [String: Any] = ["pc": "0x\(String(b + fr.offset, radix: 16))", "image": fr.image, "offset": "0x\(String(fr.offset, radix: 16))"]
            if let fn = fr.function { o["symbol"] = ["function": fn] }
            return o
        }
        let json: [String: Any] = [
            "schema": "faultline.report", "schema_version": 2, "id": "0123456789abcdef", "kind": kind, "time": "2026-11-21T23:22:21.130Z",
            "time_unix_ms": 1_795_303_341_130, "process": ["pid": 7, "name": "victim"],
            "signal": ["number": 11, "name": signal, "code": 1, "code_name": "SEGV_MAPERR"],
            "crashed_thread": ["tid": 7, "frames": f], "images": images,
        ]
        return try ReportStore.decode(try JSONSerialization.data(withJSONObject: json), path: "test")
    }

    @Test func skipsTheFramesThatSayNothing() throws {
        let r = try Self.report(signal: "SIGABRT", frames: [
            (0x100, "__pthread_kill_implementation", 1), (0x200, "raise", 1), (0x300, "abort", 1),
            (0x1000, "check_order", 0), (0x1100, "operator new(unsigned long)", 0), (0x1200, "place_order", 0), (0x1300, "main", 0),
            (0x400, "__libc_start_call_main", 1)])
        let s = SignatureBuilder().signature(of: r)
        #expect(s.text == "crash SIGABRT | check_order | place_order | main")
        #expect(s.symbolicated)
        #expect(s.id.count == 16 && s.id.allSatisfy(\.isHexDigit))
    }

    /// A heap error report found at `detected`, its block allocated in `allocator`.
    static func heapReport(kind: String, detected: String, allocator: String, freer: String? = nil) throws -> Report {
        func stack(_ fn: String, _ at: Int) -> [[String: Any]] {
            [["pc": "0x55550000\(String(at, radix: 16))", "image": 0, "offset": "0x\(String(at, radix: 16))", "symbol": ["function": fn]],
             ["pc": "0x55550000f000", "image": 0, "offset": "0xf000", "symbol": ["function": "main"]]]
        }
        let exitFrames: [[String: Any]] = ["_dl_fini", "__run_exit_handlers", "exit"].enumerated().map { i, fn in
            ["pc": "0x7f000000\(String(0x100 * (i + 1), radix: 16))", "image": 1, "offset": "0x\(String(0x100 * (i + 1), radix: 16))", "symbol": ["function": fn]]
        }
        var json: [String: Any] = [
            "schema": "faultline.report", "schema_version": 2, "id": "0123456789abcdef", "kind": kind, "time": "2026-11-21T23:22:21.130Z",
            "time_unix_ms": 1_795_303_341_130, "process": ["pid": 7, "name": "victim"],
            "crashed_thread": ["tid": 7, "frames": exitFrames], kind: ["detected": detected],
            "allocation_stack": stack(allocator, 0x1000),
            "images": [["path": "/opt/app/bin/victim", "base": "0x555500000000", "size": 65536, "load_bias": "0x555500000000"],
                       ["path": "/lib/x86_64-linux-gnu/libc.so.6", "base": "0x7f0000000000", "size": 2_000_000, "load_bias": "0x7f0000000000"]],
        ]
        if let freer { json["deallocation_stack"] = stack(freer, 0x2000) }
        return try ReportStore.decode(try JSONSerialization.data(withJSONObject: json), path: "test")
    }

    @Test func heapErrorsFoundAtExitAreSignedByTheirBlocksStacks() throws {
        let b = SignatureBuilder()
        let a = b.signature(of: try Self.heapReport(kind: "heap_buffer_overflow", detected: "exit_check", allocator: "make_name"))
        let c = b.signature(of: try Self.heapReport(kind: "heap_buffer_overflow", detected: "exit_check", allocator: "make_path"))
        #expect(a.text == "heap_buffer_overflow | make_name | main")
        #expect(a.stack == "allocation_stack")
        #expect(a.id != c.id, "two overflows found at exit are two bugs, not one")
        let w = b.signature(of: try Self.heapReport(kind: "write_after_free", detected: "quarantine_release", allocator: "make_name", freer: "drop_name"))
        #expect(w.text == "write_after_free | drop_name | main")
        // Found at the block's own free: the freeing thread's stack is the bug's.
        let f = b.signature(of: try Self.heapReport(kind: "heap_buffer_overflow", detected: "free", allocator: "make_name"))
        #expect(f.stack == "crashed_thread")
    }

    @Test func publicLibcFunctionsArePrefixFramesAndInternalsAreSkipped() throws {
        let r = try Self.report(frames: [(0x100, "__memmove_avx_unaligned_erms", 1), (0x150, "memcpy", 1), (0x1000, "copy_name", 0), (0x1100, "main", 0)])
        #expect(SignatureBuilder().signature(of: r).text == "crash SIGSEGV | memcpy | copy_name | main")
    }

    @Test func unsymbolicatedFramesAreImageAndOffsetWhateverTheLoadAddress() throws {
        let frames: [(offset: UInt64, function: String?, image: Int)] = [(0x1f73, nil, 0), (0x2010, nil, 0), (0x100, nil, 1)]
        let a = SignatureBuilder().signature(of: try Self.report(base: 0x5555_0000_0000, frames: frames))
        let b = SignatureBuilder().signature(of: try Self.report(base: 0x5600_1234_0000, frames: frames))
        #expect(a.text == "crash SIGSEGV | victim+0x1f73 | victim+0x2010")
        #expect(a == b)
        #expect(!a.symbolicated)
        #expect(!a.text.contains("0x5555") && !a.text.contains("0x7f"))
    }

    @Test func userRulesExtendTheStandardOnes() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "# our own assert helper\nskip my_assert*\nprefix log_* in victim\n".write(toFile: "\(dir)/rules", atomically: true, encoding: .utf8)
        let rules = try SignatureRules.standard(extendedWith: "\(dir)/rules")
        let r = try Self.report(frames: [(0x10, "my_assert_fail", 0), (0x20, "log_and_die", 0), (0x30, "parse", 0), (0x40, "main", 0)])
        #expect(SignatureBuilder(rules: rules).signature(of: r).text == "crash SIGSEGV | log_and_die | parse | main")
        #expect(SignatureBuilder().signature(of: r).text == "crash SIGSEGV | my_assert_fail | log_and_die | parse")
    }

    @Test func aBadRuleLineIsOneLineNamingFileAndLine() throws {
        do {
            _ = try SignatureRules(parsing: "skip abort\nhide foo\n", source: "my.rules")
            Issue.record("parsed a bad rule")
        } catch {
            #expect(error.description.hasPrefix("my.rules:2: not a signature rule: \"hide foo\""))
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func globMatchesWholeNames() {
        #expect(SignatureRules.glob("fl_*", matches: "fl_crash"))
        #expect(!SignatureRules.glob("fl_*", matches: "my_fl_crash"))
        #expect(SignatureRules.glob("operator new*", matches: "operator new[](unsigned long)"))
        #expect(SignatureRules.glob("*", matches: ""))
        #expect(!SignatureRules.glob("abort", matches: "abort2"))
    }

    @Test func rustHashesAreLeftOut() throws {
        let r = try Self.report(frames: [(0x10, "rust_victim::panic_now::h16c85b743ba896e0", 0)])
        #expect(SignatureBuilder().signature(of: r).frames == ["rust_victim::panic_now"])
    }
}
