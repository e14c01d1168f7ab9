import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Watches one memory cgroup while a run lasts: which processes are inside
/// (polling `cgroup.procs`), what each is called, when each leaves and — if
/// it is caught as a zombie — how it ended, and when the OOM-kill counter
/// rises. The kernel's OOM notification (v1: an eventfd on
/// `memory.oom_control`; v2: a change of `memory.events`) wakes the poll
/// early, so the processes are looked at while the OOM killer picks its
/// victim. This is what lets an OOM kill be pinned on a descendant of the
/// process the runner started: see docs/memory-limits.md, "Attribution".
public final class CGroupProcessTracker: Sendable {
    /// What the tracker saw.
    public struct Trace: Sendable, Codable, Equatable {
        /// Every process seen inside, in order of first sight.
        public var processes: [TrackedProcess] = []
        /// Each observed rise of the OOM-kill counter.
        public var rises: [CounterRise] = []
        /// Polls done.
        public var polls = 0
        /// Poll interval in milliseconds.
        public var intervalMs: Double
        /// How OOM events wake the tracker, nil when only polling.
        public var notification: String?
        /// Highest usage sampled (for v2 kernels without `memory.peak`).
        public var maxUsageBytes: UInt64?
        /// The OOM-kill counter as last polled, nil when never read. On
        /// cgroup v1 it adds the highest count seen in each cgroup below,
        /// so a kill there still counts after the program removed that
        /// cgroup again.
        public var oomKills: UInt64?

        /// An empty trace for polls every `intervalMs`.
        public init(intervalMs: Double) { self.intervalMs = intervalMs }
    }

    /// One observed rise of the OOM-kill counter.
    public struct CounterRise: Sendable, Codable, Equatable {
        /// The poll that saw it.
        public var poll: Int
        /// Milliseconds since tracking started.
        public var ms: Double
        /// Wall-clock time it was seen, ms since the Unix epoch.
        public var unixMs: UInt64
        /// Counter before and after.
        public var from: UInt64
        public var to: UInt64

        /// Creates a record.
        public init(poll: Int, ms: Double, unixMs: UInt64, from: UInt64, to: UInt64) {
            self.poll = poll
            self.ms = ms
            self.unixMs = unixMs
            self.from = from
            self.to = to
        }
    }

    /// Default poll interval (`FAULTLINE_CGROUP_POLL_MS`).
    public static let defaultIntervalMs = 10.0

    private let cgroup: MemoryCGroup
    private let intervalMs: Double
    private let state: Mutex<Trace>
    private let stopRequested = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    private let startNs: UInt64
    private let initialCount: UInt64
    /// A pipe `stop` writes to, so the thread leaves its wait at once.
    private let wakeRead: Int32, wakeWrite: Int32

    /// Starts watching `cgroup` on a thread of its own; `initialCount` is
    /// the OOM-kill counter before the run (0 for a fresh cgroup).
    public init(cgroup: MemoryCGroup, initialCount: UInt64, intervalMs: Double = CGroupProcessTracker.defaultIntervalMs) {
        self.cgroup = cgroup
        self.intervalMs = max(1, intervalMs)
        self.initialCount = initialCount
        self.startNs = Self.nowNs()
        self.state = Mutex(Trace(intervalMs: max(1, intervalMs)))
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 { for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) } }
        (wakeRead, wakeWrite) = (fds[0], fds[1])
        let thread = Thread { [self] in self.loop() }
        thread.name = "faultline-cgroup-watch"
        thread.start()
    }

    /// Stops the thread after one last poll and returns everything seen.
    public func stop() -> Trace {
        stopRequested.store(true, ordering: .releasing)
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        done.wait()
        close(wakeRead)
        close(wakeWrite)
        return state.withLock { $0 }
    }

    /// What has been seen so far (the thread keeps going).
    public var snapshot: Trace { state.withLock { $0 } }

    private func loop() {
        let notify = OOMNotification(cgroup: cgroup)
        state.withLock { $0.notification = notify?.description }
        var last = initialCount
        var below: [String: UInt64] = [:]
        while !stopRequested.load(ordering: .acquiring) {
            pollOnce(lastCount: &last, below: &below)
            if OOMNotification.wait(notify, wake: wakeRead, milliseconds: intervalMs) { pollUntilRise(&last, &below) }
        }
        pollOnce(lastCount: &last, below: &below)
        notify?.close()
        done.signal()
    }

    /// After an OOM notification: polls every 250 µs for up to 50 ms, until
    /// the counter rises. The kernel counts the kill just after it notifies;
    /// on v1 a kill in a cgroup below counts only there, and a program that
    /// removes that cgroup once its child is gone (a few ms later) took the
    /// count with it before the next 10 ms poll
    /// (`memory-limits.nested-oom-removed`).
    private func pollUntilRise(_ last: inout UInt64, _ below: inout [String: UInt64]) {
        let start = last
        for _ in 0..<200 where last == start && !stopRequested.load(ordering: .acquiring) {
            usleep(250)
            pollOnce(lastCount: &last, below: &below)
        }
    }

    /// `below`: cgroup v1, the highest `oom_kill` seen in each cgroup below.
    private func pollOnce(lastCount: inout UInt64, below: inout [String: UInt64]) {
        let pids = cgroup.processes()
        let count = Self.readOOMKills(cgroup, below: &below) ?? lastCount
        let usage = cgroup.version == .v2 ? CGroupFiles.readNumber(cgroup.path + "/memory.current") : nil
        let ms = Double(Self.nowNs() - startNs) / 1e6
        state.withLock { t in
            t.polls += 1
            let poll = t.polls
            var inside = Set<Int32>()
            for pid in pids {
                inside.insert(pid)
                if let i = t.processes.lastIndex(where: { $0.pid == pid && $0.vanishedPoll == nil }) {
                    t.processes[i].lastSeenPoll = poll
                    if let name = ProcStat.comm(pid) { t.processes[i].name = name }
                } else if let p = TrackedProcess.sight(pid, poll: poll) {
                    t.processes.append(p)
                }
            }
            for i in t.processes.indices where t.processes[i].vanishedPoll == nil && !inside.contains(t.processes[i].pid) {
                t.processes[i].vanishedPoll = poll
                t.processes[i].vanishedMs = ms
                // Zombies are not listed in cgroup.procs but keep /proc/PID
                // (with their wait status) until their parent reaps them.
                if let stat = ProcStat.read(t.processes[i].pid), stat.state == "Z", let code = stat.exitCode {
                    t.processes[i].zombieStatus = WaitStatus(rawStatus: code)
                }
            }
            if count > lastCount {
                t.rises.append(CounterRise(poll: poll, ms: ms, unixMs: Self.unixMs(), from: lastCount, to: count))
            }
            if let usage { t.maxUsageBytes = max(t.maxUsageBytes ?? 0, usage) }
            t.oomKills = max(lastCount, count)
        }
        lastCount = max(lastCount, count)
    }

    /// The OOM-kill counter of `cgroup` and those below it. v1 counts a
    /// kill only in the killed process's own cgroup: the cgroups below are
    /// added, each at the highest value seen (`below`), so a count is not
    /// lost when a program removes its cgroup after a kill there.
    static func readOOMKills(_ cgroup: MemoryCGroup, below: inout [String: UInt64]) -> UInt64? {
        switch cgroup.version {
        case .v1:
            guard let own = CGroupFiles.readKeyValues(cgroup.path + "/memory.oom_control")?["oom_kill"] else { return nil }
            for (dir, n) in MemoryCounters.v1OOMKillsByCgroupBelow(cgroup.path) { below[dir] = max(below[dir] ?? 0, n) }
            return own + below.values.reduce(0, +)
        case .v2: return CGroupFiles.readKeyValues(cgroup.path + "/memory.events")?["oom_kill"]
        }
    }

    static func nowNs() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    static func unixMs() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return UInt64(ts.tv_sec) * 1000 + UInt64(ts.tv_nsec) / 1_000_000
    }
}

