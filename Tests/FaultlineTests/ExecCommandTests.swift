import Faultline
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `faultline exec` end to end: the real CLI, the real agent, real victims.
@Suite struct ExecCommandTests {
    private func faultline(_ args: [String], in directory: String? = nil) throws -> Finished {
        try runProgram(try BuildProducts.path("faultline"), args, directory: directory)
    }

    @Test func nullDerefExitsLikeTheVictimAndLeavesOneReport() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let reports = "\(dir)/reports"
        let run = try faultline(["exec", "--report-dir", reports, "--", try BuildProducts.path("victim-c"), "null-deref"])
        #expect(!run.signaled)
        #expect(run.status == 139)
        let files = try FileManager.default.contentsOfDirectory(atPath: reports).filter { $0.hasSuffix(".json") }
        #expect(files.count == 1)
        #expect(run.stderr.contains("faultline: 1 report(s) in \(reports)"))
        // The report is printed, symbolicated, with its stderr tail.
        #expect(run.stderr.contains("crash in victim-c (pid "))
        #expect(run.stderr.contains("victim_null_deref at "))
        #expect(run.stderr.contains("  | victim: dereferencing NULL"))
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.last == "faultline: 1 report(s) in \(reports)")
    }

    @Test func defaultDirectoryIsNamedAfterTheRunAndRemovedWhenEmpty() throws {
        let cwd = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: cwd) }
        let victim = try BuildProducts.path("victim-c")

        let clean = try faultline(["exec", victim, "exit", "3"], in: cwd)
        #expect(clean.status == 3)
        #expect(clean.stdout == "victim: exiting\n")
        #expect(!FileManager.default.fileExists(atPath: "\(cwd)/faultline-reports"), "empty report directory left behind")
        #expect(clean.stderr.hasSuffix("faultline: 0 report(s); nothing kept in faultline-reports\n"))

        let crash = try faultline(["exec", "--", victim, "abort"], in: cwd)
        #expect(crash.status == 128 + SIGABRT)
        let runs = try FileManager.default.contentsOfDirectory(atPath: "\(cwd)/faultline-reports")
        #expect(runs.count == 1)
        let name = try #require(runs.first)
        #expect(name.range(of: #"^victim-c-\d{8}-\d{6}-\d+$"#, options: .regularExpression) != nil, "\(name)")
        let report = try ReportStore.load(path: try Victims.onlyReport(in: "\(cwd)/faultline-reports/\(name)"))
        #expect(name.hasSuffix("-\(report.process.pid)"))
        #expect(report.signal?.name == "SIGABRT")
    }

    /// A death by signal with no report says so on the last line, and why
    /// no crash report came when the crash detector was left out.
    @Test func deathBySignalWithoutAReportIsNamed() throws {
        let cwd = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: cwd) }
        let victim = try BuildProducts.path("victim-c")
        let off = try faultline(["exec", "--detectors", "hang", "--", victim, "null-deref"], in: cwd)
        #expect(off.status == 128 + SIGSEGV)
        let last = off.stderr.split(separator: "\n").last.map(String.init)
        #expect(last == "faultline: 0 report(s); nothing kept in faultline-reports; \(victim) was killed by SIGSEGV "
            + "(the crash detector is off: add crash to --detectors to get a report)")

        // SIGTERM is not a crash: named, with no advice.
        let term = try faultline(["exec", "--", "/bin/sh", "-c", "kill -TERM $$"], in: cwd)
        #expect(term.status == 128 + SIGTERM)
        #expect(term.stderr.hasSuffix("faultline: 0 report(s); nothing kept in faultline-reports; /bin/sh was killed by SIGTERM\n"))
    }

    /// The shim's stacks are taken by calling code: frame 0 is the return
    /// address of the call to free, and must name the free's own line, not
    /// the statement after it (what looking it up at its exact address gave).
    @Test func doubleFreeStacksNameTheLinesOfTheFrees() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = Victims.source("victim-heap/main.c")
        let firstFree = try Victims.line(containing: "[double-free-lines: first free]", in: source)
        let secondFree = try Victims.line(containing: "[double-free-lines: second free]", in: source)

        let run = try faultline(["exec", "--report-dir", dir, "--", try BuildProducts.path("victim-heap"), "double-free-lines"])
        #expect(run.status == 23, "\(run.stderr)")
        let report = try ReportStore.load(path: try Victims.onlyReport(in: dir))
        #expect(report.kind == "double_free")

        // The raw values are the return address itself.
        let raw = try #require(report.sections["free_stack"]?.arrayValue?.first).decode(Report.Frame.self)
        #expect(raw.returnAddress == true)
        let image = try #require(report.image(of: raw))
        #expect(raw.offset?.value == raw.pc.value &- (image.loadBias?.value ?? 0))
        #expect(report.crashedThread?.frames.first?.returnAddress == true)

        let symbolicated = Symbolicator().symbolicateWithWarnings(report).report
        func frame0(_ key: String) throws -> Report.Symbol {
            let frame = try #require(symbolicated.sections[key]?.arrayValue?.first, "no \(key)").decode(Report.Frame.self)
            return try #require(frame.symbol, "\(key) frame 0 not symbolicated")
        }
        let first = try frame0("free_stack"), second = try frame0("second_free_stack")
        #expect(first.function == "victim_free_first")
        #expect(first.file?.hasSuffix("victim-heap/main.c") == true)
        #expect(first.line == firstFree, "free_stack frame 0")
        #expect(second.function == "victim_free_second")
        #expect(second.line == secondFree, "second_free_stack frame 0")
        let reported = try #require(symbolicated.crashedThread?.frames.first?.symbol)
        #expect(reported.function == "victim_free_second")
        #expect(reported.line == secondFree, "crashed_thread frame 0")
        // And so does the report faultline exec prints (paths relative to
        // its working directory when under it).
        let printed = run.stderr.split(separator: "\n")
        #expect(printed.contains { $0.contains("victim_free_first at ") && $0.contains("victim-heap/main.c:\(firstFree):") }, "\(run.stderr)")
        #expect(printed.contains { $0.contains("victim_free_second at ") && $0.contains("victim-heap/main.c:\(secondFree):") })
    }

    /// Several reports from one exit check are printed in the order the
    /// shim wrote them. Their file names (kind, second, pid, random id) do
    /// not say that order, and neither do their mtimes.
    @Test func reportsArePrintedInTheOrderTheyWereWritten() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = try faultline(["exec", "--report-dir", dir, "--", try BuildProducts.path("victim-heap"), "write-after-free-pending"])
        #expect(run.status == 23, "\(run.stderr)")
        let lines = run.stderr.split(separator: "\n").map(String.init)
        let written = lines.compactMap { line -> String? in
            guard let marker = line.range(of: "report written: ") else { return nil }
            return String(line[marker.upperBound...])
        }
        let printed = lines.compactMap { line -> String? in
            guard line.hasPrefix("faultline: report "), let slash = line.lastIndex(of: "/") else { return nil }
            return String(line[line.index(after: slash)...])
        }
        #expect(written.count == 2, "\(run.stderr)")
        #expect(printed == written, "\(run.stderr)")
    }

    /// A memory limit that cannot be set ends faultline in one line, after
    /// removing the report directory the run had made for itself.
    @Test func aBadMemoryLimitLeavesNoReportDirectory() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let explicit = try faultline(["exec", "--report-dir", "\(dir)/made", "--memory-limit", "lots", "--", "/bin/true"])
        #expect(explicit.status == 64)
        #expect(explicit.stderr == "faultline: --memory-limit 'lots' is not a size; write e.g. 64M, 1G or 4096\n")
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/made"))
        let implicit = try faultline(["exec", "--memory-limit", "lots", "--", "/bin/true"], in: dir)
        #expect(implicit.status == 64)
        let left = (try? FileManager.default.contentsOfDirectory(atPath: "\(dir)/faultline-reports")) ?? []
        #expect(left.isEmpty, "\(left)")
    }

    /// `--error-exitcode N`, as valgrind's: a program that exits 0 but
    /// leaks gives N, so CI fails; a clean run and a death by signal keep
    /// their own status; a bad N is one line, exit 64, before anything runs.
    @Test func errorExitcodeTurnsAReportIntoAFailingStatus() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let leak = try BuildProducts.path("victim-leak"), victimC = try BuildProducts.path("victim-c")
        let plain = try faultline(["exec", "--report-dir", "\(dir)/a", "--", leak, "list"])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stderr.contains("faultline: 1 report(s) in \(dir)/a"), "\(plain.stderr)")
        let leaking = try faultline(["exec", "--error-exitcode", "99", "--report-dir", "\(dir)/b", "--", leak, "list"])
        #expect(leaking.status == 99, "\(leaking.stderr)")
        let clean = try faultline(["exec", "--error-exitcode", "99", "--report-dir", "\(dir)/c", "--", "/bin/sh", "-c", "exit 3"])
        #expect(clean.status == 3, "\(clean.stderr)")
        let crash = try faultline(["exec", "--error-exitcode", "99", "--report-dir", "\(dir)/d", "--", victimC, "abort"])
        #expect(crash.status == 128 + 6, "\(crash.stderr)")
        for bad in ["0", "256", "x"] {
            let run = try faultline(["exec", "--error-exitcode", bad, "--report-dir", "\(dir)/e", "--", "/bin/true"])
            #expect(run.status == 64)
            #expect(run.stderr == "faultline: --error-exitcode '\(bad)' is not a status from 1 to 255; e.g. --error-exitcode 99\n")
            #expect(!FileManager.default.fileExists(atPath: "\(dir)/e"))
        }
    }

    @Test func unknownDetectorIsOneLineAndExit64() throws {
        let run = try faultline(["exec", "--detectors", "crash,hangz", "--", "/bin/true"])
        #expect(run.status == 64)
        #expect(run.stderr.split(separator: "\n").count == 1)
        #expect(run.stderr.contains("'hangz'"))
        for name in DetectorSelection.known { #expect(run.stderr.contains(name)) }
    }

    @Test func unknownOptionIsOneLineAndExit64() throws {
        let run = try faultline(["exec", "--bogus", "/bin/true"])
        #expect(run.status == 64)
        #expect(run.stderr == "faultline: unknown option '--bogus'; see `faultline exec --help` (put -- before a program whose name starts with -)\n")
        let help = try faultline(["exec", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: faultline exec"))
    }

    @Test func unusableReportDirectoryIsOneLineAndExit73() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = "\(dir)/a-file"
        try Data().write(to: URL(fileURLWithPath: file))
        for bad in [file, "\(file)/reports", "/proc/self/fdinfo/reports"] {
            let run = try faultline(["exec", "--report-dir", bad, "--", try BuildProducts.path("victim-c"), "exit"])
            #expect(run.status == 73, "\(bad): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
            #expect(run.stderr.contains(bad))
            #expect(run.stdout.isEmpty, "the command ran anyway")
        }
    }

    @Test func missingCommandIsOneLineAndExit127() throws {
        let run = try faultline(["exec", "--", "faultline-no-such-command"])
        #expect(run.status == 127)
        #expect(run.stderr == "faultline: faultline-no-such-command: command not found on PATH\n")
    }

    /// (`--no-shim`-free runs of arbitrary programs depend on the malloc
    /// shim being right; the shim's libraries are checked through
    /// `AgentInjection` in `AgentInjectionTests` instead.)
    @Test func detectorsAndStderrCaptureReachTheProgram() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = try faultline(["exec", "--report-dir", dir, "--detectors", "crash,hang", "--no-capture-stderr", "--",
                                 "/usr/bin/env"])
        #expect(run.status == 0)
        let env = run.stdout.split(separator: "\n").map(String.init)
        #expect(env.contains("FAULTLINE_DETECTORS=crash,hang"))
        #expect(env.contains("FAULTLINE_REPORT_DIR=\(dir)"))
        #expect(!env.contains { $0.hasPrefix("FAULTLINE_CAPTURE_STDERR=") })
        let preload = try #require(env.first { $0.hasPrefix("LD_PRELOAD=") })
        #expect(preload.contains("libFaultlineAgentPreload.so"))
        #expect(!preload.contains("libFaultlineMallocShim.so"), "shim preloaded without a shim detector")

        let noShim = try faultline(["exec", "--report-dir", dir, "--no-shim", "--", "/usr/bin/env"])
        let noShimEnv = noShim.stdout.split(separator: "\n").map(String.init)
        #expect(noShimEnv.contains("FAULTLINE_CAPTURE_STDERR=1"))
        #expect(!noShimEnv.contains { $0.hasPrefix("FAULTLINE_DETECTORS=") })
        #expect(noShimEnv.first { $0.hasPrefix("LD_PRELOAD=") }?.contains("libFaultlineMallocShim.so") == false)
    }

    @Test func terminationSignalsAreForwarded() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let faultline = try BuildProducts.path("faultline")
        let devnull = FileHandle(forWritingAtPath: "/dev/null")!
        let pid = try ChildProcess.spawn(faultline, arguments: [faultline, "exec", "--report-dir", dir, "--", "/bin/sleep", "30"],
                                         environment: ProcessInfo.processInfo.environment, stderr: devnull.fileDescriptor)
        // Wait until sleep runs as faultline's child, then signal faultline.
        var children: [Int32] = []
        for _ in 0..<1000 where children.isEmpty {
            children = childProcesses(of: pid).filter {
                (try? String(contentsOfFile: "/proc/\($0)/comm", encoding: .utf8)) == "sleep\n"
            }
            if children.isEmpty { Thread.sleep(forTimeInterval: 0.01) }
        }
        #expect(children.count == 1)
        let started = Date()
        kill(pid, SIGTERM)
        let end = ChildProcess.wait(pid)
        #expect(end == .exited(128 + SIGTERM))
        #expect(Date().timeIntervalSince(started) < 20, "sleep was not terminated by the forwarded signal")
    }
}
