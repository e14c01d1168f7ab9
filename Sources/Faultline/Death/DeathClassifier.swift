/// Tells apart the ways a run can end — exit, crash, OOM kill, a kill by
/// the runner or by someone else, timeout — from the wait status, the
/// memory cgroup's OOM-kill counter and what the cgroup tracker saw.
///
/// The rules (docs/memory-limits.md, "Classification"):
/// 1. The counter is the only proof of an OOM kill: a fresh cgroup starts
///    at 0, so every increase is a kill inside this run.
/// 2. The direct child is the victim when it died of SIGKILL that the
///    runner did not send and the counter rose.
/// 3. Other kills are pinned on descendants that left the cgroup at or
///    after the poll that saw the counter rise: first those caught as
///    zombies with a SIGKILL status, then those whose end was not caught.
///    Kills left over stay unattributed (pid unknown).
/// 4. Without a counter increase, SIGKILL is a kill by the runner (when it
///    sent one) or by someone else; fault signals are crashes.
public enum DeathClassifier {
    /// Classifies one run.
    public static func classify(_ e: DeathEvidence) -> DeathVerdict {
        let increase = e.oomKillIncrease ?? 0
        let counter = MemoryCounters.oomKillSource(e.after.version)
        var reasons: [String] = []
        if let a = e.after.oomKills {
            reasons.append("\(counter) went from \(e.before.oomKills ?? 0) to \(a)")
        } else {
            reasons.append("\(counter) could not be read; OOM kills cannot be told apart")
        }
        if let s = e.status { reasons.append("waitpid(\(e.pid)): \(s)") }
        if let sig = e.runnerSignal { reasons.append("the runner sent \(SignalNaming.name(sig))") }
        if let t = e.timedOutAfter { reasons.append("the runner's timeout of \(t) s ran out") }

        var kills: [OOMKillAttribution] = []
        let trace = e.trace
        let firstRise = trace?.rises.first
        let directKilledBySIGKILL = e.status == .signaled(9)
        let runnerKilled = e.runnerSignal == 9 || e.timedOutAfter != nil
        if increase > 0, directKilledBySIGKILL, !runnerKilled {
            let seen = trace?.processes.last { $0.pid == e.pid }
            kills.append(OOMKillAttribution(
                pid: e.pid, ppid: seen?.ppid, name: seen?.name, executable: seen?.executable, isDirectChild: true,
                method: "the process the runner started died of SIGKILL the runner did not send, and \(counter) rose",
                counterRiseUnixMs: firstRise?.unixMs))
        }
        if UInt64(kills.count) < increase, let trace, let firstRise {
            // Descendants that left at or after the rise, SIGKILL zombies first.
            let candidates = trace.processes.filter { p in
                p.pid != e.pid && (p.vanishedPoll ?? 0) >= firstRise.poll
                    && (p.zombieStatus == nil || p.zombieStatus == .signaled(9))
            }.sorted { a, b in
                let za = a.zombieStatus != nil, zb = b.zombieStatus != nil
                return za != zb ? za : (a.vanishedPoll ?? 0) < (b.vanishedPoll ?? 0)
            }
            for p in candidates where UInt64(kills.count) < increase {
                let rise = trace.rises.last { $0.poll <= (p.vanishedPoll ?? 0) } ?? firstRise
                let how = p.zombieStatus != nil
                    ? "its zombie's /proc/\(p.pid)/stat exit status was SIGKILL"
                    : "it left the cgroup (reaped before its status could be read)"
                kills.append(OOMKillAttribution(
                    pid: p.pid, ppid: p.ppid, name: p.name, executable: p.executable, isDirectChild: false,
                    method: "a descendant inside the cgroup: \(counter) rose at poll \(rise.poll) and \(how) at poll \(p.vanishedPoll ?? 0)",
                    counterRiseUnixMs: rise.unixMs))
            }
        }
        while UInt64(kills.count) < increase {
            kills.append(OOMKillAttribution(
                pid: nil, ppid: nil, name: nil, executable: nil, isDirectChild: false,
                method: "\(counter) rose but no process inside was seen leaving afterwards (it lived shorter than one poll)",
                counterRiseUnixMs: firstRise?.unixMs))
        }

        let cause: DeathCause
        if let t = e.timedOutAfter {
            cause = .timedOut(seconds: t)
        } else {
            switch e.status {
            case .exited(let c)?:
                cause = .exited(code: c)
            case .signaled(let s)?:
                if kills.contains(where: \.isDirectChild) {
                    cause = .oomKilled
                } else if SignalNaming.crashSignals.contains(s) {
                    cause = .crashed(signal: s)
                } else {
                    cause = .killed(signal: s, by: e.runnerSignal == s ? .runner : .someoneElse)
                }
            case nil:
                cause = .killed(signal: 9, by: .runner)
            }
        }
        return DeathVerdict(cause: cause, oomKills: kills, reasons: reasons)
    }
}
