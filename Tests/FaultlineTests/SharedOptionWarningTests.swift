import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A bad value of a variable both the agent and the malloc shim read gets
/// one line, whichever of them is loaded (it got two, worded differently,
/// when both were).
@Suite struct SharedOptionWarningTests {
    @Test(arguments: [["libFaultlineAgentPreload.so", "libFaultlineMallocShim.so"], ["libFaultlineAgentPreload.so"], ["libFaultlineMallocShim.so"]])
    func badSharedValueIsOneLine(libraries: [String]) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let preload = try libraries.map { try BuildProducts.path($0) }.joined(separator: ":")
        let result = try runProgram(try BuildProducts.path("victim-c"), ["exit"], environment: [
            "LD_PRELOAD": preload, "FAULTLINE_REPORT_DIR": dir,
            "FAULTLINE_DETECTORS": "crash,use-after-free", "FAULTLINE_MAX_FRAMES": "lots",
        ])
        #expect(result.status == 0)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.filter { $0.contains("FAULTLINE_DETECTORS") }.count == 1, "\(result.stderr)")
        #expect(lines.filter { $0.contains("FAULTLINE_MAX_FRAMES") }.count == 1, "\(result.stderr)")
    }

    /// A bad value is said once per process tree, not once per process: the
    /// first process that says it removes the variable, so the processes it
    /// starts use the same default silently (a shell script under
    /// `faultline exec` repeated every line in each of its processes: four
    /// times here).
    @Test(arguments: [["libFaultlineAgentPreload.so", "libFaultlineMallocShim.so"], ["libFaultlineAgentPreload.so"], ["libFaultlineMallocShim.so"]])
    func badValueIsOneLinePerProcessTree(libraries: [String]) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let preload = try libraries.map { try BuildProducts.path($0) }.joined(separator: ":")
        let result = try runProgram("/bin/sh", ["-c", "/bin/echo one; /bin/sh -c '/bin/echo two'; /bin/echo three"], environment: [
            "LD_PRELOAD": preload, "FAULTLINE_REPORT_DIR": dir,
            "FAULTLINE_DETECTORS": "crash,use-after-free", "FAULTLINE_MAX_FRAMES": "lots",
            "FAULTLINE_HANG_THRESHOLD_MS": "abc", "FAULTLINE_MEMORY_PRESSURE": "bogus", "FAULTLINE_MEMORY_THRESHOLDS": "90,50",
            "FAULTLINE_QUARANTINE_BYTES": "lots", "FAULTLINE_MALLOC_UNWINDER": "dwarf",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "one\ntwo\nthree\n")
        let agent = libraries.contains("libFaultlineAgentPreload.so") ? 1 : 0
        let shim = libraries.contains("libFaultlineMallocShim.so") ? 1 : 0
        let expected = [
            "FAULTLINE_DETECTORS": 1, "FAULTLINE_MAX_FRAMES": 1, "FAULTLINE_HANG_THRESHOLD_MS": agent, "FAULTLINE_MEMORY_PRESSURE": agent,
            "FAULTLINE_MEMORY_THRESHOLDS": agent, "FAULTLINE_QUARANTINE_BYTES": shim, "FAULTLINE_MALLOC_UNWINDER": shim,
        ]
        let lines = result.stderr.split(separator: "\n")
        for (name, count) in expected {
            #expect(lines.filter { $0.contains(name + "=") || $0.contains(name + " ") }.count == count, "\(name): \(result.stderr)")
        }
    }

    /// `FAULTLINE_REPORT_DIR=` (set, empty) left the preloaded agent
    /// uninstalled without a word; now one line says so, with the shim
    /// loaded or not (the shim itself says nothing about it).
    @Test(arguments: [["libFaultlineAgentPreload.so", "libFaultlineMallocShim.so"], ["libFaultlineAgentPreload.so"]])
    func emptyReportDirectoryIsOneLine(libraries: [String]) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let preload = try libraries.map { try BuildProducts.path($0) }.joined(separator: ":")
        let result = try runProgram(try BuildProducts.path("victim-c"), ["null-deref"],
                                    environment: ["LD_PRELOAD": preload, "FAULTLINE_REPORT_DIR": ""], directory: dir)
        // Not installed: the crash is the plain signal death, no report.
        #expect(result.signaled && result.status == SIGSEGV, "\(result.stderr)")
        let shim = libraries.count == 2 ? " (the malloc shim's reports go to stderr)" : ""
        let lines = result.stderr.split(separator: "\n").filter { $0.contains("FAULTLINE_REPORT_DIR") }
        #expect(lines == ["faultline: FAULTLINE_REPORT_DIR is set but empty, so the agent is not installed\(shim); "
            + "set it to the directory for reports, or unset it to run without the agent"], "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty, "a directory was made in the working directory")
    }
}
