import Foundation
import Testing

/// A short single-threaded process under Faultline's libraries starts
/// their threads but never waits for one of them: not for a new thread to
/// name itself, not for the memory monitor's id, not to stop the leak
/// helper for the exit check, not for the hang watchdog at exit. On a
/// virtual machine each such wait for a thread whose CPU is idle cost
/// about 2 ms (docs/malloc-shim.md, "Costs of a short process").
@Suite struct ThreadHandOffTests {
    /// The shim alone, and `faultline exec`'s libraries with stderr captured.
    static let setups: [[String]] = [["libFaultlineMallocShim.so"], ["libFaultlineAgentPreload.so", "libFaultlineMallocShim.so"]]

    /// The lines of strace's `-f -o` output in which the thread that called
    /// exit_group (the main one) waits or signals: a futex wait, a sleep, a
    /// tgkill. Also how many threads it created.
    static func mainThreadWaits(_ trace: String) -> (waits: [String], clones: Int) {
        let lines = trace.split(separator: "\n").map(String.init)
        guard let exit = lines.first(where: { $0.contains("exit_group(") }) else { return (["no exit_group in the trace"], 0) }
        let main = String(exit.prefix { $0 != " " })
        let mine = lines.filter { $0.prefix { $0 != " " } == main }
        let waits = mine.filter { $0.contains("FUTEX_WAIT") || $0.contains("nanosleep(") || $0.contains("tgkill(") }
        // A call strace had to split shows again as "<... clone3 resumed>".
        return (waits, mine.filter { $0.contains("clone") && !$0.contains("resumed>") }.count)
    }

    @Test(.enabled(if: ProcTaskPathTests.strace != nil, "strace is not installed (apt-get install strace)"), arguments: setups)
    func theMainThreadNeverWaitsForOurThreads(_ libraries: [String]) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let preload = try libraries.map { try BuildProducts.path($0) }.joined(separator: ":")
        // A few runs: which thread gets where first varies.
        for round in 0..<5 {
            let trace = "\(dir)/trace\(round)"
            let run = try runProgram(ProcTaskPathTests.strace!, [
                "-f", "-qq", "-e", "trace=futex,nanosleep,clock_nanosleep,tgkill,clone,clone3,exit_group", "-o", trace, "/bin/true",
            ], environment: ["LD_PRELOAD": preload, "FAULTLINE_REPORT_DIR": "\(dir)/reports", "FAULTLINE_CAPTURE_STDERR": "1",
                              // Pressure asked for by name: the memory monitor runs even
                              // in a cgroup with no limit, where it would stay idle.
                              "FAULTLINE_MEMORY_PRESSURE": "medium"])
            guard run.status == 0 else { throw StraceFailed(stderr: run.stderr) }
            let (waits, clones) = Self.mainThreadWaits(try String(contentsOfFile: trace, encoding: .utf8))
            // The threads this is about were started: with the agent its
            // watchdog and memory monitor (no stderr drain thread since the
            // stderr tee), and the leak helper, which starts before the
            // first of them; the shim alone starts none in a process with
            // one thread (start-up round 4).
            #expect(clones == (libraries.count == 1 ? 0 : 3), "round \(round): \(clones) threads created")
            #expect(waits.isEmpty, "round \(round): \(waits.joined(separator: "\n"))")
        }
    }
}
