import Foundation
import Testing

/// A process under `faultline exec`'s libraries (agent and shim, stderr
/// captured, a leak for the exit check to find) opens no file in the
/// /proc task directory of a thread other than its main one, whichever
/// thread runs the exit check: such a file left a dentry that made the
/// parent's wait4 for the process cost milliseconds (docs/malloc-shim.md,
/// "Costs of a short process"). Other threads' files go through
/// /proc/<tid>/ (fl_proc_task_path), a thread's own through /proc/self/ or
/// /proc/<tid>/ (fl_proc_self_path), and our threads name themselves
/// instead of being named through .../comm.
@Suite struct ProcTaskPathTests {
    static let strace = ["/usr/bin/strace", "/usr/local/bin/strace"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The opens and readlinks in strace's `-f -o` output that reach a task
    /// directory of a thread other than `main`: /proc/self/task/<tid>/,
    /// /proc/<pid>/task/<tid>/, or /proc/thread-self/ used by another thread.
    static func otherThreadsTaskFiles(_ trace: String, main: String) -> [String] {
        trace.split(separator: "\n").map(String.init).filter { line in
            guard line.contains("open") || line.contains("readlink"), let quote = line.range(of: "\"/proc/") else { return false }
            let caller = line.prefix { $0 != " " }
            let path = line[quote.upperBound...].prefix { $0 != "\"" }
            if path.hasPrefix("thread-self/") { return caller != main }
            let parts = path.split(separator: "/")
            guard let task = parts.firstIndex(of: "task"), task + 2 < parts.count else { return false }
            return parts[task + 1] != main
        }
    }

    /// victim-leak's modes: the exit check on the main thread, on a thread
    /// that calls exit, and on the last thread after the main one has ended
    /// (pthread_exit), where /proc/self/maps reads empty.
    static let exits = [["list"], ["small-stack-exit", "1048576"], ["main-exits-first"]]

    @Test(.enabled(if: strace != nil, "strace is not installed (apt-get install strace)"), arguments: exits)
    func aPreloadedProcessOpensNoOtherThreadsTaskFile(_ mode: [String]) throws {
        // The shim's leak helper names itself when it first runs; on a loaded
        // machine a short process can exit before it has. Every run's trace
        // is checked, and at least one of up to five must show the helper.
        var helperSeen = false
        for _ in 0..<5 where !helperSeen {
            let dir = try makeTemporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let libraries = [try BuildProducts.path("libFaultlineAgentPreload.so"), try BuildProducts.path("libFaultlineMallocShim.so")]
            let run = try runProgram(Self.strace!, ["-f", "-qq", "-e", "trace=open,openat,readlink,prctl", "-o", "\(dir)/trace",
                                                    try BuildProducts.path("victim-leak")] + mode, environment: [
                "LD_PRELOAD": libraries.joined(separator: ":"), "FAULTLINE_REPORT_DIR": "\(dir)/reports",
                "FAULTLINE_CAPTURE_STDERR": "1",
            ])
            let reports = (try? FileManager.default.contentsOfDirectory(atPath: "\(dir)/reports")) ?? []
            #expect(reports.contains { $0.hasPrefix("leak-") }, "the exit check found no leak: \(reports) \(run.stderr)")
            let trace = try String(contentsOfFile: "\(dir)/trace", encoding: .utf8)
            let main = String(trace.prefix { $0 != " " })
            // The threads this is about: the shim's leak helper (the agent
            // keeps no stderr drain thread since the stderr tee).
            helperSeen = trace.contains("\"faultline-leaks\"")
            let bad = Self.otherThreadsTaskFiles(trace, main: main)
            #expect(bad.isEmpty, "\(bad.joined(separator: "\n"))")
        }
        #expect(helperSeen, "the leak helper never ran in five runs")
    }
}
