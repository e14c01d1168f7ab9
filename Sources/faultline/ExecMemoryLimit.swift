import Faultline
import FaultlineHarness
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `faultline exec --memory-limit SIZE`: the program runs in a fresh memory
/// cgroup (placed there before its first instruction), its death is
/// classified, an OOM kill leaves an `oom_kill` report in the run's report
/// directory, and the cgroup is removed afterwards.
struct ExecMemoryLimit {
    let run: MemoryLimitedRun
    /// Undoes what the command set up before the limit (its report
    /// directory) when the limit fails and faultline exits.
    let beforeFailing: () -> Void

    /// The smallest limit `MemoryCGroup.create` accepts.
    static let minimumBytes: UInt64 = 1 << 20

    /// nil without the option. Exits with a one-line error (64 for a size
    /// that is not one or is below 1 MiB: a value no machine can run the
    /// program with; 69 when no memory cgroup can be made here, or not
    /// with that limit), after `beforeFailing`.
    init?(_ text: String?, program: String, beforeFailing: @escaping () -> Void) {
        guard let text else { return nil }
        self.beforeFailing = beforeFailing
        guard let bytes = Units.bytes(text) else {
            Self.fail("--memory-limit '\(text)' is not a size; write e.g. 64M, 1G or 4096", ExecCommand.usageStatus, beforeFailing)
        }
        // Checked here, not left to MemoryCGroup.create: its error is one
        // of a cgroup that cannot be made (69), and it comes only after the
        // cgroup hierarchy was found (a machine without one said "no
        // cgroup" to a limit of 1 byte).
        guard bytes >= Self.minimumBytes else {
            Self.fail("--memory-limit \(text): memory limit \(bytes) bytes is too small; use at least 1M (the program and its libraries need some)",
                      ExecCommand.usageStatus, beforeFailing)
        }
        do {
            run = try MemoryLimitedRun.prepare(limit: bytes, label: (program as NSString).lastPathComponent)
        } catch {
            Self.fail("--memory-limit \(text): \(error)", ExecCommand.unavailableStatus, beforeFailing)
        }
    }

    /// What to spawn, and with which environment: on cgroup v1 the calling
    /// thread joins the cgroup until `attach` (the program is spawned from
    /// it); on v2 the program is wrapped in `faultline __cgroup-exec`, which
    /// gets the preload variables as arguments so the agent does not load
    /// into the trampoline itself.
    func spawnCommand(_ executable: String, _ argv: [String], environment: [String: String])
        -> (executable: String, argv: [String], environment: [String: String]) {
        switch run.placement {
        case .spawningThread:
            do { try run.enterForSpawn() } catch { Self.fail("--memory-limit: \(error)", ExecCommand.unavailableStatus, beforeFailing) }
            return (executable, argv, environment)
        case .trampoline:
            guard let me = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
                Self.fail("--memory-limit: cannot find the faultline executable (/proc/self/exe) for the cgroup v2 trampoline", ExecCommand.unavailableStatus, beforeFailing)
            }
            var env = environment
            let pass = env.removeValue(forKey: "LD_PRELOAD").map { ["LD_PRELOAD=\($0)"] } ?? []
            return (me, run.trampolineCommand([executable] + argv.dropFirst(), faultline: me, environment: pass), env)
        }
    }

    /// Right after spawning `pid`.
    func attach(_ pid: pid_t, reportDirectory: String) {
        do { try run.attach(pid: pid, reportDirectory: reportDirectory) } catch {
            ReportCommand.stderr("faultline: --memory-limit: \(error)")
        }
    }

    /// After the program ended: classification, `oom_kill` reports, cleanup.
    func finish(_ termination: ChildProcess.Termination) {
        let status: WaitStatus
        switch termination {
        case .exited(let c): status = .exited(c)
        case .signaled(let s): status = .signaled(s)
        }
        let result = run.finish(status: status)
        ReportCommand.stderr("faultline: memory limit \(ByteCount.describe(run.cgroup.limitBytes)): \(result.summary)")
    }

    private static func fail(_ message: String, _ status: Int32, _ beforeFailing: () -> Void) -> Never {
        beforeFailing()
        ReportCommand.stderr("faultline: \(message)")
        Foundation.exit(status)
    }
}
