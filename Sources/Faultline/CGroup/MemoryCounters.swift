/// The memory controller's numbers for one cgroup at one moment.
public struct MemoryCounters: Sendable, Codable, Equatable {
    /// Which files they came from.
    public var version: CGroupVersion
    /// Bytes charged now (v1 `memory.usage_in_bytes`, v2 `memory.current`).
    public var usageBytes: UInt64?
    /// Most bytes ever charged (v1 `memory.max_usage_in_bytes`, v2
    /// `memory.peak`, which kernels before 5.19 lack).
    public var peakBytes: UInt64?
    /// The limit (v1 `memory.limit_in_bytes`, v2 `memory.max`); nil when unlimited.
    public var limitBytes: UInt64?
    /// Processes the kernel's OOM killer killed in this cgroup and those
    /// below it (v1: `memory.oom_control` `oom_kill` summed over them, as v1
    /// counts a kill only in the killed process's own cgroup; v2:
    /// `memory.events` `oom_kill`, which counts those below already).
    public var oomKills: UInt64?
    /// Times the cgroup ran out of memory (v2 `memory.events` `oom`; v1 has
    /// no such counter).
    public var oomEvents: UInt64?
    /// Times a charge hit the limit (v1 `memory.failcnt` plus
    /// `memory.memsw.failcnt`, v2 `memory.events` `max`).
    public var limitHits: UInt64?
    /// v1 `under_oom`: a task is waiting for memory right now.
    public var underOOM: Bool?

    /// Creates a record.
    public init(version: CGroupVersion, usageBytes: UInt64? = nil, peakBytes: UInt64? = nil, limitBytes: UInt64? = nil,
                oomKills: UInt64? = nil, oomEvents: UInt64? = nil, limitHits: UInt64? = nil, underOOM: Bool? = nil) {
        self.version = version
        self.usageBytes = usageBytes
        self.peakBytes = peakBytes
        self.limitBytes = limitBytes
        self.oomKills = oomKills
        self.oomEvents = oomEvents
        self.limitHits = limitHits
        self.underOOM = underOOM
    }

    /// The v1 limit file reads as a huge page-rounded number when unlimited.
    static let v1Unlimited: UInt64 = 1 << 62

    /// Reads the counters of the memory cgroup at `directory`.
    public static func read(directory d: String, version: CGroupVersion) -> MemoryCounters {
        switch version {
        case .v1:
            let oom = CGroupFiles.readKeyValues(d + "/memory.oom_control")
            let limit = CGroupFiles.readNumber(d + "/memory.limit_in_bytes")
            return MemoryCounters(
                version: .v1,
                usageBytes: CGroupFiles.readNumber(d + "/memory.usage_in_bytes"),
                peakBytes: CGroupFiles.readNumber(d + "/memory.max_usage_in_bytes"),
                limitBytes: limit.flatMap { $0 >= v1Unlimited ? nil : $0 },
                oomKills: oom?["oom_kill"].map { $0 + v1OOMKillsBelow(d) },
                oomEvents: nil,
                // A charge fails at memsw first when swap accounting is on
                // (our cgroups limit it too), else at memory: count both.
                limitHits: CGroupFiles.readNumber(d + "/memory.failcnt").map { $0 + (CGroupFiles.readNumber(d + "/memory.memsw.failcnt") ?? 0) },
                underOOM: oom?["under_oom"].map { $0 != 0 })
        case .v2:
            let events = CGroupFiles.readKeyValues(d + "/memory.events")
            return MemoryCounters(
                version: .v2,
                usageBytes: CGroupFiles.readNumber(d + "/memory.current"),
                peakBytes: CGroupFiles.readNumber(d + "/memory.peak"),
                limitBytes: CGroupFiles.readNumber(d + "/memory.max"),
                oomKills: events?["oom_kill"],
                oomEvents: events?["oom"],
                limitHits: events?["max"],
                underOOM: nil)
        }
    }

    /// cgroup v1: `oom_kill` of each cgroup below `d`, by directory (the
    /// kernel counts a v1 OOM kill only in the killed process's own cgroup).
    static func v1OOMKillsByCgroupBelow(_ d: String) -> [String: UInt64] {
        var out: [String: UInt64] = [:]
        for dir in CGroupDirectory(path: d, version: .v1).subtree().dropFirst() {
            if let n = CGroupFiles.readKeyValues(dir.path + "/memory.oom_control")?["oom_kill"] { out[dir.path] = n }
        }
        return out
    }

    /// cgroup v1: the `oom_kill` counts of the cgroups below `d`, summed.
    static func v1OOMKillsBelow(_ d: String) -> UInt64 { v1OOMKillsByCgroupBelow(d).values.reduce(0, +) }

    /// The file and key the OOM-kill counter comes from, for evidence.
    public static func oomKillSource(_ version: CGroupVersion) -> String {
        version == .v1 ? "memory.oom_control oom_kill" : "memory.events oom_kill"
    }
}
