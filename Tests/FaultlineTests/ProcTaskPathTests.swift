import Foundation
import Testing

/// A process under `faultline exec`'s libraries (agent and shim, stderr
/// captured, a leak for the exit check to find) opens no file in the
/// /proc task directory of a thread other than its main one: such a file
/// left a dentry that made the parent's wait4 for the process cost
/// milliseconds (docs/malloc-shim.md, "Costs of a short process"). Other
/// threads' files go through /proc/<tid>/ (fl_proc_task_path), and our
/// threads name themselves instead of being named through .../comm.
@Suite struct ProcTaskPathTests {
    static let strace = ["/usr/bin/strace", "/usr/local/bin/strace"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The opens in strace's `-f -o` output that reach a task directory of
    /// a thread other than `main`: /proc/self/task/<tid>/, /proc/<pid>/task/<tid>/,
    /// or /proc/thread-self/ opened by another thread.
    static func otherThreadsTaskFiles(_ trace: String, main: String) -> [String] {
        trace.split(separator: "\n").map(String.init).filter { line in
            guard line.contains("open"), let quote = line.range(of: "\"/proc/") else { return false }
            let caller = line.prefix { $0 != " " }
            let path = line[quote.upperBound...].prefix { $0 != "\"" }
            if path.hasPrefix("thread-self/") { return caller != main }
            let parts = path.split(separator: "/")
            guard let task = parts.firstIndex(of: "task"), task + 2 < parts.count else { return false }
            return parts[task + 1] != main
        }
    }

    @Test(.enabled(if: strace != nil, "strace is not installed (apt-get install strace)"))
    func aPreloadedProcessOpensNoOtherThreadsTaskFile() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let libraries = [try BuildProducts.path("libFaultlineAgentPreload.so"), try BuildProducts.path("libFaultlineMallocShim.so")]
        let run = try runProgram(Self.strace!, ["-f", "-qq", "-e", "trace=open,openat,prctl", "-o", "\(dir)/trace",
                                                try BuildProducts.path("victim-leak"), "list"], environment: [
            "LD_PRELOAD": libraries.joined(separator: ":"), "FAULTLINE_REPORT_DIR": "\(dir)/reports",
            "FAULTLINE_CAPTURE_STDERR": "1",
        ])
        let reports = (try? FileManager.default.contentsOfDirectory(atPath: "\(dir)/reports")) ?? []
        #expect(reports.contains { $0.hasPrefix("leak-") }, "the exit check found no leak: \(reports) \(run.stderr)")
        let trace = try String(contentsOfFile: "\(dir)/trace", encoding: .utf8)
        let main = String(trace.prefix { $0 != " " })
        // The threads this is about ran (and named themselves): the shim's
        // leak helper and the agent's stderr drain.
        #expect(trace.contains("\"faultline-leaks\"") && trace.contains("\"faultline-err\""), "\(trace)")
        let bad = Self.otherThreadsTaskFiles(trace, main: main)
        #expect(bad.isEmpty, "\(bad.joined(separator: "\n"))")
    }
}
