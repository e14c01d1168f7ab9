/// Everything known about how a run's process (and its descendants)
/// ended, gathered by the runner for `DeathClassifier`.
public struct DeathEvidence: Sendable {
    /// The process the runner started.
    public var pid: Int32
    /// Its wait status; nil when it was not reaped (timed out and abandoned).
    public var status: WaitStatus?
    /// Set when the runner's timeout ran out and the runner killed the
    /// process group; the value is the timeout in seconds.
    public var timedOutAfter: Double?
    /// A signal the runner itself sent the process (a requested kill), nil when none.
    public var runnerSignal: Int32?
    /// The cgroup's counters before the process started (a fresh cgroup: all 0).
    public var before: MemoryCounters
    /// The counters after it ended.
    public var after: MemoryCounters
    /// What the cgroup tracker saw, when it ran.
    public var trace: CGroupProcessTracker.Trace?

    /// Creates a record.
    public init(pid: Int32, status: WaitStatus?, timedOutAfter: Double? = nil, runnerSignal: Int32? = nil,
                before: MemoryCounters, after: MemoryCounters, trace: CGroupProcessTracker.Trace? = nil) {
        self.pid = pid
        self.status = status
        self.timedOutAfter = timedOutAfter
        self.runnerSignal = runnerSignal
        self.before = before
        self.after = after
        self.trace = trace
    }

    /// OOM kills counted in the cgroup during the run; nil when the counter
    /// could not be read.
    public var oomKillIncrease: UInt64? {
        guard let a = after.oomKills else { return nil }
        return a - min(a, before.oomKills ?? 0)
    }
}

/// One OOM kill and the process it was pinned on.
public struct OOMKillAttribution: Sendable, Hashable {
    /// The killed process; nil when no process could be named (it lived
    /// shorter than one poll and was not the direct child).
    public var pid: Int32?
    /// Its parent, name and executable as last seen.
    public var ppid: Int32?
    public var name: String?
    public var executable: String?
    /// True when it was the process the runner started.
    public var isDirectChild: Bool
    /// How the pid was determined, in one sentence.
    public var method: String
    /// Wall-clock ms of the counter rise that matched it, when observed.
    public var counterRiseUnixMs: UInt64?
}

/// The classification of one run.
public struct DeathVerdict: Sendable, Hashable {
    /// How the process the runner started ended.
    public var cause: DeathCause
    /// Every OOM kill in the cgroup, each pinned on a process where possible.
    public var oomKills: [OOMKillAttribution]
    /// The facts the verdict rests on, one short line each.
    public var reasons: [String]
}
