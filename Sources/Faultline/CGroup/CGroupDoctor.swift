#if canImport(Glibc)
import Glibc
#endif

/// The cgroup facts `faultline doctor` prints: each a name and a verdict
/// ("ok: …", "missing: …" or "unusable: why").
public enum CGroupDoctor {
    /// One line of the report.
    public struct Line: Sendable {
        /// What was checked.
        public var name: String
        /// `ok: …`, `missing: …` or `unusable: …`.
        public var verdict: String

        /// Creates a line.
        public init(name: String, verdict: String) {
            self.name = name
            self.verdict = verdict
        }
    }

    /// Checks the hierarchies, the memory controller, whether a memory
    /// cgroup can be created and removed here (it tries), and the
    /// notification interfaces the runner and the monitor use.
    public static func check() -> [Line] {
        var lines: [Line] = []
        let hierarchies = CGroupDiscovery.hierarchies()
        let v1 = hierarchies.filter { $0.version == .v1 }
        if v1.isEmpty {
            lines.append(Line(name: "cgroup v1 hierarchies", verdict: "missing: none mounted"))
        } else {
            let names = v1.map { $0.mount.controllers.sorted().joined(separator: ",") }.joined(separator: " ")
            lines.append(Line(name: "cgroup v1 hierarchies", verdict: "ok: \(names)"))
        }
        if let v2 = CGroupDiscovery.unified(in: hierarchies) {
            let controllers = v2.mount.controllers.isEmpty ? "none" : v2.mount.controllers.sorted().joined(separator: " ")
            lines.append(Line(name: "cgroup v2 hierarchy", verdict: "ok: \(v2.mount.mountPoint), this process in \(v2.ownPath), controllers: \(controllers)"))
            lines.append(Line(name: "cgroup v2 memory controller", verdict: v2.hasMemoryController
                ? "ok" : "unusable: not in \(v2.mount.mountPoint)/cgroup.controllers (bound to cgroup v1 or disabled)"))
        } else {
            lines.append(Line(name: "cgroup v2 hierarchy", verdict: "missing: no cgroup2 mount"))
        }
        switch CGroupDiscovery.memory(in: hierarchies) {
        case .failure(let e):
            lines.append(Line(name: "memory controller", verdict: "unusable: \(e)"))
        case .success(let h):
            lines.append(Line(name: "memory controller", verdict: "ok: \(h.version) at \(h.mount.mountPoint), this process in \(h.ownPath)"))
            lines.append(Line(name: "create a memory cgroup", verdict: tryCreate(in: h)))
            if h.version == .v1 {
                lines.append(file(h.ownDirectory + "/cgroup.event_control", "OOM and pressure notification (v1 eventfd)"))
                lines.append(file(h.ownDirectory + "/memory.pressure_level", "memory pressure (v1 pressure_level)"))
                let memsw = access(h.ownDirectory + "/memory.memsw.limit_in_bytes", F_OK) == 0
                lines.append(Line(name: "swap accounting (memsw)", verdict: memsw
                    ? "ok: limits cover swap too" : "missing: a limited program may swap instead of being OOM-killed"))
            } else {
                lines.append(file(h.ownDirectory + "/memory.events", "OOM notification (v2 memory.events)"))
                lines.append(Line(name: "peak usage (v2 memory.peak)", verdict: access(h.ownDirectory + "/memory.peak", F_OK) == 0
                    ? "ok" : "missing: kernel before 5.19; peak is sampled by the runner instead"))
            }
        }
        lines.append(file("/proc/pressure/memory", "PSI (/proc/pressure/memory)"))
        return lines
    }

    private static func file(_ path: String, _ name: String) -> Line {
        Line(name: name, verdict: access(path, R_OK) == 0 ? "ok: \(path)" : "missing: \(path): \(String(cString: strerror(errno)))")
    }

    private static func tryCreate(in h: CGroupHierarchy) -> String {
        let name = "faultline-doctor-\(getpid())"
        do {
            let cg = try MemoryCGroup.create(name: name, limit: 16 << 20, in: h)
            let limit = cg.counters().limitBytes
            try cg.remove()
            guard limit == 16 << 20 else { return "unusable: created \(cg.path) but its limit reads \(limit.map(String.init) ?? "nothing")" }
            return "ok: created, limited and removed \(cg.path)"
        } catch {
            return "unusable: \(error)"
        }
    }
}
