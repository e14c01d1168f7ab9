import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A victim process: spawned with `posix_spawn` as the leader of a new
/// process group, stdin from /dev/null, stdout and stderr into files.
struct VictimProcess {
    /// What to spawn.
    struct Request {
        /// Absolute path of the program.
        var executable: String
        /// argv, including argv[0].
        var arguments: [String]
        /// The complete environment.
        var environment: [String: String]
        /// Working directory of the child.
        var workingDirectory: String
        /// File that receives stdout.
        var stdoutPath: String
        /// File that receives stderr.
        var stderrPath: String
    }

    /// Why a spawn failed (one line).
    struct SpawnError: Error, CustomStringConvertible {
        var description: String
    }

    /// The child's pid, which is also its process group id.
    let pid: pid_t

    /// Spawns `request`. Signal dispositions and the mask are reset in the
    /// child (the runner ignores SIGINT, and ignored signals survive exec).
    static func spawn(_ request: Request) throws(SpawnError) -> VictimProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let chdir = SpawnExtensions.addChdir {
            _ = chdir(&actions, request.workingDirectory)
        }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        // New files, private like reports (they hold the program's output):
        // a name already there, a planted link included, fails the spawn.
        let created = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW
        posix_spawn_file_actions_addopen(&actions, 1, request.stdoutPath, created, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, request.stderrPath, created, 0o600)
        // Other threads of the runner open files too; none may leak into a victim.
        if let closefrom = SpawnExtensions.addClosefrom { _ = closefrom(&actions, 3) }

        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attr, 0)
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attr, &emptyMask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for sig in 1..<32 where sig != SIGKILL && sig != SIGSTOP { sigaddset(&defaults, Int32(sig)) }
        posix_spawnattr_setsigdefault(&attr, &defaults)

        let argv = request.arguments.map { strdup($0) } + [nil]
        let envp = request.environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, request.executable, &actions, &attr, argv, envp)
        guard rc == 0 else {
            throw SpawnError(description: "cannot start \(request.executable): \(String(cString: strerror(rc)))")
        }
        ProcessGroups.shared.insert(pid)
        return VictimProcess(pid: pid)
    }

    /// Waits for the child to end. At `timeout` seconds the whole process
    /// group gets SIGKILL and the status says so. Whatever is left of the
    /// group when the leader ends is killed too.
    func wait(timeout: Double) -> VictimExit {
        let state = WaitState()
        let pgid = pid
        let timer = DispatchWorkItem {
            state.flags.withLock { s in
                // Only while the leader is unreaped: its id cannot be reused yet.
                if !s.finished {
                    s.timedOut = true
                    kill(-pgid, SIGKILL)
                }
            }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: timer)

        // Wait without reaping, so the group id stays valid for the kills.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        let timedOut = state.flags.withLock { s -> Bool in
            s.finished = true
            return s.timedOut
        }
        timer.cancel()
        ProcessGroups.shared.finish(pid)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return timedOut ? .timedOut(seconds: timeout) : VictimExit(waitStatus: status)
    }
}

/// Shared between the waiting thread and the timeout timer.
private final class WaitState: Sendable {
    let flags = Mutex<(finished: Bool, timedOut: Bool)>((false, false))
}
