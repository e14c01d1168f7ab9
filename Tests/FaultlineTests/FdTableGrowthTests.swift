import Foundation
import Testing

/// The malloc shim grows the process's fd table up to its high fds
/// (fd_high.h) before it starts the leak helper. Grown later, by the exit
/// check's first /proc open while the helper shares the table, the kernel
/// waited for an RCU grace period: 8-14 ms of every short process with the
/// shim alone (docs/benchmarks.md, "Heap speed (issue 29)", round 2). The
/// helper starts at the program's first pthread_create (start-up round 4):
/// a process with one thread has none.
@Suite struct FdTableGrowthTests {
    /// Trace lines: a dup to a high number (the table grown to it) and a
    /// thread creation, in the order the process made them.
    static func firstHighDupAndClone(_ trace: String) -> (dup: Int?, clone: Int?) {
        let lines = trace.split(separator: "\n").map(String.init)
        let dup = lines.firstIndex { line in
            // strace pads before the result: "fcntl(5, F_DUPFD_CLOEXEC, 960)    = 960".
            guard line.contains("F_DUPFD"), let eq = line.range(of: "= ", options: .backwards),
                  let fd = Int(line[eq.upperBound...].prefix { $0.isNumber }) else { return false }
            return fd >= 256
        }
        let clone = lines.firstIndex { $0.contains("clone") && !$0.contains("resumed>") }
        return (dup, clone)
    }

    /// The trace of `program` with the shim alone: fcntl, dup and clone calls.
    static func traceWithShim(_ program: String, _ args: [String]) throws -> String {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let trace = "\(dir)/trace"
        // No FAULTLINE_REPORT_DIR: its open at start-up grew the table
        // early anyway, and hid the case that paid.
        let run = try runProgram(ProcTaskPathTests.strace!, ["-f", "-qq", "-e", "trace=fcntl,dup2,dup3,clone,clone3", "-o", trace, program] + args,
                                 environment: ["LD_PRELOAD": try BuildProducts.path("libFaultlineMallocShim.so")])
        guard run.status == 0 else { throw StraceFailed(stderr: run.stderr) }
        return try String(contentsOfFile: trace, encoding: .utf8)
    }

    @Test(.enabled(if: ProcTaskPathTests.strace != nil, "strace is not installed (apt-get install strace)"))
    func theTableIsGrownBeforeTheHelperStarts() throws {
        // Four threads: the helper starts before the first of them.
        let (dup, clone) = Self.firstHighDupAndClone(try Self.traceWithShim(try BuildProducts.path("victim-leak"), ["thread-exits"]))
        let clonePosition = try #require(clone, "the shim started no leak helper and the program no thread")
        let dupPosition = try #require(dup, "no fd was moved to the high range")
        #expect(dupPosition < clonePosition, "the first high dup (line \(dupPosition)) came after the helper's creation (line \(clonePosition))")
    }

    @Test(.enabled(if: ProcTaskPathTests.strace != nil, "strace is not installed (apt-get install strace)"))
    func aProcessWithOneThreadStartsNoHelper() throws {
        // The exit check still opens /proc at a high fd: with no other
        // thread sharing the table, growing it waits for nothing.
        let (_, clone) = Self.firstHighDupAndClone(try Self.traceWithShim("/bin/true", []))
        #expect(clone == nil, "the shim started a thread in /bin/true (trace line \(clone ?? -1))")
    }
}
