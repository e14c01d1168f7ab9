#if canImport(Glibc)
import Glibc
#endif

/// One cgroup directory and the operations every controller shares:
/// create, move processes and threads in, list members, kill them all,
/// remove. Memory specifics live in `MemoryCGroup`.
public struct CGroupDirectory: Sendable, Hashable {
    /// The directory, e.g. `/sys/fs/cgroup/memory/…/faultline-run-1234-ab12`.
    public var path: String
    /// v1 or v2 (which file names apply).
    public var version: CGroupVersion

    /// Wraps an existing directory.
    public init(path: String, version: CGroupVersion) {
        self.path = path
        self.version = version
    }

    /// Creates `parent/name` (mode 0755). Fails when it exists: every
    /// cgroup Faultline makes has a fresh name, so its counters start at 0.
    public static func create(parent: String, name: String, version: CGroupVersion) throws(CGroupError) -> CGroupDirectory {
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
            throw CGroupError("'\(name)' is not a usable cgroup name; use letters, digits, '-' and '_'")
        }
        let path = parent + "/" + name
        if mkdir(path, 0o755) != 0 { throw CGroupError.system("create cgroup", path, errno: errno) }
        return CGroupDirectory(path: path, version: version)
    }

    /// Moves process `pid` (all its threads) in.
    public func addProcess(_ pid: pid_t) throws(CGroupError) {
        try CGroupFiles.write(path + "/cgroup.procs", String(pid))
    }

    /// Moves only thread `tid` in. cgroup v1 only: v2 domain cgroups hold
    /// whole processes.
    public func addThread(_ tid: pid_t) throws(CGroupError) {
        guard version == .v1 else {
            throw CGroupError("cannot move a single thread into \(path): cgroup v2 moves whole processes")
        }
        try CGroupFiles.write(path + "/tasks", String(tid))
    }

    /// The processes inside, in this cgroup or any below it (`subtree`;
    /// thread-group ids; zombies are not listed).
    public func processes() -> [pid_t] {
        subtree().flatMap { CGroupFiles.readPids($0.path + "/cgroup.procs") ?? [] }
    }

    /// The threads inside.
    public func threads() -> [pid_t] {
        CGroupFiles.readPids(path + (version == .v1 ? "/tasks" : "/cgroup.threads")) ?? []
    }

    /// True when the directory still exists.
    public var exists: Bool { access(path, F_OK) == 0 }

    /// Sends SIGKILL to every process inside, below included, except this
    /// one (v2: `cgroup.kill`, which takes the cgroups below too, where the
    /// kernel has it). Returns how many were signalled.
    @discardableResult
    public func killAll() -> Int {
        let me = getpid()
        let pids = processes().filter { $0 != me }
        if version == .v2, access(path + "/cgroup.kill", W_OK) == 0, !processes().contains(me) {
            if (try? CGroupFiles.write(path + "/cgroup.kill", "1")) != nil { return pids.count }
        }
        for pid in pids { kill(pid, SIGKILL) }
        return pids.count
    }

    /// Removes the directory and the cgroups a program made below it
    /// (children first): threads of this process are moved to `home` (the
    /// cgroup they came from), everything else is killed, and `rmdir` is
    /// retried until the killed processes are gone or `timeout` seconds
    /// pass. Removing a directory that is already gone succeeds.
    public func remove(movingOwnThreadsTo home: CGroupDirectory? = nil, timeout: Double = 5) throws(CGroupError) {
        let deadline = monotonicSeconds() + timeout
        var lastErrno: Int32 = 0
        while true {
            lastErrno = 0
            for dir in subtree().reversed() where rmdir(dir.path) != 0 && errno != ENOENT { lastErrno = errno }
            if !exists { return }
            // 0: a cgroup appeared below meanwhile; try again.
            if lastErrno != EBUSY && lastErrno != 0 { break }
            evacuateOwnThreads(to: home)
            killAll()
            if monotonicSeconds() > deadline { break }
            usleep(2000)
        }
        let left = processes()
        var error = CGroupError.system("remove cgroup", path, errno: lastErrno)
        if !left.isEmpty { error.description += " (still inside: \(left.map(String.init).joined(separator: " ")))" }
        throw error
    }

    /// Moves any thread of this process found inside back to `home`.
    func evacuateOwnThreads(to home: CGroupDirectory?) {
        guard let home else { return }
        let me = getpid()
        guard processes().contains(me) else { return }
        for tid in threads() where access("/proc/self/task/\(tid)", F_OK) == 0 {
            if version == .v1 { try? home.addThread(tid) } else { try? home.addProcess(me) }
        }
    }
}

/// CLOCK_MONOTONIC in seconds.
func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
