/// The two cgroup interfaces the kernel offers. A machine may run both at
/// once ("hybrid"): each controller is bound to exactly one of them.
public enum CGroupVersion: Int, Sendable, Codable, CustomStringConvertible {
    /// The legacy per-controller hierarchies (`memory.limit_in_bytes`).
    case v1 = 1
    /// The unified hierarchy (`memory.max`, `memory.events`).
    case v2 = 2

    public var description: String { "cgroup v\(rawValue)" }
}