/// The kernel's "this cgroup is out of memory" notification, as a file
/// descriptor to wait on: v1 registers an eventfd for `memory.oom_control`
/// through `cgroup.event_control`; v2 polls `memory.events` for a change
/// (POLLPRI). nil when neither can be set up (polling still works).
struct OOMNotification: CustomStringConvertible {
    let fd: Int32
    let controlFD: Int32
    let version: CGroupVersion

    init?(cgroup: MemoryCGroup) {
        version = cgroup.version
        switch cgroup.version {
        case .v1:
            let efd = Self.eventfd(flags: O_CLOEXEC | O_NONBLOCK)
            guard efd >= 0 else { return nil }
            let ofd = open(cgroup.path + "/memory.oom_control", O_RDONLY | O_CLOEXEC)
            guard ofd >= 0, (try? CGroupFiles.write(cgroup.path + "/cgroup.event_control", "\(efd) \(ofd)")) != nil else {
                Glibc.close(efd)
                if ofd >= 0 { Glibc.close(ofd) }
                return nil
            }
            fd = efd
            controlFD = ofd
        case .v2:
            let efd = open(cgroup.path + "/memory.events", O_RDONLY | O_CLOEXEC)
            guard efd >= 0 else { return nil }
            var buf = [UInt8](repeating: 0, count: 512)
            _ = read(efd, &buf, buf.count)
            fd = efd
            controlFD = -1
        }
    }

    /// eventfd(2) (glibc's <sys/eventfd.h> is not in Swift's Glibc module;
    /// EFD_CLOEXEC and EFD_NONBLOCK equal O_CLOEXEC and O_NONBLOCK).
    static func eventfd(flags: Int32) -> Int32 {
        typealias Fn = @convention(c) (UInt32, Int32) -> Int32
        guard let sym = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "eventfd") else { return -1 }
        return unsafeBitCast(sym, to: Fn.self)(0, flags)
    }

    var description: String {
        version == .v1 ? "eventfd on memory.oom_control (cgroup.event_control)" : "poll(POLLPRI) on memory.events"
    }

    /// Waits until the notification (when there is one) fires, `wake`
    /// becomes readable, or `milliseconds` pass; true when it fired.
    @discardableResult
    static func wait(_ n: OOMNotification?, wake: Int32, milliseconds: Double) -> Bool {
        var fds = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        if let n { fds.append(pollfd(fd: n.fd, events: Int16(n.version == .v1 ? POLLIN : POLLPRI), revents: 0)) }
        guard poll(&fds, nfds_t(fds.count), Int32(milliseconds)) > 0, let n, fds.count > 1, fds[1].revents != 0 else { return false }
        var buf = [UInt8](repeating: 0, count: 512)
        if n.version == .v1 {
            _ = read(n.fd, &buf, 8)
        } else {
            // Re-arm: kernfs notifications fire once per change until the file is read again.
            _ = lseek(n.fd, 0, SEEK_SET)
            _ = read(n.fd, &buf, buf.count)
        }
        return true
    }

    func close() {
        Glibc.close(fd)
        if controlFD >= 0 { Glibc.close(controlFD) }
    }
}
