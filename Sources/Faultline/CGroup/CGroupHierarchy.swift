/// A cgroup hierarchy as seen from one process: the mount and the
/// directory of the cgroup the process belongs to, under which new cgroups
/// are created.
public struct CGroupHierarchy: Sendable, Hashable {
    /// The mount.
    public var mount: CGroupMount
    /// This process's cgroup, as a path from the hierarchy's root.
    public var ownPath: String
    /// The directory of that cgroup under the mount point.
    public var ownDirectory: String

    /// v1 or v2.
    public var version: CGroupVersion { mount.version }

    /// True when the memory controller is bound to this hierarchy.
    public var hasMemoryController: Bool { mount.controllers.contains("memory") }

    /// The directory of hierarchy path `path`, nil when the mount does not
    /// show it (a bind-mounted subtree that does not contain it).
    public func directory(of path: String) -> String? {
        let root = mount.root == "/" ? "" : mount.root
        guard path == root || path.hasPrefix(root + "/") || root.isEmpty else { return nil }
        let rest = String(path.dropFirst(root.count))
        return mount.mountPoint + (rest == "/" ? "" : rest)
    }
}

/// Finds the cgroup hierarchies of this process.
public enum CGroupDiscovery {
    /// Every hierarchy this process can see and belongs to, from
    /// `mountinfo` and `/proc/self/cgroup` (both passed in for tests of odd
    /// layouts; the defaults read the live files).
    public static func hierarchies(
        mounts: [CGroupMount] = CGroupMount.current(),
        memberships: [CGroupMembership] = CGroupMembership.of() ?? []
    ) -> [CGroupHierarchy] {
        var out: [CGroupHierarchy] = []
        var seen = Set<String>()
        for mount in mounts where !seen.contains(mount.mountPoint) {
            let member: CGroupMembership?
            switch mount.version {
            case .v2:
                member = memberships.first { $0.version == .v2 }
            case .v1:
                // A v1 line lists the same controller set as the mount options
                // (named hierarchies appear as `name=…`).
                member = memberships.first { $0.version == .v1 && $0.controllers == mount.controllers }
            }
            guard let member else { continue }
            var h = CGroupHierarchy(mount: mount, ownPath: member.path, ownDirectory: "")
            guard let dir = h.directory(of: member.path) else { continue }
            h.ownDirectory = dir
            seen.insert(mount.mountPoint)
            out.append(h)
        }
        return out
    }

    /// The hierarchy that has the memory controller: v1's `memory`
    /// hierarchy, or v2 when the memory controller is bound there.
    public static func memory(in hierarchies: [CGroupHierarchy] = hierarchies()) -> Result<CGroupHierarchy, CGroupError> {
        if let h = hierarchies.first(where: { $0.hasMemoryController }) { return .success(h) }
        if let v2 = hierarchies.first(where: { $0.version == .v2 }) {
            return .failure(CGroupError(
                "the memory controller is not available: \(v2.mount.mountPoint) (cgroup v2) offers only [\(v2.mount.controllers.sorted().joined(separator: " "))] and no cgroup v1 memory hierarchy is mounted; boot with the memory controller enabled"))
        }
        return .failure(CGroupError("no memory cgroup: neither a cgroup v1 memory hierarchy nor a cgroup v2 mount was found in /proc/self/mountinfo; mount cgroups (e.g. mount -t cgroup2 none /sys/fs/cgroup)"))
    }

    /// The unified (v2) hierarchy, when mounted and this process is in it.
    public static func unified(in hierarchies: [CGroupHierarchy] = hierarchies()) -> CGroupHierarchy? {
        hierarchies.first { $0.version == .v2 }
    }
}
