import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The processes that can still write reports into a run's directory once
/// the program `faultline exec` ran has ended: a daemonised grandchild, a
/// background job of a shell script, a worker the program did not wait for.
///
/// They are found by their environment, not by parentage: every process
/// that carries the agent got `FAULTLINE_REPORT_DIR=<the directory>` when its
/// image was started (`/proc/PID/environ` keeps what `execve` was given), and
/// one without it has no agent to write with. Parentage would miss a daemon
/// (reparented to init after a double fork), and making `faultline` a child
/// subreaper to keep it would change what the program sees (`getppid()` of a
/// daemon that waits for it to be 1).
public enum ReportDirectoryWriters {
    /// Pids of live processes whose environment has
    /// `FAULTLINE_REPORT_DIR=directory`, this one excluded; sorted. Processes
    /// of other users cannot be read and are not counted.
    public static func running(directory: String) -> [pid_t] {
        let wanted = Array("FAULTLINE_REPORT_DIR=\(directory)".utf8)
        let me = getpid()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        var found: [pid_t] = []
        for name in names {
            guard let pid = pid_t(name), pid != me, let env = environ(of: pid) else { continue }
            // The state only of a match: one /proc read per process, not two.
            if env.split(separator: 0, omittingEmptySubsequences: true).contains(where: { $0.elementsEqual(wanted) }), isLive(pid) {
                found.append(pid)
            }
        }
        return found.sorted()
    }

    /// `running(directory:)`, asked again every 20 ms for up to `grace`
    /// seconds while it finds any: a process killed with the program (a
    /// terminal hangup, the memory cgroup's cleanup) takes a moment to go.
    public static func stillRunning(directory: String, grace: Double = 0.25) -> [pid_t] {
        let deadline = Date().addingTimeInterval(grace)
        var pids = running(directory: directory)
        while !pids.isEmpty && Date() < deadline {
            usleep(20_000)
            pids = running(directory: directory)
        }
        return pids
    }

    /// False for a zombie or a process gone meanwhile (its `environ` reads
    /// empty, but say so plainly).
    private static func isLive(_ pid: pid_t) -> Bool {
        guard let state = ProcStat.read(pid)?.state else { return false }
        return state != "Z" && state != "X"
    }

    /// The NUL-separated environment `pid` was started with, at most 1 MiB.
    private static func environ(of pid: pid_t) -> [UInt8]? {
        let fd = open("/proc/\(pid)/environ", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 16384)
        while out.count < 1 << 20 {
            let n = buf.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            out += buf[0..<n]
        }
        return out
    }
}
