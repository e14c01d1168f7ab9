#if canImport(Glibc)
import Glibc
#endif

/// The hook that runs a scenario with `memory_limit:` inside a fresh memory
/// cgroup. The cgroup work (issue 7) implements it; until an implementation
/// is passed to the runner, such scenarios SKIP with "memory limits are not
/// implemented yet" rather than run without their limit.
///
/// Order of calls for one run: `prepare` → `wrap(command:)` → (spawn) →
/// `attach(pid:)` → (the victim runs and ends) → `finish(exit:)`. `wrap`,
/// the spawn and `attach` happen on the same thread, one right after the
/// other, so `wrap` may change that thread's state (e.g. move it into the
/// cgroup so the child starts there) and `attach` may restore it.
public protocol MemoryLimitRunner: Sendable {
    /// Creates a fresh limit of `bytes` for one run; `label` names the run
    /// (scenario name and repeat) for the cgroup's name.
    func prepare(limit bytes: UInt64, label: String) throws -> any MemoryLimitSession
}

/// One prepared memory limit for one victim run.
public protocol MemoryLimitSession: Sendable {
    /// The command to spawn instead of `command` (e.g. a helper that joins
    /// the cgroup and then execs it, so the victim is limited from its first
    /// instruction). The default returns `command` unchanged.
    func wrap(command: [String]) -> [String]
    /// Moves the just-spawned child (the leader of its own process group)
    /// into the limit. Called right after spawn; the child may already run.
    func attach(pid: pid_t) throws
    /// Called once the child has ended with `exit`: how it died as far as
    /// the limit can tell, and cleanup (remove the cgroup).
    func finish(exit: VictimExit) -> MemoryLimitOutcome
}

extension MemoryLimitSession {
    /// No wrapper by default.
    public func wrap(command: [String]) -> [String] { command }
}

/// What a memory limit saw of one run; stored in the run's result.
public struct MemoryLimitOutcome: Sendable, Codable, Equatable {
    /// True when the kernel's OOM killer ended the victim inside the limit.
    public var oomKilled: Bool
    /// Most memory the cgroup used, when known.
    public var peakBytes: UInt64?
    /// Anything else worth printing (one line).
    public var note: String?

    /// Creates an outcome.
    public init(oomKilled: Bool, peakBytes: UInt64? = nil, note: String? = nil) {
        self.oomKilled = oomKilled
        self.peakBytes = peakBytes
        self.note = note
    }
}
