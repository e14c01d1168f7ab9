#if canImport(Glibc)
import Glibc
#endif

/// One line of `/proc/PID/cgroup`: the cgroup a process belongs to in one
/// hierarchy.
public struct CGroupMembership: Sendable, Hashable {
    /// Hierarchy id; 0 is the v2 unified hierarchy.
    public var hierarchyID: Int
    /// v1 controllers bound to the hierarchy (empty for v2).
    public var controllers: Set<String>
    /// Path from the hierarchy's root, starting with `/`.
    public var path: String

    /// The version of the hierarchy this line describes.
    public var version: CGroupVersion { hierarchyID == 0 && controllers.isEmpty ? .v2 : .v1 }

    /// Parses `/proc/PID/cgroup` text.
    public static func parse(_ text: String) -> [CGroupMembership] {
        text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, let id = Int(parts[0]) else { return nil }
            let controllers = Set(parts[1].split(separator: ",").map(String.init))
            return CGroupMembership(hierarchyID: id, controllers: controllers, path: String(parts[2]))
        }
    }

    /// The memberships of `pid` (or of this process), nil when unreadable.
    public static func of(pid: pid_t? = nil) -> [CGroupMembership]? {
        let path = pid.map { "/proc/\($0)/cgroup" } ?? "/proc/self/cgroup"
        return CGroupFiles.read(path).map(parse)
    }

    /// The memberships of thread `tid` of this process.
    public static func ofThread(_ tid: pid_t) -> [CGroupMembership]? {
        CGroupFiles.read("/proc/self/task/\(tid)/cgroup").map(parse)
    }
}
