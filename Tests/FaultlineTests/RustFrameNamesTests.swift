import Faultline
import Foundation
import Testing

/// A real Rust program under `faultline exec`: its frames are printed with
/// the names Rust's own backtrace printer gives them, and the JSON keeps
/// the symbolizer's names. Built at test time from
/// Scenarios/real-programs/rust/rust_victim.rs, once with rustc's default
/// (legacy) mangling and once with v0.
@Suite struct RustFrameNamesTests {
    static let rustc = ToolLocator.find("rustc")

    /// The repository's root, from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// Builds rust_victim.rs into `dir` with `mangling` (`legacy`, rustc's
    /// default, which naming needs -Z unstable-options; or `v0`).
    private func buildVictim(in dir: String, mangling: String) throws -> String {
        let victim = "\(dir)/rust-victim"
        let flags = mangling == "v0" ? ["-C", "symbol-mangling-version=v0"] : []
        let build = try runProgram(try #require(Self.rustc),
            ["-O", "-g", "-C", "panic=abort"] + flags + ["-o", victim, "\(Self.root)/Scenarios/real-programs/rust/rust_victim.rs"],
            environment: ["LD_PRELOAD": ""])
        try #require(build.status == 0 && !build.signaled, "rustc failed: \(build.stderr)")
        return victim
    }

    @Test(.enabled(if: rustc != nil, "rustc is not installed (https://rustup.rs); the Rust frame names are not checked"),
          arguments: ["legacy", "v0"])
    func framesAreNamedAsRustsBacktraceNamesThem(mangling: String) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let victim = try buildVictim(in: dir, mangling: mangling)

        // RUST_BACKTRACE=1: Rust prints its own short backtrace before it
        // aborts, into the same stderr as faultline's report.
        let reports = "\(dir)/reports"
        let run = try runProgram(try BuildProducts.path("faultline"),
            ["exec", "--detectors", "crash", "--report-dir", reports, "--", victim, "threads-then-panic"],
            environment: ["RUST_BACKTRACE": "1"])
        #expect(run.status == 128 + SIGABRT)
        let lines = run.stderr.split(separator: "\n").map(String.init)

        // Rust's lines, `   1: rust_victim::panic_now` (its quote in the
        // report's stderr tail starts with `  |`).
        let rustNames = lines.compactMap { line -> String? in
            guard let m = line.firstMatch(of: /^ {1,4}\d+: (.+)$/) else { return nil }
            return String(m.1)
        }
        try #require(rustNames.contains { $0.hasPrefix("rust_victim::") }, "Rust printed no backtrace of the victim: \(run.stderr)")

        // faultline's crashed thread, `  #12 0x…  [inlined] NAME at FILE:LINE  (image)`.
        let thread = lines.drop { !$0.hasPrefix("crashed thread ") }.dropFirst().prefix { !$0.isEmpty }
        let names = thread.compactMap { line -> String? in
            guard let m = line.firstMatch(of: /^  #\d+ +0x[0-9a-f]+  (?:\[inlined\] )?(.+)$/) else { return nil }
            var name = String(m.1)
            if let r = name.range(of: "  (") { name = String(name[..<r.lowerBound]) }
            if let r = name.range(of: " at ") { name = String(name[..<r.lowerBound]) }
            return name
        }
        for rust in rustNames {
            #expect(names.contains(rust), "Rust printed \(rust); faultline printed \(names)")
        }
        for name in names {
            #expect(name.firstMatch(of: /::h[0-9a-f]{16}\b/) == nil && !name.contains("$LT$") && !name.contains("$u7b$"),
                    "a legacy Rust name printed as the symbolizer gave it: \(name)")
        }

        // The JSON keeps the symbolizer's name: with legacy mangling, the
        // hash that tells one generic function's instances apart.
        let shown = try runProgram(try BuildProducts.path("faultline"), ["report", "show", "--json", try Victims.onlyReport(in: reports)])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        let frames = try #require((json["crashed_thread"] as? [String: Any])?["frames"] as? [[String: Any]])
        let functions = frames.compactMap { ($0["symbol"] as? [String: Any])?["function"] as? String }
        let panicNow = try #require(functions.first { $0.hasPrefix("rust_victim::panic_now") }, "\(functions)")
        if mangling == "v0" {
            #expect(panicNow == "rust_victim::panic_now")
        } else {
            #expect(panicNow.wholeMatch(of: /rust_victim::panic_now::h[0-9a-f]{16}/) != nil, "\(panicNow)")
        }
    }

    /// `exec --leaks` names where each leak was allocated the same way.
    @Test(.enabled(if: rustc != nil, "rustc is not installed (https://rustup.rs); the Rust frame names are not checked"),
          arguments: ["legacy", "v0"])
    func leakSummaryNamesRustFunctionsAsRustDoes(mangling: String) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let victim = try buildVictim(in: dir, mangling: mangling)
        let run = try runProgram(try BuildProducts.path("faultline"),
            ["exec", "--leaks", "--detectors", "leaks", "--report-dir", "\(dir)/reports", "--", victim, "leak-blocks"])
        #expect(run.status == 0)
        let groups = run.stderr.split(separator: "\n").filter { $0.contains(" definitely lost at ") }
        #expect(!groups.isEmpty, "\(run.stderr)")
        for line in groups {
            #expect(line.contains(" definitely lost at rust_victim::leak_blocks (rust_victim.rs:"), "\(line)")
        }
    }
}
