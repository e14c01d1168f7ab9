#if canImport(Glibc)
import Glibc
#endif

/// A process that was seen inside a watched cgroup.
public struct TrackedProcess: Sendable, Codable, Equatable {
    /// Its pid (thread-group id).
    public var pid: Int32
    /// Its parent when first seen.
    public var ppid: Int32?
    /// `/proc/PID/comm`, refreshed at every poll while it lived.
    public var name: String?
    /// `/proc/PID/exe`.
    public var executable: String?
    /// Poll number at which it was first seen inside.
    public var firstSeenPoll: Int
    /// Last poll at which it was inside.
    public var lastSeenPoll: Int
    /// First poll at which it was gone; nil while inside.
    public var vanishedPoll: Int?
    /// Milliseconds since tracking started when it was first seen gone.
    public var vanishedMs: Double?
    /// How it ended, read from `/proc/PID/stat` (`exit_code`) while it was a
    /// zombie its parent had not reaped yet; nil when not caught.
    public var zombieStatus: WaitStatus?

    /// Creates a record.
    public init(pid: Int32, ppid: Int32?, name: String?, executable: String?, firstSeenPoll: Int, lastSeenPoll: Int,
                vanishedPoll: Int?, vanishedMs: Double?, zombieStatus: WaitStatus?) {
        self.pid = pid
        self.ppid = ppid
        self.name = name
        self.executable = executable
        self.firstSeenPoll = firstSeenPoll
        self.lastSeenPoll = lastSeenPoll
        self.vanishedPoll = vanishedPoll
        self.vanishedMs = vanishedMs
        self.zombieStatus = zombieStatus
    }

    /// Reads what `/proc` says of `pid` now; nil when it is gone.
    static func sight(_ pid: pid_t, poll: Int) -> TrackedProcess? {
        guard let stat = ProcStat.read(pid) else { return nil }
        return TrackedProcess(
            pid: pid, ppid: stat.ppid, name: ProcStat.comm(pid) ?? stat.comm, executable: ProcStat.executable(pid),
            firstSeenPoll: poll, lastSeenPoll: poll, vanishedPoll: nil, vanishedMs: nil, zombieStatus: nil)
    }
}

/// The fields of `/proc/PID/stat` the tracker needs.
struct ProcStat {
    var comm: String
    var state: Character
    var ppid: Int32
    /// Field 52, the wait status of a zombie (Linux 3.5+).
    var exitCode: Int32?
    /// Field 22, when the process started, in clock ticks since boot.
    var startTicks: UInt64?

    static func read(_ pid: pid_t) -> ProcStat? {
        guard let text = CGroupFiles.read("/proc/\(pid)/stat"),
              let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")") else { return nil }
        let comm = String(text[text.index(after: open)..<close])
        // Fields after the command name start at field 3 (state).
        let rest = text[text.index(after: close)...].split(separator: " ")
        guard rest.count > 2, let state = rest[0].first, let ppid = Int32(rest[1]) else { return nil }
        let exitCode = rest.count > 49 ? Int32(rest[49].trimmingSuffix("\n")) : nil
        let startTicks = rest.count > 19 ? UInt64(rest[19]) : nil
        return ProcStat(comm: comm, state: state, ppid: ppid, exitCode: exitCode, startTicks: startTicks)
    }

    static func comm(_ pid: pid_t) -> String? {
        CGroupFiles.read("/proc/\(pid)/comm").map { String($0.trimmingSuffix("\n")) }
    }

    static func executable(_ pid: pid_t) -> String? {
        var buf = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/\(pid)/exe", &buf, buf.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

fileprivate extension StringProtocol {
    /// The text without trailing copies of `suffix`.
    func trimmingSuffix(_ suffix: Character) -> Substring {
        var s = self[...]
        while s.last == suffix { s = s.dropLast() }
        return Substring(s)
    }
}
