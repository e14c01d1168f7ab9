#if canImport(Glibc)
import Glibc
#endif

/// A fresh memory cgroup with a limit, created under this process's own
/// cgroup in the hierarchy that has the memory controller, and registered
/// for removal at exit and on SIGINT/SIGTERM (`CGroupCleanup`).
public struct MemoryCGroup: Sendable, Hashable {
    /// The cgroup directory.
    public var directory: CGroupDirectory
    /// The cgroup this process is in, in the same hierarchy (where its own
    /// threads are moved back to).
    public var home: CGroupDirectory
    /// The limit as written (the kernel rounds it down to whole pages).
    public var limitBytes: UInt64
    /// Hierarchy path of the new cgroup (for reports), e.g. `/process_api/…/faultline-x`.
    public var hierarchyPath: String

    /// v1 or v2.
    public var version: CGroupVersion { directory.version }
    /// The directory path.
    public var path: String { directory.path }

    /// Creates `name` under this process's memory cgroup with a limit of
    /// `limit` bytes on memory (and, when swap is on, on swap: v1
    /// `memory.memsw.limit_in_bytes`, v2 `memory.swap.max` 0), so the limit
    /// is reached instead of swapped past. Nothing is left behind on failure.
    public static func create(
        name: String, limit: UInt64, in hierarchy: CGroupHierarchy? = nil
    ) throws(CGroupError) -> MemoryCGroup {
        let h: CGroupHierarchy
        if let hierarchy { h = hierarchy } else {
            switch CGroupDiscovery.memory() {
            case .success(let found): h = found
            case .failure(let e): throw e
            }
        }
        guard limit >= 1 << 20 else {
            throw CGroupError("memory limit \(limit) bytes is too small; use at least 1M (the program and its libraries need some)")
        }
        // A limit above an ancestor's is not the one the program gets, and an
        // OOM kill at the ancestor's limit may pick faultline itself (it is
        // in that cgroup too): the run would end with no report.
        if let (lowest, dir) = lowestAncestorLimit(from: h.ownDirectory, mountPoint: h.mount.mountPoint, version: h.version), lowest < limit {
            throw CGroupError(
                "memory limit \(ByteCount.describe(limit)) is above the \(ByteCount.describe(lowest)) limit of \(dir), which applies to every cgroup below it (and an OOM kill there can take faultline itself); ask for at most \(ByteCount.describe(lowest)), or run faultline from a cgroup without that limit")
        }
        if h.version == .v2 { try enableMemoryController(in: h.ownDirectory) }
        let dir = try CGroupDirectory.create(parent: h.ownDirectory, name: name, version: h.version)
        let cgroup = MemoryCGroup(
            directory: dir, home: CGroupDirectory(path: h.ownDirectory, version: h.version), limitBytes: limit,
            hierarchyPath: (h.ownPath == "/" ? "" : h.ownPath) + "/" + name)
        do {
            try cgroup.applyLimit()
        } catch {
            rmdir(dir.path)
            throw error
        }
        CGroupCleanup.shared.register(cgroup)
        return cgroup
    }

    private func applyLimit() throws(CGroupError) {
        switch version {
        case .v1:
            try CGroupFiles.write(path + "/memory.limit_in_bytes", String(limitBytes))
            // memsw (memory + swap) must stay >= the memory limit; it exists only
            // with swap accounting. Set only when swap is on: a failed charge is
            // then counted against memsw, whose failcnt this kernel does not keep.
            if Self.swapIsOn, access(path + "/memory.memsw.limit_in_bytes", W_OK) == 0 {
                try CGroupFiles.write(path + "/memory.memsw.limit_in_bytes", String(limitBytes))
            }
        case .v2:
            guard access(path + "/memory.max", W_OK) == 0 else {
                throw CGroupError("\(path) has no memory.max: the memory controller is not enabled for it; add it to the parent's cgroup.subtree_control")
            }
            try CGroupFiles.write(path + "/memory.max", String(limitBytes))
            if access(path + "/memory.swap.max", W_OK) == 0 { try CGroupFiles.write(path + "/memory.swap.max", "0") }
        }
    }

    /// The smallest memory limit from `directory` up to the mount point, and
    /// the cgroup that sets it; nil when none of them has a limit.
    static func lowestAncestorLimit(from directory: String, mountPoint: String, version: CGroupVersion) -> (UInt64, String)? {
        var best: (UInt64, String)?
        var dir = directory
        while dir.hasPrefix(mountPoint) {
            let file = dir + (version == .v1 ? "/memory.limit_in_bytes" : "/memory.max")
            // v2 "max" reads as nil, v1 "unlimited" as a number of 2^63 - 4096.
            if let v = CGroupFiles.readNumber(file), v < MemoryCounters.v1Unlimited, v < (best?.0 ?? .max) { best = (v, dir) }
            guard dir.count > mountPoint.count, let slash = dir.lastIndex(of: "/") else { break }
            dir = String(dir[..<slash])
        }
        return best
    }

    /// True when /proc/meminfo reports any swap.
    static var swapIsOn: Bool {
        let text = CGroupFiles.read("/proc/meminfo") ?? ""
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("SwapTotal:") }) else { return false }
        return line.split(separator: " ").dropFirst().first.map { $0 != "0" } ?? false
    }

    /// v2: children get the memory controller only when the parent lists
    /// it in `cgroup.subtree_control`; try to add it.
    static func enableMemoryController(in parent: String) throws(CGroupError) {
        let control = parent + "/cgroup.subtree_control"
        let enabled = CGroupFiles.read(control)?.split(whereSeparator: { $0 == " " || $0 == "\n" }).contains("memory") ?? false
        if enabled { return }
        let available = CGroupFiles.read(parent + "/cgroup.controllers")?.split(whereSeparator: { $0 == " " || $0 == "\n" }).contains("memory") ?? false
        guard available else {
            throw CGroupError("the memory controller is not available in \(parent) (cgroup v2); it is bound to a cgroup v1 hierarchy or disabled")
        }
        do { try CGroupFiles.write(control, "+memory") } catch {
            var e = error
            e.description += " (a v2 cgroup that holds processes cannot enable controllers for children; run from a leaf cgroup's parent)"
            throw e
        }
    }

    /// Moves process `pid` in.
    public func addProcess(_ pid: pid_t) throws(CGroupError) { try directory.addProcess(pid) }

    /// The processes inside.
    public func processes() -> [pid_t] { directory.processes() }

    /// The current counters.
    public func counters() -> MemoryCounters { MemoryCounters.read(directory: path, version: version) }

    /// Kills what is left inside, moves this process's threads home, and
    /// removes the directory; unregisters it from `CGroupCleanup`.
    public func remove(timeout: Double = 5) throws(CGroupError) {
        try directory.remove(movingOwnThreadsTo: home, timeout: timeout)
        CGroupCleanup.shared.unregister(self)
    }
}
