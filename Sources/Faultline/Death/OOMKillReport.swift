/// Builds the `oom_kill` report for one OOM kill (schema:
/// docs/memory-limits.md): the killed process, the limit, the peak usage,
/// the evidence the verdict rests on and the last breadcrumb the memory
/// monitor left in that process.
public enum OOMKillReport {
    /// The report's `detector`.
    public static let detector = "memory"

    /// Makes the report. `breadcrumbs` are the killed process's, when it ran
    /// the monitor; their `images` become the report's images so the
    /// allocation stacks symbolicate like any other frames.
    public static func make(
        kill: OOMKillAttribution, directChildPid: Int32, cgroup: MemoryCGroup, evidence: DeathEvidence,
        verdict: DeathVerdict, breadcrumbs: MemoryBreadcrumbs?, nowUnixMs: UInt64
    ) -> Report {
        let time = kill.counterRiseUnixMs ?? nowUnixMs
        var report = Report(
            schema: "faultline.report", schemaVersion: 1, id: ReportFileWriter.newID(), kind: "oom_kill",
            detector: detector, time: ReportFileWriter.isoTime(unixMs: time), timeUnixMs: time,
            process: Report.ProcessInfo(pid: Int(kill.pid ?? 0), ppid: kill.ppid.map(Int.init), name: kill.name,
                                        executable: kill.executable))
        let after = evidence.after
        let peak = after.peakBytes ?? evidence.trace?.maxUsageBytes
        report.sections["limit_bytes"] = .number(Double(after.limitBytes ?? cgroup.limitBytes))
        if let peak { report.sections["peak_bytes"] = .number(Double(peak)) }
        report.sections["cgroup"] = .object([
            "version": .number(Double(cgroup.version.rawValue)),
            "path": .string(cgroup.hierarchyPath),
            "directory": .string(cgroup.path),
        ])
        var ev: [String: JSONValue] = [
            "counter": .string(MemoryCounters.oomKillSource(cgroup.version)),
            "oom_kills_before": .number(Double(evidence.before.oomKills ?? 0)),
            "oom_kills_after": after.oomKills.map { .number(Double($0)) } ?? .null,
            "attribution": .string(kill.method),
            "direct_child": .bool(kill.isDirectChild),
            "started_pid": .number(Double(directChildPid)),
            "started_process": .string(verdict.cause.description),
            "reasons": .array(verdict.reasons.map(JSONValue.string)),
        ]
        if kill.pid == nil { ev["pid_known"] = .bool(false) }
        if let s = evidence.status { ev["wait_status"] = .string(s.description) }
        if let hits = after.limitHits { ev["limit_hits"] = .number(Double(hits)) }
        if let events = after.oomEvents { ev["oom_events"] = .number(Double(events)) }
        if let trace = evidence.trace {
            ev["poll_interval_ms"] = .number(trace.intervalMs)
            ev["polls"] = .number(Double(trace.polls))
            ev["notification"] = trace.notification.map(JSONValue.string) ?? .null
            ev["processes_seen"] = .array(trace.processes.map { p in
                var o: [String: JSONValue] = ["pid": .number(Double(p.pid))]
                if let pp = p.ppid { o["ppid"] = .number(Double(pp)) }
                if let n = p.name { o["name"] = .string(n) }
                if let ms = p.vanishedMs { o["left_at_ms"] = .number((ms * 10).rounded() / 10) }
                if let z = p.zombieStatus { o["zombie_status"] = .string(z.description) }
                return .object(o)
            })
        }
        report.sections["evidence"] = .object(ev)
        if let breadcrumbs, let last = breadcrumbs.last, case .object(var crumb) = last.json {
            if let images = crumb.removeValue(forKey: "images"), let decoded = try? images.decode([Report.Image].self) {
                report.images = decoded
            }
            report.sections["last_breadcrumb"] = .object(crumb)
            report.sections["breadcrumbs"] = .array(breadcrumbs.crumbs.map { c in
                var o: [String: JSONValue] = [:]
                for key in ["threshold_percent", "usage_bytes", "peak_bytes", "time_unix_ms"] { o[key] = c.json[key] }
                return .object(o)
            })
        }
        report.sections["detection_ms"] = .number(Double(nowUnixMs >= time ? nowUnixMs - time : 0))
        return report
    }
}
