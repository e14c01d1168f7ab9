import Faultline
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs `memory_limit:` scenarios in fresh memory cgroups (cgroup v1 or
/// v2), classifies each victim's death and writes `oom_kill` reports into
/// the run's report directory. See docs/memory-limits.md.
public struct CGroupMemoryLimitRunner: MemoryLimitRunner {
    /// The `faultline` executable, for the v2 trampoline
    /// (`faultline __cgroup-exec`); v1 needs none.
    public var faultlineExecutable: String?
    /// How often the cgroup's processes and OOM counter are polled
    /// (`FAULTLINE_CGROUP_POLL_MS`, default 10).
    public var pollIntervalMs: Double

    /// A runner; `faultlineExecutable` defaults to this process's executable
    /// (right when the runner is `faultline run` itself).
    public init(faultlineExecutable: String? = CGroupMemoryLimitRunner.ownExecutable(),
                pollIntervalMs: Double = CGroupMemoryLimitRunner.pollIntervalFromEnvironment()) {
        self.faultlineExecutable = faultlineExecutable
        self.pollIntervalMs = pollIntervalMs
    }

    public func prepare(limit bytes: UInt64, label: String) throws -> any MemoryLimitSession {
        do {
            return CGroupMemoryLimitSession(
                run: try MemoryLimitedRun.prepare(limit: bytes, label: label, pollIntervalMs: pollIntervalMs),
                faultlineExecutable: faultlineExecutable)
        } catch {
            throw MemoryLimitError(description: error.description)
        }
    }

    /// `/proc/self/exe` resolved.
    public static func ownExecutable() -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    }

    /// FAULTLINE_CGROUP_POLL_MS when it is a number in 1...1000, else the default.
    public static func pollIntervalFromEnvironment() -> Double {
        let text = ProcessInfo.processInfo.environment["FAULTLINE_CGROUP_POLL_MS"]
        if let text, let v = Double(text), v >= 1, v <= 1000 { return v }
        if let text {
            let line = "faultline: FAULTLINE_CGROUP_POLL_MS=\(text) is not a number of milliseconds in 1...1000; using \(Int(CGroupProcessTracker.defaultIntervalMs))\n"
            _ = line.withCString { write(2, $0, strlen($0)) }
        }
        return CGroupProcessTracker.defaultIntervalMs
    }
}

/// A memory-limit failure, in one line.
public struct MemoryLimitError: Error, CustomStringConvertible {
    public var description: String
}

/// One scenario run's cgroup.
struct CGroupMemoryLimitSession: MemoryLimitSession {
    let run: MemoryLimitedRun
    let faultlineExecutable: String?
    /// Why placing the child before it starts failed (reported by `attach`).
    private let placementError = PlacementError()

    init(run: MemoryLimitedRun, faultlineExecutable: String?) {
        self.run = run
        self.faultlineExecutable = faultlineExecutable
    }

    /// v1: puts the calling thread (the runner spawns from it next) into
    /// the cgroup and returns `command` unchanged; v2: the trampoline.
    func wrap(command: [String]) -> [String] {
        switch run.placement {
        case .spawningThread:
            do { try run.enterForSpawn() } catch { placementError.set(error.description) }
            return command
        case .trampoline:
            guard let faultline = faultlineExecutable else {
                placementError.set("cgroup v2 needs the faultline executable as a trampoline, and it is unknown")
                return command
            }
            return run.trampolineCommand(command, faultline: faultline)
        }
    }

    func attach(pid: pid_t) throws {
        if let why = placementError.get() {
            run.leaveAfterSpawn()
            throw MemoryLimitError(description: "the victim could not be started inside \(run.cgroup.path): \(why)")
        }
        do { try run.attach(pid: pid) } catch { throw MemoryLimitError(description: error.description) }
    }

    func finish(exit: VictimExit) -> MemoryLimitOutcome {
        var status: WaitStatus?
        var timedOut: Double?
        switch exit {
        case .exited(let c): status = .exited(c)
        case .signaled(let s): status = .signaled(s)
        case .timedOut(let t): timedOut = t
        case .notStarted: break
        }
        let result = run.finish(status: status, timedOutAfter: timedOut)
        return MemoryLimitOutcome(
            oomKilled: !result.verdict.oomKills.isEmpty,
            peakBytes: result.evidence.after.peakBytes ?? result.evidence.trace?.maxUsageBytes,
            note: result.summary)
    }
}

/// The placement failure of one session (set on the spawning thread, read in `attach`).
private final class PlacementError: @unchecked Sendable {
    private let lock = NSLock()
    private var message: String?
    func set(_ m: String) { lock.lock(); message = m; lock.unlock() }
    func get() -> String? { lock.lock(); defer { lock.unlock() }; return message }
}
