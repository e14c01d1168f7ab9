#if canImport(Glibc)
import Glibc
#endif

/// The cgroups below a cgroup. A program may make its own below the one
/// Faultline made for it (a container runtime, a service manager, a test
/// of either) and move processes there: they are still limited by the
/// run's cgroup, so they count as inside it — for listing, killing,
/// removal and (cgroup v1, which counts an OOM kill only in the killed
/// process's own cgroup) the OOM-kill counter.
extension CGroupDirectory {
    /// This directory and every cgroup directory below it, each parent
    /// before its children; empty when this directory does not exist.
    public func subtree() -> [CGroupDirectory] {
        guard exists else { return [] }
        var out = [self]
        var next = 0
        while next < out.count {
            let parent = out[next].path
            next += 1
            guard let dir = opendir(parent) else { continue }
            while let entry = readdir(dir) {
                guard entry.pointee.d_type == UInt8(DT_DIR) else { continue }
                let name = withUnsafePointer(to: entry.pointee.d_name) {
                    $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
                }
                if name == "." || name == ".." { continue }
                out.append(CGroupDirectory(path: parent + "/" + name, version: version))
            }
            closedir(dir)
        }
        return out
    }
}
