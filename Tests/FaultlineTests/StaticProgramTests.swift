import Faultline
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `faultline exec` of a statically linked program: LD_PRELOAD cannot reach
/// it, and exec must say so instead of a bare "0 report(s)" that reads like
/// a clean run. The program is linked here, with the toolchain's clang (or
/// the system's cc).
@Suite struct StaticProgramTests {
    /// A C compiler that can link with -static, tried in this order.
    static let compilers = ["/opt/swift/usr/bin/clang", "/usr/bin/cc", "/usr/bin/gcc"]

    /// Links a program that writes a line and dies by SIGSEGV, `-static`.
    private func staticCrasher(in dir: String) throws -> String {
        let src = "\(dir)/crasher.c", exe = "\(dir)/crasher"
        try "#include <stdio.h>\nint main(void) { fputs(\"crasher: dereferencing NULL\\n\", stderr); volatile int *p = 0; return *p; }\n"
            .write(toFile: src, atomically: true, encoding: .utf8)
        var errors: [String] = []
        for cc in Self.compilers where FileManager.default.isExecutableFile(atPath: cc) {
            let built = try runProgram(cc, ["-static", "-O0", src, "-o", exe])
            if built.status == 0 { return exe }
            errors.append("\(cc): \(built.stderr)")
        }
        throw Victims.Unexpected(what: "no compiler here links -static (libc.a missing?): \(errors)")
    }

    private func faultline(_ args: [String], in directory: String) throws -> Finished {
        try runProgram(try BuildProducts.path("faultline"), args, directory: directory)
    }

    @Test func aStaticProgramGetsOneWarningAndStillRuns() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let exe = try staticCrasher(in: dir)
        #expect(PreloadReach.check(exe, searchPath: nil) == .staticallyLinked(path: exe, script: nil))

        let run = try faultline(["exec", "--", exe], in: dir)
        #expect(run.status == 128 + SIGSEGV, "the program must still run: \(run.stderr)")
        #expect(run.stderr.contains("crasher: dereferencing NULL"))
        let lines = run.stderr.split(separator: "\n").map(String.init)
        let warnings = lines.filter { $0.contains("statically linked (no ELF interpreter)") }
        #expect(warnings.count == 1, "\(run.stderr)")
        #expect(warnings.first?.hasPrefix("faultline: warning: \(exe) is statically linked") == true)
        #expect(warnings.first?.contains("only its exit status is seen") == true)
        // The last line must not read like a clean run.
        #expect(lines.last == "faultline: 0 report(s); nothing kept in faultline-reports; \(exe) is statically linked, so only its exit status was watched; it was killed by SIGSEGV")
    }

    @Test func aScriptIsJudgedByItsInterpreter() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let exe = try staticCrasher(in: dir)
        let staticScript = "\(dir)/static.script", shellScript = "\(dir)/shell.script", envScript = "\(dir)/env.script"
        try "#!\(exe)\n".write(toFile: staticScript, atomically: true, encoding: .utf8)
        try "#!/bin/sh\nexit 4\n".write(toFile: shellScript, atomically: true, encoding: .utf8)
        try "#!/usr/bin/env crasher\n".write(toFile: envScript, atomically: true, encoding: .utf8)
        for s in [staticScript, shellScript, envScript] { chmod(s, 0o755) }

        #expect(PreloadReach.check(envScript, searchPath: dir) == .staticallyLinked(path: exe, script: envScript))
        #expect(PreloadReach.check(shellScript, searchPath: nil) == .reachable)

        let viaStatic = try faultline(["exec", "--", staticScript], in: dir)
        #expect(viaStatic.status == 128 + SIGSEGV)
        let warnings = viaStatic.stderr.split(separator: "\n").filter { $0.contains("statically linked") && $0.contains("warning") }
        let expected: String = "faultline: warning: the interpreter of \(staticScript), \(exe), is statically linked"
            + " (no ELF interpreter), so LD_PRELOAD cannot load the agent or the malloc shim into it: its crashes, exceptions,"
            + " hangs, heap errors and leaks are not reported (unless it links the agent itself), only its exit status is seen"
            + " (and with --memory-limit the cgroup's OOM verdict); link it dynamically, or link the agent into it (docs/agent.md)"
        #expect(warnings.map(String.init) == [expected], "\(viaStatic.stderr)")

        // A dynamically linked interpreter (and program) gets no warning.
        let viaShell = try faultline(["exec", "--", shellScript], in: dir)
        #expect(viaShell.status == 4)
        #expect(!viaShell.stderr.contains("statically linked"), "\(viaShell.stderr)")
        let victim = try faultline(["exec", "--", try BuildProducts.path("victim-c"), "exit", "0"], in: dir)
        #expect(victim.status == 0)
        #expect(!victim.stderr.contains("statically linked"), "\(victim.stderr)")
    }
}
